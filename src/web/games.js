// Words about games shared by the pages: who sits where, what state a game is in.

import { session } from './api.js';
import { SEAT_NAME, resultWords } from './position.js';
import { duration, h, shortWhen, timeControlWords, when } from './ui.js';
/** @import { Schemas } from 'sannin-api' */

/**
 * A game as the API shows it: in full, or as an item of a list.
 * @typedef {Schemas['GameView'] | Schemas['GameSummary']} AnyGame @typedef {Schemas['PlayerView']} Player
 */

/**
 * My player in a game: `your_seat` once I sit in it, else (an invitation
 * not yet answered, where the API gives no `your_seat`) by my username.
 */
/** @param {AnyGame} g @returns {Player | null} */
export function myPlayer(g) {
  const s = session();
  return g.players.find((p) => p.seat === g.your_seat)
    || (s ? g.players.find((p) => p.username === s.username) : null) || null;
}

/** @param {Player | null | undefined} p */
export function playerName(p) {
  if (!p) return '';
  if (p.username) return p.username;
  if (p.label) return p.label;
  return p.state === 'open' ? 'open seat' : 'nobody yet';
}

/**
 * seat -> display name, for a game's players.
 * @param {AnyGame} game @returns {(seat: string | null | undefined) => string}
 */
export function namer(game) {
  const by = Object.fromEntries(game.players.map((p) => [p.seat, p]));
  const mine = myPlayer(game);
  return (seat) => {
    if (!seat) return '';
    const p = by[seat];
    const n = playerName(p);
    return mine && mine.seat === seat ? `${n} (you)` : n;
  };
}

/** @param {AnyGame} g */
export function statusWords(g) {
  const name = namer(g);
  const me = myPlayer(g);
  switch (g.status) {
    case 'open':
      if (me && me.state === 'invited') return 'You are invited: accept or decline';
      return 'Waiting for players';
    case 'active':
      if (g.your_turn) return 'Your move';
      if (me && me.state === 'eliminated') return `You are out; ${name(g.to_move)} to move`;
      return g.to_move ? `${name(g.to_move)} to move` : 'In play';
    case 'finished':
      return resultWords(g.result, name) || 'Finished';
    case 'cancelled': return 'Cancelled';
    case 'expired': return 'Lapsed: the seats were not filled in time';
    case 'analysis': return 'Imported, unfinished';
    default: return g.status;
  }
}

/** @param {AnyGame} g */
export function deadlineWords(g) {
  if (!g.deadline || g.status !== 'active') return null;
  const left = (new Date(g.deadline).getTime() - Date.now()) / 1000;
  const who = g.your_turn ? 'Move by' : 'Due';
  return `${who} ${when(g.deadline)} (${left > 0 ? `${duration(left)} left` : 'time is up'})`;
}

/** A game as a list item with a link to its page. @param {AnyGame} g @param {HTMLElement[]} [extra] */
export function gameItem(g, extra = []) {
  const name = namer(g);
  const players = g.players.map((p) => h('span', { class: `seat-chip owner-${p.seat}`, title: SEAT_NAME[p.seat] },
    h('span', { class: 'dot', 'aria-hidden': 'true' }), `${SEAT_NAME[p.seat]}: ${name(p.seat)}`,
    p.state === 'invited' ? ' (invited)' : '', p.state === 'eliminated' ? ' (out)' : ''));
  const dl = deadlineWords(g);
  return h('li', { class: ['game-item', g.your_turn && 'your-turn'] },
    h('div', { class: 'game-line' },
      h('a', { href: `/games/${g.id}`, class: 'game-link' }, statusWords(g)),
      h('span', { class: 'muted' }, g.status === 'active' ? `move ${g.ply}` : `${g.status === 'open' ? 'created' : 'ended'} ${shortWhen(g.status === 'open' ? g.created_at : g.updated_at)}`)),
    h('div', { class: 'players' }, players),
    h('div', { class: 'muted small' },
      [timeControlWords(g.time_control), g.rated ? 'rated' : 'not rated', dl].filter(Boolean).join(' · ')),
    extra.length ? h('div', { class: 'actions' }, extra) : null);
}
