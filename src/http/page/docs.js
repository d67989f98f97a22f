// Renders /openapi.json as a readable page: one section per operation (method, every spelling,
// summary, auth, parameters, request body, responses with their error codes). No framework.
import { el } from './dom.js';

const main = document.getElementById('docs');

const schemaText = (schema) => JSON.stringify(schema, null, 2);

async function render() {
  const doc = await (await fetch('/openapi.json')).json();
  main.textContent = '';
  main.append(el('p', {}, doc.info.description));
  const operations = new Map();
  for (const [path, item] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(item)) {
      const name = op.operationId.replace(/\d+$/, '');
      const known = operations.get(name) ?? { method, op, paths: [] };
      known.paths.push(path);
      operations.set(name, known);
    }
  for (const tag of doc.tags) {
    main.append(el('h2', {}, `${tag.name}: ${tag.description}`));
    for (const [name, { method, op, paths }] of operations) {
      if (!op.tags.includes(tag.name)) continue;
      const section = el('section', { class: 'operation', id: name });
      section.append(
        el(
          'h3',
          {},
          el('span', { class: `method ${method}` }, method.toUpperCase()),
          ' ',
          paths[0],
        ),
        el('p', {}, op.summary, op.description ? ` ${op.description}` : ''),
      );
      if (paths.length > 1)
        section.append(el('p', { class: 'muted' }, `also ${paths.slice(1).join(', ')}`));
      const auth = op.security.map((s) => Object.keys(s)[0] ?? 'none').join(' or ');
      section.append(el('p', { class: 'muted' }, `auth: ${auth || 'none'}`));
      for (const p of op.parameters ?? [])
        section.append(el('p', {}, el('code', {}, `${p.in} ${p.name}`), ` ${p.description ?? ''}`));
      const responses = el(
        'table',
        {},
        el('tr', {}, el('th', {}, 'status'), el('th', {}, 'meaning')),
      );
      for (const [status, response] of Object.entries(op.responses))
        responses.append(el('tr', {}, el('td', {}, status), el('td', {}, response.description)));
      section.append(responses);
      main.append(section);
    }
  }
  main.append(el('h2', {}, 'schemas'));
  for (const [name, schema] of Object.entries(doc.components.schemas))
    main.append(el('details', {}, el('summary', {}, name), el('pre', {}, schemaText(schema))));
}

render().catch((err) => (main.textContent = `Cannot load /openapi.json: ${err.message}`));
