import { describe, expect, it } from 'vitest';
import { createClipboard, osc52, tmuxPassthrough } from '../../src/infra/clipboard.js';

// `y` with no clipboard tool in reach: OSC 52 through the terminal writer.

describe.runIf(process.platform === 'linux')('the clipboard without a display', () => {
  it('writes OSC 52 with the base64 text to the terminal and says so', async () => {
    const written: string[] = [];
    const clipboard = createClipboard((data) => written.push(data), { PATH: '/usr/bin' });

    const via = await clipboard.copy('/wt/project-1');

    expect(via).toContain('OSC 52');
    expect(written).toEqual([`\x1b]52;c;${Buffer.from('/wt/project-1').toString('base64')}\x07`]);
  });

  it('also writes the tmux passthrough form inside tmux', async () => {
    const written: string[] = [];
    const clipboard = createClipboard((data) => written.push(data), {
      PATH: '/usr/bin',
      TMUX: '/tmp/tmux-0/default,1,0',
    });

    await clipboard.copy('x');

    expect(written).toEqual([osc52('x'), tmuxPassthrough(osc52('x'))]);
    expect(written[1]).toBe('\x1bPtmux;\x1b\x1b]52;c;eA==\x07\x1b\\');
  });
});
