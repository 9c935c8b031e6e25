import { describe, expect, it } from 'vitest';
import { parseCli } from '../../src/cli.js';

// `-C DIR` is accepted before a command as well as after it.

describe('-C anywhere', () => {
  it.each([
    [
      ['-C', '/repo', 'ls'],
      ['ls', '-C', '/repo'],
    ],
    [
      ['-C/repo', 'ls', '--json'],
      ['ls', '--json', '-C', '/repo'],
    ],
    [
      ['--C=/repo', 'run', '--mode', 'plan', 'fix it'],
      ['run', '-C', '/repo', '--mode', 'plan', 'fix it'],
    ],
  ])('parses grove %j as grove %j', (before, after) => {
    expect(parseCli(before)).toEqual(parseCli(after));
  });

  it('still starts the TUI in DIR without a command', () => {
    expect(parseCli(['-C', '/repo'])).toEqual({ kind: 'tui', dir: '/repo' });
  });

  it('gives the command its own usage errors', () => {
    expect(() => parseCli(['-C', '/repo', 'ls', '--frob'])).toThrow(/frob/);
  });
});
