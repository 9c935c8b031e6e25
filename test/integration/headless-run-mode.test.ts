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
  it('grove run --mode read-only records the mode, offers the agent no tool that writes, and grove show shows it', async () => {
    h.utilities();
    h.server.script('anthropic', [
      {
        when: 'Look at hello',
        toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' },
      },
      { when: 'Look at hello', text: reply('I only looked.') },
    ]);

    const run = await h.grove(['run', '--mode', 'read-only', '--output', 'json', 'Look at hello']);

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
    const tools = (
      (turnRequest?.body as { tools?: { name: string }[] } | undefined)?.tools ?? []
    ).map((t) => t.name);
    expect(tools).not.toContain('Write');
    expect(tools).not.toContain('Bash');
    expect(JSON.stringify(turnRequest?.body)).toContain('This session is in Read Only mode');
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
