// Vitest global set-up: every tmux server a test starts is named after this
// run (GROVE_TEST_RUN, see test/helpers/tmux.ts), and the teardown kills the
// ones still running. A server outlives its test when `kill` is never reached
// (a test that timed out in its set-up) or when its `kill-server` failed on a
// loaded machine, and it keeps a `sleep 86400` alive for a day.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const run = randomBytes(4).toString('hex');
  process.env['GROVE_TEST_RUN'] = run;
  return () => {
    const folder = join(process.env['TMUX_TMPDIR'] ?? tmpdir(), `tmux-${process.getuid?.() ?? 0}`);
    let sockets: string[] = [];
    try {
      sockets = readdirSync(folder).filter((name) => name.startsWith(`grove-test-${run}-`));
    } catch {
      return;
    }
    for (const socket of sockets) {
      try {
        execFileSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore', timeout: 5000 });
      } catch {
        // already gone
      }
    }
  };
}
