// The page of `thehook ui` in headless Chromium (Debian's, driven by
// puppeteer-core): every view on a project holding a real captured Claude
// Code session, what that session was given and used, a hostile item that
// must render inert and visible, review actions that must write what the CLI
// writes, and a page of another site that must get nothing. Screenshots of
// every view go to target/ui-screenshots/ (docs/ui.md shows them).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { cpSync, readFileSync, writeFileSync, appendFileSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { join, dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../temp-dirs.mjs';

const puppeteer = createRequire(import.meta.url)('puppeteer-core');
const repo = join(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = process.env.THEHOOK_BIN || join(repo, 'target/release/thehook');
const shots = join(repo, 'target/ui-screenshots');
const session = '1af7fc5e-8455-4414-9ccd-011d40f70b2a';
const transcript = join(repo, 'crates/thehook-core/tests/fixtures/transcripts/claude-code/d-kimuson-1af7fc5e.jsonl');
// Planted where a teammate's pull request could put it: markup, an event
// attribute, a javascript: link, a right-to-left override and a tag character.
const HOSTILE = '- `[gotcha]` Hostile: <script>window.__pwned=1</script> <img src=x onerror="window.__pwned=2"> '
  + '[click](javascript:window.__pwned=3) \u202Eevil\u202C tag\u{E0041}\n';

let browser;
before(async () => {
  mkdirSync(shots, { recursive: true });
  browser = await puppeteer.launch({
    executablePath: process.env.THEHOOK_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox'],
  });
});
after(async () => { await browser?.close(); });

/** The environment of every thehook run: no user's HOME, cache or model. */
function env(home) {
  const e = { ...process.env, HOME: home, THEHOOK_BACKGROUND: '0', THEHOOK_EMBEDDINGS: 'off', NO_COLOR: '1',
    GIT_AUTHOR_NAME: 'Ada Lovelace', GIT_AUTHOR_EMAIL: 'ada@example.com',
    GIT_COMMITTER_NAME: 'Ada Lovelace', GIT_COMMITTER_EMAIL: 'ada@example.com' };
  for (const k of Object.keys(e)) if (k.startsWith('THEHOOK_') && !['THEHOOK_BACKGROUND', 'THEHOOK_EMBEDDINGS'].includes(k)) delete e[k];
  return e;
}

/** The demo's memory committed by Ada, a hostile note, and the real session
 * captured after the session-start hook gave it two lines (one it then used). */
function project() {
  const root = join(tempDir('thehook-ui-'), 'shop');
  const home = join(root, '..', 'home');
  mkdirSync(home, { recursive: true });
  cpSync(join(repo, 'examples/demo/.thehook'), join(root, '.thehook'), { recursive: true });
  const conventions = join(root, '.thehook/knowledge/conventions.md');
  // A teammate's near-copy of a convention, for Review's near-duplicates.
  appendFileSync(conventions, '- Keep `CLAUDE.md` short: the dev commands.\n'
    + '- Use `pnpm` for every install and every script: `npm install` breaks the workspace lockfile.\n');
  const line = readFileSync(conventions, 'utf8').split('\n').findIndex((l) => l.includes('CLAUDE.md')) + 1;
  appendFileSync(join(root, '.thehook/knowledge/notes.md'), HOSTILE);
  const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, env: env(home), encoding: 'utf8' });
  run('git', ['init', '-q']);
  run('git', ['add', '-A']);
  run('git', ['commit', '-qm', 'memory']);
  mkdirSync(join(root, '.thehook/index/given'), { recursive: true });
  writeFileSync(join(root, `.thehook/index/given/${session}.txt`),
    `2025-09-03T00:47:00Z\tstart\t.thehook/knowledge/conventions.md:${line}\n`
    + '2025-09-03T00:47:00Z\tstart\t.thehook/knowledge/conventions.md:3\n');
  // No LLM CLI here: captured heuristically (exit 1: the transcript waits in
  // failed/ for an LLM), which is what the Cost view lists.
  const captured = spawnSync(bin, ['capture', '--transcript', transcript, '--json'], { cwd: root, env: env(home), encoding: 'utf8' });
  assert.equal(JSON.parse(captured.stdout).sessions[0].status, 'heuristic', captured.stderr);
  return { root, home, run };
}

/** `thehook ui --no-open` on `p`: its URL, port and token; stop() sends Ctrl-C. */
async function serve(p) {
  const child = spawn(bin, ['-C', p.root, 'ui', '--no-open'], { env: env(p.home), stdio: ['ignore', 'pipe', 'ignore'] });
  const [line] = await new Promise((done) => createInterface({ input: child.stdout }).once('line', (l) => done([l])));
  const url = line.replace('thehook ui: ', '');
  const { port, searchParams } = new URL(url);
  const exited = new Promise((done) => child.once('exit', (code) => done(code)));
  return { url, port: Number(port), token: searchParams.get('token'), stop: () => { child.kill('SIGINT'); return exited; } };
}

/** Navigates to `hash` and waits until the page says the view has rendered. */
async function show(page, server, hash) {
  await page.evaluate(() => { document.body.dataset.ready = ''; });
  await page.goto(`${server.url.split('#')[0]}#/${hash}`);
  const view = hash.split(/[/?]/)[0];
  await page.waitForFunction((v) => document.body.dataset.ready === v, { timeout: 20000 }, view);
  assert.equal(await page.$eval('#error', (e) => e.hidden), true, `${hash}: ${await page.$eval('#error', (e) => e.textContent)}`);
}

/** Nothing memory holds ran or became markup. */
async function inert(page, where) {
  const state = await page.evaluate(() => ({
    pwned: typeof window.__pwned,
    scripts: [...document.scripts].map((s) => new URL(s.src).pathname),
    onerror: document.querySelectorAll('[onerror]').length,
    jsLinks: document.querySelectorAll('a[href^="javascript:" i]').length,
    images: document.querySelectorAll('img').length,
  }));
  assert.deepEqual(state, { pwned: 'undefined', scripts: ['/app.js'], onerror: 0, jsLinks: 0, images: 0 }, where);
}

const text = (page) => page.evaluate(() => document.body.innerText);
const shot = (page, name) => page.screenshot({ path: join(shots, `${name}.png`) });

test('every view shows the project, a session shows what it was given and used, hostile text stays text', async () => {
  const p = project();
  const server = await serve(p);
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  const timings = {};
  page.on('pageerror', (e) => assert.fail(`the page threw: ${e.message}`));
  try {
    // Two clicks from the start to what a session was given: its row, then
    // the given block is the first thing on its page.
    await show(page, server, 'sessions');
    assert.equal((await page.$$('.session-row')).length, 4);
    await shot(page, 'sessions');
    const row = await page.evaluateHandle(() => [...document.querySelectorAll('.session-row')].find((r) => r.textContent.includes('/init')));
    await page.evaluate(() => { document.body.dataset.ready = ''; });
    await row.click();
    await page.waitForFunction(() => document.body.dataset.ready === 'session', { timeout: 20000 });
    assert.equal((await page.$$('.given-line.used')).length, 1);
    assert.equal((await page.$$('.given-line.unused')).length, 1);
    const used = await page.$eval('.given-line.used', (e) => e.textContent);
    assert.match(used, /CLAUDE\.md/);
    assert.match(used, /Write/);
    await inert(page, 'session');
    await shot(page, 'session');

    await show(page, server, 'next');
    assert.match(await text(page), /Where you left off/);
    await shot(page, 'next');

    await show(page, server, 'memory');
    assert.ok((await page.$$('.item-row')).length > 20);
    assert.match(await text(page), /<script>window\.__pwned=1<\/script>/, 'markup shown as text');
    await inert(page, 'memory');
    await shot(page, 'memory');

    await page.type('#search-input', 'jose JWT');
    await page.evaluate(() => { document.body.dataset.ready = ''; });
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.body.dataset.ready === 'search', { timeout: 20000 });
    assert.ok((await page.$$('.hit')).length > 0);
    assert.match(await page.$eval('.hit', (e) => e.textContent), /jose/);
    await page.click('.hit .citation');
    await page.waitForSelector('.hit .context .context-line.target', { timeout: 10000 });
    assert.match(await page.$eval('.context-line.target', (e) => e.textContent), /jose/);
    await shot(page, 'search');

    // The hostile line's own page: hidden characters shown as markers where
    // the raw markdown is shown, its author from git blame.
    const hostile = await page.evaluate(async (token) => {
      const r = await fetch('/api/items?type=gotcha', { headers: { 'X-Thehook-Token': token } });
      return (await r.json()).items.find((i) => i.text.includes('Hostile')).id;
    }, server.token);
    await show(page, server, `item/${hostile}`);
    const markers = await page.$$eval('.context span.hidden-char', (s) => s.map((e) => e.textContent).join(' '));
    assert.match(markers, /U\+202E/);
    assert.match(markers, /U\+E0041/);
    assert.match(await text(page), /Ada Lovelace/);
    await inert(page, 'item');
    await shot(page, 'item');

    await show(page, server, 'review');
    assert.ok((await page.$$('.review-row')).length > 0);
    assert.match(await page.$eval('.side', (e) => e.textContent), /pnpm/, 'the near-duplicate pair');
    await inert(page, 'review');
    await shot(page, 'review');
    await show(page, server, 'cost');
    assert.equal((await page.$$('svg.chart rect.bar')).length, 30);
    assert.match(await text(page), /without the LLM/i);
    await shot(page, 'cost');
    await show(page, server, 'health');
    assert.ok((await page.$$('.check')).length > 3);
    await shot(page, 'health');

    for (const view of ['sessions', 'next', 'memory', 'review', 'cost', 'health']) {
      await page.goto('about:blank');
      await page.goto(`${server.url.split('#')[0]}#/${view}`);
      await page.waitForFunction((v) => document.body.dataset.ready === v, { timeout: 20000 }, view);
      timings[view] = await page.evaluate((v) => Math.round(performance.getEntriesByName(`view-ready:${v}`).at(-1).startTime), view);
    }
    // Not asserted (timings do not belong in tests): bench/ui.py measures.
    console.log(`ui-timings ${JSON.stringify(timings)}`);
  } finally {
    await page.close();
    assert.equal(await server.stop(), 0, 'Ctrl-C stops it cleanly');
  }
});

/** Every markdown file under `.thehook/` of `root`, with its bytes. */
function markdown(root) {
  const out = {};
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.md')) out[relative(root, path)] = readFileSync(path);
    }
  };
  walk(join(root, '.thehook'));
  return out;
}

test('confirm and forget from the page write the bytes `thehook review` writes', async () => {
  const [a, b] = [project(), project()];
  const before = markdown(a.root);
  const stale = JSON.parse(b.run(bin, ['review', '--json'])).stale.map((s) => s.item.id);
  assert.ok(stale.length >= 2, JSON.stringify(stale));
  const server = await serve(a);
  const page = await browser.newPage();
  try {
    await show(page, server, 'review');
    await page.click(`.review-row [data-action="confirm"][data-id="${stale[0]}"]`);
    await page.waitForFunction(() => /confirmed/.test(document.querySelector('#notice').textContent), { timeout: 20000 });
    await page.waitForFunction(() => document.body.dataset.ready === 'review', { timeout: 20000 });
    const forget = `.review-row [data-action="forget"][data-id="${stale[1]}"]`;
    await page.click(forget);
    await page.waitForFunction((s) => /Really/.test(document.querySelector(s).textContent), {}, forget);
    await page.click(forget);
    await page.waitForFunction(() => /forgot/.test(document.querySelector('#notice').textContent), { timeout: 20000 });
  } finally {
    await page.close();
    await server.stop();
  }
  b.run(bin, ['review', 'confirm', stale[0]]);
  b.run(bin, ['review', 'forget', stale[1]]);
  const [byPage, byCli] = [markdown(a.root), markdown(b.root)];
  assert.deepEqual(Object.keys(byPage).sort(), Object.keys(byCli).sort());
  for (const file of Object.keys(byCli)) assert.ok(byPage[file].equals(byCli[file]), `${file} differs from the CLI's`);
  assert.ok(Object.keys(before).some((f) => !before[f].equals(byPage[f])), 'the page changed something');
});

test('a page of another site gets nothing and changes nothing, even knowing the token', async () => {
  const p = project();
  const server = await serve(p);
  const before = markdown(p.root);
  const target = `http://127.0.0.1:${server.port}`;
  // The attacker's page, on another origin of the same machine.
  const evil = createServer((_, res) => { res.setHeader('content-type', 'text/html'); res.end('<!doctype html><p>hi</p>'); });
  await new Promise((done) => evil.listen(0, '127.0.0.1', done));
  const page = await browser.newPage();
  try {
    await page.goto(`http://127.0.0.1:${evil.address().port}/`);
    const tried = await page.evaluate(async (base, token, id) => {
      const attempt = async (url, init) => { try { const r = await fetch(url, init); return `status ${r.status}`; } catch (e) { return 'blocked'; } };
      return [
        await attempt(`${base}/api/sessions?token=${token}`),
        await attempt(`${base}/api/review/forget`, { method: 'POST', headers: { 'X-Thehook-Token': token, 'Content-Type': 'application/json' }, body: JSON.stringify({ id }) }),
        await attempt(`${base}/api/review/forget`, { method: 'POST', mode: 'no-cors', body: JSON.stringify({ id }) }),
      ];
    }, target, server.token, '303ed6ef5993');
    // Read: the browser never hands the answer over (no CORS header), and
    // the server refused it anyway (the Origin); writes never reach memory.
    assert.ok(tried.every((t) => t === 'blocked' || t === 'status 0'), JSON.stringify(tried));
    const refused = await page.goto(`${target}/`);
    assert.equal(refused.status(), 403, 'the page itself needs the token');
  } finally {
    await page.close();
    evil.close();
    await server.stop();
  }
  assert.deepEqual(markdown(p.root), before, 'memory unchanged');
});
