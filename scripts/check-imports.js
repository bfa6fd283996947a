// Checks the import graph of src/ (part of `npm run lint`): no module imports one of a layer above
// its own, src/server/ is reached only through its surface, and there are no import cycles. The layers and what each may import are in
// docs/design.md; LAYERS below is the same table. Every import counts, `import type` and
// `await import()` included: a cycle of types is still a knot for the reader.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const SRC = join(ROOT, 'src');

/** Each top-level folder of src/ and the folders it may import from (besides its own). */
const LAYERS = {
  cli: [
    'config',
    'upload',
    'download',
    'server',
    'browse',
    'api',
    'media',
    'rules',
    'fs',
    'text',
    'sqlite',
    'concurrency',
  ],
  config: ['api', 'rules', 'fs'],
  upload: ['api', 'media', 'rules', 'fs', 'text', 'sqlite', 'concurrency', 'heap'],
  download: ['api', 'rules', 'fs', 'text', 'concurrency', 'heap'],
  server: ['api', 'media', 'rules', 'fs', 'text', 'sqlite', 'heap'],
  browse: ['api', 'rules', 'text'],
  api: ['rules', 'text'],
  media: ['rules', 'text'],
  rules: [],
  fs: [],
  // The bounded pool and slots that upload and download both run their work in.
  concurrency: [],
  // V8's collector on demand, for upload's and download's own collections.
  heap: [],
  sqlite: [],
  text: [],
  types: [],
  // The launcher bin/contentlib.js runs first; it loads the CLI bundle and imports nothing of src/.
  launch: [],
  // The GitHub Action's entry (action.yml): runs the CLI as a process, reads its NDJSON.
  action: ['cli'],
};

/** Folders reached from outside only through these modules (paths inside the folder). */
const SURFACES = {
  // The CLI starts the server (index.ts), administers keys (admin.ts) and shows the defaults of
  // serve's limits (limits.ts, which loads nothing of the server); it knows nothing else of it.
  server: ['index.ts', 'admin.ts', 'limits.ts'],
  // The CLI starts the browse server (index.ts); its pages and routes are its own.
  browse: ['index.ts'],
  // The action reads upload's NDJSON by its schemas; it runs the CLI itself as a process.
  cli: ['output/upload-ndjson.ts'],
};

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return files(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g;

/**
 * Folders inside a layer that import nothing else of their layer: the server's operations parts
 * (health, drain, logs, metrics, request ids) are handed what they need by the app.
 */
const SELF_CONTAINED = ['server/ops'];

/**
 * Folders whose modules import none of each other, but for the helpers named: a route is
 * registered by the app and imports no other route; what two routes share lives outside
 * routes/ (src/server/complete-upload.ts, src/server/multipart.ts), their small helpers in common.ts.
 */
const APART = { 'server/routes': ['common.ts'] };

/**
 * Each database's own room: what a folder here holds is that database's alone. Its modules import
 * no other database's room, and the shared folder above them imports none of them (the code both
 * share lives in src/server/repo/; a database is chosen where the store is opened).
 */
const DIALECTS = ['server/repo/sqlite', 'server/repo/pg'];
const SHARED_BY_DIALECTS = 'server/repo';

/**
 * Modules reached only through one other (paths in src/): the client's part sender is run by the
 * multipart transfer alone, so a file's parts, fresh or an earlier run's, enter by one door.
 */
const ONLY_THROUGH = { 'upload/send/parts.ts': 'upload/send/multipart.ts' };

/**
 * Rooms inside a layer, and the rooms of the same layer each may import besides its own. Every
 * module of such a layer lives in one of its rooms. Planning an upload never imports sending:
 * a plan is made, printed and refused without anything that talks to a library or a journal.
 */
const ROOMS = {
  upload: {
    'upload/plan': [],
    'upload/send': ['upload/plan'],
    'upload/watch': ['upload/plan', 'upload/send'],
  },
};
const roomOf = (path) =>
  Object.keys(ROOMS[layerOf(path)] ?? {}).find((room) => relative(SRC, path).startsWith(`${room}/`));

const graph = new Map();
for (const file of files(SRC)) {
  const text = readFileSync(file, 'utf8');
  const deps = new Set();
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2];
    deps.add(resolve(dirname(file), spec).replace(/\.js$/, '.ts'));
  }
  graph.set(file, [...deps]);
}

const problems = [];
const name = (path) => relative(ROOT, path);
const layerOf = (path) => relative(SRC, path).split('/')[0];

for (const [file, deps] of graph) {
  const layer = layerOf(file);
  const allowed = LAYERS[layer];
  if (!allowed) {
    problems.push(`${name(file)}: src/${layer}/ is not in the LAYERS table of scripts/check-imports.js`);
    continue;
  }
  const room = roomOf(file);
  if (ROOMS[layer] && !room)
    problems.push(`${name(file)}: lies in none of src/${layer}/'s rooms (${Object.keys(ROOMS[layer]).join(', ')})`);
  for (const dep of deps) {
    if (!graph.has(dep)) {
      problems.push(`${name(file)}: imports ${name(dep)}, which is not a module of src/`);
      continue;
    }
    const to = layerOf(dep);
    const own = SELF_CONTAINED.find((f) => relative(SRC, file).startsWith(`${f}/`));
    if (own && to === layer && !relative(SRC, dep).startsWith(`${own}/`))
      problems.push(`${name(file)}: src/${own}/ imports nothing else of src/${layer}/ (imports ${name(dep)})`);
    const apart = Object.keys(APART).find((f) => dirname(relative(SRC, file)) === f);
    if (apart && dirname(relative(SRC, dep)) === apart && !APART[apart].includes(relative(join(SRC, apart), dep)))
      problems.push(`${name(file)}: a module of src/${apart}/ imports no other (imports ${name(dep)})`);
    const from = relative(SRC, file);
    const into = DIALECTS.find((d) => relative(SRC, dep).startsWith(`${d}/`));
    if (into && !from.startsWith(`${into}/`)) {
      const fromDialect = DIALECTS.find((d) => from.startsWith(`${d}/`));
      if (fromDialect)
        problems.push(`${name(file)}: src/${fromDialect}/ imports nothing of src/${into}/ (imports ${name(dep)})`);
      else if (dirname(from) === SHARED_BY_DIALECTS)
        problems.push(
          `${name(file)}: src/${SHARED_BY_DIALECTS}/ holds what both databases share; it imports ${name(dep)}`,
        );
    }
    if (room && to === layer && roomOf(dep) !== room && !ROOMS[layer][room].includes(roomOf(dep)))
      problems.push(`${name(file)}: src/${room}/ may not import from src/${roomOf(dep)}/ (imports ${name(dep)})`);
    const door = ONLY_THROUGH[relative(SRC, dep)];
    if (door && relative(SRC, file) !== door)
      problems.push(`${name(file)}: imports ${name(dep)}, which is reached only through src/${door}`);
    if (to === layer) continue;
    if (!allowed.includes(to))
      problems.push(`${name(file)}: src/${layer}/ may not import from src/${to}/ (imports ${name(dep)})`);
    else if (SURFACES[to] && !SURFACES[to].includes(relative(join(SRC, to), dep)))
      problems.push(
        `${name(file)}: imports ${name(dep)}; from outside, src/${to}/ is reached through ${SURFACES[to].join(' or ')}`,
      );
  }
}

// Tarjan's strongly connected components: every component of more than one module is a cycle.
let index = 0;
const stack = [];
const state = new Map();
function connect(v) {
  const s = { index, low: index, onStack: true };
  index++;
  state.set(v, s);
  stack.push(v);
  for (const w of graph.get(v) ?? []) {
    if (!graph.has(w)) continue;
    const t = state.get(w);
    if (!t) {
      connect(w);
      s.low = Math.min(s.low, state.get(w).low);
    } else if (t.onStack) s.low = Math.min(s.low, t.index);
  }
  if (s.low === s.index) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      state.get(w).onStack = false;
      component.push(w);
    } while (w !== v);
    if (component.length > 1) problems.push(`import cycle: ${component.map(name).sort().join(' ↔ ')}`);
    else if ((graph.get(v) ?? []).includes(v)) problems.push(`import cycle: ${name(v)} imports itself`);
  }
}
for (const v of graph.keys()) if (!state.has(v)) connect(v);

if (problems.length > 0) {
  for (const p of problems) console.error(p);
  console.error(`\n${problems.length} import problem(s); the layers are described in docs/design.md`);
  process.exit(1);
}
