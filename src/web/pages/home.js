import { api } from '../api.js';
import { gameItem, myPlayer } from '../games.js';
import { btn, busy, h, toast } from '../ui.js';

export async function render(main, { app, query }) {
  if (!app.signedIn()) return welcome(main);
  const me = app.me || await app.loadMe();
  main.append(h('h1', {}, 'My games'));
  if (query.get('welcome')) {
    main.append(h('p', { class: 'notice' }, `Welcome, ${me ? me.username : ''}! Start a game against two computer players with `, h('a', { href: '/new' }, 'New game'), ', or join an open game below.'));
  }
  if (me && !me.email_verified) {
    const again = btn('Send the link again', () => busy(again, async () => {
      try { await api('POST', '/me/email/verification'); toast(`A new link is on its way to ${me.email}.`); } catch (e) { toast(e.detail, 'error'); }
    }), { class: 'small' });
    main.append(h('p', { class: 'notice' }, `Please confirm your address: follow the link we sent to ${me.email}. Until then you get no mail about your games. `, again));
  }
  const actions = h('p', { class: 'actions' }, h('a', { class: 'button primary', href: '/new' }, 'New game'));
  const mine = h('div', { 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Loading your games…'));
  const open = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
  const rating = h('div', {});
  main.append(actions, mine,
    h('section', { 'aria-labelledby': 'open-h' }, h('h2', { id: 'open-h' }, 'Open games to join'), open),
    h('section', { 'aria-labelledby': 'rating-h' }, h('h2', { id: 'rating-h' }, 'My rating'), rating));

  async function load() {
    try {
      const [list, others, profile] = await Promise.all([
        api('GET', '/games', { query: { limit: 100 } }),
        api('GET', '/games', { query: { mine: false, status: 'open', limit: 20 } }),
        me ? api('GET', '/users/{username}', { params: { username: me.username } }) : null,
      ]);
      showMine(list.games);
      showOpen(others.games.filter((g) => !myPlayer(g)));
      showRating(profile);
    } catch (e) {
      mine.replaceChildren(h('p', { class: 'form-error' }, e.detail));
    }
  }

  function section(title, games, extra) {
    if (!games.length) return null;
    const id = `h-${title.replace(/\W+/g, '-').toLowerCase()}`;
    return h('section', { 'aria-labelledby': id }, h('h2', { id }, title, ' ', h('span', { class: 'count' }, `(${games.length})`)),
      h('ul', { class: 'games' }, games.map((g) => gameItem(g, extra ? extra(g) : []))));
  }

  function showMine(games) {
    const invited = (g) => g.status === 'open' && (myPlayer(g) || {}).state === 'invited';
    const yourMove = games.filter((g) => g.status === 'active' && g.your_turn);
    const invites = games.filter(invited);
    const waiting = games.filter((g) => g.status === 'active' && !g.your_turn);
    const starting = games.filter((g) => g.status === 'open' && !invited(g));
    const done = games.filter((g) => !['active', 'open'].includes(g.status)).slice(0, 10);
    const parts = [
      section('Your move', yourMove),
      section('Invitations', invites, (g) => answerButtons(g)),
      section('Waiting for the others', waiting),
      section('Waiting to start', starting),
      section('Finished lately', done),
    ].filter(Boolean);
    mine.replaceChildren(...(parts.length ? parts : [h('p', {}, 'You have no games yet. Start one with "New game", or join an open game below.')]));
  }

  function answerButtons(g) {
    const accept = btn('Accept invitation', () => busy(accept, async () => {
      try { await api('POST', '/games/{id}/join', { params: { id: g.id } }); app.navigate(`/games/${g.id}`); } catch (e) { toast(e.detail, 'error'); }
    }), { class: 'primary' });
    const decline = btn('Decline invitation', () => busy(decline, async () => {
      try { await api('POST', '/games/{id}/decline', { params: { id: g.id } }); toast('Invitation declined.'); load(); } catch (e) { toast(e.detail, 'error'); }
    }));
    return [accept, decline];
  }

  function showOpen(games) {
    if (!games.length) {
      open.replaceChildren(h('p', { class: 'muted' }, 'No open games right now. Create one with open seats and others can join it.'));
      return;
    }
    open.replaceChildren(h('ul', { class: 'games' }, games.map((g) => {
      const join = btn('Join this game', () => busy(join, async () => {
        try { await api('POST', '/games/{id}/join', { params: { id: g.id } }); app.navigate(`/games/${g.id}`); } catch (e) { toast(e.detail, 'error'); }
      }), { class: 'primary' });
      return gameItem(g, [join]);
    })));
  }

  function showRating(p) {
    if (!p) return;
    const r = p.rating;
    rating.replaceChildren(r
      ? h('p', {}, h('strong', { class: 'big' }, r.display.toFixed(1)), ` after ${r.games} rated game${r.games === 1 ? '' : 's'}`,
        r.provisional ? ' (provisional until 10 rated games)' : '', '. ', h('a', { href: `/users/${encodeURIComponent(p.username)}` }, 'Rating history'))
      : h('p', {}, 'No rating yet: it starts with your first rated game.'));
  }

  let pending = null;
  const off = app.onEvent(() => {
    clearTimeout(pending);
    pending = setTimeout(load, 300);
  });
  await load();
  const tick = setInterval(load, 60000);
  return () => { off(); clearTimeout(pending); clearInterval(tick); };
}

function welcome(main) {
  main.append(
    h('h1', {}, 'Sannin: shogi for three'),
    h('p', { class: 'lead' }, 'Play sannin shogi, the three-player shogi on a hexagonal board, at your own pace: make a move when you have time, and the game waits for the others.'),
    h('p', { class: 'actions' }, h('a', { class: 'button primary', href: '/register' }, 'Register'), h('a', { class: 'button', href: '/login' }, 'Log in')),
    h('section', {}, h('h2', {}, 'The game in short'),
      h('ul', {},
        h('li', {}, 'Three players, First, Middle and Last, each with a king and 17 other pieces, take turns in that order.'),
        h('li', {}, 'Checkmate a king and that player is out; the last player standing wins. A king that reaches the centre cell, the Pleasure Garden, wins at once (unless its player is in an alliance).'),
        h('li', {}, 'Two players may ally against the third. Captured pieces can be dropped back onto the board, as in shogi.'),
        h('li', {}, 'Computer players of five levels are always ready for a game.'))),
  );
}
