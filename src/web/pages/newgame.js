import { api } from '../api.js';
import { actions, busy, field, formError, h, showErrors } from '../ui.js';
/** @import { Schemas } from 'sannin-api' */

const LEVELS = [
  [1, '1 — weakest, answers at once'],
  [2, '2'],
  [3, '3'],
  [4, '4'],
  [5, '5 — strongest, thinks longest'],
];

function opponent(n, defaultLevel) {
  const kind = h('select', { name: `opp${n}` },
    h('option', { value: 'bot' }, 'A computer player'),
    h('option', { value: 'invite' }, 'A player I invite'),
    h('option', { value: 'open' }, 'An open seat: anyone may join'));
  const level = h('select', { name: `level${n}` }, LEVELS.map(([v, t]) => h('option', { value: v, selected: v === defaultLevel }, t)));
  const user = h('input', { name: `user${n}`, autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false', placeholder: 'username' });
  const levelField = field('Level', level, { name: `bots[${n - 1}]` });
  const userField = field('Their username', user, { name: `invite[${n - 1}]` });
  const sync = () => {
    levelField.hidden = kind.value !== 'bot';
    userField.hidden = kind.value !== 'invite';
  };
  kind.addEventListener('change', sync);
  sync();
  const box = h('fieldset', { class: 'opponent' }, h('legend', {}, `Opponent ${n}`), field('Who', kind), levelField, userField);
  return { box, kind, level, user };
}

export function render(main, { app }) {
  if (!app.signedIn()) { app.navigate('/login?next=/new', { replace: true }); return; }
  const o1 = opponent(1, 1);
  const o2 = opponent(2, 2);
  const seat = h('select', { name: 'seat' },
    h('option', { value: 'random' }, 'Any seat (drawn by lot)'),
    h('option', { value: 'first' }, 'First (moves first, top right)'),
    h('option', { value: 'middle' }, 'Middle (moves second, bottom)'),
    h('option', { value: 'last' }, 'Last (moves third, top left)'));
  const tcKind = h('select', { name: 'tc' },
    h('option', { value: 'none' }, 'No time limit'),
    h('option', { value: 'per_move' }, 'A number of days for each move'),
    h('option', { value: 'fischer' }, 'A bank of days per player (Fischer)'));
  const num = (name, value, max = 30) => h('input', { name, type: 'number', min: 1, max, value, inputmode: 'numeric' });
  const days = num('days', 3);
  const initial = num('initial', 7);
  const increment = num('increment', 1);
  const maxDays = num('max', 14);
  const perMove = h('div', { class: 'row' }, field('Days per move', days, { name: 'time_control.days', hint: '1 to 30.' }));
  const fischer = h('div', { class: 'row' },
    field('Days at the start', initial, { name: 'time_control.initial_days' }),
    field('Days added after each move', increment, { name: 'time_control.increment_days' }),
    field('Most days a bank holds', maxDays, { name: 'time_control.max_days' }));
  const weekends = h('input', { type: 'checkbox', name: 'weekends' });
  const vacation = h('input', { type: 'checkbox', name: 'vacation', checked: true });
  const rated = h('input', { type: 'checkbox', name: 'rated' });
  const timeExtras = h('div', {},
    field('Weekends off: Saturdays and Sundays do not count (in the time zone of the player to move)', weekends, { name: 'pause_on_weekends' }),
    field('Vacation stops the clock (each player earns vacation days)', vacation, { name: 'vacation' }));
  const syncTc = () => {
    perMove.hidden = tcKind.value !== 'per_move';
    fischer.hidden = tcKind.value !== 'fischer';
    timeExtras.hidden = tcKind.value === 'none';
  };
  tcKind.addEventListener('change', syncTc);
  syncTc();
  const stuck = h('select', { name: 'stuck' },
    h('option', { value: 'promote' }, 'must promote (usual)'),
    h('option', { value: 'stay' }, 'may stay unpromoted, stuck'));
  const illum = h('select', { name: 'illum' },
    h('option', { value: 'selective' }, 'captures any of the pieces it could (usual)'),
    h('option', { value: 'all' }, 'must capture all of them'));
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Start the game');
  const form = h('form', { class: 'card', novalidate: true },
    formError(),
    h('fieldset', {}, h('legend', {}, 'Players'),
      field('Your seat', seat, { name: 'seat' }),
      h('div', { class: 'opponents', 'data-field': 'bots invite open_seats', id: 'opps' }, o1.box, o2.box),
      h('p', { class: 'field-error', id: 'opps-err', hidden: true })),
    h('fieldset', {}, h('legend', {}, 'Time'), field('Time control', tcKind, { name: 'time_control' }), perMove, fischer, timeExtras),
    h('fieldset', {}, h('legend', {}, 'Result'), field('Rated: the result changes the players\u2019 ratings', rated, { name: 'rated' })),
    h('details', {}, h('summary', {}, 'Rule options'),
      field('A pawn or lance that reaches the far edge', stuck, { name: 'options.stuck_piece' }),
      field('A promoted king capturing without moving (illumination)', illum, { name: 'options.illumination' })),
    actions(submit));

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    /** @type {Schemas['CreateGameRequest'] & {bots: number[], invite: string[], open_seats: number}} */
    const body = { seat: /** @type {Schemas['SeatChoice']} */ (seat.value), bots: [], invite: [], open_seats: 0 };
    for (const o of [o1, o2]) {
      if (o.kind.value === 'bot') body.bots.push(Number(o.level.value));
      else if (o.kind.value === 'invite') body.invite.push(o.user.value.trim());
      else body.open_seats++;
    }
    if (body.bots.length === 2 && body.bots[0] === body.bots[1]) {
      showErrors(form, { detail: 'Two computer players must be of different levels: each level is one computer player.', errors: [] });
      return;
    }
    if (tcKind.value === 'per_move') body.time_control = { kind: 'per_move', days: Number(days.value) };
    else if (tcKind.value === 'fischer') {
      body.time_control = { kind: 'fischer', initial_days: Number(initial.value), increment_days: Number(increment.value), max_days: Number(maxDays.value) };
    } else body.time_control = { kind: 'none' };
    if (tcKind.value !== 'none') {
      body.pause_on_weekends = weekends.checked;
      body.vacation = vacation.checked;
    }
    body.rated = rated.checked;
    body.options = {
      stuck_piece: /** @type {Schemas['StuckPieceOption']} */ (stuck.value),
      illumination: /** @type {Schemas['IlluminationOption']} */ (illum.value),
    };
    busy(submit, async () => {
      try {
        const g = await api('POST', '/games', { body });
        app.navigate(`/games/${g.id}`);
      } catch (err) {
        showErrors(form, err);
      }
    });
  });
  main.append(h('h1', {}, 'New game'),
    h('p', {}, 'Choose your two opponents. With two computer players the game starts at once; invited players must accept first.'),
    form);
}
