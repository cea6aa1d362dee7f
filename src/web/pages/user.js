import { api } from '../api.js';
import { gameItem } from '../games.js';
import { day, h, shortWhen } from '../ui.js';

export async function render(main, { params, app }) {
  const name = decodeURIComponent(params[0]);
  main.append(h('h1', {}, name));
  let p;
  try { p = await api('GET', '/users/{username}', { params: { username: name }, anonymous: true }); } catch (e) {
    main.append(h('p', {}, e.status === 404 ? 'There is no player of that name.' : e.detail));
    return;
  }
  const r = p.rating;
  main.append(
    h('p', {}, p.bot ? `A computer player${p.level ? `, level ${p.level} of 5` : ''}.` : `Playing since ${day(p.created_at)}.`),
    h('p', {}, r ? [h('strong', { class: 'big' }, r.display.toFixed(1)), ` rating after ${r.games} rated game${r.games === 1 ? '' : 's'}${r.provisional ? ' (provisional until 10 rated games)' : ''}.`] : 'No rated games yet.'),
  );
  try {
    const hist = await api('GET', '/users/{username}/ratings', { params: { username: name }, query: { limit: 20 }, anonymous: true });
    const items = (Array.isArray(hist) ? hist : []).map((x) => h('li', {},
      h('a', { href: `/games/${x.game_id}` }, `Place ${x.place}`), `: ${x.before.display.toFixed(1)} → ${x.after.display.toFixed(1)} · ${shortWhen(x.finished_at)}`));
    if (items.length) main.append(h('h2', {}, 'Rated games'), h('ol', { class: 'plain' }, items));
  } catch { /* no history */ }
  if (app.signedIn()) {
    try {
      const list = await api('GET', '/games', { query: { mine: false, status: 'active', player: name, limit: 20 } });
      if (list.games.length) main.append(h('h2', {}, 'Games in play'), h('ul', { class: 'games' }, list.games.map((g) => gameItem(g))));
    } catch { /* optional */ }
  }
}
