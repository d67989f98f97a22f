// The page of cards serve: read-only views of the registry over the admin API, drawn as soon
// as their data arrives. Views (location hash): #/ identities (?prefix=…&after=…),
// #/identity/<identity>, #/card/<identity>/<card id>, #/keyknox (?after=…), #/requests; an
// identity as api.js writes it in a path.
import { api, decodeSegment, identityOfHash, saveToken, savedToken, Unauthorized } from './api.js';
import { cardView } from './card-view.js';
import { el, fill } from './dom.js';
import { identitiesView } from './identities-view.js';
import { identityView } from './identity-view.js';
import { keyknoxView } from './keyknox-view.js';
import { requestsView } from './requests-view.js';
import { visible } from './text.js';

const view = document.getElementById('view');
/** Ends the view on screen (its refreshing); replaced by each route. */
let stop = () => undefined;
/** Counts routes: a view whose data arrives after another route began is dropped. */
let routed = 0;

function askToken(message) {
  const input = el('input', {
    type: 'password',
    name: 'token',
    placeholder: 'admin token',
    autocomplete: 'off',
  });
  return [
    el('h2', {}, 'Admin token'),
    el(
      'p',
      {},
      message ??
        'This server listens beyond loopback: paste the admin token its banner printed ("admin token: …").',
    ),
    el(
      'form',
      {
        onsubmit: (event) => {
          event.preventDefault();
          saveToken(input.value.trim());
          void route();
        },
      },
      input,
      ' ',
      el('button', { type: 'submit' }, 'Open'),
    ),
  ];
}

/** The location hash as its view's name, path segments and query. */
function parseHash() {
  const hash = location.hash.replace(/^#\/?/, '');
  const at = hash.indexOf('?');
  const [name = '', ...segments] = (at < 0 ? hash : hash.slice(0, at)).split('/');
  return { name, segments, query: new URLSearchParams(at < 0 ? '' : hash.slice(at + 1)) };
}

async function draw() {
  const { name, segments, query } = parseHash();
  const info = await api('/_cards/info');
  document.getElementById('server').textContent = visible(
    `${info.profile} profile · ${info.cards} cards · ${info.admin_auth === 'loopback-open' ? 'loopback: no token needed' : 'admin token'}`,
  );
  if (name === 'identity') return identityView(identityOfHash(segments.join('/'), query));
  if (name === 'card')
    return cardView(
      identityOfHash(segments[0] ?? '', query),
      decodeSegment(segments[1] ?? '') ?? '',
      info,
    );
  if (name === 'keyknox') return keyknoxView(query, info);
  if (name === 'requests') return requestsView();
  return identitiesView(query, info);
}

async function route() {
  stop();
  stop = () => undefined;
  const mine = ++routed;
  let drawn;
  try {
    drawn = await draw();
  } catch (err) {
    drawn =
      err instanceof Unauthorized
        ? askToken(
            savedToken() ? 'That token was refused. Paste the admin token again.' : undefined,
          )
        : [el('p', { class: 'error' }, visible(err.message))];
  }
  const { nodes, stop: end } = Array.isArray(drawn) ? { nodes: drawn } : drawn;
  if (mine !== routed) return end?.();
  if (end) stop = end;
  fill(view, nodes);
}

window.addEventListener('hashchange', () => void route());
void route();
