// The package as a user gets it: the tarballs of scripts/release.sh installed
// into an empty folder with npm kept off the network, then `npx thehook init`
// in a git repository, the hook command init wrote, and require('thehook').
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tempDir } from './temp-dirs.mjs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(repo, 'dist');

// A user's environment: no model or runtime from this checkout, and npm
// pointed at a registry that does not answer.
// THEHOOK_EMBEDDING_CACHE: not the user's embedding cache (as addon.test.mjs).
const env = { ...process.env, THEHOOK_EMBEDDING_CACHE: 'off', npm_config_registry: 'http://127.0.0.1:9/', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
delete env.THEHOOK_MODEL_DIR;
delete env.ORT_DYLIB_PATH;
delete env.THEHOOK_NPM_BIN;

function run(cmd, args, options = {}) {
  return execFileSync(cmd, args, { encoding: 'utf8', env, ...options });
}

test('the packed tarballs install offline and wire a project end to end', () => {
  const tarballs = readdirSync(dist).filter((f) => f.endsWith('.tgz')).map((f) => join(dist, f));
  assert.equal(tarballs.length, 3, `run scripts/release.sh first: ${tarballs}`);
  const root = tempDir('thehook-pkg-');
  const app = join(root, 'app');
  const project = join(root, 'project');
  const home = join(root, 'home');
  for (const d of [app, project, home]) mkdirSync(d);
  env.HOME = home;
  writeFileSync(join(app, 'package.json'), '{"name":"app","version":"1.0.0","private":true}\n');
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs], { cwd: app });
  const installed = readdirSync(join(app, 'node_modules')).sort();
  assert.deepEqual(installed.filter((n) => n.startsWith('thehook')), ['thehook', 'thehook-linux-x64-gnu', 'thehook-model']);

  run('git', ['init', '-q'], { cwd: project });
  const init = run('npx', ['--prefix', app, 'thehook', 'init', '--agent', 'claude'], { cwd: project });
  const native = join(app, 'node_modules/thehook-linux-x64-gnu/thehook');
  assert.match(init, /the native thehook of the npm package/, init);
  const settings = JSON.parse(readFileSync(join(project, '.claude/settings.json'), 'utf8'));
  const hook = settings.hooks.SessionStart[0].hooks[0].command;
  assert.equal(hook, `${native} retrieve --agent claude-code`);
  assert.ok(readFileSync(join(project, '.claude/agents/thehook-recall.md'), 'utf8').includes('name: thehook-recall'));

  run('npx', ['--prefix', app, 'thehook', 'remember', 'Deploys go out on Tuesdays only', '--type', 'convention'], { cwd: project });
  const payload = JSON.stringify({ session_id: 's1', cwd: project, hook_event_name: 'SessionStart', source: 'startup' });
  const answer = run('sh', ['-c', hook], { cwd: project, input: payload, env: { ...env, THEHOOK_BACKGROUND: '0' } });
  const context = JSON.parse(answer).hookSpecificOutput.additionalContext;
  assert.match(context, /Deploys go out on Tuesdays only \(\.thehook\/knowledge\/notes\.md:\d+\)/, answer);

  const script = `require('thehook').recall('which day do we deploy', { projectDir: ${JSON.stringify(project)} }).then(h => console.log(JSON.stringify(h)))`;
  const { ORT_DISABLE_TELEMETRY: _, ...unset } = env;
  // No index: the in-process recall embeds every item with ONNX Runtime,
  // which, loaded without the switch, writes ~/.cache/Microsoft.
  rmSync(join(project, '.thehook', 'index'), { recursive: true, force: true });
  const answer2 = JSON.parse(run('node', ['-e', script], { cwd: app, env: unset }));
  assert.match(answer2.hits[0].text, /Tuesdays/);
  assert.equal(answer2.mode, 'hybrid', 'embedded with the model');
  // The package's entry point switched ONNX Runtime's telemetry off before
  // the addon loaded (the addon never changes the environment itself).
  assert.ok(!existsSync(join(home, '.cache', 'Microsoft')), 'ONNX Runtime kept telemetry in ~/.cache/Microsoft');

  // The model and ONNX Runtime came with the packages: hybrid, not lexical-only.
  const status = run('npx', ['--prefix', app, 'thehook', 'status', '--json'], { cwd: project });
  const embeddings = JSON.parse(status).embeddings;
  assert.ok(embeddings.Ready || embeddings.ready || embeddings.model, status);
  assert.match(status, /thehook-model/, 'the model found in node_modules');
});

test('index.js and index.d.ts are what napi build generates now', () => {
  // scripts/release.sh regenerated them in place: committed copies must match.
  const diff = execFileSync('git', ['diff', '--stat', '--', 'index.js', 'index.d.ts'], { cwd: repo, encoding: 'utf8' });
  assert.equal(diff, '', `index.js / index.d.ts are stale; commit the regenerated files:\n${diff}`);
});

test('without the platform package, the bin says what is missing and how to fix it', () => {
  const tarballs = readdirSync(dist).filter((f) => f.endsWith('.tgz') && !f.includes('linux-x64-gnu')).map((f) => join(dist, f));
  const app = tempDir('thehook-noplatform-');
  writeFileSync(join(app, 'package.json'), '{"name":"app","version":"1.0.0","private":true}\n');
  run('npm', ['install', '--offline', '--omit=optional', '--loglevel=error', ...tarballs], { cwd: app });
  let failure;
  try {
    run('node', [join(app, 'node_modules/thehook/bin/thehook.js'), '--help'], { cwd: app, stdio: 'pipe' });
  } catch (e) {
    failure = e;
  }
  assert.ok(failure, 'the shim must fail');
  assert.equal(failure.status, 2);
  assert.match(failure.stderr, /the native part for linux-x64 is not installed/);
  assert.match(failure.stderr, /fix: reinstall without --no-optional/);
  assert.match(failure.stderr, /Packages exist for linux-x64, linux-arm64, darwin-arm64, darwin-x64, win32-x64/);

  // On a platform with no package (FreeBSD, say), it names the ones there are.
  const pretend = join(app, 'freebsd.cjs');
  writeFileSync(pretend, "Object.defineProperty(process, 'platform', { value: 'freebsd' });\n");
  let unsupported;
  try {
    run('node', ['-r', pretend, join(app, 'node_modules/thehook/bin/thehook.js'), '--help'], { cwd: app, stdio: 'pipe' });
  } catch (e) {
    unsupported = e;
  }
  assert.equal(unsupported?.status, 2);
  assert.match(unsupported.stderr, /fix: thehook has no package for freebsd-x64; use a supported platform\. Packages exist for linux-x64, /);
});

test('every platform in package.json has its npm/<platform> package, for its os and cpu', () => {
  const root = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
  const triples = {
    'x86_64-unknown-linux-gnu': ['linux-x64-gnu', 'linux', 'x64', 'glibc'],
    'aarch64-unknown-linux-gnu': ['linux-arm64-gnu', 'linux', 'arm64', 'glibc'],
    'aarch64-apple-darwin': ['darwin-arm64', 'darwin', 'arm64', undefined],
    'x86_64-apple-darwin': ['darwin-x64', 'darwin', 'x64', undefined],
    'x86_64-pc-windows-msvc': ['win32-x64-msvc', 'win32', 'x64', undefined],
  };
  assert.deepEqual(root.napi.targets.slice().sort(), Object.keys(triples).sort());
  for (const [platform, os, cpu, libc] of Object.values(triples)) {
    const pkg = JSON.parse(readFileSync(join(repo, 'npm', platform, 'package.json'), 'utf8'));
    assert.equal(pkg.name, `thehook-${platform}`);
    assert.equal(root.optionalDependencies[pkg.name], root.version, pkg.name);
    assert.equal(pkg.version, root.version, pkg.name);
    assert.deepEqual([pkg.os, pkg.cpu, pkg.libc], [[os], [cpu], libc && [libc]], pkg.name);
    assert.equal(pkg.main, `thehook.${platform}.node`);
    assert.ok(pkg.files.includes(pkg.main) && pkg.files.includes(os === 'win32' ? 'thehook.exe' : 'thehook'), pkg.name);
    // The shim's list of supported platforms is this list.
    assert.match(readFileSync(join(repo, 'bin/thehook.js'), 'utf8'), new RegExp(`'${os}-${cpu}'`));
  }
  assert.equal(Object.keys(root.optionalDependencies).length, 5);
});
