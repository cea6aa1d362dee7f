// Server-Sent Events over fetch(): EventSource cannot send the
// Authorization header the events stream needs, so the stream is read and
// parsed here, and resumed after a drop with Last-Event-ID.

import { refresh, session, streamToken } from './api.js';

/**
 * Follow `url` until `close()`. `onEvent({id, event, data})` gets each
 * message with its data parsed as JSON; `onState('live'|'waiting'|'ended')`
 * reports the connection. With `auth`, the session's token is sent.
 * @template D @param {string} url @param {import('sannin-web').FollowHandlers<D>} handlers
 */
export function follow(url, { auth = false, onEvent, onState = () => {}, onReset = () => {} }) {
  /** @type {string | null} */
  let lastId = null;
  let retry = 3000;
  let failures = 0;
  let stopped = false;
  /** @type {AbortController | null} */
  let controller = null;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;

  /** @param {number} ms */
  const again = (ms) => {
    if (stopped) return;
    onState('waiting');
    timer = setTimeout(run, ms);
  };

  async function run() {
    if (stopped) return;
    controller = new AbortController();
    /** @type {Record<string, string>} */
    const headers = { Accept: 'text/event-stream' };
    if (lastId) headers['Last-Event-ID'] = lastId;
    if (auth) {
      const token = await streamToken();
      if (!token) { stopped = true; onState('ended'); return; }
      headers.Authorization = `Bearer ${token}`;
    }
    let r;
    try {
      r = await fetch(url, { headers, signal: controller.signal, cache: 'no-store' });
    } catch (e) {
      if (stopped) return;
      failures++;
      return again(Math.min(30000, retry * failures));
    }
    if (r.status === 401 && auth) {
      const s = session();
      const next = s && await refresh(s.access);
      if (!next) { stopped = true; onState('ended'); return; }
      return again(100);
    }
    if (r.status === 422 && lastId) {
      // The id to resume after is unknown here: start afresh and reload.
      lastId = null;
      onReset();
      return again(100);
    }
    if (!r.ok || !r.body) {
      failures++;
      const wait = Number(r.headers.get('Retry-After')) * 1000 || retry * failures;
      return again(Math.min(60000, wait));
    }
    failures = 0;
    onState('live');
    const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    /** @type {{data: string[], event?: string, id?: string}} */
    let msg = { data: [] };
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        let nl;
        while ((nl = buf.search(/\r\n|\r|\n/)) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + (buf.startsWith('\r\n', nl) ? 2 : 1));
          if (line === '') {
            if (msg.data.length) dispatch(msg);
            msg = { data: [] };
            continue;
          }
          if (line.startsWith(':')) continue;
          const i = line.indexOf(':');
          const name = i < 0 ? line : line.slice(0, i);
          const val = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
          if (name === 'data') msg.data.push(val);
          else if (name === 'event') msg.event = val;
          else if (name === 'id') msg.id = val;
          else if (name === 'retry' && /^\d+$/.test(val)) retry = Number(val);
        }
      }
    } catch (e) {
      if (stopped) return;
    }
    again(failures ? retry : 500);
  }

  /** @param {{data: string[], event?: string, id?: string}} msg */
  function dispatch(msg) {
    /** @type {any} */
    let data;
    try { data = JSON.parse(msg.data.join('\n')); } catch { return; }
    const event = msg.event || 'message';
    if (event === 'stream.end') {
      if (data.last_event_id) lastId = data.last_event_id;
      return;
    }
    if (msg.id) lastId = msg.id;
    onEvent({ id: msg.id, event, data });
  }

  run();
  return {
    close() {
      stopped = true;
      clearTimeout(timer);
      if (controller) controller.abort();
    },
  };
}
