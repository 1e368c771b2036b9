// The page of `thehook ui` in headless Chromium (the system's, driven by
// puppeteer-core as pinned in tests/ui/package.json; scripts/test.sh
// installs it). The project: the demo's memory committed by Ada, a hostile
// item, and a real Claude Code session captured after the session-start
// hook gave it two lines, one of which it then used. Tested:
//   1. every view renders that project, the session page shows what was
//      given and used, hostile text stays inert text in every view;
//   2. Confirm and Forget on the page write the bytes `thehook review` writes;
//   3. a page of another site gets nothing and changes nothing;
//   4. Ctrl-C stops the server and frees its port;
//   5. measure.mjs's measureViews() (for benchmarks) times every view.
// Screenshots of every view go to target/ui-screenshots/<view>.png (docs use
// them); the page's times are printed as one `ui-timings {json}` line, never
// asserted. Needs the release build (THEHOOK_BIN or target/release/thehook).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { connect, createServer as createTcpServer } from 'node:net';
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../temp-dirs.mjs';
import { launchChromium, measureViews, viewOf } from './measure.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = process.env.THEHOOK_BIN || join(repo, 'target/release/thehook');
if (!existsSync(bin)) throw new Error(`the release build is missing: ${bin}; scripts/test.sh builds it`);
const shots = join(repo, 'target/ui-screenshots');
const SESSION = '1af7fc5e-8455-4414-9ccd-011d40f70b2a';
const TRANSCRIPT = join(repo, 'crates/thehook-core/tests/fixtures/transcripts/claude-code/d-kimuson-1af7fc5e.jsonl');
const CLAUDE_MD = '- Keep `CLAUDE.md` short: the dev commands.';
// Planted where a teammate's pull request could put it: markup, an event
// attribute, a javascript: link, a right-to-left override and a tag character.
const HOSTILE = '- `[gotcha]` Hostile: <script>window.__pwned=1</script> <img src=x onerror="window.__pwned=2"> '
  + '[click](javascript:window.__pwned=3) \u202Eevil\u202C tag\u{E0041}';
// What a captured session took from a fetched page, with the mark capture
// writes: the page shows where it came from and why agents do not get it.
const FROM_OUTSIDE = '- `[convention]` The vendor SDK retries three times and then gives up. '
  + '*(from outside: WebFetch https://vendor.example/docs)*';
// Only git's folder and the system's on PATH: no LLM CLI a developer has
// installed is found, so the capture is heuristic on every machine.
const GIT_BIN = dirname(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim());

let browser;
before(async () => {
  mkdirSync(shots, { recursive: true });
  // rebound.test stands for a DNS name an attacker rebinds to 127.0.0.1.
  browser = await launchChromium(['--host-resolver-rules=MAP rebound.test 127.0.0.1']);
});
after(async () => { await browser?.close(); });

/** The environment of every thehook and git run, as the Rust tests' std_cmd
 * makes it: no THEHOOK_* of the user, a temp HOME, no model (keywords only). */
function env(tmp) {
  const kept = ([k]) => !k.startsWith('THEHOOK_') && !k.startsWith('GIT_')
    && !['ORT_DYLIB_PATH', 'NO_COLOR', 'XDG_CACHE_HOME', 'XDG_DATA_HOME', 'XDG_CONFIG_HOME', 'CODEX_HOME',
      'GEMINI_CLI_TRUST_WORKSPACE', 'COPILOT_HOME', 'COPILOT_ALLOW_ALL'].includes(k);
  return { ...Object.fromEntries(Object.entries(process.env).filter(kept)),
    HOME: join(tmp, 'home'), PATH: `${GIT_BIN}:/usr/bin:/bin`, THEHOOK_BACKGROUND: '0',
    THEHOOK_MODEL_DIR: join(tmp, 'no-model'), THEHOOK_CACHE_DIR: join(tmp, 'no-cache'),
    GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'Ada Lovelace', GIT_AUTHOR_EMAIL: 'ada@example.com',
    GIT_COMMITTER_NAME: 'Ada Lovelace', GIT_COMMITTER_EMAIL: 'ada@example.com' };
}

/** A fresh project, built the same way each time (two of them are byte-identical). */
function project() {
  const tmp = tempDir('thehook-ui-');
  const root = join(tmp, 'shop');
  mkdirSync(join(tmp, 'home'));
  cpSync(join(repo, 'examples/demo/.thehook'), join(root, '.thehook'), { recursive: true });
  const conventions = join(root, '.thehook/knowledge/conventions.md');
  appendFileSync(conventions, `${CLAUDE_MD}\n`);
  appendFileSync(join(root, '.thehook/knowledge/notes.md'), `${HOSTILE}\n${FROM_OUTSIDE}\n`);
  const claudeLine = readFileSync(conventions, 'utf8').split('\n').indexOf(CLAUDE_MD) + 1;
  const e = env(tmp);
  const git = (...args) => execFileSync('git', ['-c', 'user.name=Ada Lovelace', '-c', 'user.email=ada@example.com', ...args], { cwd: root, env: e });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'The memory of the shop');
  // What the session-start hook records when it gives a session two lines.
  mkdirSync(join(root, '.thehook/index/given'), { recursive: true });
  writeFileSync(join(root, `.thehook/index/given/${SESSION}.txt`),
    `2025-09-03T00:47:00Z\tstart\t.thehook/knowledge/conventions.md:${claudeLine}\n`
    + '2025-09-03T00:47:00Z\tstart\t.thehook/knowledge/conventions.md:3\n');
  // No LLM CLI: captured by the heuristic (exit 1: the transcript waits in
  // failed/ for an LLM), which the Cost view lists.
  const captured = spawnSync(bin, ['-C', root, 'capture', '--transcript', TRANSCRIPT, '--json'], { env: e, encoding: 'utf8' });
  assert.equal(JSON.parse(captured.stdout || '{}').sessions?.[0]?.status, 'heuristic', captured.stderr);
  const thehook = (...args) => execFileSync(bin, ['-C', root, ...args], { env: e, encoding: 'utf8' });
  return { root, env: e, claudeLine, thehook };
}

/** `thehook ui --no-open` on `p`: its URL, origin, port and token; stop() is Ctrl-C. */
async function serve(p, args = []) {
  const child = spawn(bin, ['-C', p.root, 'ui', '--no-open', ...args], { env: p.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })));
  const line = await Promise.race([new Promise((done) => createInterface({ input: child.stdout }).once('line', done)),
    exited.then(({ code }) => { throw new Error(`thehook ui exited with ${code}: ${stderr}`); })]);
  const m = /^thehook ui: (http:\/\/127\.0\.0\.1:(\d+)\/\?token=([0-9a-f]{32})#\/sessions)$/.exec(line);
  assert.ok(m, `the line printed: ${line}`);
  const origin = `http://127.0.0.1:${m[2]}`;
  return { url: m[1], origin, port: Number(m[2]), token: m[3], stop: () => { child.kill('SIGINT'); return exited; } };
}

/** A page at 1280x900 that collects what the page throws or logs as an error. */
async function open() {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  // Registered before app.js's: marks the start of each in-page navigation.
  await page.evaluateOnNewDocument(() => addEventListener('hashchange', () => performance.mark('hashchange')));
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  return { page, errors };
}

/** Waits until `view` has rendered, and fails if the page shows an error. */
async function ready(page, view) {
  await page.waitForFunction((v) => document.body.dataset.ready === v, { timeout: 20000 }, view);
  assert.equal(await page.$eval('#error', (e) => (e.hidden ? null : e.textContent)), null, `${view}: the page shows an error`);
}

/** Nothing memory holds ran or became markup. */
async function inert(page, where) {
  const state = await page.evaluate(() => ({
    pwned: typeof window.__pwned,
    scripts: [...document.querySelectorAll('script')].map((s) => new URL(s.src, location.href).pathname),
    onerror: document.querySelectorAll('[onerror]').length,
    jsLinks: document.querySelectorAll('a[href^="javascript:" i]').length,
  }));
  assert.deepEqual(state, { pwned: 'undefined', scripts: ['/app.js'], onerror: 0, jsLinks: 0 }, where);
}

const texts = (page, sel) => page.$$eval(sel, (es) => es.map((e) => e.textContent));
/** A full-page screenshot, scrolled to the top first (else the sticky header
 * shows where the view was scrolled to). */
const shot = async (page, view) => {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(shots, `${view}.png`), fullPage: true });
};
const round = (ms) => Math.round(ms * 10) / 10;

test('every view renders the project; a session shows what it was given and used; hostile text stays text', async () => {
  const p = project();
  const server = await serve(p);
  const { page, errors } = await open();
  const timings = { sessions: {} };
  /** Does `act` (a click, a key), which changes the hash to a route of `view`;
   * notes the ms from the hashchange to the view's ready mark. */
  const follow = async (view, act) => {
    await page.evaluate(() => { performance.clearMarks(); document.body.dataset.ready = ''; });
    await act();
    await ready(page, view);
    const ms = await page.evaluate((v) => performance.getEntriesByName(`view-ready:${v}`).at(-1).startTime
      - performance.getEntriesByName('hashchange').at(-1).startTime, view);
    (timings[view] ??= {}).fromHashchange ??= round(ms);
  };
  const nav = (view) => follow(view, () => page.click(`nav a[data-view="${view}"]`));
  try {
    // The URL printed: the Sessions view, newest first.
    await page.goto(server.url);
    await ready(page, 'sessions');
    assert.deepEqual(await texts(page, '.session-row .title'),
      ['Flaky checkout test', 'Product search on Postgres tsvector', 'JWT auth with refresh rotation', '/init']);
    assert.deepEqual(await texts(page, '.session-row .badge.given'), ['given 2 · used 1']);
    await inert(page, 'sessions');
    await shot(page, 'sessions');

    // From the URL printed, one click on its row; what the session was
    // given is the first section there.
    const row = await page.$(`.session-row[href="#/session/${SESSION}"]`);
    await follow('session', () => row.click());
    assert.equal(await page.$eval('.view section', (s) => s.className), 'given');
    const lines = await page.$$eval('.given-line', (ls) => ls.map((l) => [l.className, l.querySelector('.citation').dataset.cited,
      l.querySelector('.text').textContent, l.querySelector('.evidence')?.textContent ?? '']));
    const conventions = readFileSync(join(p.root, '.thehook/knowledge/conventions.md'), 'utf8').split('\n');
    assert.deepEqual(lines.map((l) => l.slice(0, 3)), [
      ['given-line used', `.thehook/knowledge/conventions.md:${p.claudeLine}`, CLAUDE_MD.slice(2)],
      ['given-line unused', '.thehook/knowledge/conventions.md:3', conventions[2].slice(2)],
    ]);
    assert.match(lines[0][3], /^edited CLAUDE\.md with Write at /);
    assert.equal(lines[1][3], '', 'no evidence for the line not used');
    assert.match(await page.$eval('.given .lede', (e) => e.textContent), /^2 lines given, 1 used/);
    await inert(page, 'session');
    await shot(page, 'session');

    await nav('next');
    const sections = await texts(page, '.view section h2');
    assert.equal(sections[0], 'Where you left off');
    assert.ok(sections.includes('Conventions') && (await page.$$('.next-line')).length >= 5, sections.join(', '));
    await inert(page, 'next');
    await shot(page, 'next');

    // Memory: facets and items; the hostile markup shown as text, and its
    // hidden characters as markers in the raw markdown its citation opens.
    await nav('memory');
    assert.deepEqual(await texts(page, '.facet-name'), ['Types', 'Files', 'Authors']);
    const total = Number((await page.$eval('.view > p.muted', (e) => e.textContent)).match(/^(\d+) items/)[1]);
    assert.ok(total > 30 && (await page.$$('.item-row')).length === total, `${total} items`);
    const hostile = await page.$$eval('.item-row', (rs) => rs.find((r) => r.textContent.includes('Hostile')).dataset.id);
    assert.ok((await page.evaluate(() => document.body.innerText)).includes('<script>window.__pwned=1</script>'));
    await page.click(`.item-row[data-id="${hostile}"] .citation`);
    await page.waitForSelector(`.item-row[data-id="${hostile}"] .context-line.target .hidden-char`);
    const markers = await texts(page, `.item-row[data-id="${hostile}"] .context-line.target span.hidden-char`);
    assert.deepEqual(markers, ['⟦U+202E⟧', '⟦U+202C⟧', '⟦U+E0041⟧']);
    await inert(page, 'memory');
    await shot(page, 'memory');
    // A facet narrows the list to what its chip counts.
    const chip = await page.evaluateHandle(() => [...document.querySelectorAll('.chip[data-facet="type"]')]
      .find((c) => c.firstChild.textContent === 'gotcha'));
    const gotchas = Number(await chip.$eval('.count', (e) => e.textContent));
    await follow('memory', () => chip.click());
    assert.deepEqual(await texts(page, '.item-row .tag'), Array(gotchas).fill('gotcha'));

    // Search from the box; a citation opens its line in the file.
    await page.type('#search-input', 'jose');
    await follow('search', () => page.keyboard.press('Enter'));
    const hits = await texts(page, '.hit .text');
    assert.ok(hits.length > 0 && hits.every((h) => /jose/.test(h)), hits.join('\n'));
    await page.click('.hit .citation');
    await page.waitForSelector('.hit .context .context-line.target');
    assert.match(await page.$eval('.hit .context-line.target', (e) => e.textContent), /jose/);
    await inert(page, 'search');
    await shot(page, 'search');

    // The hostile item's page, from a search hit: git blame names Ada, the
    // file's raw line shows the hidden characters.
    await page.$eval('#search-input', (i) => { i.value = ''; });
    await page.type('#search-input', 'Hostile');
    await follow('search', () => page.keyboard.press('Enter'));
    await inert(page, 'search, the hostile hit');
    await follow('item', () => page.click(`.hit a[href="#/item/${hostile}"]`));
    const facts = Object.fromEntries(await page.$$eval('.facts dt', (ds) => ds.map((d) => [d.textContent, d.nextElementSibling.textContent])));
    assert.equal(facts.Author, 'Ada Lovelace');
    assert.match(facts['Last commit'], /^Ada Lovelace, .* The memory of the shop$/);
    assert.match(await page.$eval('.item-text .text', (e) => e.textContent), /<script>window\.__pwned=1<\/script>/);
    assert.deepEqual(await texts(page, '.context-line.target span.hidden-char'), ['⟦U+202E⟧', '⟦U+202C⟧', '⟦U+E0041⟧']);
    await inert(page, 'item');
    await shot(page, 'item');

    // The line a fetched page gave: its source, the mark off its text, and
    // withheld as unverified with the reason.
    await follow('search', () => page.evaluate(() => { location.hash = '#/search?q=vendor%20SDK%20retries'; }));
    const fromPage = await page.evaluateHandle(() => [...document.querySelectorAll('.hit')]
      .find((h) => h.querySelector('.text').textContent.includes('vendor SDK')).querySelector('a[href^="#/item/"]'));
    await follow('item', () => fromPage.click());
    const outside = Object.fromEntries(await page.$$eval('.facts dt', (ds) => ds.map((d) => [d.textContent, d.nextElementSibling.textContent])));
    assert.equal(outside['From outside'], 'captured from what only this said: WebFetch https://vendor.example/docs');
    assert.match(outside.Withheld, /^unverified/);
    assert.match(outside.Why, /captured from what only a source outside the project said \(WebFetch https:\/\/vendor\.example\/docs\)/);
    assert.equal(await page.$eval('.item-text .text', (e) => e.textContent), 'The vendor SDK retries three times and then gives up.');
    await inert(page, 'item from outside');
    await shot(page, 'item-outside');

    // Review: the items `thehook review` lists as stale, each with its actions.
    await nav('review');
    const stale = JSON.parse(p.thehook('review', '--json')).stale.map((s) => s.item.id);
    const rows = await page.$$eval('.review-row:has([data-action="confirm"])', (rs) => rs.map((r) => r.dataset.id));
    assert.ok(stale.length >= 2);
    assert.deepEqual(rows, stale);
    await inert(page, 'review');
    await shot(page, 'review');

    await nav('cost');
    assert.equal((await page.$$('svg.chart rect.bar')).length, 30);
    const heuristic = await texts(page, 'section:last-child li');
    assert.ok(heuristic.some((h) => h.startsWith('/init') && /no LLM CLI/.test(h)), heuristic.join('\n'));
    await inert(page, 'cost');
    await shot(page, 'cost');

    await nav('health');
    const checks = await page.$$eval('.check', (cs) => cs.map((c) => [c.querySelector('.name').textContent, c.dataset.level]));
    assert.deepEqual(checks.filter(([n]) => ['project', 'index'].includes(n)), [['project', 'ok'], ['index', 'ok']]);
    assert.ok(checks.length >= 5 && checks.every(([, l]) => ['ok', 'warn', 'error'].includes(l)), JSON.stringify(checks));
    await inert(page, 'health');
    await shot(page, 'health');

    // Each view loaded afresh: the document's own times and the view's.
    for (const route of ['sessions', `session/${SESSION}`, 'next', 'memory', 'search?q=jose', `item/${hostile}`, 'review', 'cost', 'health']) {
      await page.goto('about:blank');
      await page.goto(`${server.url.split('#')[0]}#/${route}`);
      await ready(page, viewOf(route));
      await inert(page, `${route}, loaded afresh`);
      (timings[viewOf(route)] ??= {}).load = await page.evaluate((v) => {
        const n = performance.getEntriesByType('navigation')[0];
        const r = (ms) => Math.round(ms * 10) / 10;
        return { responseEnd: r(n.responseEnd), domContentLoaded: r(n.domContentLoadedEventEnd),
          ready: r(performance.getEntriesByName(`view-ready:${v}`).at(-1).startTime) };
      }, viewOf(route));
    }
    // Not asserted: timings do not belong in tests (bench/ui.py measures).
    console.log(`ui-timings ${JSON.stringify(timings)}`);
    assert.deepEqual(errors, [], 'nothing thrown or logged as an error (a CSP violation would be)');
  } finally {
    await page.close();
    await server.stop();
  }
});

/** Every file under `.thehook/` that git would commit (the markdown, and
 * confirmed.txt, where a confirmation goes), with its bytes. */
function memory(p) {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '.thehook'],
    { cwd: p.root, env: p.env, encoding: 'utf8' }).split('\0').filter((f) => f && existsSync(join(p.root, f)));
  return Object.fromEntries(files.sort().map((f) => [f, readFileSync(join(p.root, f))]));
}

test('Confirm and Forget on the page write the bytes `thehook review` writes', async () => {
  const [a, b] = [project(), project()];
  const before = memory(a);
  assert.deepEqual(memory(b), before, 'two projects made the same way are the same');
  const [confirm, forget] = JSON.parse(b.thehook('review', '--json')).stale.map((s) => s.item.id);
  assert.ok(confirm && forget, 'the demo has two stale items');
  const server = await serve(a);
  const { page } = await open();
  try {
    await page.goto(server.url.replace('#/sessions', '#/review'));
    await ready(page, 'review');
    // Each action reloads the view: its row leaves the stale list.
    const gone = (id) => page.waitForFunction((i) => document.body.dataset.ready === 'review'
      && !document.querySelector(`.review-row[data-id="${i}"]`), { timeout: 20000 }, id);
    await page.click(`.review-row [data-action="confirm"][data-id="${confirm}"]`);
    await gone(confirm);
    assert.equal(await page.$eval('#notice', (e) => e.textContent), `confirmed ${confirm.slice(0, 6)}…`);
    const button = `.review-row [data-action="forget"][data-id="${forget}"]`;
    await page.click(button);
    // The first click only arms it: nothing is written yet.
    assert.equal(await page.$eval(button, (e) => e.textContent), 'Really forget?');
    assert.deepEqual(markdown(memory(a)), markdown(before));
    await page.click(button);
    await gone(forget);
    assert.equal(await page.$eval('#notice', (e) => e.textContent), `forgot ${forget.slice(0, 6)}…`);
  } finally {
    await page.close();
    await server.stop();
  }
  b.thehook('review', 'confirm', confirm);
  b.thehook('review', 'forget', forget);
  const [byPage, byCli] = [memory(a), memory(b)];
  assert.deepEqual(Object.keys(byPage), Object.keys(byCli));
  for (const file of Object.keys(byCli)) assert.ok(byPage[file].equals(byCli[file]), `${file}: the page wrote other bytes than the CLI`);
  const changed = Object.keys(byPage).filter((f) => !before[f]?.equals(byPage[f]));
  assert.ok(changed.includes('.thehook/confirmed.txt') && changed.some((f) => f.endsWith('.md')), `changed: ${changed}`);
});

/** The markdown files of `files`. */
const markdown = (files) => Object.fromEntries(Object.entries(files).filter(([f]) => f.endsWith('.md')));

test('a page of another site gets nothing and changes nothing, even knowing the token', async () => {
  const p = project();
  const server = await serve(p);
  const before = memory(p);
  const [id] = JSON.parse(p.thehook('review', '--json')).stale.map((s) => s.item.id);
  // The other site's page, on another port of 127.0.0.1: it reads, and
  // forgets an item (with the header; and as a "simple" request the
  // browser sends without asking), and keeps what it got.
  const script = `window.tried = (async () => {
    const base = ${JSON.stringify(server.origin)}, token = ${JSON.stringify(server.token)}, body = JSON.stringify({ id: ${JSON.stringify(id)} });
    const attempt = (url, init) => fetch(url, init).then((r) => 'status ' + r.status, () => 'failed');
    return [
      await attempt(base + '/api/sessions?token=' + token),
      await attempt(base + '/api/sessions?token=' + token, { mode: 'no-cors' }),
      await attempt(base + '/api/review/forget', { method: 'POST', headers: { 'X-Thehook-Token': token, 'Content-Type': 'application/json' }, body }),
      await attempt(base + '/api/review/forget?token=' + token, { method: 'POST', mode: 'no-cors', body }),
    ];
  })();`;
  const other = createServer((_, res) => { res.setHeader('content-type', 'text/html'); res.end(`<!doctype html><script>${script}</script>`); });
  await new Promise((done) => other.listen(0, '127.0.0.1', done));
  const { page } = await open();
  // What the server answered, as the browser's network layer saw it (a
  // page's script never sees it: that is the point).
  const answered = [];
  page.on('response', (r) => {
    if (r.url().startsWith(server.origin)) answered.push(`${r.request().method()} ${new URL(r.url()).pathname} ${r.status()}`);
  });
  try {
    await page.goto(`http://127.0.0.1:${other.address().port}/`);
    // Read with CORS: failed; without: opaque (status 0), nothing to read.
    assert.deepEqual(await page.evaluate(() => window.tried), ['failed', 'status 0', 'failed', 'status 0']);
    await until(() => answered.length >= 3);
    // The server refused them all: the no-cors read, the preflight of the
    // POST with the header (so the POST never went), the simple POST.
    assert.deepEqual(answered.sort(), ['GET /api/sessions 403', 'OPTIONS /api/review/forget 403', 'POST /api/review/forget 403']);

    // The page's URL without its token, and with it under a rebound name.
    const bare = await page.goto(`${server.origin}/`);
    assert.equal(bare.status(), 403);
    assert.match(await page.evaluate(() => document.body.innerText), /refused: no valid token/);
    const rebound = await page.goto(server.url.replace('127.0.0.1', 'rebound.test'));
    assert.equal(rebound.status(), 403);
    assert.match(await page.evaluate(() => document.body.innerText), /refused: the Host header/);
  } finally {
    await page.close();
    other.close();
    await server.stop();
  }
  assert.deepEqual(memory(p), before, 'memory unchanged');
});

/** Resolves once `done()` holds, polling for up to 10 s. */
async function until(done) {
  for (let waited = 0; !done(); waited += 50) {
    if (waited > 10000) throw new Error(`still not so after 10 s: ${done}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('Ctrl-C stops `thehook ui` with exit 0 and frees its port', async () => {
  const p = project();
  // A free port, asked for with --port.
  const probe = createTcpServer();
  await new Promise((done) => probe.listen(0, '127.0.0.1', done));
  const port = probe.address().port;
  await new Promise((done) => probe.close(done));
  const server = await serve(p, ['--port', String(port)]);
  assert.equal(server.port, port);
  const answer = await fetch(`${server.origin}/api/overview`, { headers: { 'X-Thehook-Token': server.token } });
  assert.equal(answer.status, 200);
  assert.equal((await answer.json()).sessions, 4);
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
  const refused = await new Promise((done) => connect(port, '127.0.0.1').once('connect', function () { this.destroy(); done('connected'); })
    .once('error', (e) => done(e.code)));
  assert.equal(refused, 'ECONNREFUSED');
});

test('measureViews (for benchmarks) times the first paint and every view, run after run', async () => {
  const p = project();
  const server = await serve(p);
  try {
    const views = ['sessions', `session/${SESSION}`, 'next', 'memory', 'search?q=jose', 'review', 'cost', 'health'];
    const times = await measureViews({ url: server.url, views, runs: 2, browser });
    assert.deepEqual(Object.keys(times.views), views);
    for (const ms of [times.firstPaint, ...Object.values(times.views)]) {
      assert.ok(ms.length === 2 && ms.every((t) => Number.isFinite(t) && t > 0), JSON.stringify(times));
    }
  } finally {
    await server.stop();
  }
});
