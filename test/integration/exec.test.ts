import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { failureOf, runTool } from '../../src/infra/exec.js';
import { createNotifier } from '../../src/infra/notify.js';
import { openTmuxWindow } from '../../src/infra/interactive.js';

// The one runner for tools (src/infra/exec.ts), with real programs: what a
// caller gets back for an answer, a failure, a timeout, a stop, a missing
// tool, and what the tool gets (its environment, its stdin).

const PATH = '/usr/bin:/bin';

describe('running a tool', () => {
  it('gives its exit code and its output as written', async () => {
    const run = await runTool('sh', ['-c', 'echo out; echo err >&2; exit 3'], {
      env: { PATH },
      timeoutMs: 5000,
    });
    expect(run).toEqual({ code: 3, stdout: 'out\n', stderr: 'err\n', error: null });
    expect(failureOf(run)).toBe('err');
  });

  it('passes only the environment given, in the folder given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'grove-exec-'));
    try {
      const run = await runTool('sh', ['-c', 'echo "$GROVE_X|${HOME-unset}"; pwd'], {
        env: { PATH, GROVE_X: 'x' },
        cwd: dir,
        timeoutMs: 5000,
      });
      expect(run.stdout.split('\n').slice(0, 2)).toEqual(['x|unset', dir]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives it an empty stdin, or the input given', async () => {
    const empty = await runTool('cat', [], { env: { PATH }, timeoutMs: 5000 });
    expect(empty).toMatchObject({ code: 0, stdout: '' });
    const input = await runTool('cat', [], { env: { PATH }, input: 'ünï\n', timeoutMs: 5000 });
    expect(input).toMatchObject({ code: 0, stdout: 'ünï\n' });
  });

  it('says so when the tool is not installed', async () => {
    const run = await runTool('grove-no-such-tool', ['--version'], {
      env: { PATH },
      timeoutMs: 5000,
    });
    expect(run).toMatchObject({ code: null, error: 'spawn grove-no-such-tool ENOENT' });
  });

  it('gives up after the timeout and says after how long', async () => {
    const run = await runTool('sleep', ['30'], { env: { PATH }, timeoutMs: 200 });
    expect(run).toMatchObject({ code: null, error: 'timed out after 0.2s' });
    expect(failureOf(run)).toBe('timed out after 0.2s');
  });

  it('stops when the signal aborts', async () => {
    const controller = new AbortController();
    const running = runTool('sleep', ['30'], {
      env: { PATH },
      signal: controller.signal,
      timeoutMs: 60_000,
    });
    setTimeout(() => controller.abort(), 100);
    expect(await running).toMatchObject({ code: null, error: 'stopped' });
  });

  it('says by which signal a tool was killed', async () => {
    const run = await runTool('sh', ['-c', 'kill -9 $$'], { env: { PATH }, timeoutMs: 5000 });
    expect(run.code).toBeNull();
    expect(run.error).toContain('SIGKILL');
  });
});

describe.runIf(process.platform === 'linux')('the desktop notification', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'grove-notify-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const notifySend = (exit: number): void => {
    const file = join(dir, 'notify-send');
    writeFileSync(file, `#!/bin/sh\nprintf '%s\\n' "$@" > "${dir}/args"\nexit ${exit}\n`);
    chmodSync(file, 0o755);
  };

  it('runs notify-send with the title and body, and says whether it worked', async () => {
    notifySend(0);
    const env = { PATH: `${dir}:${PATH}`, DISPLAY: ':0' };
    expect(await createNotifier(() => {}, env).desktop('Grove', 'fix-login; needs you')).toBe(true);
    expect(readFileSync(join(dir, 'args'), 'utf8')).toBe(
      '--app-name=Grove\n--\nGrove\nfix-login, needs you\n',
    );
    notifySend(1);
    expect(await createNotifier(() => {}, env).desktop('Grove', 'x')).toBe(false);
  });
});

describe.runIf(process.platform === 'linux')('a new tmux window', () => {
  it("says why when tmux cannot open one (no tmux server at $TMUX's socket)", async () => {
    const env = { PATH, TMUX: '/tmp/grove-no-such-tmux-socket,1,0' };
    await expect(openTmuxWindow('/bin/sh', [], '/tmp', env)).rejects.toThrow(
      /^tmux new-window failed: (no server running|error connecting to)/,
    );
  });
});
