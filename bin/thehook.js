#!/usr/bin/env node
// The `thehook` command of the npm package: the same command line as the
// native binary, run in-process by the addon.
let addon;
try {
  addon = require('../index.js');
} catch (e) {
  console.error(
    `thehook: the native part for ${process.platform}-${process.arch} is not installed (${e.message.split('\n')[0]}).\n` +
      '  fix: reinstall without --no-optional / --omit=optional, on a supported platform (linux-x64-gnu)'
  );
  process.exit(2);
}
process.exitCode = addon.cli(process.argv.slice(2));
