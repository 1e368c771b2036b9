#!/usr/bin/env node
// The `thehook` command of the npm package: the same command line as the
// native binary, run in-process by the addon.

// The platforms with a package (package.json's optionalDependencies).
const SUPPORTED = ['linux-x64', 'linux-arm64', 'darwin-arm64', 'darwin-x64', 'win32-x64'];
const here = `${process.platform}-${process.arch}`;
let addon;
try {
  addon = require('../main.js');
} catch (e) {
  const fix = SUPPORTED.includes(here)
    ? 'reinstall without --no-optional / --omit=optional'
    : `thehook has no package for ${here}; use a supported platform`;
  console.error(
    `thehook: the native part for ${here} is not installed (${e.message.split('\n')[0]}).\n` +
      `  fix: ${fix}. Packages exist for ${SUPPORTED.join(', ')} (Linux with glibc 2.34 or newer).`
  );
  process.exit(2);
}
process.exitCode = addon.cli(process.argv.slice(2));
