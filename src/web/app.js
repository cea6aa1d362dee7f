// The single-page app: one state (the signed-in account and the events
// stream), a router over the History API, and pages loaded on demand.

import { api, logOut, onSession, session } from './api.js';
import { follow } from './sse.js';
import { append, btn, clear, h, setTimeZone, toast } from './ui.js';

/** @type {[RegExp, string][]} */
const ROUTES = [
  [/^\/$/, 'home'],
  [/^\/login$/, 'login'],
  [/^\/register$/, 'register'],
  [/^\/verify$/, 'verify'],
  [/^\/settings$/, 'settings'],
  [/^\/new$/, 'newgame'],
  [/^\/games\/([0-9a-fA-F-]{36})$/, 'game'],
  [/^\/users\/([A-Za-z0-9_-]{1,64})$/, 'user'],
];

/** What every page shares. */
export const app = {
  me: null,
  subscribers: new Set(),
  /** Hear each of my events (objects of GET /me/events) while signed in. */
  onEvent(fn) { this.subscribers.add(fn); return () => this.subscribers.delete(fn); },
  navigate(path, { replace = false } = {}) {
    if (replace) history.replaceState(null, '', path); else history.pushState(null, '', path);
    route();
  },
  signedIn() { return !!session(); },
  async loadMe() {
    if (!session()) { this.me = null; setTimeZone(undefined); return null; }
    try {
      this.me = await api('GET', '/me');
      setTimeZone(this.me.time_zone);
    } catch (e) {
      this.me = null;
    }
    return this.me;
  },
};

let cleanup = null;
let stream = null;
let generation = 0;

function startEvents() {
  if (stream || !session()) return;
  stream = follow('/api/v1/me/events/stream', {
    auth: true,
    onEvent: ({ data }) => app.subscribers.forEach((fn) => fn(data)),
    onState: (st) => { if (st === 'ended') { stream = null; } },
  });
}
function stopEvents() {
  if (stream) stream.close();
  stream = null;
}

function renderNav() {
  const nav = document.getElementById('nav');
  const s = session();
  if (s) {
    // The session's end draws the page once (onSession below): the login page.
    const out = btn('Log out', () => { history.pushState(null, '', '/login'); logOut(); }, { class: 'link' });
    clear(nav,
      h('a', { href: '/' }, 'My games'),
      h('a', { href: '/new' }, 'New game'),
      h('a', { href: '/settings' }, 'Settings'),
      h('a', { href: `/users/${encodeURIComponent(s.username)}`, class: 'who', 'aria-label': `Your profile (${s.username})` }, s.username),
      out);
  } else {
    clear(nav, h('a', { href: '/login' }, 'Log in'), h('a', { href: '/register' }, 'Register'));
  }
  nav.querySelectorAll('a').forEach((a) => {
    if (a.getAttribute('href') === location.pathname) a.setAttribute('aria-current', 'page');
  });
}

async function route() {
  const gen = ++generation;
  if (cleanup) { try { cleanup(); } catch { /* page already gone */ } cleanup = null; }
  const path = location.pathname;
  let page = 'notfound';
  let params = [];
  for (const [re, name] of ROUTES) {
    const m = re.exec(path);
    if (m) { page = name; params = m.slice(1); break; }
  }
  renderNav();
  const main = document.getElementById('main');
  main.setAttribute('aria-busy', 'true');
  let mod;
  try {
    mod = await import(`./pages/${page}.js`);
  } catch (e) {
    clear(main, h('p', { class: 'form-error' }, 'This page could not be loaded. Reload to try again.'));
    return;
  }
  if (gen !== generation) return;
  clear(main);
  main.removeAttribute('aria-busy');
  const query = new URLSearchParams(location.search);
  let result;
  try {
    result = await mod.render(main, { params, query, app });
  } catch (e) {
    if (gen === generation) append(main, [h('p', { class: 'form-error' }, e.detail || 'Something went wrong on this page. Reload to try again.')]);
    return;
  }
  if (gen !== generation) { if (typeof result === 'function') result(); return; }
  cleanup = typeof result === 'function' ? result : null;
  const heading = main.querySelector('h1');
  if (heading) document.title = `${heading.textContent} — Sannin`;
}

document.addEventListener('click', (e) => {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = e.target instanceof Element ? /** @type {HTMLAnchorElement | null} */ (e.target.closest('a[href]')) : null;
  if (!a || a.target || a.hasAttribute('download')) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin) return;
  if (/^\/(api|docs|web|healthz|readyz)(\/|$)/.test(url.pathname)) return;
  e.preventDefault();
  if (url.pathname + url.search === location.pathname + location.search) return;
  app.navigate(url.pathname + url.search + url.hash);
  document.getElementById('main').focus({ preventScroll: true });
  window.scrollTo(0, 0);
});
window.addEventListener('popstate', route);

let wasSignedIn = !!session();
onSession(async (s) => {
  renderNav();
  if (!!s === wasSignedIn) return;
  wasSignedIn = !!s;
  if (s) { await app.loadMe(); startEvents(); } else {
    stopEvents();
    app.me = null;
    toast('You are logged out.');
    route();
  }
});

// Tell about my events that happen away from their game's page.
app.onEvent((ev) => setTimeout(() => {
  // Later, so that a game just created or joined here is the page by then.
  if (location.pathname === `/games/${ev.game_id}`) return;
  const words = {
    'game.your_turn': 'It is your move in a game.',
    'game.invited': 'You are invited to a game.',
    'game.started': 'A game of yours has started.',
    'game.finished': 'A game of yours has finished.',
    'game.alliance_proposed': 'Someone proposes an alliance to you.',
    'game.draw_offered': 'A draw is offered in one of your games.',
    'game.chat': 'New chat message in one of your games.',
  }[ev.type];
  if (words) toast(h('span', {}, `${words} `, h('a', { href: `/games/${ev.game_id}` }, 'Open the game')));
}, 1500));

(async () => {
  await app.loadMe();
  if (app.me) startEvents();
  route();
})();
