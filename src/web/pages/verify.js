import { api } from '../api.js';
import { btn, busy, h } from '../ui.js';

// The page the verification mail links to: /verify?token=…
export async function render(main, { app, query }) {
  const token = query.get('token');
  main.append(h('h1', {}, 'Confirm your email address'));
  const status = h('p', { role: 'status', class: 'lead' }, 'Confirming…');
  main.append(status);
  if (!token) {
    status.textContent = 'This link has no code in it. Open the link from the mail again, or copy the whole address into the browser.';
    return;
  }
  try {
    const acct = await api('POST', '/email/verify', { body: { token }, anonymous: true });
    status.textContent = `Thank you: ${acct.email} is confirmed. You will now get mail about your games (you choose which in Settings).`;
    if (app.me) await app.loadMe();
    main.append(h('p', {}, h('a', { class: 'button primary', href: app.signedIn() ? '/' : '/login' }, app.signedIn() ? 'Go to my games' : 'Log in')));
    history.replaceState(null, '', '/verify');
  } catch (err) {
    const words = {
      'link-expired': 'This link has expired: links last seven days.',
      'link-invalid': 'This link is not valid: it may have been cut short or changed. Open it from the mail again.',
      'email-changed': 'The address of this account changed after the link was sent, so the link no longer applies.',
      'email-taken': 'Another account confirmed this address in the meantime.',
    }[err.code] || err.detail;
    status.textContent = words;
    status.classList.add('bad');
    if (app.signedIn()) {
      const again = btn('Send me a new link', () => busy(again, async () => {
        try {
          await api('POST', '/me/email/verification');
          status.textContent = 'A new link is on its way. Follow it within seven days.';
          status.classList.remove('bad');
          again.remove();
        } catch (e2) { status.textContent = e2.detail; }
      }));
      main.append(h('p', {}, again));
    } else {
      main.append(h('p', {}, 'To get a new link, ', h('a', { href: '/login?next=/settings' }, 'log in'), ' and ask for one in Settings.'));
    }
  }
}
