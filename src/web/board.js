// The board widget: draws a position from a seat's point of view and
// reports clicks and key presses on cells. It knows nothing of the server
// (like chessground / shogiground): the game page gives it what to show.

import { CELLS, SEAT_NAME, cellXY, forwardAngle, pieceWords, territoryOf } from './position.js';
import { s } from './ui.js';
/** @import { BoardState } from 'sannin-web' */

const U = 40; // one cell's width in SVG units
const R = U / Math.sqrt(3);
const HEX = [-90, -30, 30, 90, 150, 210]
  .map((a) => [R * Math.cos(a * Math.PI / 180), R * Math.sin(a * Math.PI / 180)]);
/** @param {number} x @param {number} y */
const hexPoints = (x, y) => HEX.map(([dx, dy]) => `${(x + dx).toFixed(1)},${(y + dy).toFixed(1)}`).join(' ');
const PIECE = [[0, -0.43], [0.29, -0.29], [0.35, 0.37], [-0.35, 0.37], [-0.29, -0.29]]
  .map(([x, y]) => `${(x * U).toFixed(1)},${(y * U).toFixed(1)}`).join(' ');
// The picture's bounds: with the frame, or tight around the cells (phones).
const VIEW_FRAMED = `${-6.8 * U} ${-5.9 * U} ${13.6 * U} ${11.8 * U}`;
const VIEW_TIGHT = `${-6.55 * U} ${-5.8 * U} ${13.1 * U} ${11.6 * U}`;

/**
 * `onCell(name)` is called when a cell is clicked or chosen with Enter/Space.
 * Call `update(state)` with {position, view, mySeat, selected, dests, targets,
 * lastMoves: [{from, to, seat}], inCheck: Set of cells, names, interactive,
 * compact: no frame, the cells to the edges}.
 * @param {{onCell: (name: string) => void, label?: string}} opts
 */
export function createBoard({ onCell, label = 'Board' }) {
  const svg = s('svg', {
    class: 'board', viewBox: VIEW_FRAMED, role: 'group',
    'aria-label': label, 'aria-roledescription': 'board',
  });
  const frame = s('polygon', { class: 'frame' });
  const cellLayer = s('g', { class: 'cells' });
  const arrowLayer = s('g', { class: 'arrows', 'aria-hidden': 'true' });
  svg.append(frame, cellLayer, arrowLayer);
  /** @type {string | null} */
  let view = null;
  /** @type {Map<string, {g: SVGGElement, content: SVGGElement, x: number, y: number}>} */
  let cells = new Map();
  let focusName = '7g';

  /** @param {string} v */
  function build(v) {
    view = v;
    cells = new Map();
    cellLayer.replaceChildren();
    // The frame: the six corners of the board, a little outside the corner cells.
    const corners = ['1a', '7a', '13g', '13m', '7m', '1g'].map((n) => cellXY(n, v));
    frame.setAttribute('points', corners.map(([x, y]) => {
      const k = 1 + 0.75 / Math.hypot(x, y);
      return `${(x * k * U).toFixed(1)},${(y * k * U).toFixed(1)}`;
    }).join(' '));
    for (const name of CELLS) {
      const [x, y] = cellXY(name, v);
      const t = territoryOf(name);
      const g = s('g', {
        class: ['cell', t && `terr-${t}`, name === '7g' && 'garden'], 'data-cell': name,
        role: 'button', tabindex: name === focusName ? 0 : -1,
      });
      g.append(s('polygon', { class: 'hex', points: hexPoints(x * U, y * U) }));
      const content = s('g', { class: 'content', transform: `translate(${(x * U).toFixed(1)},${(y * U).toFixed(1)})` });
      g.append(content);
      cells.set(name, { g, content, x, y });
      cellLayer.append(g);
    }
  }

  /** @param {Event} e */
  const cellOf = (e) => /** @type {SVGElement | null} */ (e.target instanceof Element ? e.target.closest('[data-cell]') : null);
  svg.addEventListener('click', (e) => {
    const g = cellOf(e);
    if (!g || !g.dataset.cell) return;
    moveFocus(g.dataset.cell, false);
    onCell(g.dataset.cell);
  });
  svg.addEventListener('keydown', (e) => {
    const g = cellOf(e);
    if (!g || !g.dataset.cell) return;
    const name = g.dataset.cell;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      onCell(name);
      return;
    }
    /** @type {[number, number] | undefined} */
    const dir = /** @type {Record<string, [number, number]>} */ ({ ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] })[e.key];
    if (dir) {
      e.preventDefault();
      const next = neighbour(name, dir);
      if (next) moveFocus(next, true);
    } else if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      const order = [...cells.values()].sort((a, b) => a.y - b.y || a.x - b.x);
      moveFocus((e.key === 'Home' ? order[0] : order[order.length - 1]).g.dataset.cell || '7g', true);
    }
  });

  /**
   * The nearest cell on screen in a direction (within 60° of it).
   * @param {string} name @param {[number, number]} dir
   */
  function neighbour(name, [dx, dy]) {
    const here = cells.get(name);
    if (!here) return null;
    let best = null;
    let bestD = Infinity;
    for (const [n, c] of cells) {
      const vx = c.x - here.x;
      const vy = c.y - here.y;
      const d = Math.hypot(vx, vy);
      if (!d) continue;
      const cos = (vx * dx + vy * dy) / d;
      if (cos < 0.49) continue;
      const score = d * (2 - cos);
      if (score < bestD) { bestD = score; best = n; }
    }
    return best;
  }

  /** @param {string} name @param {boolean} focus */
  function moveFocus(name, focus) {
    const c = cells.get(name);
    if (!c) return;
    const old = cells.get(focusName);
    if (old) old.g.setAttribute('tabindex', '-1');
    focusName = name;
    c.g.setAttribute('tabindex', '0');
    if (focus) c.g.focus();
  }

  /** @param {BoardState} st */
  function update(st) {
    if (st.view !== view) build(st.view);
    const { position, selected, dests = new Set(), targets = new Set(), lastMoves = [], inCheck = new Set() } = st;
    svg.classList.toggle('names', !!st.names);
    svg.classList.toggle('interactive', !!st.interactive);
    svg.classList.toggle('compact', !!st.compact);
    svg.classList.toggle('planning', !!st.planning);
    svg.setAttribute('viewBox', st.compact ? VIEW_TIGHT : VIEW_FRAMED);
    const from = new Map(); const to = new Map();
    for (const m of lastMoves) {
      if (m.from) from.set(m.from, m.seat);
      to.set(m.to, m.seat);
    }
    for (const [name, c] of cells) {
      const p = position.cells.get(name);
      const g = c.g;
      const cls = ['cell'];
      const t = territoryOf(name);
      if (t) cls.push(`terr-${t}`);
      if (name === '7g') cls.push('garden');
      if (name === selected) cls.push('selected');
      if (dests.has(name)) cls.push(p ? 'dest capture' : 'dest');
      if (targets.has(name)) cls.push('target');
      if (from.has(name)) cls.push('last-from', `by-${from.get(name)}`);
      if (to.has(name)) cls.push('last-to', `by-${to.get(name)}`);
      if (inCheck.has(name)) cls.push('check');
      if (p) cls.push('occupied');
      g.setAttribute('class', cls.join(' '));
      const bits = [name];
      if (p) bits.push(p.owner === st.mySeat ? `your ${pieceWords(p, { owner: false })}` : pieceWords(p));
      else bits.push('empty');
      if (name === '7g') bits.push('the Garden');
      if (name === selected) bits.push('selected');
      if (dests.has(name)) bits.push(p ? 'you can capture here' : 'you can move here');
      if (targets.has(name)) bits.push('can be captured by illumination');
      if (to.has(name)) bits.push(`${st.planning ? 'moved here in your plan' : 'last moved here'} by ${SEAT_NAME[to.get(name) || ''] || ''}`);
      if (inCheck.has(name)) bits.push('in check');
      g.setAttribute('aria-label', bits.join(', '));
      g.setAttribute('aria-pressed', name === selected ? 'true' : 'false');
      const content = c.content;
      content.replaceChildren();
      if (p) {
        const turn = forwardAngle(p.owner, st.view) + 90;
        content.append(
          s('polygon', { class: `piece owner-${p.owner}`, points: PIECE, transform: `rotate(${turn.toFixed(0)})` }),
          s('text', { class: ['glyph', p.promoted && 'promoted'], y: 0.13 * U, 'text-anchor': 'middle' },
            (p.promoted ? '+' : '') + p.kind),
        );
      } else {
        content.append(s('text', { class: 'cellname', y: 0.1 * U, 'text-anchor': 'middle' }, name));
      }
      if (dests.has(name) && !p) content.append(s('circle', { class: 'dot', r: 0.14 * U }));
    }
    arrowLayer.replaceChildren();
    for (const m of lastMoves) {
      if (!m.from) continue;
      const a = cells.get(m.from);
      const b = cells.get(m.to);
      if (!a || !b) continue;
      const [x1, y1, x2, y2] = [a.x * U, a.y * U, b.x * U, b.y * U];
      const len = Math.hypot(x2 - x1, y2 - y1);
      const ux = (x2 - x1) / len; const uy = (y2 - y1) / len;
      const ex = x2 - ux * 0.3 * U; const ey = y2 - uy * 0.3 * U;
      const hx = ex - ux * 0.28 * U; const hy = ey - uy * 0.28 * U;
      const px = -uy * 0.16 * U; const py = ux * 0.16 * U;
      arrowLayer.append(
        s('line', { class: `arrow by-${m.seat}`, x1: x1 + ux * 0.2 * U, y1: y1 + uy * 0.2 * U, x2: hx, y2: hy }),
        s('polygon', { class: `arrowhead by-${m.seat}`, points: `${ex},${ey} ${hx + px},${hy + py} ${hx - px},${hy - py}` }),
      );
    }
  }

  /** @param {string} n */
  const focusCell = (n) => moveFocus(n, true);
  return { el: svg, update, focusCell };
}
