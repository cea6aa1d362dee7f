// Small DOM helpers: element building, forms with problem+json errors, dates.

/** @import { Schemas } from 'sannin-api' */
/** @import { Attrs, Child } from 'sannin-web' */

/**
 * An HTML element.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag @param {Attrs | null} [attrs] @param {...Child} children @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

/** A button that says what it does. @param {Child} label @param {(e: MouseEvent) => void} onClick @param {Attrs} [attrs] */
export function btn(label, onClick, attrs) {
  const b = h('button', { type: 'button', ...attrs }, label);
  b.addEventListener('click', onClick);
  return b;
}

/** @param {...Child} children */
export const actions = (...children) => h('div', { class: 'actions' }, ...children);

const SVG_NS = 'http://www.w3.org/2000/svg';
/**
 * An SVG element.
 * @template {keyof SVGElementTagNameMap} K
 * @param {K} tag @param {Attrs | null} [attrs] @param {...Child} children @returns {SVGElementTagNameMap[K]}
 */
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

/** @param {Element} el @param {Attrs | null | undefined} attrs */
function setAttrs(el, attrs) {
  if (!attrs) return;
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), /** @type {EventListener} */ (v));
    else if (k === 'text') el.textContent = String(v);
    else if (k === 'class') el.setAttribute('class', Array.isArray(v) ? v.filter(Boolean).join(' ') : String(v));
    else if (k === 'value' || k === 'checked' || k === 'selected') /** @type {any} */ (el)[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
}

/** @template {Element} E @param {E} el @param {Child[]} children @returns {E} */
export function append(el, children) {
  for (const c of /** @type {unknown[]} */ (children).flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** @template {Element} E @param {E} el @param {...Child} children @returns {E} */
export function clear(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

let uid = 0;
export const nextId = (p = 'f') => `${p}-${++uid}`;

/**
 * A labelled form field: <div class="field"><label/><input/><p hint/><p error/></div>.
 * `name` is the API's field path, so problem+json errors find it.
 */
/**
 * @param {string} label
 * @param {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} input
 * @param {{hint?: string, name?: string}} [opts]
 */
export function field(label, input, { hint, name } = {}) {
  const id = input.id || nextId('in');
  input.id = id;
  if (name) input.dataset.field = name;
  const err = h('p', { class: 'field-error', id: `${id}-err`, hidden: true });
  const described = [];
  let hintEl = null;
  if (hint) {
    hintEl = h('p', { class: 'hint', id: `${id}-hint` }, hint);
    described.push(hintEl.id);
  }
  if (described.length) input.setAttribute('aria-describedby', described.join(' '));
  const isCheck = input instanceof HTMLInputElement && (input.type === 'checkbox' || input.type === 'radio');
  const lab = h('label', { for: id }, label);
  return h('div', { class: ['field', isCheck && 'check'] }, isCheck ? [input, lab] : [lab, input], hintEl, err);
}

/** Clear a form's error messages. @param {HTMLFormElement} form */
export function clearErrors(form) {
  form.querySelectorAll('.field-error').forEach((p) => { /** @type {HTMLElement} */ (p).hidden = true; p.textContent = ''; });
  form.querySelectorAll('[aria-invalid]').forEach((i) => {
    i.removeAttribute('aria-invalid');
    const d = (i.getAttribute('aria-describedby') || '').split(' ').filter((x) => !x.endsWith('-err'));
    if (d.length) i.setAttribute('aria-describedby', d.join(' ')); else i.removeAttribute('aria-describedby');
  });
  const box = /** @type {HTMLElement | null} */ (form.querySelector('.form-error'));
  if (box) { box.hidden = true; box.textContent = ''; }
}

/** `lines[1][2]` -> itself, `lines[1]`, `lines`; `a.b` -> itself, `a`. @param {string} path */
function parents(path) {
  const out = [];
  for (let p = path; p;) {
    out.push(p);
    const q = p.replace(/(\.[^.[\]]*|\[\d+\])$/, '');
    if (q === p) break;
    p = q;
  }
  return out;
}

/** @param {string | null | undefined} m */
const sentence = (m) => (m ? m.charAt(0).toUpperCase() + m.slice(1) + (/[.!?]$/.test(m) ? '' : '.') : '');

/**
 * Show an API problem on a form: each field error next to the field it names
 * (by `data-field`, also matching a parent path: `time_control.days` ->
 * `time_control`), the rest as the form's message.
 */
/**
 * @param {HTMLFormElement} form
 * @param {{detail?: string, errors?: {field?: string | null, message: string}[] | null}} err an ApiError
 */
export function showErrors(form, err) {
  clearErrors(form);
  const left = [];
  for (const fe of (err.errors || [])) {
    const path = fe.field || '';
    /** @type {HTMLElement | null} */
    let input = null;
    for (const p of parents(path)) {
      input = form.querySelector(`[data-field~="${CSS.escape(p)}"]`);
      if (input) break;
    }
    const p = input && document.getElementById(`${input.id}-err`);
    if (input && p) {
      p.textContent = sentence(fe.message);
      p.hidden = false;
      input.setAttribute('aria-invalid', 'true');
      input.setAttribute('aria-describedby', [input.getAttribute('aria-describedby'), p.id].filter(Boolean).join(' '));
    } else {
      left.push(sentence(fe.message));
    }
  }
  const box = /** @type {HTMLElement | null} */ (form.querySelector('.form-error'));
  const msg = [(!err.errors || left.length || !err.errors.length) ? err.detail : null, ...left].filter(Boolean);
  if (box && msg.length) {
    box.textContent = msg.map(sentence).join(' ');
    box.hidden = false;
  }
  const first = /** @type {HTMLElement | null} */ (form.querySelector('[aria-invalid="true"]'));
  if (first) first.focus();
}

export const formError = () => h('p', { class: 'form-error', role: 'alert', hidden: true });

/**
 * Run an async action from a button, disabling it meanwhile.
 * @template T @param {HTMLButtonElement | null} button @param {() => Promise<T>} fn @returns {Promise<T>}
 */
export async function busy(button, fn) {
  if (button) button.disabled = true;
  try { return await fn(); } finally { if (button) button.disabled = false; }
}

// ---- time ----

/** @type {string | undefined} */
let zone;
/** @param {string | undefined} tz */
export function setTimeZone(tz) { zone = tz; }
/** @param {Intl.DateTimeFormatOptions} opts */
function fmt(opts) {
  try { return new Intl.DateTimeFormat(undefined, { ...opts, timeZone: zone }); } catch { return new Intl.DateTimeFormat(undefined, opts); }
}
/** @param {string | null | undefined} iso */
export function when(iso) {
  if (!iso) return '';
  return fmt({ weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' }).format(new Date(iso));
}
/** @param {string | null | undefined} iso */
export function shortWhen(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  const sameDay = Math.abs(Date.now() - d.getTime()) < 20 * 3600e3;
  return fmt(sameDay ? { hour: '2-digit', minute: '2-digit' } : { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' }).format(d);
}
/** @param {string | null | undefined} iso */
export function day(iso) {
  return iso ? fmt({ day: 'numeric', month: 'long', year: 'numeric' }).format(new Date(iso)) : '';
}
/** "2 days 4 hours", "35 minutes", for a number of seconds. @param {number} sec */
export function duration(sec) {
  if (sec <= 0) return 'no time';
  const d = Math.floor(sec / 86400), hr = Math.floor((sec % 86400) / 3600), m = Math.floor((sec % 3600) / 60);
  /** @param {number} n @param {string} w */
  const pl = (n, w) => `${n} ${w}${n === 1 ? '' : 's'}`;
  if (d) return hr ? `${pl(d, 'day')} ${pl(hr, 'hour')}` : pl(d, 'day');
  if (hr) return m ? `${pl(hr, 'hour')} ${pl(m, 'minute')}` : pl(hr, 'hour');
  if (m) return pl(m, 'minute');
  return 'less than a minute';
}

/** @param {Schemas['TimeControl'] | null | undefined} tc */
export function timeControlWords(tc) {
  if (!tc || tc.kind === 'none') return 'No time limit';
  if (tc.kind === 'per_move') return `${tc.days} day${tc.days === 1 ? '' : 's'} per move`;
  if (tc.kind === 'fischer') return `${tc.initial_days} days, plus ${tc.increment_days} per move, at most ${tc.max_days}`;
  return '';
}

// ---- messages ----

/**
 * Show a message for a while; one with the same `key` replaces the last.
 * @param {Child} text @param {'info' | 'error'} [kind] @param {string | null} [key]
 */
export function toast(text, kind = 'info', key = null) {
  const box = document.getElementById('toasts');
  if (!box) return;
  const t = h('p', { class: ['toast', kind] }, text);
  if (key) {
    t.dataset.key = key;
    box.querySelectorAll(`[data-key="${key}"]`).forEach((old) => old.remove());
  }
  box.append(t);
  while (box.firstElementChild && box.children.length > 4) box.firstElementChild.remove();
  setTimeout(() => t.remove(), kind === 'error' ? 9000 : 5000);
}
