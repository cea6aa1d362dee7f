import { api } from '../api.js';
import { actions, btn, busy, clear, field, formError, h, showErrors, toast, when } from '../ui.js';

const MAIL_KINDS = [
  ['game.your_turn', 'It is my move'],
  ['game.invited', 'I am invited to a game'],
  ['game.started', 'A game of mine starts'],
  ['game.deadline_approaching', 'My time is running low'],
  ['game.alliance_proposed', 'Someone proposes an alliance to me'],
  ['game.draw_offered', 'Someone offers a draw'],
  ['game.player_eliminated', 'A player is knocked out'],
  ['game.finished', 'A game of mine ends'],
  ['game.chat', 'Chat messages'],
  ['game.player_on_vacation', 'An opponent goes on vacation'],
  ['game.player_back', 'An opponent is back from vacation'],
  ['game.time_given', 'Someone gives me time'],
  ['webhook.disabled', 'A webhook of mine stops working (for programmers)'],
];

export async function render(main, { app }) {
  if (!app.signedIn()) { app.navigate('/login?next=/settings', { replace: true }); return; }
  main.append(h('h1', {}, 'Settings'));
  const me = app.me || await app.loadMe();
  if (!me) return;

  // ----- account and time zone -----
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  if (!zones.includes('UTC')) zones.unshift('UTC');
  if (!zones.includes(me.time_zone)) zones.unshift(me.time_zone);
  const tz = h('select', { name: 'time_zone' }, zones.map((z) => h('option', { value: z, selected: z === me.time_zone }, z.replace(/_/g, ' '))));
  const here = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const useHere = btn(`Use this device's (${here.replace(/_/g, ' ')})`, () => { tz.value = here; });
  const saveTz = h('button', { type: 'submit', class: 'primary' }, 'Save time zone');
  const tzForm = h('form', { class: 'card', novalidate: true }, formError(),
    field('Time zone', tz, { name: 'time_zone', hint: 'Deadlines are shown in it, and games with weekends off pause on your weekend.' }),
    actions(useHere, saveTz));
  tzForm.addEventListener('submit', (e) => {
    e.preventDefault();
    busy(saveTz, async () => {
      try { await api('PATCH', '/me', { body: { time_zone: tz.value } }); await app.loadMe(); toast('Time zone saved.'); } catch (err) { showErrors(tzForm, err); }
    });
  });

  const emailLine = h('p', {});
  const resend = btn('Send the confirmation link again', () => busy(resend, async () => {
    try { await api('POST', '/me/email/verification'); toast(`A new link is on its way to ${me.email}.`); } catch (e) { toast(e.detail, 'error'); }
  }));
  clear(emailLine, `Signed in as ${me.username}. Email: ${me.email} — `, me.email_verified ? 'confirmed.' : h('span', {}, 'not confirmed yet. ', resend));

  main.append(h('section', { 'aria-labelledby': 'acc-h' }, h('h2', { id: 'acc-h' }, 'Account'), emailLine, tzForm));

  // ----- mail -----
  const mailSec = h('section', { 'aria-labelledby': 'mail-h' }, h('h2', { id: 'mail-h' }, 'Mail'), h('p', { class: 'muted' }, 'Loading…'));
  main.append(mailSec);
  try {
    const ns = await api('GET', '/me/notifications');
    /** @type {[string, HTMLInputElement, HTMLElement][]} */
    const boxes = MAIL_KINDS.filter(([k]) => k in ns.mail || k === 'game.chat' || k === 'game.draw_offered').map(([k, label]) => {
      const b = h('input', { type: 'checkbox', name: k, checked: !!ns.mail[k] });
      return [k, b, field(label, b, { name: `mail.${k}` })];
    });
    const save = h('button', { type: 'submit', class: 'primary' }, 'Save mail choices');
    const form = h('form', { class: 'card', novalidate: true }, formError(),
      h('fieldset', {}, h('legend', {}, 'Send me mail when…'), boxes.map((b) => b[2])),
      actions(save));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      busy(save, async () => {
        try {
          await api('PATCH', '/me/notifications', { body: { mail: Object.fromEntries(boxes.map(([k, b]) => [k, b.checked])) } });
          toast('Mail choices saved.');
        } catch (err) { showErrors(form, err); }
      });
    });
    clear(mailSec, h('h2', { id: 'mail-h' }, 'Mail'),
      ns.email_verified ? null : h('p', { class: 'notice' }, 'Mail goes only to a confirmed address: confirm yours first.'),
      form);
  } catch (e) { clear(mailSec, h('h2', { id: 'mail-h' }, 'Mail'), h('p', { class: 'form-error' }, e.detail)); }

  // ----- vacation -----
  const vacSec = h('section', { 'aria-labelledby': 'vac-h' });
  main.append(vacSec);
  async function vacation() {
    let v;
    try { v = await api('GET', '/me/vacation'); } catch (e) { clear(vacSec, h('h2', { id: 'vac-h' }, 'Vacation'), h('p', { class: 'form-error' }, e.detail)); return; }
    /** @type {HTMLElement[]} */
    const parts = [h('h2', { id: 'vac-h' }, 'Vacation'),
      h('p', {}, `While you are on vacation your clock stands still in every game that allows it. You earn one day for every ${v.earn_one_day_every_days} days since you registered, up to ${v.max_days}.`)];
    if (v.current) {
      const end = btn('End my vacation now', () => busy(end, async () => {
        try { await api('DELETE', '/me/vacation'); toast('Welcome back!'); vacation(); } catch (e) { toast(e.detail, 'error'); }
      }), { class: 'primary' });
      parts.push(h('p', { class: 'notice' }, `You are on vacation until ${when(v.current.until)}. A move of yours in any game ends it too.`), actions(end));
    } else {
      parts.push(h('p', {}, `You hold ${v.days_held} vacation day${v.days_held === 1 ? '' : 's'}.`, v.next_day_at ? ` The next one comes on ${when(v.next_day_at)}.` : ''));
      if (v.days_held > 0) {
        const days = h('input', { type: 'number', name: 'days', min: 1, max: v.days_held, value: 1, inputmode: 'numeric' });
        const start = h('button', { type: 'submit', class: 'primary' }, 'Start vacation');
        const form = h('form', { class: 'card', novalidate: true }, formError(), field('Days', days, { name: 'days' }), actions(start));
        form.addEventListener('submit', (e) => {
          e.preventDefault();
          busy(start, async () => {
            try { await api('POST', '/me/vacation', { body: { days: Number(days.value) } }); toast('Enjoy your vacation.'); vacation(); } catch (err) { showErrors(form, err); }
          });
        });
        parts.push(form);
      }
    }
    clear(vacSec, parts);
  }
  await vacation();
}
