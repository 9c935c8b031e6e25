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

// Merge and publish go on after the agent guard's flag only when the person says they saw it.
describe('--acknowledge', () => {
  it.each([
    [['merge', 'abc123', '--acknowledge'], { kind: 'merge', acknowledge: true }],
    [['merge', 'abc123'], { kind: 'merge', acknowledge: false }],
    [['publish', 'abc123', '--acknowledge'], { kind: 'publish', acknowledge: true }],
    [['publish', 'abc123'], { kind: 'publish', acknowledge: false }],
  ])('parses grove %j', (argv, expected) => {
    expect(parseCli(argv)).toMatchObject({
      kind: 'headless',
      command: { ...expected, id: 'abc123' },
    });
  });

  it('is no option of rebase', () => {
    expect(() => parseCli(['rebase', 'abc123', '--acknowledge'])).toThrow(/acknowledge/);
  });
});

// Every headless command takes --json (issue 25, item 6); on run and reply it is --output json.
describe('--json', () => {
  it.each([
    [['diff', 'abc123', '--json'], { kind: 'diff' }],
    [['merge', 'abc123', '--json'], { kind: 'merge' }],
    [['rebase', 'abc123', '--json'], { kind: 'rebase' }],
    [['publish', 'abc123', '--json'], { kind: 'publish' }],
    [['cancel', 'abc123', '--json', '--yes'], { kind: 'cancel', yes: true }],
    [['approve', 'abc123', '--json'], { kind: 'approve' }],
    [['deny', 'abc123', '--json'], { kind: 'deny' }],
    [['gc', '--json', '--dry-run'], { kind: 'gc', dryRun: true }],
    [['host', 'add', 'box', 'me@box', '--json'], { kind: 'host', action: 'add' }],
    [['host', 'rm', 'box', '--json'], { kind: 'host', action: 'rm' }],
  ])('grove %j', (argv, expected) => {
    expect(parseCli(argv)).toMatchObject({
      kind: 'headless',
      command: { ...expected, json: true },
    });
    const without = argv.filter((a) => a !== '--json');
    expect(parseCli(without)).toMatchObject({ command: { json: false } });
  });

  it.each([
    ['run', 'hi'],
    ['reply', 'abc123', 'hi'],
    ['answer', 'question:abc123', 'hi'],
  ])('is --output json on grove %s', (...argv) => {
    expect(parseCli([...argv, '--json'])).toMatchObject({ command: { output: 'json' } });
    expect(parseCli([...argv, '--json', '--output', 'json'])).toMatchObject({
      command: { output: 'json' },
    });
    expect(() => parseCli([...argv, '--json', '--output', 'stream-json'])).toThrow(
      '--json is --output json; give one of them (got --output stream-json)',
    );
  });
});

// grove answer ITEM [TEXT...]: the inbox's word for answering a question (issue 25, item 3).
describe('grove answer', () => {
  it('takes the item and joins the words of the answer, as one prompt', () => {
    expect(parseCli(['answer', 'question:abc123', 'Use', 'hi', '--progress'])).toMatchObject({
      kind: 'headless',
      command: { kind: 'answer', item: 'question:abc123', prompt: 'Use hi', progress: true },
    });
    expect(parseCli(['answer', 'abc123', 'Use hi'])).toMatchObject({
      command: { kind: 'answer', item: 'abc123', prompt: 'Use hi', output: 'text' },
    });
  });

  it('reads the answer from standard input without TEXT (or with -)', () => {
    expect(parseCli(['answer', 'abc123'])).toMatchObject({ command: { prompt: null } });
    expect(parseCli(['answer', 'abc123', '-'])).toMatchObject({ command: { prompt: '-' } });
  });

  it('needs an ITEM', () => {
    expect(() => parseCli(['answer'])).toThrow(
      'answer needs an ITEM (a question of grove inbox, or a session ID)',
    );
  });
});
