// Temporary folders for the Node suites, removed when the process exits
// (kept with THEHOOK_KEEP_WORKSPACES=1, to look into a failure): a run of
// the suites leaves nothing in the system's temporary folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = [];
process.on('exit', () => {
  if (process.env.THEHOOK_KEEP_WORKSPACES === '1') return;
  for (const dir of made) {
    // A detached process (a capture worker, an agent's child) may still be
    // writing there: retried, and never a failure of the run.
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    } catch {}
  }
});

/** A new folder under the system's temporary folder, named `<prefix>XXXXXX`. */
export function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
