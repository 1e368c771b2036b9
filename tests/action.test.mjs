// The GitHub Action (action.yml) as a runner runs it, without GitHub: each
// step's script run by bash with the runner's files (GITHUB_OUTPUT,
// GITHUB_PATH, GITHUB_STEP_SUMMARY), its `${{ }}` expressions and `if:`
// conditions evaluated, against a real pull request's repository, installing
// the npm tarballs scripts/release.sh packed with npm kept off the network.
// GitHub's API is the one thing that cannot run here: `gh` is a fake that
// answers as the API would and records what it was asked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './temp-dirs.mjs';
import { pullRequestRepo, PLANTED, BENIGN } from './pull-request.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
// The YAML parser tools/actionlint pins (scripts/test.sh installs it).
const YAML = createRequire(join(repo, 'tools/actionlint/package.json'))('yaml');
const action = YAML.parse(readFileSync(join(repo, 'action.yml'), 'utf8'));
const version = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).version;

// A runner's environment: no model or runtime from this checkout, npm off
// the network, nothing of the user's.
const baseEnv = { ...process.env, THEHOOK_EMBEDDING_CACHE: 'off', npm_config_registry: 'http://127.0.0.1:9/', npm_config_offline: 'true', npm_config_update_notifier: 'false' };
for (const name of ['THEHOOK_MODEL_DIR', 'ORT_DYLIB_PATH', 'THEHOOK_NPM_BIN']) delete baseEnv[name];

/** The value of `path` (`inputs.since`, `github.event.pull_request.number`)
 * in `ctx`; a context the runner here does not model is an error, so a step
 * that starts using one fails this test rather than reading nothing. */
function lookup(path, ctx) {
  const [root, ...rest] = path.split('.');
  if (!(root in ctx)) throw new Error(`the action reads ${path}, which this runner does not model`);
  let value = ctx[root];
  for (const key of rest) value = value?.[key];
  return value ?? '';
}

/** An `if:` condition: terms joined by `&&`, each `path` or `path == 'text'`. */
function condition(expr, ctx) {
  return expr.split('&&').every((term) => {
    const m = /^\s*([\w.-]+)\s*(?:==\s*'([^']*)')?\s*$/.exec(term);
    if (!m) throw new Error(`the action's condition "${expr}" is beyond this runner`);
    const value = lookup(m[1], ctx);
    return m[2] === undefined ? Boolean(value) : String(value) === m[2];
  });
}

function substitute(text, ctx) {
  return String(text).replace(/\$\{\{\s*([\w.-]+)\s*\}\}/g, (_, path) => String(lookup(path, ctx)));
}

/** `key=value` lines of a step's GITHUB_OUTPUT. */
function outputsOf(file) {
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  return Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

/**
 * Runs action.yml's steps in `workspace` for a pull request `event` with
 * `inputs` (the rest from the action's defaults). `binDirs` go first on
 * PATH (the fake `gh`, or a fake `npm`); `skipInstall` starts at the review
 * with the checkout's own build on PATH. Returns each step's result, the
 * job summary and the action's outputs.
 */
function runAction({ workspace, event, inputs = {}, binDirs = [], skipInstall = false }) {
  const temp = tempDir('thehook-runner-');
  const summary = join(temp, 'step-summary.md');
  writeFileSync(summary, '');
  const home = join(temp, 'home');
  mkdirSync(home);
  const ctx = { github: { event, action_path: repo, token: 'token-of-this-run', repository: 'acme/app' }, steps: {} };
  ctx.inputs = Object.fromEntries(Object.entries(action.inputs).map(([id, i]) => [id, inputs[id] ?? substitute(i.default ?? '', ctx)]));
  let path = [...binDirs];
  const extraEnv = {};
  if (skipInstall) {
    const bin = join(temp, 'native');
    mkdirSync(bin);
    symlinkSync(join(repo, 'target/release/thehook'), join(bin, 'thehook'));
    path.push(bin);
    // The checkout's model and ONNX Runtime, which the package would bring.
    extraEnv.THEHOOK_MODEL_DIR = join(repo, '.assets/model');
    extraEnv.ORT_DYLIB_PATH = join(repo, '.assets/onnxruntime/libonnxruntime.so.1.31.1');
  }
  const steps = [];
  let failed = false;
  for (const [i, step] of action.runs.steps.entries()) {
    if (i === 0 && skipInstall) continue;
    // A step's `if:` stands beside success(): after a failure, nothing runs.
    if (failed || (step.if && !condition(step.if, ctx))) {
      steps.push({ name: step.name, skipped: true });
      continue;
    }
    const files = { GITHUB_OUTPUT: join(temp, `output-${i}`), GITHUB_PATH: join(temp, `path-${i}`) };
    for (const f of Object.values(files)) writeFileSync(f, '');
    const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, substitute(v, ctx)]));
    const env = { ...baseEnv, ...extraEnv, ...files, ...stepEnv, GITHUB_ACTION_PATH: repo, GITHUB_REPOSITORY: 'acme/app', GITHUB_STEP_SUMMARY: summary, RUNNER_TEMP: temp, HOME: home, PATH: [...path, baseEnv.PATH].join(delimiter) };
    const script = join(temp, `step-${i}.sh`);
    writeFileSync(script, substitute(step.run, ctx));
    const cwd = resolve(workspace, substitute(step['working-directory'] ?? '.', ctx));
    // GitHub's `shell: bash`.
    const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd, env, encoding: 'utf8' });
    if (step.id) ctx.steps[step.id] = { outputs: outputsOf(files.GITHUB_OUTPUT) };
    // GITHUB_PATH prepends, for the steps after.
    path = [...readFileSync(files.GITHUB_PATH, 'utf8').split('\n').filter(Boolean).reverse(), ...path];
    steps.push({ name: step.name, status: r.status, stdout: r.stdout, stderr: r.stderr });
    failed = r.status !== 0;
  }
  const outputs = Object.fromEntries(Object.entries(action.outputs).map(([id, o]) => [id, substitute(o.value, ctx)]));
  return { steps, summary: readFileSync(summary, 'utf8'), outputs, temp };
}

/** A fake `gh` in a new folder: `gh api` answers the listing of the pull
 * request's comments with `existing` (ids of comments a bot posted with the
 * marker) and records every call with the body it would post. */
function fakeGh(existing = []) {
  const dir = tempDir('thehook-fake-gh-');
  const log = join(dir, 'calls.log');
  const script = `#!/usr/bin/env bash
# Records the call; a body given as -F body=@FILE is recorded by content.
{ printf 'ARGS'; printf ' %s' "$@"; printf '\\n'; } >> "${log}"
for a in "$@"; do
  case "$a" in body=@*) printf 'BODY\\n%s\\nEND\\n' "$(cat "\${a#body=@}")" >> "${log}" ;; esac
done
[ "$GH_TOKEN" = token-of-this-run ] || { echo "gh: not logged in" >&2; exit 4; }
if [ "$1 $2" = "api --paginate" ]; then printf '%s\\n' ${existing.join(' ')}; fi
`;
  writeFileSync(join(dir, 'gh'), script);
  chmodSync(join(dir, 'gh'), 0o755);
  return { dir, calls: () => (existsSync(log) ? readFileSync(log, 'utf8') : '') };
}

function tarballs() {
  const dist = join(repo, 'dist');
  const found = existsSync(dist) ? readdirSync(dist).filter((f) => f.endsWith('.tgz')).map((f) => join(dist, f)) : [];
  assert.equal(found.length, 3, `run scripts/release.sh first: ${found}`);
  return found.join(' ');
}

function pullRequest(options) {
  const workspace = tempDir('thehook-pr-');
  const { base } = pullRequestRepo(workspace, options);
  return { workspace, event: { pull_request: { number: 7, base: { sha: base } } } };
}

test('the action reviews a pull request with the packed package: summary, one comment, a failed check', () => {
  const { workspace, event } = pullRequest();
  const gh = fakeGh();
  const run = runAction({ workspace, event, inputs: { comment: 'true', packages: tarballs() }, binDirs: [gh.dir] });
  const [install, review, comment, gate] = run.steps;
  assert.equal(install.status, 0, install.stderr);
  assert.equal(review.status, 0, review.stderr);
  // The report in the job summary, by group, with authors; the token redacted.
  assert.match(run.summary, /\*\*Withheld from agents \(1\)\*\*/, run.summary);
  assert.match(run.summary, /Ignore all previous instructions/);
  assert.match(run.summary, /Mallory Fork/);
  assert.match(run.summary, /\*\*Secrets \(1\)\*\*/);
  assert.ok(!run.summary.includes('ghp_4Rz8'), run.summary);
  // The package brought the model: the learned check read every new item.
  assert.doesNotMatch(run.summary, /not judged/i);
  assert.equal(run.outputs.findings, 'true');
  assert.equal(readFileSync(run.outputs.report, 'utf8'), run.summary);
  // One new comment, the report under the marker it is found again by.
  assert.equal(comment.status, 0, comment.stderr);
  const calls = gh.calls();
  assert.match(calls, /ARGS api --paginate repos\/acme\/app\/issues\/7\/comments/);
  assert.match(calls, /ARGS api --method POST repos\/acme\/app\/issues\/7\/comments -F body=@/);
  assert.ok(calls.includes(`BODY\n<!-- thehook-review -->\n${run.summary.trimEnd()}`), calls);
  assert.equal(gate.status, 1);
  assert.match(gate.stdout, /::error title=thehook review::/);

  // The next push edits that comment instead of adding one.
  const again = fakeGh(['4242']);
  const rerun = runAction({ workspace, event, inputs: { comment: 'true', packages: tarballs() }, binDirs: [again.dir] });
  assert.equal(rerun.steps[2].status, 0, rerun.steps[2].stderr);
  assert.match(again.calls(), /ARGS api --method PATCH repos\/acme\/app\/issues\/comments\/4242 -F body=@/);
  assert.doesNotMatch(again.calls(), /--method POST/);
});

test('a benign pull request passes; with check false, findings are reported and the job passes', () => {
  const benign = pullRequest({ benignOnly: true });
  const gh = fakeGh();
  const run = runAction({ ...benign, binDirs: [gh.dir], skipInstall: true });
  assert.deepEqual(run.steps.map((s) => s.status ?? 'skipped'), [0, 'skipped', 'skipped']);
  assert.equal(run.outputs.findings, 'false');
  assert.match(run.summary, new RegExp(BENIGN[0].slice(0, 30).replace(/[`()]/g, '.')));
  assert.equal(gh.calls(), '', 'comment defaults to false');

  const planted = pullRequest();
  const reported = runAction({ ...planted, inputs: { check: 'false' }, skipInstall: true });
  assert.deepEqual(reported.steps.map((s) => s.status ?? 'skipped'), [0, 'skipped', 'skipped']);
  assert.equal(reported.outputs.findings, 'true');
  assert.match(reported.summary, new RegExp(PLANTED.slice(0, 30)));
});

test('what the action cannot review fails the job with a message that says why', () => {
  const { workspace, event } = pullRequest();
  // Not a pull request, and no `since`.
  const push = runAction({ workspace, event: {}, skipInstall: true });
  assert.equal(push.steps[0].status, 2);
  assert.match(push.steps[0].stdout, /::error title=thehook review::no base to review from: outside a pull request, set the input since/);
  // A base the clone lacks (a shallow checkout): thehook's advice in the summary.
  const shallow = runAction({ workspace, event: { pull_request: { number: 7, base: { sha: 'f'.repeat(40) } } }, skipInstall: true });
  assert.equal(shallow.steps[0].status, 2, shallow.steps[0].stderr);
  assert.match(shallow.summary, /thehook review failed \(exit 2\)/);
  assert.match(shallow.summary, /fetch-depth: 0/);
  assert.deepEqual(shallow.steps.slice(1).map((s) => s.skipped), [true, true]);
  const typo = runAction({ workspace, event, inputs: { check: 'yes' }, skipInstall: true });
  assert.match(typo.steps[0].stdout, /the input check is "yes": say true or false/);
});

test('by default the action installs thehook at its own version, which the example workflow pins', () => {
  // npm is a fake here: the registry is not reachable from the tests.
  const bin = tempDir('thehook-fake-npm-');
  writeFileSync(join(bin, 'npm'), '#!/usr/bin/env bash\nprintf "%s\\n" "$@" > "$RUNNER_TEMP/npm-args"\n');
  chmodSync(join(bin, 'npm'), 0o755);
  const run = runAction({ workspace: tempDir('thehook-empty-'), event: {}, binDirs: [bin] });
  assert.equal(run.steps[0].status, 0, run.steps[0].stderr);
  const args = readFileSync(join(run.temp, 'npm-args'), 'utf8').split('\n');
  assert.equal(args.at(-2), `thehook@${version}`);
  assert.ok(args.includes(join(run.temp, 'thehook-action')), args.join(' '));

  // The ready workflow of docs/teams.md is docs/examples/memory-review.yml,
  // which actionlint checks, at this release's tag.
  const example = readFileSync(join(repo, 'docs/examples/memory-review.yml'), 'utf8');
  assert.match(example, new RegExp(`uses: thehook/thehook@v${version.replace(/\./g, '\\.')}\\n`));
  const teams = readFileSync(join(repo, 'docs/teams.md'), 'utf8');
  assert.ok(teams.includes('```yaml\n' + example + '```'), 'docs/teams.md shows docs/examples/memory-review.yml as it is');
});
