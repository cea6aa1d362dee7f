import { api, logIn } from '../api.js';
import { busy, field, formError, h, showErrors } from '../ui.js';

export function render(main, { app }) {
  const username = h('input', { name: 'username', autocomplete: 'username', required: true, minlength: 3, maxlength: 32, pattern: '[A-Za-z0-9_-]{3,32}', autocapitalize: 'none', spellcheck: 'false' });
  const email = h('input', { name: 'email', type: 'email', autocomplete: 'email', required: true });
  const password = h('input', { name: 'password', type: 'password', autocomplete: 'new-password', required: true, minlength: 8 });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Register');
  const form = h('form', { class: 'card narrow', novalidate: true },
    formError(),
    field('Username', username, { name: 'username', hint: '3 to 32 letters, digits, "-" or "_". Other players see it.' }),
    field('Email', email, { name: 'email', hint: 'We send a link to confirm it. Game mail goes only to a confirmed address.' }),
    field('Password', password, { name: 'password', hint: 'At least 8 characters; a few uncommon words make a good one.' }),
    h('div', { class: 'actions' }, submit));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    busy(submit, async () => {
      try {
        await api('POST', '/accounts', { anonymous: true, body: { username: username.value.trim(), email: email.value.trim(), password: password.value } });
        await logIn(username.value.trim(), password.value);
        // The device's time zone is a better start than UTC.
        const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
        if (tz && tz !== 'UTC') { try { await api('PATCH', '/me', { body: { time_zone: tz } }); } catch { /* settings can fix it */ } }
        await app.loadMe();
        app.navigate('/?welcome=1', { replace: true });
      } catch (err) {
        showErrors(form, err);
      }
    });
  });
  main.append(h('h1', {}, 'Register'), form,
    h('p', { class: 'narrow' }, 'Already registered? ', h('a', { href: '/login' }, 'Log in')));
  username.focus();
}
