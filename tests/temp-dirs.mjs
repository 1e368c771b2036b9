// Temporary folders for the Node suites, removed when the process exits
// (kept with THEHOOK_KEEP_WORKSPACES=1, to look into a failure): a run of
// the suites leaves nothing in the system's temporary folder.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How long a detached process (a capture worker whose LLM CLI waits on a
 * mock model that is gone) may still write into a folder after the run:
 * past the LLM's 90 s timeout and the CLI's retries. */
const LINGER_S = 300;

const made = [];
process.on('exit', () => {
  if (process.env.THEHOOK_KEEP_WORKSPACES === '1' || made.length === 0) return;
  for (const dir of made) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    } catch {}
  }
  // A capture worker may still be running, and recreate its folders as it
  // logs: one detached janitor removes them all again once it is done.
  if (process.platform !== 'win32') {
    const later = `sleep ${LINGER_S}; rm -rf "$@"`;
    spawn('sh', ['-c', later, 'janitor', ...made], { detached: true, stdio: 'ignore' }).unref();
  }
});

/** A new folder under the system's temporary folder, named `<prefix>XXXXXX`. */
export function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
