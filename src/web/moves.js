// Candidate moves for planning premoves (RULES.md §4-§6, R21): where a piece
// may go, drops, promotion choices, the position after a move. Checks (R23)
// are not judged and illumination (R24) is left to the move text: the server
// checks each planned line when it is saved.

import { CELLS, SEATS, parseCell, territoryOf } from './position.js';
/** @import { Candidate, Kind, Position, Seat } from 'sannin-web' */

const RANKS = 'abcdefghijklm';
/** R4: board hour -> [Δcolumn, Δrank]. */
const HOUR = [null, [-1, -1], [-2, -1], [-1, 0], [-1, 1], [0, 1], [1, 2], [1, 1], [2, 1], [1, 0], [1, -1], [0, -1], [-1, -2]];
/** R7: an owner's hour h is board hour h + this. */
const TURN = /** @type {Record<Seat, number>} */ ({ middle: 0, last: 4, first: 8 });

const ORTHO = [1, 3, 5, 7, 9, 11];
const DIAG = [2, 4, 6, 8, 10, 12];
const ALL = [...ORTHO, ...DIAG].sort((a, b) => a - b);
const GOLD = { step: [9, 11, 1, 3, 12, 6], range: [] };
const SILVER = [11, 1, 5, 7, 10, 2];

/** §4: the owner's hours a piece steps and ranges in. @type {Record<string, {step: number[], range: number[]}>} */
const MOVES = {
  K: { step: ORTHO, range: [] },
  '+K': { step: [], range: ALL },
  R: { step: [], range: [9, 11, 1, 3, 6] },
  '+R': { step: [], range: ORTHO },
  B: { step: [], range: DIAG },
  '+B': { step: ORTHO, range: DIAG },
  G: GOLD,
  S: { step: SILVER, range: [] },
  '+S': { step: SILVER, range: [12, 6] },
  N: { step: [3, 9, 2, 4, 8, 10], range: [] },
  L: { step: [], range: [11, 1] },
  '+L': { step: [], range: [11, 1, 5, 7] },
  P: { step: [11, 1], range: [] },
  '+P': GOLD,
};
const PROMOTABLE = new Set(['K', 'R', 'B', 'S', 'L', 'P']);

/** The cell one step from `name` in a board hour, or null off the board. @param {string} name @param {number} hour */
function next(name, hour) {
  const p = parseCell(name);
  const d = HOUR[hour];
  if (!p || !d) return null;
  const c = p.c + d[0];
  const r = p.r + d[1];
  if (c < 1 || c > 13 || r < 0 || r > 12 || c - r < -5 || c - r > 7) return null;
  return `${c}${RANKS[r]}`;
}

/** @param {number} ownHour @param {Seat} owner */
const boardHour = (ownHour, owner) => ((ownHour + (TURN[owner] || 0) - 1) % 12) + 1;

/** R9: whether a cell is on a player's far edge. @param {string} name @param {Seat} seat */
export function onFarEdge(name, seat) {
  const p = parseCell(name);
  if (!p) return false;
  if (seat === 'middle') return p.r === 0;
  if (seat === 'last') return p.c - p.r === -5;
  return p.c === 13;
}

/**
 * R17: whether a cell is in a mover's promotion zone (the Garden too, unless for a king).
 * @param {string} name @param {Seat} mover @param {Seat[] | null} alliance @param {Kind} kind
 */
function inZone(name, mover, alliance, kind) {
  if (name === '7g') return kind !== 'K';
  const t = territoryOf(name);
  if (!t || t === mover) return false;
  return !(alliance && alliance.includes(mover) && alliance.includes(t));
}

/**
 * Where the piece on `from` may go (§4, R12), castling (R21) for a king that
 * may still castle, each with its promotion choices (R18, R19).
 * @param {Position} pos @param {string} from @param {{stuckPiece?: string}} [options] the game's option
 * @returns {Candidate[]}
 */
export function movesFrom(pos, from, options = {}) {
  const piece = pos.cells.get(from);
  if (!piece) return [];
  const key = (piece.promoted ? '+' : '') + piece.kind;
  const rule = MOVES[key];
  /** @type {Set<string>} */
  const dests = new Set();
  /** @param {string} to */
  const free = (to) => {
    const there = pos.cells.get(to);
    return !there || (there.owner !== piece.owner && there.kind !== 'K');
  };
  for (const h of rule.step) {
    const to = next(from, boardHour(h, piece.owner));
    if (to && free(to)) dests.add(to);
  }
  for (const h of rule.range) {
    const bh = boardHour(h, piece.owner);
    for (let to = next(from, bh); to; to = next(to, bh)) {
      if (free(to)) dests.add(to);
      if (pos.cells.has(to)) break;
    }
  }
  if (piece.kind === 'K' && !piece.promoted && pos.castling.includes(piece.owner.charAt(0))) {
    for (const to of CELLS) if (to !== from && territoryOf(to) === piece.owner && free(to)) dests.add(to);
  }
  /** @type {Candidate[]} */
  const out = [];
  for (const to of CELLS) {
    if (!dests.has(to)) continue;
    const plain = { text: `${from}${to}`, from, to, promote: false };
    if (piece.promoted || !PROMOTABLE.has(piece.kind)) { out.push(plain); continue; }
    const may = inZone(from, piece.owner, pos.alliance, piece.kind) || inZone(to, piece.owner, pos.alliance, piece.kind);
    const stuck = (piece.kind === 'P' || piece.kind === 'L') && onFarEdge(to, piece.owner);
    const must = stuck && options.stuckPiece !== 'stay';
    if (!must) out.push(plain);
    if (may || must) out.push({ ...plain, text: `${plain.text}+`, promote: true });
  }
  return out;
}

/** Where a piece from `seat`'s hand may be dropped (R15, R16). @param {Position} pos @param {Seat} seat @param {Kind} kind @returns {Candidate[]} */
export function dropsOf(pos, seat, kind) {
  if (!(pos.hands[seat] || {})[kind]) return [];
  return CELLS.filter((to) => !pos.cells.has(to) && !((kind === 'P' || kind === 'L') && onFarEdge(to, seat)))
    .map((to) => ({ text: `${kind}*${to}`, to, promote: false, drop: kind }));
}

/** The player after `seat` in turn order (R6), among the living. @param {Seat} seat @param {Seat[]} living */
export function nextSeat(seat, living) {
  const i = SEATS.indexOf(/** @type {any} */ (seat));
  for (let k = 1; k <= 3; k++) {
    const s = SEATS[(i + k) % 3];
    if (living.includes(s)) return s;
  }
  return seat;
}

/**
 * The position after a move or drop by the player to move: captures go
 * unpromoted to the mover's hand (R14), a king that moves loses castling.
 * Eliminations and alliances are not judged.
 * @param {Position} pos @param {Candidate} mv @param {Seat[]} living @returns {Position}
 */
export function applyMove(pos, mv, living) {
  const mover = pos.toMove;
  if (!mover) return pos;
  const cells = new Map(pos.cells);
  /** @type {Position['hands']} */
  const hands = {};
  for (const [s, hand] of Object.entries(pos.hands)) hands[s] = { ...hand };
  const mine = hands[mover] || (hands[mover] = {});
  let castling = pos.castling;
  if (mv.drop) {
    mine[mv.drop] = (mine[mv.drop] || 1) - 1;
    if (!mine[mv.drop]) delete mine[mv.drop];
    cells.set(mv.to, { owner: mover, kind: mv.drop, promoted: false });
  } else if (mv.from) {
    const piece = cells.get(mv.from);
    if (!piece) return pos;
    const taken = cells.get(mv.to);
    if (taken) mine[taken.kind] = (mine[taken.kind] || 0) + 1;
    cells.delete(mv.from);
    cells.set(mv.to, { ...piece, promoted: piece.promoted || mv.promote });
    if (piece.kind === 'K') castling = castling.replace(mover.charAt(0), '') || '-';
  }
  return { ...pos, cells, hands, castling, toMove: nextSeat(mover, living), ply: pos.ply + 1 };
}
