import { h } from '../ui.js';

export function render(main) {
  main.append(h('h1', {}, 'Page not found'), h('p', {}, 'There is nothing at this address. ', h('a', { href: '/' }, 'Go to the start page')));
}
