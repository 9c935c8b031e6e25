import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectExit, reply } from './headless-harness.js';
import {
  h,
  sessionBranches,
  setUpHeadlessRun,
  showJson,
  turnRequests,
} from './headless-run-world.js';
import { ResultSchema } from './headless-schema.js';

// `grove run --mode`: the permission mode a session's turns run in, on the
// built binary with the real Claude Code and the fake model server.

setUpHeadlessRun();

describe('--mode', () => {
  it('grove run --mode read-only records the mode, holds a write for the person (grove deny from another shell refuses it), and grove show shows it', async () => {
    h.utilities();
    h.server.script('anthropic', [
      {
        when: 'Look at hello',
        toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' },
      },
      { when: 'Look at hello', text: reply('I only looked.') },
    ]);

    const running = h.grove(['run', '--mode', 'read-only', '--output', 'json', 'Look at hello']);
    // The write waits in the inbox; the person refuses it from another shell.
    let held: { id: string; kind: string; approvalId?: string } | undefined;
    for (let tries = 0; !held && tries < 600; tries++) {
      const inbox = await h.grove(['inbox', '--json'], { cwd: h.world.dir });
      held = (
        JSON.parse(inbox.stdout || '[]') as { id: string; kind: string; approvalId?: string }[]
      ).find((item) => item.kind === 'approval');
      if (!held) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(held?.approvalId).toBeDefined();
    const denied = await h.grove(['deny', (held?.approvalId ?? '').slice(0, 8)], {
      cwd: h.world.dir,
    });
    expectExit(denied, 0);
    const run = await running;

    expectExit(run, 0);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result).toMatchObject({
      permissionMode: 'read-only',
      answer: 'I only looked.',
      files: [],
    });
    expect(existsSync(join(result.worktree, 'hello.txt'))).toBe(false);
    // The session turn.
    const turnRequest = turnRequests('Look at hello')[0];
    expect(JSON.stringify(turnRequest?.body)).toContain('This session is in Read Only mode');
    // The model was told the person refused the write.
    expect(JSON.stringify(turnRequests('Look at hello').at(-1)?.body)).toContain(
      'The person denied this request in Grove.',
    );
    const text = await h.grove(['show', result.sessionId]);
    expectExit(text, 0);
    expect(text.stdout).toMatch(/^agent claude\/\S+ \[\w+\] {2}mode Read Only {2}tokens /m);
    expect((await showJson(result.sessionId)).permissionMode).toBe('read-only');
  });

  it('a bad --mode is a usage error that changes nothing', async () => {
    const run = await h.grove(['run', '--mode', 'yolo', 'Create hello.txt']);

    expectExit(run, 2);
    expect(run.stderr).toContain("--mode must be one of auto-edit, read-only, plan (got 'yolo')");
    expect(sessionBranches()).toEqual([]);
    expect(h.server.modelRequests('anthropic')).toEqual([]);
  });
});
