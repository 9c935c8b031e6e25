import { describe, expect, it } from 'vitest';
import { bufferFrom } from '../../src/domain/composer.js';
import { acceptCompletion, completionFor } from '../../src/domain/composer-assist.js';
import { fileIndex } from '../../src/domain/file-match.js';
import { mentionAt, mentionsForAgent, pastedImagePath } from '../../src/domain/mentions.js';
import {
  newerEntry,
  olderEntry,
  recordPrompt,
  searchHistory,
} from '../../src/domain/prompt-history.js';
import { SLASH_COMMANDS, parseSlash, slashCompletions } from '../../src/domain/slash-commands.js';

// The composer's helpers: slash commands, prompt history, `@` mentions and pasted images.

const claude = { agent: 'claude' };

describe('parseSlash', () => {
  it.each([
    ['/review', { name: 'review' }],
    ['/diff', { name: 'diff' }],
    ['/merge', { name: 'merge' }],
    ['/publish', { name: 'publish' }],
    ['/clear', { name: 'clear' }],
    ['/model opus', { name: 'model', model: 'opus' }],
    ['/agent codex', { name: 'agent', agent: 'codex' }],
    ['/reasoning low', { name: 'reasoning', reasoning: 'low' }],
    ['/mode read-only', { name: 'mode', mode: 'read_only' }],
    ['  /mode plan  ', { name: 'mode', mode: 'plan' }],
    ['/ci-fixer on', { name: 'ci-fixer', own: 'on' }],
    ['/ci-fixer off', { name: 'ci-fixer', own: 'off' }],
    ['/ci-fixer project', { name: 'ci-fixer', own: null }],
  ])('runs %s', (text, action) => {
    expect(parseSlash(text, claude)).toEqual({ kind: 'run', action });
  });

  it.each(['fix the bug', '/usr/bin/env is missing', '//comment', 'see /review'])(
    'sends %j as a prompt',
    (text) => {
      expect(parseSlash(text, claude)).toEqual({ kind: 'prompt' });
    },
  );

  it('names the commands when one is unknown', () => {
    const parsed = parseSlash('/frobnicate', claude);
    expect(parsed.kind).toBe('error');
    if (parsed.kind === 'error')
      for (const command of SLASH_COMMANDS) expect(parsed.message).toContain(`/${command.name}`);
  });

  it.each([
    ['/model', 'needs one of: sonnet, opus, haiku'],
    ['/model gpt-5.5', "'gpt-5.5' is not one of sonnet, opus, haiku"],
    ['/reasoning default', "'default' is not one of low, medium, high, xhigh, max"],
    ['/clear now', 'takes no argument'],
    ['/ci-fixer', 'needs one of: on, off, project'],
    ['/ci-fixer always', "'always' is not one of on, off, project"],
  ])('refuses %j in words', (text, message) => {
    expect(parseSlash(text, claude)).toMatchObject({
      kind: 'error',
      message: expect.stringContaining(message) as unknown,
    });
  });

  it("offers the session's agent's models", () => {
    expect(parseSlash('/model gpt-5.5', { agent: 'codex' })).toEqual({
      kind: 'run',
      action: { name: 'model', model: 'gpt-5.5' },
    });
  });
});

describe('slashCompletions', () => {
  it('lists every command, with its description, for a lone slash (/host only before the first prompt)', () => {
    const items = slashCompletions('/', { ...claude, newSession: true }) ?? [];
    expect(items.map((i) => i.label)).toEqual(SLASH_COMMANDS.map((c) => `/${c.name}`));
    expect(items.every((i) => i.description !== '')).toBe(true);
    const later = slashCompletions('/', claude) ?? [];
    expect(later.map((i) => i.label)).toEqual(
      SLASH_COMMANDS.filter((c) => c.name !== 'host').map((c) => `/${c.name}`),
    );
  });

  it('filters the commands as the name is typed', () => {
    expect(slashCompletions('/re', claude)?.map((i) => i.label)).toEqual(['/reasoning', '/review']);
  });

  it('lists the values of an argument after the command', () => {
    expect(slashCompletions('/mode ', claude)?.map((i) => i.text)).toEqual([
      '/mode auto-edit',
      '/mode read-only',
      '/mode plan',
    ]);
    expect(slashCompletions('/agent c', claude)?.map((i) => i.text)).toEqual([
      '/agent claude',
      '/agent codex',
    ]);
  });

  it('is no picker for text that is not a command being typed', () => {
    expect(slashCompletions('fix it', claude)).toBeNull();
    expect(slashCompletions('/review now please', claude)).toBeNull();
  });
});

describe('the prompt history', () => {
  const history = ['add tests', 'fix the login bug', 'explain the cache', 'fix the logout bug'];

  it('walks back from the newest and stops at the oldest', () => {
    expect(olderEntry(history, null)).toBe(3);
    expect(olderEntry(history, 3)).toBe(2);
    expect(olderEntry(history, 0)).toBeNull();
    expect(olderEntry([], null)).toBeNull();
  });

  it('walks forward and leaves the history past the newest', () => {
    expect(newerEntry(history, 2)).toBe(3);
    expect(newerEntry(history, 3)).toBeNull();
  });

  it('searches from the newest, case-insensitively, and on for older matches', () => {
    expect(searchHistory(history, 'FIX')).toBe(3);
    expect(searchHistory(history, 'fix', 3)).toBe(1);
    expect(searchHistory(history, 'fix', 1)).toBeNull();
    expect(searchHistory(history, '')).toBeNull();
  });

  it('records a prompt once when it is sent twice in a row, and keeps the newest', () => {
    expect(recordPrompt(['a'], 'a')).toEqual(['a']);
    expect(recordPrompt(['a', 'b', 'c'], 'd', 3)).toEqual(['b', 'c', 'd']);
  });
});

describe('@ mentions', () => {
  it.each([
    ['see @src/ap', 11, { start: 4, end: 11, query: 'src/ap' }],
    ['@', 1, { start: 0, end: 1, query: '' }],
    ['look at @src/app.ts now', 12, { start: 8, end: 19, query: 'src' }],
  ])('finds the mention being typed in %j', (text, cursor, token) => {
    expect(mentionAt(text, cursor)).toEqual(token);
  });

  it.each([
    ['mail me@host.org', 16],
    ['no mention here', 5],
  ])('finds none in %j', (text, cursor) => {
    expect(mentionAt(text, cursor)).toBeNull();
  });

  it('gives Codex the plain path of each existing file and leaves other @ words', () => {
    const exists = (path: string): boolean => path === 'src/app.ts';
    expect(mentionsForAgent('read @src/app.ts and ask @alice', 'plain-path', exists)).toBe(
      'read src/app.ts and ask @alice',
    );
    expect(mentionsForAgent('read @src/app.ts', 'at-path', exists)).toBe('read @src/app.ts');
  });

  it('replaces the typed mention with the picked path and a space', () => {
    const files = fileIndex(['src/app/controller.ts', 'README.md']);
    const buffer = bufferFrom('look at @contr');
    const completion = completionFor(buffer, null, files, claude);
    expect(completion?.kind).toBe('file');
    const accepted = completion ? acceptCompletion(buffer, completion) : null;
    expect(accepted?.buffer.text).toBe('look at @src/app/controller.ts ');
    expect(accepted?.runs).toBe(false);
  });
});

describe('pastedImagePath', () => {
  it.each([
    ['/home/me/shot.png', '/home/me/shot.png'],
    ["'/home/me/my shot.JPG'", '/home/me/my shot.JPG'],
    ['/home/me/my\\ shot.webp', '/home/me/my shot.webp'],
    ['file:///tmp/a%20b.gif', '/tmp/a b.gif'],
    ['~/Pictures/x.jpeg\n', '~/Pictures/x.jpeg'],
  ])('reads %j as the image %j', (text, path) => {
    expect(pastedImagePath(text)).toBe(path);
  });

  it.each(['/home/me/notes.txt', 'shot.png', '/a.png\n/b.png', 'look at /a.png'])(
    'does not read %j as an image',
    (text) => {
      expect(pastedImagePath(text)).toBeNull();
    },
  );
});
