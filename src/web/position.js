// The game as data: cell names and geometry (RULES.md R1-R3), the position
// string (R32), move strings (R33) and their plain-words descriptions.
// Knows nothing of the server or the page.

/** @import { Schemas } from 'sannin-api' */
/** @import { Kind, Move, Piece, Position, Seat } from 'sannin-web' */

/** @type {Schemas['Seat'][]} */
export const SEATS = ['first', 'middle', 'last'];
/** @type {Record<Seat, string>} */
export const SEAT_LETTER = { first: 'f', middle: 'm', last: 'l' };
/** @type {Record<string, Seat>} */
export const LETTER_SEAT = { f: 'first', m: 'middle', l: 'last' };
/** @type {Record<Seat, string>} */
export const SEAT_NAME = { first: 'First', middle: 'Middle', last: 'Last' };

/** @type {Record<Kind, string>} */
export const PIECE_NAME = {
  K: 'king', R: 'rook', B: 'bishop', G: 'gold', S: 'silver', N: 'knight', L: 'lance', P: 'pawn',
};
/** @type {Kind[]} */
export const HAND_ORDER = ['R', 'B', 'G', 'S', 'N', 'L', 'P'];
const RANKS = 'abcdefghijklm';

/** Every cell in reading order (R3): rank a..m, columns high to low. */
/** @type {string[]} */
export const CELLS = [];
for (let r = 0; r < 13; r++) {
  for (let c = Math.min(13, r + 7); c >= Math.max(1, r - 5); c--) CELLS.push(c + RANKS[r]);
}

/** @param {string} name */
/** A seat as requests name it (views give plain strings). @param {string | null | undefined} name @returns {Schemas['Seat']} */
export function asSeat(name) {
  const seat = SEATS.find((s) => s === name);
  if (!seat) throw new Error(`not a seat: ${name}`);
  return seat;
}

/** @param {string} name */
export function parseCell(name) {
  const m = /^(\d{1,2})([a-m])$/.exec(name);
  if (!m) return null;
  return { c: Number(m[1]), r: RANKS.indexOf(m[2]) };
}

/**
 * Screen coordinates of a cell, one cell wide, centre 7g at (0, 0), as seen
 * from `view` (the seat at the bottom): Middle's picture turned by 120° for
 * First (clockwise) or Last (counter-clockwise).
 * @param {string} name @param {Seat} [view] @returns {[number, number]}
 */
export function cellXY(name, view = 'middle') {
  const { c, r } = cell(name);
  const x = (4 - c) + r / 2;
  const y = (r - 6) * Math.sqrt(3) / 2;
  return rotate(x, y, VIEW_TURN[view]);
}
/** @param {string} name */
function cell(name) {
  const p = parseCell(name);
  if (!p) throw new Error(`not a cell: ${name}`);
  return p;
}
/** @type {Record<Seat, number>} */
export const VIEW_TURN = { middle: 0, first: 120, last: -120 };
/** @param {number} x @param {number} y @param {number} deg @returns {[number, number]} */
export function rotate(x, y, deg) {
  const a = deg * Math.PI / 180;
  return [x * Math.cos(a) - y * Math.sin(a), x * Math.sin(a) + y * Math.cos(a)];
}
/**
 * The screen angle (degrees, clockwise from right) of an owner's forward, in a view.
 * @param {Seat} owner @param {Seat} view
 */
export function forwardAngle(owner, view) {
  const hour = /** @type {Record<Seat, number>} */ ({ middle: 12, last: 4, first: 8 })[owner] || 12;
  return -90 + 30 * hour + (VIEW_TURN[view] || 0);
}

/** Territories (R8) and the Garden (R5). @param {string} name @returns {Seat | null} */
export function territoryOf(name) {
  const { c, r } = cell(name);
  if (c <= 3) return 'first';
  if (r >= 10) return 'middle';
  if (c - r >= 5) return 'last';
  return null;
}

/**
 * The position string (R32) as a map cell -> {owner, kind, promoted}, and the rest of its fields.
 * @param {string} text @returns {Position}
 */
export function parsePosition(text) {
  const [board, toMove, hands, alliance, castling, ply] = text.split(' ');
  /** @type {Map<string, Piece>} */
  const cells = new Map();
  const ranks = board.split('/');
  ranks.forEach((rank, r) => {
    const row = CELLS.filter((n) => cell(n).r === r);
    let i = 0;
    const re = /(\d+)|(\+?)([KRBGSNLP])([fml])/g;
    let m;
    while ((m = re.exec(rank))) {
      if (m[1]) { i += Number(m[1]); continue; }
      cells.set(row[i], { owner: LETTER_SEAT[m[4]], kind: /** @type {Kind} */ (m[3]), promoted: m[2] === '+' });
      i++;
    }
  });
  /** @type {Position['hands']} */
  const hand = { first: {}, middle: {}, last: {} };
  if (hands && hands !== '-') {
    const re = /(\d*)([RBGSNLP])([fml])/g;
    let m;
    while ((m = re.exec(hands))) hand[LETTER_SEAT[m[3]]][/** @type {Kind} */ (m[2])] = Number(m[1] || 1);
  }
  return {
    cells, hands: hand,
    toMove: toMove === '-' ? null : LETTER_SEAT[toMove],
    alliance: alliance === '-' ? null : [...alliance].map((l) => LETTER_SEAT[l]),
    castling, ply: Number(ply),
  };
}

/** A move string (R33) as parts. @param {string} text @returns {Move | null} */
export function parseMove(text) {
  let m = /^([KRBGSNLP])\*(\d{1,2}[a-m])$/.exec(text);
  if (m) return { kind: 'drop', piece: /** @type {Kind} */ (m[1]), to: m[2], text };
  m = /^(\d{1,2}[a-m])!(.+)$/.exec(text);
  if (m) return { kind: 'illuminate', from: m[1], targets: m[2].split(','), text };
  m = /^(\d{1,2}[a-m])(\d{1,2}[a-m])(\+?)$/.exec(text);
  if (m) return { kind: 'move', from: m[1], to: m[2], promote: m[3] === '+', text };
  return null;
}

/** @param {Piece} p @param {{owner?: boolean}} [opts] */
export function pieceWords(p, { owner = true } = {}) {
  const name = (p.promoted ? 'promoted ' : '') + PIECE_NAME[p.kind];
  return owner ? `${SEAT_NAME[p.owner]}'s ${name}` : name;
}
/** @param {string} s */
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * A move in words, judged on the position before it: "Silver 8m to 7j, takes
 * Last's pawn, promotes". `before` is a parsed position or null.
 * @param {string} text @param {Position | null} before
 */
export function describeMove(text, before) {
  const mv = parseMove(text);
  if (!mv) return text;
  if (mv.kind === 'drop') return `Drops a ${PIECE_NAME[mv.piece]} on ${mv.to}`;
  if (mv.kind === 'illuminate') {
    const names = mv.targets.map((t) => {
      const p = before && before.cells.get(t);
      return p ? `${pieceWords(p)} on ${t}` : t;
    });
    return `King on ${mv.from} captures without moving (illumination): ${names.join(', ')}`;
  }
  const piece = before && before.cells.get(mv.from);
  const taken = before && before.cells.get(mv.to);
  let s = piece ? `${cap(pieceWords(piece, { owner: false }))} ${mv.from} to ${mv.to}` : `${mv.from} to ${mv.to}`;
  if (taken) s += `, takes ${pieceWords(taken)}`;
  if (mv.promote) s += ', promotes';
  return s;
}

/** @callback NameOf @param {Seat} seat @returns {string} */
/**
 * Words for the rules' effects (ActionView.effects / game.move data).
 * @param {import('sannin-web').Effect} e @param {NameOf} nameOf
 */
export function describeEffect(e, nameOf) {
  /** @param {Seat | null | undefined} seat */
  const who = (seat) => (seat ? nameOf(seat) : 'nobody');
  switch (e.type) {
    case 'alliance_formed':
      return `${who(e.seats && e.seats[0])} and ${who(e.seats && e.seats[1])} are now allies${e.automatic ? ' (forced: both had the third in check)' : ''}`;
    case 'alliance_dissolved':
      return `The alliance of ${who(e.seats && e.seats[0])} and ${who(e.seats && e.seats[1])} has ended`;
    case 'player_eliminated':
      return `${who(e.seat)} is out: ${eliminationWords(e.reason || '', e.by, nameOf)}`;
    case 'finished':
      return resultWords(e.result, nameOf);
    default:
      return '';
  }
}

/** @param {string} reason @param {Seat | null | undefined} by @param {NameOf} nameOf */
export function eliminationWords(reason, by, nameOf) {
  switch (reason) {
    case 'checkmate': return by ? `checkmated by ${nameOf(by)}` : 'checkmated';
    case 'no_legal_move': return 'had no legal move';
    case 'resigned': return 'resigned';
    case 'timed_out': return 'ran out of time';
    default: return reason;
  }
}

/** @type {Record<string, string>} */
const WIN_REASON = {
  garden: 'by reaching the Pleasure Garden (the centre cell 7g) with the king',
  last_player_standing: 'as the last player standing',
  ally_eliminated: 'because an ally of the other two was knocked out',
};
/** @param {Schemas['ResultView'] | null | undefined} result @param {NameOf} nameOf */
export function resultWords(result, nameOf) {
  if (!result) return '';
  if (result.winner) return `${nameOf(result.winner)} won ${WIN_REASON[result.reason] || ''}`.trim();
  const who = (result.draw || []).map(nameOf).join(', ');
  const why = result.reason === 'agreement' ? 'by agreement' : result.reason === 'repetition' ? 'by repetition (the same position a fourth time)' : '';
  return `Drawn ${why}${who ? ` between ${who}` : ''}`;
}
