// The request journal, newest first, drawn at once and then refreshed every 2 s. The page's
// own requests are not journaled (the server leaves out same-origin fetches), so watching the
// journal does not fill it.
import { api } from './api.js';
import { data, el, fill } from './dom.js';

const EVERY_MS = 2000;
const COLUMNS = ['time', 'method', 'path', 'status', 'code', 'identity', 'ms'];

/** The view's nodes, and `stop` to end the refreshing. */
export async function requestsView() {
  const table = el('table', { id: 'requests' });
  const refresh = async () => {
    const { requests, total } = await api('/_cards/requests?limit=100');
    fill(
      table,
      el(
        'tr',
        {},
        COLUMNS.map((h) => el('th', {}, h)),
      ),
      requests.map((r) =>
        el(
          'tr',
          { class: 'request' },
          el('td', {}, el('span', { class: 'time' }, data(r.time))),
          el('td', {}, data(r.method)),
          el('td', { class: 'path' }, data(r.path)),
          el('td', { class: 'number' }, data(r.status)),
          el('td', {}, data(r.code ?? '')),
          el('td', {}, data(r.identity)),
          el('td', { class: 'number' }, data(r.ms)),
        ),
      ),
    );
    table.dataset.total = String(total);
  };
  await refresh();
  const timer = setInterval(() => void refresh().catch(() => undefined), EVERY_MS);
  return {
    nodes: [
      el(
        'h2',
        {},
        'Requests ',
        el('span', { class: 'muted' }, '(refreshed every 2 s; tokens are never kept)'),
      ),
      table,
    ],
    stop: () => clearInterval(timer),
  };
}
