// The public API under /api/v1, as any third-party client uses it: bearer
// tokens kept in localStorage, refreshed (and so rotated) before they expire
// or after a 401, one refresh at a time across tabs, since presenting a
// spent refresh token ends the whole session.

/** @import { ApiPath, Method, Options, Schemas, Session } from 'sannin-api' */
/** @import { ProblemLike } from 'sannin-web' */

const KEY = 'sannin.session';
const BASE = '/api/v1';

export class ApiError extends Error {
  /** @param {number} status @param {ProblemLike} problem */
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.code = problem.code || '';
    this.detail = problem.detail || problem.title || 'Something went wrong.';
    /** @type {Schemas['FieldError'][] | null} */
    this.errors = problem.errors || null;
    this.retryAfter = problem.retryAfter || null;
  }
}

/** @type {Set<(s: Session | null) => void>} */
const listeners = new Set();
/**
 * Call `fn(session)` whenever the session changes (here or in another tab).
 * @param {(s: Session | null) => void} fn
 */
export function onSession(fn) { listeners.add(fn); return () => listeners.delete(fn); }
function notify() { const s = session(); listeners.forEach((fn) => fn(s)); }
window.addEventListener('storage', (e) => { if (e.key === KEY) notify(); });

/** @returns {Session | null} */
export function session() {
  try { return JSON.parse(localStorage.getItem(KEY) || 'null'); } catch { return null; }
}
/** @param {Schemas['TokenResponse']} tokens @param {string} username */
function store(tokens, username) {
  /** @type {Session} */
  const s = {
    access: tokens.access_token,
    refresh: tokens.refresh_token,
    expiresAt: Date.now() + (tokens.expires_in || 900) * 1000,
    username,
  };
  localStorage.setItem(KEY, JSON.stringify(s));
  return s;
}
export function forget() { localStorage.removeItem(KEY); notify(); }

/** With the Web Locks API, tabs take turns; without it, this tab alone is careful. */
/** @type {Promise<unknown>} */
let localLock = Promise.resolve();
/** @template T @param {() => Promise<T>} fn @returns {Promise<T>} */
function exclusively(fn) {
  // The lock's promise settles as `fn`'s does.
  if (navigator.locks) return /** @type {Promise<T>} */ (navigator.locks.request('sannin.refresh', fn));
  const run = localLock.then(fn, fn);
  localLock = run.catch(() => {});
  return run;
}

/**
 * Trade the refresh token for a new pair, unless another tab already did
 * since `staleAccess` was read. Resolves to the session, or null when it ended.
 * @param {string} staleAccess @returns {Promise<Session | null>}
 */
export function refresh(staleAccess) {
  return exclusively(async () => {
    const s = session();
    if (!s) return null;
    if (s.access !== staleAccess && s.expiresAt - Date.now() > 60e3) return s;
    /** @type {Schemas['RefreshRequest']} */
    const body = { refresh_token: s.refresh };
    let r;
    try {
      r = await fetch(`${BASE}/auth/refresh`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(body),
      });
    } catch {
      return s; // offline: keep the session, the caller's request fails on its own
    }
    if (r.ok) {
      /** @type {Schemas['TokenResponse']} */
      const tokens = await r.json();
      const next = store(tokens, s.username);
      notify();
      return next;
    }
    if (r.status === 429 || r.status >= 500) return s;
    forget();
    return null;
  });
}

async function bearer() {
  let s = session();
  if (s && s.expiresAt - Date.now() < 60e3) s = await refresh(s.access);
  return s;
}

/** @param {Response} r @returns {Promise<ProblemLike>} */
async function problemOf(r) {
  /** @type {ProblemLike} */
  let p = {};
  try { p = await r.json(); } catch { /* not JSON */ }
  if (!p.detail) {
    p.detail = /** @type {Record<number, string>} */ ({
      429: 'Too many requests just now. Wait a moment and try again.',
      503: 'The server is busy. Try again in a moment.',
      502: 'The server cannot be reached.',
      504: 'The server did not answer in time.',
    })[r.status] || `The server answered with an error (${r.status}).`;
  }
  p.retryAfter = Number(r.headers.get('Retry-After')) || null;
  return p;
}

/**
 * A path of the document made concrete: `{name}` placeholders filled from
 * `params`, then the query (its undefined values left out).
 * @param {string} path
 * @param {Record<string, string | number> | undefined} params
 * @param {Record<string, string | number | boolean | null | undefined> | undefined} query
 */
export function pathOf(path, params, query) {
  let out = path.replace(/\{(\w+)\}/g, (_, name) => encodeURIComponent((params || {})[name]));
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query || {})) if (v !== undefined && v !== null) q.set(k, String(v));
  if ([...q].length) out += `?${q}`;
  return out;
}

/**
 * Call the API: `path` is the document's (without /api/v1), `opts.params` fill
 * it, `opts.query` is its query, `opts.body` is sent as JSON; `opts.anonymous`
 * sends no token, `opts.etag` asks for 304. Resolves to the answer typed by the
 * document (null for 204 and 304), its ETag and status. Rejects with ApiError.
 * @type {import('sannin-api').ApiFull}
 */
export const apiFull = async (method, path, opts) => {
  const o = /** @type {Options<ApiPath, Method>} */ (opts || {});
  const url = BASE + pathOf(path, o.params, o.query);
  /** @param {Session | null} s */
  const send = async (s) => {
    /** @type {Record<string, string>} */
    const headers = { Accept: o.accept || 'application/json' };
    if (s && !o.anonymous) headers.Authorization = `Bearer ${s.access}`;
    if (o.body !== undefined) headers['Content-Type'] = 'application/json';
    if (o.etag) headers['If-None-Match'] = o.etag;
    return fetch(url, {
      method,
      headers,
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
      signal: o.signal,
    });
  };
  let s = o.anonymous ? null : await bearer();
  let r;
  try {
    r = await send(s);
    if (r.status === 401 && s) {
      s = await refresh(s.access);
      if (s) r = await send(s);
    }
    if (r.status === 503 && (method === 'GET' || o.idempotent)) {
      const wait = Math.min(5, Number(r.headers.get('Retry-After')) || 2);
      await new Promise((ok) => setTimeout(ok, wait * 1000));
      r = await send(s);
    }
  } catch (e) {
    if (e instanceof Error && e.name === 'AbortError') throw e;
    throw new ApiError(0, { detail: 'Cannot reach the server. Check your connection and try again.', code: 'offline' });
  }
  if (!r.ok && r.status !== 304) throw new ApiError(r.status, await problemOf(r));
  let body = null;
  if (r.status !== 204 && r.status !== 304) {
    const type = r.headers.get('Content-Type') || '';
    body = type.includes('json') ? await r.json() : await r.text();
  }
  return { body, etag: r.headers.get('ETag'), status: r.status };
};

/** `apiFull()`'s answer alone. @type {import('sannin-api').Api} */
export const api = async (method, path, opts) => /** @type {any} */ ((await apiFull(method, path, opts)).body);

/** @param {string} username @param {string} password */
export async function logIn(username, password) {
  const tokens = await api('POST', '/auth/token', { body: { username, password }, anonymous: true });
  store(tokens, username);
  const me = await api('GET', '/me');
  const s = session();
  if (s) {
    s.username = me.username;
    localStorage.setItem(KEY, JSON.stringify(s));
  }
  notify();
  return me;
}

export async function logOut() {
  const s = session();
  forget();
  if (s) {
    try { await api('POST', '/auth/logout', { body: { refresh_token: s.refresh }, anonymous: true }); } catch { /* the session is gone here either way */ }
  }
}

/** The access token for a stream's request, fresh. */
export async function streamToken() {
  const s = await bearer();
  return s ? s.access : null;
}
