import { logIn } from '../api.js';
import { busy, field, formError, h, showErrors } from '../ui.js';

export function render(main, { app, query }) {
  const username = h('input', { name: 'username', autocomplete: 'username', required: true, autocapitalize: 'none', spellcheck: 'false' });
  const password = h('input', { name: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Log in');
  const form = h('form', { class: 'card narrow', novalidate: true },
    formError(),
    field('Username', username, { name: 'username', hint: 'Or your email address, once it is verified.' }),
    field('Password', password, { name: 'password' }),
    h('div', { class: 'actions' }, submit));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    busy(submit, async () => {
      try {
        await logIn(username.value.trim(), password.value);
        await app.loadMe();
        const next = query.get('next');
        app.navigate(next && next.startsWith('/') && !next.startsWith('//') ? next : '/', { replace: true });
      } catch (err) {
        showErrors(form, err);
      }
    });
  });
  main.append(
    h('h1', {}, 'Log in'),
    form,
    h('p', { class: 'narrow' }, 'New here? ', h('a', { href: '/register' }, 'Register'), ' — it takes a minute.'),
  );
  username.focus();
}
