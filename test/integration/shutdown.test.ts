import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeReviewWorld, waitFor, type ReviewWorld } from '../helpers/review-world.js';

// Quitting Grove (Controller.shutdown, what the TUI's `q` ends with) stops
// long work that no session worker runs: here a session's worktree setup
// command, a real shell process.

let w: ReviewWorld;

beforeEach(async () => {
  w = await makeReviewWorld();
});

afterEach(async () => {
  await w.close();
});

/**
 * The process's start time (field 22 of /proc/PID/stat), or null when it is
 * gone or a zombie: a pid reused by another process (the suite starts
 * thousands, and pid_max is often 32768) reads as a different start time.
 */
function started(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' ? null : (fields[19] ?? null);
  } catch {
    return null;
  }
}

describe('shutdown', () => {
  it('stops a worktree setup command that is still running', async () => {
    const pidFile = join(w.world.dir, 'setup.pid');
    // After exec, the pid written is the sleep's own.
    const settings = {
      ...w.app.state.settings,
      'setup.command': `echo $$ > '${pidFile}'; exec sleep 300`,
    };
    const session = await w.controller.sessions.create(
      w.projectId,
      { agent: 'claude', model: 'sonnet', reasoning: 'high' },
      settings,
    );
    const pid = await waitFor(
      'the setup command to start',
      () => existsSync(pidFile) && Number(readFileSync(pidFile, 'utf8').trim()),
    );
    const startedAt = started(pid);
    expect(startedAt).not.toBeNull();

    await w.controller.shutdown();

    await waitFor('the setup command to end', () => started(pid) !== startedAt);
    await w.controller.sessions.whenReady(session.id).catch(() => {});
    expect((await w.notices(session.id)).at(-1)).toMatch(
      /^\[Setup Error\] The setup command exited/,
    );
  });
});
