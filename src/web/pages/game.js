// The game page: the board from my seat, the players, the moves, and every
// action a player has. All state lives in `st`; `draw()` renders from it.

import { api, apiFull } from '../api.js';
import { createBoard } from '../board.js';
import { deadlineWords, myPlayer, namer, playerName, statusWords } from '../games.js';
import {
  CELLS, HAND_ORDER, asSeat, PIECE_NAME, SEAT_NAME, SEATS, describeEffect, describeMove,
  eliminationWords, parseMove, parsePosition, pieceWords,
} from '../position.js';
import { createPlan } from '../plan.js';
import { follow } from '../sse.js';
import {
  actions, btn, busy, clear, duration, field, formError, h, showErrors, shortWhen, timeControlWords, toast, when,
} from '../ui.js';
/** @import { ApiPath, Options, Schemas, SendBody } from 'sannin-api' */
/** @import { GamePage } from 'sannin-web' */

const START = 'Ll1Pl1Pf1Lf/SlBlPl2PfRfSf/Gl1Pl3Pf1Gf/Kl1Pl4Pf1Kf/Gl1Nl5Nf1Gf/Sl1Pl6Pf1Sf/LlRlPl7PfBfLf/1Pl8Pf1/Pl9Pf/10/PmPmPmPmNmPmPmPmPm/1Bm4Rm1/LmSmGmKmGmSmLm f - - fml 1';
const PREF_NAMES = 'sannin.cellNames';
const PREF_ZOOM = 'sannin.boardZoom';
// Phones: the board without its frame, from edge to edge of the screen.
const NARROW = '(max-width: 520px)';
// Where a cell is still under 36 px: zoom in to 38 px, scrolling sideways.
const ZOOMABLE = '(max-width: 480px)';

export async function render(main, { params, app }) {
  const id = params[0].toLowerCase();
  /** @type {GamePage} */
  const st = {
    game: null, etag: null, pos: null, actions: [], profiles: {}, chat: [], chatMuted: false,
    selected: null, pending: null, illum: new Set(), view: null, names: localStorage.getItem(PREF_NAMES) !== '0',
    // Zoomed in by default on touch screens.
    zoom: localStorage.getItem(PREF_ZOOM) ? localStorage.getItem(PREF_ZOOM) === '1' : matchMedia('(pointer: coarse)').matches,
    live: 'waiting', recent: [], plan: null, premoves: null,
  };

  // ---------- layout ----------
  const title = h('h1', {}, 'Game');
  const sub = h('p', { class: 'muted small' });
  const banner = h('p', { class: 'banner', role: 'status', 'aria-live': 'polite' });
  const liveTag = h('span', { class: 'live', 'aria-live': 'off' });
  const board = createBoard({ onCell, label: 'Board' });
  const boardWrap = h('div', { class: 'board-wrap' }, board.el);
  const zoomButton = h('button', { type: 'button', class: 'small zoom-toggle' });
  const narrow = matchMedia(NARROW);
  const zoomable = matchMedia(ZOOMABLE);
  const myHand = h('div', { class: 'hand-bar', 'aria-label': 'Your hand' });
  const moveBar = h('div', { class: 'move-bar pending-move', hidden: true });
  const illumBar = h('div', { class: 'move-bar illumination', hidden: true });
  const planBar = h('section', { class: 'move-bar plan-bar', hidden: true, 'aria-labelledby': 'plan-h' });
  const namesBox = h('input', { type: 'checkbox', checked: st.names });
  const viewSel = h('select', {}, SEATS.map((s) => h('option', { value: s }, `${SEAT_NAME[s]}'s side`)));
  const textBoard = h('div', { class: 'text-board' });
  const players = h('ul', { class: 'player-list' });
  const actionsBox = h('div', { class: 'game-actions' });
  const movesList = h('ol', { class: 'move-list', tabindex: 0, 'aria-label': 'Moves played' });
  const chatBox = h('section', { class: 'panel', 'aria-labelledby': 'chat-h', hidden: true });
  const notesBox = h('section', { class: 'panel', 'aria-labelledby': 'notes-h', hidden: true });
  const premovesBox = h('section', { class: 'panel', 'aria-labelledby': 'pre-h', hidden: true });
  const recordLink = h('a', { href: `/api/v1/games/${id}/record`, download: `sannin-${id}.txt` }, 'Download the game record');
  const resignDialog = h('dialog', { class: 'confirm', 'aria-labelledby': 'resign-h' });

  namesBox.addEventListener('change', () => {
    st.names = namesBox.checked;
    localStorage.setItem(PREF_NAMES, st.names ? '1' : '0');
    drawBoard();
  });
  viewSel.addEventListener('change', () => { st.view = viewSel.value; drawBoard(); });
  zoomButton.addEventListener('click', () => {
    st.zoom = !st.zoom;
    localStorage.setItem(PREF_ZOOM, st.zoom ? '1' : '0');
    applyZoom();
  });
  /** Zoom the board in (showing its middle) or out. */
  function applyZoom() {
    const on = st.zoom && zoomable.matches;
    boardWrap.classList.toggle('zoomed', on);
    zoomButton.textContent = st.zoom ? 'Show the whole board' : 'Zoom in on the board';
    zoomButton.setAttribute('aria-pressed', String(st.zoom));
    if (on) boardWrap.scrollLeft = (boardWrap.scrollWidth - boardWrap.clientWidth) / 2;
  }
  const onNarrow = () => { applyZoom(); drawBoard(); };
  narrow.addEventListener('change', onNarrow);
  zoomable.addEventListener('change', onNarrow);

  main.classList.add('wide');
  main.append(
    h('div', { class: 'game-head' }, h('div', {}, title, sub), liveTag),
    h('div', { class: 'game-layout' },
      h('div', { class: 'board-col' },
        banner, h('div', { class: 'board-tools' }, zoomButton), boardWrap, myHand, moveBar, illumBar, planBar,
        h('div', { class: 'board-options' },
          field('Show cell names', namesBox),
          field('See the board from', viewSel)),
        h('details', { class: 'help' }, h('summary', {}, 'How to read the board'),
          h('p', {}, 'Letters stand for the pieces: K king, R rook, B bishop, G gold, S silver, N knight, L lance, P pawn. A red letter with "+" is a promoted piece. The point of each piece shows the way its owner plays; the colours show whose it is: ',
            h('span', { class: 'swatch owner-first' }), ' First, ', h('span', { class: 'swatch owner-middle' }), ' Middle, ', h('span', { class: 'swatch owner-last' }), ' Last. Tinted cells are each player\u2019s home ground; the ringed centre cell is the Pleasure Garden.'),
          h('p', {}, 'Cells are named by a number (1 to 13) and a letter (a to m), like 7g for the centre. Arrows show the moves made since yours. To move, choose one of your pieces, then one of the cells marked with a dot; with the keyboard, move between cells with the arrow keys and choose with Enter.')),
        h('details', { class: 'help' }, h('summary', {}, 'The board as text'), textBoard)),
      h('div', { class: 'side-col' },
        h('section', { class: 'panel', 'aria-labelledby': 'players-h' }, h('h2', { id: 'players-h' }, 'Players'), players),
        actionsBox,
        h('section', { class: 'panel', 'aria-labelledby': 'moves-h' }, h('h2', { id: 'moves-h' }, 'Moves'), movesList,
          h('p', { class: 'small' }, recordLink, ' (plain text, for other programs)')),
        chatBox, notesBox, premovesBox)),
    resignDialog,
  );

  // ---------- loading ----------
  async function loadGame() {
    try {
      const r = await apiFull('GET', '/games/{id}', { params: { id }, etag: st.etag });
      if (r.status === 304) return false;
      setGame(r.body, r.etag);
      return true;
    } catch (e) {
      if (e.status === 404) {
        clear(main, h('h1', {}, 'Game not found'), h('p', {}, 'There is no game at this address. ', h('a', { href: '/' }, 'Go to my games')));
        stop();
      } else toast(e.detail, 'error');
      return false;
    }
  }

  /** @param {Schemas['GameView']} g @param {string | null} etag */
  function setGame(g, etag) {
    const before = st.game;
    st.game = g;
    st.etag = etag || null;
    st.pos = parsePosition(g.position);
    if (!st.view) st.view = g.your_seat || (myPlayer(g) || {}).seat || 'middle';
    if (!before || before.ply !== g.ply || before.your_turn !== g.your_turn) {
      st.selected = null; st.pending = null; st.illum = new Set();
    }
    if (st.plan && before && before.ply !== g.ply) followPlan();
    for (const p of g.players) if (p.username && !(p.username in st.profiles)) loadProfile(p.username);
    draw();
    if (!before || before.actions !== g.actions) loadMoves();
    if (before && !before.your_turn && g.your_turn) document.title = `Your move — Sannin`;
  }

  async function loadProfile(name) {
    st.profiles[name] = null;
    try { st.profiles[name] = await api('GET', '/users/{username}', { params: { username: name }, anonymous: true }); drawPlayers(); } catch { /* shown without */ }
  }

  async function loadMoves() {
    try {
      st.actions = await api('GET', '/games/{id}/moves', { params: { id }, anonymous: true });
      drawMoves();
      drawBoard();
    } catch (e) { /* the next change loads them again */ }
  }

  async function loadChat() {
    if (!seated()) return;
    try {
      const after = st.chat.length ? st.chat[st.chat.length - 1].n : 0;
      const page = await api('GET', '/games/{id}/chat', { params: { id }, query: { after } });
      st.chat.push(...page.messages);
      st.chatMuted = page.table_muted;
      drawChat();
    } catch { /* later */ }
  }

  const seated = () => !!(st.game && st.game.your_seat);
  const me = () => st.game && myPlayer(st.game);
  const playing = () => !!st.game && st.game.status === 'active' && !!me() && me().state === 'playing';
  const nameOf = (seat) => namer(st.game)(seat);
  const living = () => (st.game ? st.game.players.filter((p) => p.state === 'playing').map((p) => p.seat) : []);

  // ---------- legal moves ----------
  function legal() {
    const g = st.game;
    const byFrom = new Map(); const drops = new Map(); const illum = new Map();
    if (g.your_turn && g.legal_moves) {
      for (const text of g.legal_moves) {
        const m = parseMove(text);
        if (!m) continue;
        const map = m.kind === 'drop' ? drops : m.kind === 'illuminate' ? illum : byFrom;
        const key = m.kind === 'drop' ? m.piece : m.from;
        if (!map.has(key)) map.set(key, []);
        map.get(key).push(m);
      }
    }
    return { byFrom, drops, illum };
  }

  function onCell(name) {
    if (!st.game) return;
    // Not my turn: a click on the board starts planning my replies.
    if (!st.plan && !st.game.your_turn && playing()) startPlan();
    if (st.plan) { planCell(name); return; }
    if (!st.game.your_turn) return;
    const L = legal();
    const sel = st.selected;
    if (sel && sel.cell && st.pending === null) {
      const cand = (L.byFrom.get(sel.cell) || []).filter((m) => m.to === name);
      if (cand.length) { choose(cand); return; }
    }
    if (sel && sel.hand && st.pending === null) {
      const cand = (L.drops.get(sel.hand) || []).filter((m) => m.to === name);
      if (cand.length) { choose(cand); return; }
    }
    st.pending = null;
    st.illum = new Set();
    if ((L.byFrom.has(name) || L.illum.has(name)) && !(sel && sel.cell === name)) {
      st.selected = { cell: name };
    } else {
      st.selected = null;
      const p = st.pos.cells.get(name);
      if (p && p.owner === st.game.your_seat && !(sel && sel.cell === name)) toast(`Your ${pieceWords(p, { owner: false })} on ${name} has no legal move now${me() && me().in_check ? ': you are in check' : ''}.`, 'info', 'no-move');
    }
    draw();
  }

  function onHand(letter) {
    if (!st.game.your_turn) return;
    const L = legal();
    st.pending = null;
    st.illum = new Set();
    st.selected = (st.selected && st.selected.hand === letter) || !L.drops.has(letter) ? null : { hand: letter };
    draw();
    const first = st.selected && CELLS.find((c) => L.drops.get(letter).some((m) => m.to === c));
    if (first && document.activeElement && document.activeElement.matches(':focus-visible')) board.focusCell(first);
  }

  function choose(cands) {
    st.pending = cands;
    draw();
    const b = /** @type {HTMLButtonElement | null} */ (moveBar.querySelector('button.primary'));
    if (b) b.focus();
  }

  // ---------- planning premoves on the board ----------
  const newPlan = () => createPlan({ base: st.pos, living: living(), stuckPiece: st.game.options.stuck_piece });

  function startPlan() {
    st.selected = null; st.pending = null; st.illum = new Set();
    st.plan = newPlan();
  }

  function stopPlan() {
    st.plan = null;
    draw();
  }

  /** The game moved on: the plan starts again from the position now. */
  function followPlan() {
    if (st.plan.line.length) toast('The game moved on: your plan starts again from the position now.', 'info', 'plan');
    st.plan = newPlan();
  }

  /** @param {string} cell */
  function planCell(cell) {
    const plan = st.plan;
    const seat = plan.seat();
    const what = plan.tap(cell);
    if (what === 'not-theirs' && seat) toast(`In your plan it is ${nameOf(seat)}'s move (${SEAT_NAME[seat]}): choose one of their pieces.`, 'info', 'plan');
    if (what === 'no-move') toast(`That piece has nowhere to go in your plan.`, 'info', 'plan');
    draw();
    if (what === 'choose') {
      const b = /** @type {HTMLButtonElement | null} */ (planBar.querySelector('.plan-choice button'));
      if (b) b.focus();
    }
  }

  /**
   * The server's refusal of a line in words: which move, whose, and why.
   * @param {{field?: string | null, message: string, code?: string}} fe @param {string[]} line
   */
  function refusalWords(fe, line) {
    const m = /\[(\d+)\](?:\[(\d+)\])?$/.exec(fe.field || '');
    // The server counts lines and moves from 0; the page, from 1.
    const why = fe.message.replace(/^line \d+(, move \d+ \([^)]*\)( by \w+)?)?: /, '')
      .replace(/\bline (\d+)/g, (_, n) => `line ${Number(n) + 1}`);
    if (!m || m[2] === undefined) return `This line is refused: ${why}.`;
    const j = Number(m[2]);
    return `Move ${j + 1} of this line, ${line[j] || ''}, is refused: ${why}.`;
  }

  /** Save the plan as one more line, with the lines already saved. */
  async function savePlan(button) {
    const plan = st.plan;
    const mine = (st.premoves && st.premoves.from_ply === st.game.ply) ? st.premoves.lines : [];
    const lines = [...mine, plan.texts()];
    await busy(button, async () => {
      try {
        const p = await api('PUT', '/games/{id}/premoves', { params: { id }, body: { lines } });
        st.plan = null;
        showPremoves(p);
        toast('Premove line saved.');
        draw();
      } catch (err) {
        if (err.status === 422 && err.errors && err.errors.length) {
          const ours = err.errors.filter((fe) => (fe.field || '').startsWith(`lines[${lines.length - 1}]`));
          plan.refusal = (ours.length ? ours : err.errors).map((fe) => refusalWords(fe, plan.texts())).join(' ');
          drawPlanBar();
          const alert = planBar.querySelector('.plan-refusal');
          if (alert) /** @type {HTMLElement} */ (alert).focus();
        } else toast(err.detail, 'error');
      }
    });
  }

  function drawPlanBar() {
    const plan = st.plan;
    planBar.hidden = !plan;
    if (!plan) return;
    const g = st.game;
    const seat = plan.seat();
    const name = namer(g);
    const pieces = seat ? handButtons(seat, true, plan) : [];
    let choice = null;
    if (plan.pending) {
      choice = h('div', { class: 'actions plan-choice' }, plan.pending.map((mv) => btn(mv.promote ? 'Plan it promoting' : 'Plan it without promoting',
        () => { plan.add(mv); draw(); board.focusCell(mv.to); }, { class: mv.promote && 'primary' })));
    }
    const hasMine = plan.line.some((m) => m.seat === g.your_seat);
    const save = btn('Save premove line', () => savePlan(save), { class: 'primary', disabled: !hasMine });
    const undo = btn('Undo planned move', () => { plan.undo(); draw(); }, { disabled: !plan.line.length });
    const cancel = btn('Cancel plan', () => { stopPlan(); board.focusCell('7g'); });
    clear(planBar,
      h('h2', { id: 'plan-h', class: 'plan-title' }, 'Planning a premove line'),
      h('p', { class: 'small' }, 'Play the moves you expect, each player in turn. When the game follows your line up to a move of yours, it is played for you.'),
      plan.line.length ? h('ol', { class: 'plan-line' }, plan.line.map((m) => h('li', { class: `owner-${m.seat}` },
        h('span', { class: 'dot', 'aria-hidden': 'true' }), `${name(m.seat)}: ${describeMove(m.text, m.before)}`,
        h('span', { class: 'muted small notation' }, ` ${m.text}`)))) : null,
      seat ? h('p', { class: 'plan-next' }, h('strong', {}, `Next in your plan: ${name(seat)} (${SEAT_NAME[seat]}). `),
        plan.selected ? 'Choose where the piece goes.' : `Choose one of ${seat === g.your_seat ? 'your' : 'their'} pieces${pieces.length ? ', or a piece from the hand' : ''}.`) : null,
      pieces.length ? h('div', { class: 'hand-bar', 'aria-label': `${SEAT_NAME[seat]}'s hand in your plan` }, h('span', { class: 'hand-label' }, 'In hand:'), pieces) : null,
      choice,
      plan.refusal ? h('p', { class: 'field-error plan-refusal', role: 'alert', tabindex: -1 }, plan.refusal) : null,
      actions(save, undo, cancel));
  }

  /** @param {string} text @param {HTMLButtonElement} button */
  async function play(text, button) {
    const offer = /** @type {HTMLInputElement | null} */ (moveBar.querySelector('input[name=offer]'));
    /** @type {SendBody<'/games/{id}/moves', 'POST'>} */
    const body = { move: text, ply: st.game.ply };
    if (offer && offer.checked) body.offer_draw = true;
    await busy(button, async () => {
      try {
        const g = await api('POST', '/games/{id}/moves', { params: { id }, body, idempotent: true });
        st.selected = null; st.pending = null;
        setGame(g, null);
        const mv = parseMove(text);
        if (mv) board.focusCell(mv.kind === 'illuminate' ? mv.from : mv.to);
      } catch (e) {
        if (e.status === 409) {
          toast('The game moved on meanwhile; here it is as it stands now.', 'error');
          st.etag = null;
          await loadGame();
        } else toast(e.detail, 'error');
      }
    });
  }

  // ---------- drawing ----------
  function draw() {
    if (!st.game) return;
    const g = st.game;
    const name = namer(g);
    title.textContent = g.players.map((p) => playerName(p)).join(' · ');
    sub.textContent = [timeControlWords(g.time_control), g.rated ? 'rated' : 'not rated',
      g.started_at ? `started ${shortWhen(g.started_at)}` : `created ${shortWhen(g.created_at)}`].join(' · ');
    drawBanner();
    document.title = `${g.your_turn ? 'Your move — ' : ''}${title.textContent} — Sannin`;
    viewSel.value = st.view;
    drawBoard();
    drawHand();
    drawMoveBar();
    drawPlanBar();
    drawPlayers();
    drawActions();
    drawTextBoard();
    drawSeatedPanels();
  }

  function drawBanner() {
    const g = st.game;
    const name = namer(g);
    let text;
    if (g.status === 'active') {
      if (g.your_turn) text = 'Your move. Choose one of your pieces (or a piece in your hand), then one of the highlighted cells.';
      else if (!g.your_seat) text = `You are watching. ${name(g.to_move)} (${SEAT_NAME[g.to_move]}) is to move.`;
      else if (me() && me().state !== 'playing') text = `You are out of this game. ${name(g.to_move)} is to move.`;
      else text = `Waiting for ${name(g.to_move)} (${SEAT_NAME[g.to_move]}) to move. Meanwhile you may plan replies: choose a piece on the board to start a premove line.`;
      const dl = deadlineWords(g);
      if (dl) text += ` ${dl}.`;
    } else text = `${statusWords(g)}.`;
    const since = g.status === 'active' && g.your_seat && st.recent.length
      ? h('span', { class: 'since' }, `Since your last move: ${st.recent.join('; ')}.`) : null;
    clear(banner, h('span', {}, text), since);
    banner.classList.toggle('yours', !!g.your_turn);
  }

  function lastMoves() {
    const g = st.game;
    const seat = g.your_seat || st.view;
    const moves = st.actions.filter((a) => a.kind === 'move');
    let i = moves.length - 1;
    while (i >= 0 && moves[i].seat !== seat) i--;
    const since = moves.slice(i + 1).slice(-3);
    const out = [];
    for (const a of since) {
      const m = parseMove(a.notation);
      if (!m) continue;
      if (m.kind === 'move') out.push({ from: m.from, to: m.to, seat: a.seat });
      else if (m.kind === 'drop') out.push({ to: m.to, seat: a.seat });
      else m.targets.forEach((t) => out.push({ to: t, seat: a.seat }));
    }
    return out;
  }

  function drawBoard() {
    if (!st.game) return;
    const plan = st.plan;
    const L = legal();
    const dests = new Set(plan ? plan.candidates().map((m) => m.to) : []); const targets = new Set();
    const sel = plan ? plan.selected : st.selected;
    const pending = plan ? plan.pending : st.pending;
    if (sel && sel.cell && !plan) {
      for (const m of L.byFrom.get(sel.cell) || []) dests.add(m.to);
      for (const m of L.illum.get(sel.cell) || []) m.targets.forEach((t) => targets.add(t));
    }
    if (sel && sel.hand && !plan) for (const m of L.drops.get(sel.hand) || []) dests.add(m.to);
    if (pending) { dests.clear(); dests.add(pending[0].to); }
    const inCheck = new Set();
    for (const p of st.game.players) {
      if (!p.in_check || plan) continue;
      for (const [cell, pc] of st.pos.cells) if (pc.kind === 'K' && pc.owner === p.seat) inCheck.add(cell);
    }
    // Planning, the board shows the position the plan leaves, its moves as arrows.
    board.update({
      position: plan ? plan.pos() : st.pos, view: st.view, mySeat: st.game.your_seat, selected: sel && sel.cell,
      dests, targets: st.illum.size ? st.illum : targets, inCheck, names: st.names, compact: narrow.matches,
      lastMoves: plan ? plan.line : lastMoves(), interactive: !!st.game.your_turn || !!plan, planning: !!plan,
    });
    board.el.setAttribute('aria-label', `Board${plan ? ' as your premove plan leaves it' : ''}, seen from ${SEAT_NAME[st.view]}'s side${st.game.your_turn && !plan ? ', your move' : ''}`);
  }

  /**
   * A hand's pieces: buttons to drop them when `interactive` (in a plan, `plan`'s), else plain.
   * @param {string} seat @param {boolean} interactive @param {ReturnType<typeof createPlan>} [plan]
   */
  function handButtons(seat, interactive, plan) {
    const hand = (plan ? plan.pos() : st.pos).hands[seat] || {};
    const L = interactive && !plan ? legal() : null;
    const sel = plan ? plan.selected : st.selected;
    return HAND_ORDER.filter((k) => hand[k]).map((k) => {
      const label = `${PIECE_NAME[k]}${hand[k] > 1 ? ` ×${hand[k]}` : ''}`;
      if (!interactive) {
        return h('span', { class: `hand-piece owner-${seat}`, 'data-hand': k, 'data-owner': seat, title: label },
          k, hand[k] > 1 ? h('sub', {}, hand[k]) : null);
      }
      const on = !!sel && sel.hand === k;
      const b = h('button', {
        type: 'button', class: ['hand-piece', `owner-${seat}`, on && 'selected'],
        'data-hand': k, 'data-owner': seat, disabled: !plan && !L.drops.has(k), 'aria-pressed': String(on),
        'aria-label': `${k}: drop a ${PIECE_NAME[k]} (${plan ? SEAT_NAME[seat] : 'you'} ${plan ? 'has' : 'have'} ${hand[k]})`,
      }, k, hand[k] > 1 ? h('sub', {}, hand[k]) : null);
      b.addEventListener('click', () => { if (plan) { plan.tapHand(k); draw(); } else onHand(k); });
      return b;
    });
  }

  function drawHand() {
    const g = st.game;
    if (!g.your_seat) { myHand.hidden = true; return; }
    myHand.hidden = false;
    const pieces = handButtons(g.your_seat, !!g.your_turn && !st.plan);
    clear(myHand, h('span', { class: 'hand-label' }, 'Your hand:'), pieces.length ? pieces : h('span', { class: 'muted' }, 'empty (pieces you capture come here, to be dropped back on the board)'));
  }

  function drawMoveBar() {
    const g = st.game;
    moveBar.hidden = !st.pending;
    illumBar.hidden = true;
    if (st.pending) {
      const before = st.pos;
      const plain = st.pending.find((m) => !m.promote);
      const promo = st.pending.find((m) => m.promote);
      const words = describeMove((plain || promo).text.replace(/\+$/, ''), before);
      const buttons = [];
      if (plain && promo) {
        const yes = btn('Move and promote', () => play(promo.text, yes), { class: 'primary' });
        const no = btn('Move without promoting', () => play(plain.text, no));
        buttons.push(yes, no);
      } else {
        const only = plain || promo;
        const b = btn('Move', () => play(only.text, b), { class: 'primary' });
        buttons.push(b);
      }
      const cancel = btn('Cancel', () => { st.pending = null; draw(); board.focusCell(st.selected && st.selected.cell ? st.selected.cell : '7g'); });
      const offer = h('input', { type: 'checkbox', name: 'offer' });
      clear(moveBar,
        h('p', {}, h('strong', {}, 'Your move: '), words, promo && !plain ? ' — it promotes (it must here).' : '', plain && promo ? ' — it may promote.' : ''),
        actions(buttons, cancel),
        g.draw_offer ? null : field('Offer a draw with this move', offer));
    }
    const sel = st.selected;
    const il = sel && sel.cell ? legal().illum.get(sel.cell) : null;
    if (il && !st.pending) {
      // Illumination (R24): the king captures without moving; the player ticks the pieces to take.
      illumBar.hidden = false;
      const all = CELLS.filter((c) => il.some((m) => m.targets.includes(c)));
      const picked = all.filter((c) => st.illum.has(c));
      const text = picked.length ? `${sel.cell}!${picked.join(',')}` : null;
      const ok = text && il.some((m) => m.text === text);
      const go = btn('Capture the ticked pieces', () => play(text, go), { class: 'primary', disabled: !ok });
      const boxes = all.map((c) => {
        const box = h('input', { type: 'checkbox', checked: st.illum.has(c) });
        box.addEventListener('change', () => {
          if (box.checked) st.illum.add(c); else st.illum.delete(c);
          drawBoard();
          drawMoveBar();
          const again = /** @type {HTMLInputElement | undefined} */ (illumBar.querySelectorAll('input[type=checkbox]')[all.indexOf(c)]);
          if (again) again.focus();
        });
        return field(`${pieceWords(st.pos.cells.get(c))} on ${c}`, box);
      });
      clear(illumBar,
        h('p', {}, 'Instead of moving, your promoted king may capture pieces without moving (illumination): the ringed pieces. Tick the ones to take, then confirm.'),
        boxes,
        picked.length && !ok ? h('p', { class: 'field-error' }, 'This choice is not allowed: it would leave a king in check, or this game requires taking every ringed piece.') : null,
        actions(go));
    }
  }

  function clockWords(p) {
    const g = st.game;
    const c = (g.clocks || []).find((x) => x.seat === p.seat);
    if (!c || p.state !== 'playing') return null;
    if (c.running && c.deadline) {
      const left = (new Date(c.deadline).getTime() - Date.now()) / 1000;
      return `Must move by ${when(c.deadline)} (${left > 0 ? duration(left) : 'no time'} left)`;
    }
    if (g.time_control.kind === 'fischer') return `Time in the bank: ${duration(c.remaining_seconds)}`;
    return null;
  }

  function drawPlayers() {
    const g = st.game;
    if (!g) return;
    const name = namer(g);
    clear(players, g.players.map((p) => {
      const prof = p.username ? st.profiles[p.username] : null;
      const bits = [];
      if (p.bot) bits.push(prof && prof.level ? `computer, level ${prof.level}` : 'computer');
      if (prof && prof.rating) bits.push(`rating ${prof.rating.display.toFixed(1)}${prof.rating.provisional ? ' (provisional)' : ''}`);
      const lines = [];
      if (g.status === 'active' && g.to_move === p.seat) lines.push(h('strong', { class: 'to-move' }, 'To move'));
      if (p.in_check) lines.push(h('strong', { class: 'bad' }, 'In check'));
      if (p.state === 'invited') lines.push('Invited, has not answered yet');
      if (p.state === 'open') lines.push('Open seat: anyone may join');
      if (p.state === 'eliminated' && p.elimination) lines.push(`Out: ${eliminationWords(p.elimination.reason, p.elimination.by, name)}`);
      if (p.state === 'won') lines.push(h('strong', {}, 'Won'));
      if (p.state === 'drew') lines.push('Drew');
      if (g.alliance && g.alliance.seats.includes(p.seat)) {
        const other = g.alliance.seats.find((x) => x !== p.seat);
        lines.push(`Allied with ${name(other)}`);
      }
      if (p.vacation_until) lines.push(`On vacation until ${when(p.vacation_until)}: the clock stands still`);
      const cw = clockWords(p);
      if (cw) lines.push(cw);
      if (p.rating) lines.push(`Place ${p.rating.place}; rating ${p.rating.before.display.toFixed(1)} → ${p.rating.after.display.toFixed(1)}`);
      const hand = handButtons(p.seat, false);
      return h('li', { class: ['player', `owner-${p.seat}`, g.to_move === p.seat && g.status === 'active' && 'moving', p.state === 'eliminated' && 'out'], 'data-seat': p.seat },
        h('div', { class: 'player-head' },
          h('span', { class: 'seat-tag' }, SEAT_NAME[p.seat]),
          p.username ? h('a', { href: `/users/${encodeURIComponent(p.username)}` }, p.username) : h('span', {}, playerName(p)),
          (me() || {}).seat === p.seat ? h('span', { class: 'muted' }, ' (you)') : null,
          bits.length ? h('span', { class: 'muted small' }, ` · ${bits.join(' · ')}`) : null),
        lines.map((l) => h('div', { class: 'small' }, l)),
        h('div', { class: 'hand-row small' }, 'In hand: ', hand.length ? hand : h('span', { class: 'muted' }, 'nothing')));
    }));
  }

  function button(label, fn, cls) {
    const b = btn(label, () => busy(b, async () => {
      try { await fn(); } catch (e) { toast(e.detail, 'error'); }
    }), { class: cls });
    return b;
  }
  /**
   * POST one of this game's actions (`{id}` is this game), then show the game
   * as it stands after it.
   * @template {ApiPath & `/games/{id}/${string}`} P
   * @param {P} path
   * @param {Omit<Options<P, 'POST'>, 'params'> & {params?: Record<string, string>}} [opts]
   */
  const post = async (path, opts) => {
    // The path is generic here: the callers' options are checked above.
    const o = /** @type {any} */ (opts || {});
    const g = /** @type {any} */ (await api(/** @type {any} */ ('POST'), path, { ...o, params: { ...o.params, id } }));
    if (g && g.players) setGame(g, null); else await loadGame();
    return g;
  };

  function drawActions() {
    const g = st.game;
    const parts = [];
    const mine = me();
    const name = namer(g);
    if (g.status === 'open') {
      if (mine && mine.state === 'invited') {
        parts.push(h('p', {}, 'You are invited to this game.'),
          h('div', { class: 'actions' },
            button('Accept invitation', () => post('/games/{id}/join'), 'primary'),
            button('Decline invitation', () => post('/games/{id}/decline'))));
      } else if (!mine && app.signedIn() && g.players.some((p) => p.state === 'open')) {
        parts.push(actions(g.players.filter((p) => p.state === 'open').map((p) =>
          button(`Join as ${SEAT_NAME[p.seat]}`, () => post('/games/{id}/join', { query: { seat: asSeat(p.seat) } }), 'primary'))));
      } else if (!app.signedIn()) {
        parts.push(h('p', {}, h('a', { href: `/login?next=/games/${id}` }, 'Log in'), ' to join this game.'));
      }
      if (app.me && g.created_by === app.me.username) {
        parts.push(actions(button('Cancel this game', () => post('/games/{id}/cancel'))));
      }
      if (g.expires_at) parts.push(h('p', { class: 'small muted' }, `Unfilled seats lapse on ${when(g.expires_at)}.`));
    }
    if (g.status === 'active' && mine && mine.state === 'playing') {
      // Draw (R36)
      const d = g.draw_offer;
      const drawPart = [];
      if (!d) drawPart.push(actions(button('Offer draw', () => post('/games/{id}/draw/offer'))));
      else {
        const waiting = d.awaiting.map(name).join(' and ');
        if (d.by === g.your_seat) {
          drawPart.push(h('p', {}, `You offered a draw. Waiting for ${waiting}.`),
            actions(button('Withdraw draw offer', () => post('/games/{id}/draw/decline'))));
        } else if (d.awaiting.includes(g.your_seat)) {
          drawPart.push(h('p', {}, `${name(d.by)} offers a draw.`, d.accepted.length > 1 ? ` Accepted so far: ${d.accepted.map(name).join(', ')}.` : ''),
            actions(button('Accept draw', () => post('/games/{id}/draw/accept'), 'primary'), button('Decline draw', () => post('/games/{id}/draw/decline'))));
        } else drawPart.push(h('p', {}, `${name(d.by)} offered a draw; you accepted. Waiting for ${waiting}.`));
      }
      parts.push(h('h3', {}, 'Draw'), drawPart);
      // Alliances (R29)
      const alive = living();
      const props = g.alliance_proposals.filter((p) => p.status === 'pending');
      if (!g.alliance && alive.length === 3) {
        const rows = [];
        for (const p of props) {
          if (p.to === g.your_seat) {
            rows.push(h('p', {}, `${name(p.from)} proposes an alliance to you.`),
              h('div', { class: 'actions' },
                button('Accept alliance', () => post('/games/{id}/alliance/proposals/{pid}/accept', { params: { pid: p.id } }), 'primary'),
                button('Decline alliance', () => post('/games/{id}/alliance/proposals/{pid}/decline', { params: { pid: p.id } }))));
          } else if (p.from === g.your_seat) {
            rows.push(h('p', {}, `You proposed an alliance to ${name(p.to)}.`),
              actions(button('Withdraw proposal', () => post('/games/{id}/alliance/proposals/{pid}/withdraw', { params: { pid: p.id } }))));
          }
        }
        const others = alive.filter((s) => s !== g.your_seat && !props.some((p) => (p.from === g.your_seat && p.to === s) || (p.from === s && p.to === g.your_seat)));
        if (others.length) rows.push(actions(others.map((s) => button(`Propose alliance to ${name(s)}`, () => post('/games/{id}/alliance/proposals', { body: { to: asSeat(s) } })))));
        parts.push(h('h3', {}, 'Alliance'),
          h('p', { class: 'small muted' }, 'Two players may ally against the third: allies may not check each other, and the alliance lasts until the third is out. It promotes the third player\u2019s king.'),
          rows);
      } else if (g.alliance) {
        parts.push(h('h3', {}, 'Alliance'), h('p', {}, `${name(g.alliance.seats[0])} and ${name(g.alliance.seats[1])} are allies.`));
      }
      // Give time
      if (g.time_control.kind !== 'none') {
        const others = alive.filter((s) => s !== g.your_seat && !g.players.find((p) => p.seat === s).bot);
        if (others.length) {
          const to = h('select', { name: 'to' }, others.map((s) => h('option', { value: s }, name(s))));
          const hours = h('input', { type: 'number', name: 'hours', min: 1, max: 168, value: 24, inputmode: 'numeric' });
          const give = h('button', { type: 'submit' }, 'Give time');
          const form = h('form', { class: 'inline-form', novalidate: true }, formError(),
            field('To', to, { name: 'to' }), field('Hours (1 to 168)', hours, { name: 'hours' }), give);
          form.addEventListener('submit', (e) => {
            e.preventDefault();
            busy(give, async () => {
              try { await post('/games/{id}/time', { body: { to: asSeat(to.value), hours: Number(hours.value) } }); toast(`You gave ${hours.value} hours to ${name(to.value)}.`); } catch (err) { showErrors(form, err); }
            });
          });
          parts.push(h('h3', {}, 'Give time'), h('p', { class: 'small muted' }, 'Add time to another player\u2019s clock, once per turn.'), form);
        }
      }
      parts.push(h('h3', {}, 'Resign'), actions(button('Resign', async () => resignDialog.showModal(), 'danger')));
    }
    clear(actionsBox, parts.length ? h('section', { class: 'panel', 'aria-labelledby': 'act-h' }, h('h2', { id: 'act-h' }, 'Actions'), parts) : null);
  }

  // Resign confirmation
  {
    const yes = btn('Yes, resign', () => busy(yes, async () => {
      try { await post('/games/{id}/resign'); resignDialog.close(); toast('You resigned.'); } catch (e) { resignDialog.close(); toast(e.detail, 'error'); }
    }), { class: 'danger' });
    const no = btn('Keep playing', () => resignDialog.close(), { class: 'primary' });
    resignDialog.append(h('h2', { id: 'resign-h' }, 'Resign this game?'),
      h('p', {}, 'You leave the game for good and your pieces leave the board. This cannot be undone.'),
      actions(no, yes));
  }

  function drawMoves() {
    const g = st.game;
    if (!g) return;
    const name = namer(g);
    const seat = g.your_seat || st.view;
    let lastMine = -1;
    st.actions.forEach((a, i) => { if (a.kind === 'move' && a.seat === seat) lastMine = i; });
    let prev = START;
    const recent = [];
    const items = st.actions.map((a, i) => {
      const before = parsePosition(prev);
      prev = a.position;
      let words;
      if (a.kind === 'move') words = `${name(a.seat)}: ${describeMove(a.notation, before)}`;
      else if (a.kind === 'alliance') words = 'Alliance formed';
      else if (a.kind === 'resign') words = `${name(a.seat)} resigned`;
      else if (a.kind === 'timeout') words = `${name(a.seat)} ran out of time`;
      else if (a.kind === 'draw_agreed') words = 'Draw agreed';
      else words = a.notation;
      const effects = (a.effects || []).map((e) => describeEffect(e, name)).filter(Boolean);
      if (lastMine >= 0 && i > lastMine) recent.push([words, ...effects].join(': '));
      return h('li', { class: ['move', `owner-${a.seat || 'none'}`, i > lastMine && lastMine >= 0 && 'recent', a.kind !== 'move' && 'event'], value: a.ply || undefined },
        h('span', { class: 'dot', 'aria-hidden': 'true' }), words,
        a.premove ? h('span', { class: 'muted small' }, ' (planned ahead)') : null,
        h('span', { class: 'muted small notation', title: 'The move in the game\u2019s notation' }, ` ${a.notation}`),
        effects.length ? h('div', { class: 'effects small' }, effects.join('. '), '.') : null);
    });
    clear(movesList, items.length ? items : h('li', { class: 'muted' }, 'No moves yet.'));
    st.recent = recent;
    drawBanner();
    movesList.scrollTop = movesList.scrollHeight;
  }

  function drawTextBoard() {
    const g = st.game;
    const name = namer(g);
    clear(textBoard, h('ul', {}, g.players.map((p) => {
      const pieces = CELLS.filter((c) => st.pos.cells.get(c) && st.pos.cells.get(c).owner === p.seat)
        .map((c) => `${pieceWords(st.pos.cells.get(c), { owner: false })} ${c}`);
      const hand = st.pos.hands[p.seat] || {};
      const inHand = HAND_ORDER.filter((k) => hand[k]).map((k) => `${PIECE_NAME[k]}${hand[k] > 1 ? ` ×${hand[k]}` : ''}`);
      return h('li', {}, h('strong', {}, `${SEAT_NAME[p.seat]} (${name(p.seat)}): `),
        pieces.length ? pieces.join(', ') : 'no pieces on the board', '. ',
        `In hand: ${inHand.length ? inHand.join(', ') : 'nothing'}.`);
    })));
  }

  // ---------- chat, notes, premoves (players only) ----------
  let panelsBuilt = false;
  const chatList = h('ol', { class: 'chat-list', 'aria-label': 'Chat messages', tabindex: 0 });
  const muteBox = h('input', { type: 'checkbox' });
  const chatTo = h('select', { name: 'to' });
  const notesText = h('textarea', { name: 'text', rows: 4, maxlength: 10000 });
  const notesState = h('span', { class: 'muted small', role: 'status' });
  const preList = h('div', {});
  const preText = h('textarea', { name: 'lines', rows: 3, autocapitalize: 'none', spellcheck: 'false' });

  function drawSeatedPanels() {
    const show = seated();
    chatBox.hidden = notesBox.hidden = !show;
    premovesBox.hidden = !(show && playing());
    if (!show) return;
    if (!panelsBuilt) buildPanels();
    const g = st.game;
    const keep = chatTo.value;
    clear(chatTo, h('option', { value: 'all' }, 'Everyone at the table'),
      g.players.filter((p) => p.seat !== g.your_seat && p.username).map((p) => h('option', { value: p.seat }, `Only ${p.username} (privately)`)));
    chatTo.value = keep || 'all';
    if (!chatTo.value) chatTo.value = 'all';
  }

  function buildPanels() {
    panelsBuilt = true;
    const text = h('textarea', { name: 'text', rows: 2, maxlength: 500, required: true });
    const send = h('button', { type: 'submit' }, 'Send');
    const form = h('form', { class: 'chat-form', novalidate: true }, formError(),
      field('Message', text, { name: 'text' }), field('To', chatTo, { name: 'to' }), actions(send));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      if (!text.value.trim()) return;
      busy(send, async () => {
        try {
          const body = { text: text.value };
          if (chatTo.value !== 'all') body.to = chatTo.value;
          const m = await api('POST', '/games/{id}/chat', { params: { id }, body });
          if (!st.chat.some((x) => x.n === m.n)) st.chat.push(m);
          text.value = '';
          drawChat();
        } catch (err) { showErrors(form, err); }
      });
    });
    text.addEventListener('keydown', (e) => { if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); form.requestSubmit(); } });
    muteBox.addEventListener('change', async () => {
      try { await api('PUT', '/games/{id}/chat/mute', { params: { id }, body: { table_muted: muteBox.checked } }); } catch (e) { toast(e.detail, 'error'); }
    });
    clear(chatBox, h('h2', { id: 'chat-h' }, 'Chat'), chatList, form,
      field('Mute the table chat (no notices for it; private messages still come)', muteBox));

    const save = h('button', { type: 'submit' }, 'Save notes');
    const nform = h('form', { novalidate: true }, formError(), field('Only you can read these notes', notesText, { name: 'text' }), actions(save, notesState));
    nform.addEventListener('submit', (e) => {
      e.preventDefault();
      busy(save, async () => {
        try { const n = await api('PUT', '/games/{id}/notes', { params: { id }, body: { text: notesText.value } }); notesState.textContent = n.updated_at ? `Saved ${shortWhen(n.updated_at)}` : 'Removed'; } catch (err) { showErrors(nform, err); }
      });
    });
    clear(notesBox, h('h2', { id: 'notes-h' }, 'My notes'), nform);

    const psave = h('button', { type: 'submit' }, 'Save premoves');
    const pclear = btn('Remove all premoves', () => busy(pclear, async () => {
      try { await api('DELETE', '/games/{id}/premoves', { params: { id } }); showPremoves({ lines: [] }); preText.value = ''; } catch (e) { toast(e.detail, 'error'); }
    }));
    const pform = h('form', { novalidate: true }, formError(),
      field('Planned lines, one per line', preText, {
        name: 'lines',
        hint: 'Each line: the moves from now on, in turn order, in the move list\u2019s notation, separated by spaces ("3d4d 12l8d 10d8d 7k7j").',
      }),
      actions(psave, pclear));
    pform.addEventListener('submit', (e) => {
      e.preventDefault();
      const lines = preText.value.split('\n').map((l) => l.trim().split(/[\s,;]+/).filter(Boolean)).filter((l) => l.length);
      busy(psave, async () => {
        try { const p = await api('PUT', '/games/{id}/premoves', { params: { id }, body: { lines } }); showPremoves(p); toast('Premoves saved.'); } catch (err) { showErrors(pform, err); }
      });
    });
    const planIt = btn('Plan a line on the board', () => {
      if (!st.plan) startPlan();
      draw();
      boardWrap.scrollIntoView({ block: 'start' });
      board.focusCell('7g');
    });
    clear(premovesBox, h('h2', { id: 'pre-h' }, 'Premoves'), preList,
      actions(planIt),
      h('details', { class: 'premove-text' }, h('summary', {}, 'Write lines as text'), pform));

    api('GET', '/games/{id}/notes', { params: { id } }).then((n) => { notesText.value = n.text; if (n.updated_at) notesState.textContent = `Saved ${shortWhen(n.updated_at)}`; }).catch(() => {});
    loadPremoves();
    loadChat();
  }

  async function loadPremoves() {
    if (!playing()) return;
    try { showPremoves(await api('GET', '/games/{id}/premoves', { params: { id } })); } catch { /* none */ }
  }
  /** @param {Schemas['PremovesView']} p */
  function showPremoves(p) {
    st.premoves = p;
    clear(preList, p.lines.length
      ? h('div', {}, h('p', { class: 'small' }, `Your planned lines${p.from_ply ? `, from move ${p.from_ply}` : ''}:`),
        h('ol', { class: 'plan-line premove-lines small' }, p.lines.map((l, i) => {
          const remove = btn('Remove', () => busy(remove, async () => {
            try {
              const rest = p.lines.filter((_, k) => k !== i);
              showPremoves(rest.length
                ? await api('PUT', '/games/{id}/premoves', { params: { id }, body: { lines: rest } })
                : (await api('DELETE', '/games/{id}/premoves', { params: { id } }), { lines: [] }));
            } catch (e) { toast(e.detail, 'error'); }
          }), { class: 'small', 'aria-label': `Remove premove line ${i + 1}` });
          return h('li', {}, h('span', {}, l.join(' → ')), ' ', remove);
        })))
      : h('p', { class: 'small muted' }, 'No premoves.'));
  }

  function drawChat() {
    const g = st.game;
    const name = namer(g);
    muteBox.checked = st.chatMuted;
    clear(chatList, st.chat.length ? st.chat.map((m) => h('li', { class: [`owner-${m.from}`, m.to !== 'all' && 'private'] },
      h('span', { class: 'who' }, m.username || name(m.from)),
      m.to !== 'all' ? h('span', { class: 'muted small' }, ` to ${name(m.to)} only`) : null,
      h('span', { class: 'muted small' }, ` · ${shortWhen(m.created_at)}`),
      h('div', { class: 'chat-text' }, m.text))) : h('li', { class: 'muted' }, 'No messages yet.'));
    chatList.scrollTop = chatList.scrollHeight;
  }

  // ---------- live ----------
  let version = null;
  const gameStream = follow(`/api/v1/games/${id}/stream`, {
    onEvent: ({ event, data }) => {
      if (event !== 'game.changed') return;
      if (version !== null && data.version <= version) return;
      version = data.version;
      loadGame();
    },
    onState: (s) => {
      st.live = s;
      liveTag.textContent = s === 'live' ? 'Live' : s === 'waiting' ? 'Reconnecting…' : '';
      liveTag.classList.toggle('on', s === 'live');
      if (s === 'live') loadGame();
    },
    onReset: () => { version = null; },
  });
  const offEvents = app.onEvent((ev) => {
    if (ev.game_id !== id) return;
    if (ev.type === 'game.chat') loadChat();
    else loadGame();
    const words = st.game && eventWords(ev);
    if (words) toast(words);
    if (ev.type === 'game.move' || ev.type === 'game.your_turn') loadPremoves();
  });
  function eventWords(ev) {
    const d = ev.data || {};
    const name = namer(st.game);
    const who = (seat) => (seat ? name(seat) : 'Someone');
    switch (ev.type) {
      case 'game.draw_offered': return d.seat === st.game.your_seat ? null : `${who(d.seat)} offers a draw.`;
      case 'game.draw_declined':
        if (d.reason === 'declined') return `${who(d.seat)} declined the draw.`;
        if (d.reason === 'withdrawn') return `${who(d.seat)} withdrew the draw offer.`;
        if (d.reason === 'moved') return `${who(d.seat)} moved instead of answering: no draw.`;
        return 'The draw offer has ended.';
      case 'game.alliance_proposed': return `${who(d.from)} proposes an alliance to you.`;
      case 'game.time_given': return `${who(d.from)} gave ${who(d.to)} ${d.hours} hours.`;
      default: return null;
    }
  }
  const tick = setInterval(() => { if (st.game && st.game.status === 'active') { drawPlayers(); } }, 30000);
  function stop() {
    gameStream.close(); offEvents(); clearInterval(tick); main.classList.remove('wide');
    narrow.removeEventListener('change', onNarrow);
    zoomable.removeEventListener('change', onNarrow);
  }

  await loadGame();
  applyZoom();
  return stop;
}
