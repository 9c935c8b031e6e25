import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';

// Grove's data (transcripts, prompts, logs with command output) is private:
// GROVE_HOME and its folders are 0700, the database and log files 0600.
// What an older Grove created more openly is tightened at start-up, one
// stat per path. Failures are ignored: privacy never stops Grove starting.

const GROUP_OTHER = 0o077;

/** Creates `dir` (and missing parents) as 0700, or tightens an existing one that others can read. */
export function makePrivateDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = statSync(dir);
    // Never a shared folder someone pointed GROVE_HOME at: / , the home folder, /tmp-like (sticky) folders.
    if (resolve(dir) === '/' || resolve(dir) === resolve(homedir()) || (stat.mode & 0o1000) !== 0)
      return;
    if ((stat.mode & GROUP_OTHER) !== 0) chmodSync(dir, 0o700);
  } catch {
    // Best effort: a folder Grove cannot create shows up as a clear error where it is used.
  }
}

/** Takes group and other permissions off an existing file (a missing file is fine). */
export function makePrivateFile(file: string): void {
  try {
    const stat = statSync(file);
    if (stat.isFile() && (stat.mode & GROUP_OTHER) !== 0) chmodSync(file, stat.mode & 0o700);
  } catch {
    // Missing, or not ours to change.
  }
}
