// The public API under /api/v1, as any third-party client uses it: bearer
// tokens kept in localStorage, refreshed (and so rotated) before they expire
// or after a 401, one refresh at a time across tabs, since presenting a
// spent refresh token ends the whole session.

const KEY = 'sannin.session';
const BASE = '/api/v1';

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.code = problem.code || '';
    this.detail = problem.detail || problem.title || 'Something went wrong.';
    this.errors = problem.errors || null;
    this.retryAfter = problem.retryAfter || null;
  }
}

const listeners = new Set();
/** Call `fn(session)` whenever the session changes (here or in another tab). */
export function onSession(fn) { listeners.add(fn); return () => listeners.delete(fn); }
function notify() { const s = session(); listeners.forEach((fn) => fn(s)); }
window.addEventListener('storage', (e) => { if (e.key === KEY) notify(); });

export function session() {
  try { return JSON.parse(localStorage.getItem(KEY)); } catch { return null; }
}
function store(tokens, username) {
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
let localLock = Promise.resolve();
function exclusively(fn) {
  if (navigator.locks) return navigator.locks.request('sannin.refresh', fn);
  const run = localLock.then(fn, fn);
  localLock = run.catch(() => {});
  return run;
}

/**
 * Trade the refresh token for a new pair, unless another tab already did
 * since `staleAccess` was read. Resolves to the session, or null when it ended.
 */
export function refresh(staleAccess) {
  return exclusively(async () => {
    const s = session();
    if (!s) return null;
    if (s.access !== staleAccess && s.expiresAt - Date.now() > 60e3) return s;
    let r;
    try {
      r = await fetch(`${BASE}/auth/refresh`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ refresh_token: s.refresh }),
      });
    } catch {
      return s; // offline: keep the session, the caller's request fails on its own
    }
    if (r.ok) {
      const next = store(await r.json(), s.username);
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

async function problemOf(r) {
  let p = {};
  try { p = await r.json(); } catch { /* not JSON */ }
  if (!p.detail) {
    p.detail = {
      429: 'Too many requests just now. Wait a moment and try again.',
      503: 'The server is busy. Try again in a moment.',
      502: 'The server cannot be reached.',
      504: 'The server did not answer in time.',
    }[r.status] || `The server answered with an error (${r.status}).`;
  }
  p.retryAfter = Number(r.headers.get('Retry-After')) || null;
  return p;
}

/**
 * Call the API. `opts.body` is sent as JSON; `opts.anonymous` sends no token;
 * `opts.etag` asks for 304. Resolves to the parsed answer (null for 204/304),
 * or `{body, etag, status}` with `opts.full`. Rejects with ApiError.
 */
export async function api(method, path, opts = {}) {
  const send = async (s) => {
    const headers = { Accept: opts.accept || 'application/json' };
    if (s && !opts.anonymous) headers.Authorization = `Bearer ${s.access}`;
    if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
    if (opts.etag) headers['If-None-Match'] = opts.etag;
    return fetch(BASE + path, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: opts.signal,
    });
  };
  let s = opts.anonymous ? null : await bearer();
  let r;
  try {
    r = await send(s);
    if (r.status === 401 && s) {
      s = await refresh(s.access);
      if (s) r = await send(s);
    }
    if (r.status === 503 && (method === 'GET' || opts.idempotent)) {
      const wait = Math.min(5, Number(r.headers.get('Retry-After')) || 2);
      await new Promise((ok) => setTimeout(ok, wait * 1000));
      r = await send(s);
    }
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError(0, { detail: 'Cannot reach the server. Check your connection and try again.', code: 'offline' });
  }
  if (!r.ok && r.status !== 304) throw new ApiError(r.status, await problemOf(r));
  let body = null;
  if (r.status !== 204 && r.status !== 304) {
    const type = r.headers.get('Content-Type') || '';
    body = type.includes('json') ? await r.json() : await r.text();
  }
  return opts.full ? { body, etag: r.headers.get('ETag'), status: r.status } : body;
}

export async function logIn(username, password) {
  const tokens = await api('POST', '/auth/token', { body: { username, password }, anonymous: true });
  store(tokens, username);
  const me = await api('GET', '/me');
  const s = session();
  s.username = me.username;
  localStorage.setItem(KEY, JSON.stringify(s));
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
