// A premove line being built on the board: the moves expected from each
// player in turn from the position now. The game page draws it.

import { applyMove, dropsOf, movesFrom } from './moves.js';
/** @import { Candidate, Kind, Planned, Position } from 'sannin-web' */

/** @param {{base: Position, living: string[], stuckPiece?: string}} opts */
export function createPlan({ base, living, stuckPiece }) {
  const options = { stuckPiece };
  /** @type {Planned[]} */
  const line = [];
  const plan = {
    line,
    /** @type {{cell?: string, hand?: Kind} | null} */
    selected: null,
    /** The moves to choose from when a destination may or must promote. @type {Candidate[] | null} */
    pending: null,
    /** The server's refusal of this line, in words. @type {string | null} */
    refusal: null,
    /** The position after the planned moves. */
    pos() { return line.length ? applyMove(line[line.length - 1].before, line[line.length - 1], living) : base; },
    /** Who moves next in the plan. */
    seat() { return plan.pos().toMove; },
    /** What the selected piece or hand piece may do. @returns {Candidate[]} */
    candidates() {
      const sel = plan.selected;
      const pos = plan.pos();
      if (!sel || !pos.toMove) return [];
      if (sel.cell) return movesFrom(pos, sel.cell, options);
      if (sel.hand) return dropsOf(pos, pos.toMove, sel.hand);
      return [];
    },
    /**
     * A cell chosen: a destination of the selected piece adds the move (or asks
     * about promotion); a piece of the player to move is selected.
     * @param {string} cell
     */
    tap(cell) {
      plan.pending = null;
      const to = plan.candidates().filter((m) => m.to === cell);
      if (to.length === 1) { plan.add(to[0]); return 'added'; }
      if (to.length > 1) { plan.pending = to; return 'choose'; }
      const pos = plan.pos();
      const piece = pos.cells.get(cell);
      const again = plan.selected && plan.selected.cell === cell;
      plan.selected = null;
      if (!piece || again) return 'cleared';
      if (piece.owner !== pos.toMove) return 'not-theirs';
      if (!movesFrom(pos, cell, options).length) return 'no-move';
      plan.selected = { cell };
      return 'selected';
    },
    /** @param {Kind} kind */
    tapHand(kind) {
      plan.pending = null;
      plan.selected = plan.selected && plan.selected.hand === kind ? null : { hand: kind };
    },
    /** @param {Candidate} mv */
    add(mv) {
      const before = plan.pos();
      if (!before.toMove) return;
      line.push({ ...mv, seat: before.toMove, before });
      plan.selected = null;
      plan.pending = null;
      plan.refusal = null;
    },
    undo() {
      line.pop();
      plan.selected = null;
      plan.pending = null;
      plan.refusal = null;
    },
    /** The line as move strings (R33). */
    texts() { return line.map((m) => m.text); },
  };
  return plan;
}
