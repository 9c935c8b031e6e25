import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClipboard, osc52, tmuxPassthrough } from '../../src/infra/clipboard.js';

// `y` with no clipboard tool in reach: inside tmux, tmux's own paste buffer
// (a real tmux server, with its default `set-clipboard external`, which drops
// a program's OSC 52); elsewhere OSC 52 through the terminal writer.

describe.runIf(process.platform === 'linux')('the clipboard without a display', () => {
  it('writes OSC 52 with the base64 text to the terminal and says so', async () => {
    const written: string[] = [];
    const clipboard = createClipboard((data) => written.push(data), { PATH: '/usr/bin' });

    const via = await clipboard.copy('/wt/project-1');

    expect(via).toContain('OSC 52');
    expect(written).toEqual([`\x1b]52;c;${Buffer.from('/wt/project-1').toString('base64')}\x07`]);
  });

  it('writes OSC 52 and its tmux passthrough form when the tmux of $TMUX is gone', async () => {
    const written: string[] = [];
    const clipboard = createClipboard((data) => written.push(data), {
      PATH: '/usr/bin',
      TMUX: `/tmp/grove-no-such-tmux-${randomBytes(4).toString('hex')},1,0`,
    });

    await clipboard.copy('x');

    expect(written).toEqual([osc52('x'), tmuxPassthrough(osc52('x'))]);
    expect(written[1]).toBe('\x1bPtmux;\x1b\x1b]52;c;eA==\x07\x1b\\');
  });
});

describe.runIf(process.platform === 'linux')('the clipboard inside tmux', () => {
  let socket: string;
  let tmuxEnv: string;
  const tmux = (...args: string[]): string =>
    execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', env: { PATH: '/usr/bin' } });

  beforeEach(() => {
    socket = `grove-clip-${randomBytes(6).toString('hex')}`;
    tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'main', 'sleep 600');
    // What tmux puts in the environment of the programs it runs.
    tmuxEnv = tmux('display-message', '-p', '#{socket_path},#{pid},0').trim();
  });

  afterEach(() => {
    tmux('kill-server');
  });

  it("puts the text in tmux's paste buffer (tmux's default set-clipboard external) and says so", async () => {
    expect(tmux('show-options', '-gv', 'set-clipboard').trim()).toBe('external');
    const written: string[] = [];
    const clipboard = createClipboard((data) => written.push(data), {
      PATH: '/usr/bin',
      TMUX: tmuxEnv,
    });

    const via = await clipboard.copy('/wt/project-1 ünïcode');

    expect(tmux('show-buffer')).toBe('/wt/project-1 ünïcode');
    expect(via).toBe("tmux's paste buffer (prefix ]) and the terminal's clipboard");
    // No OSC 52 of its own: tmux would drop it, and tmux already sent one to the terminal.
    expect(written).toEqual([]);
  });
});
