import { describe, expect, it } from 'vitest';
import { parseSharedFolders, shareMode } from '../../src/domain/shared-folders.js';

describe('parseSharedFolders', () => {
  it.each([
    ['', []],
    ['node_modules', ['node_modules']],
    ['node_modules, .venv target', ['node_modules', '.venv', 'target']],
    ['./packages/app/node_modules/', ['packages/app/node_modules']],
    ['node_modules,node_modules/', ['node_modules']],
    ['.github-cache', ['.github-cache']],
  ])('reads %j as %j', (value, paths) => {
    expect(parseSharedFolders(value)).toEqual({ ok: true, paths });
  });

  it.each([
    ['../../etc', '../../etc leaves the project'],
    ['a/../../b', 'leaves the project'],
    ['/etc', '/etc is not relative'],
    ['~/.ssh', 'is not relative'],
    ['.git/hooks', ".git/hooks is inside git's own folder"],
    ['./.git', "inside git's own folder"],
    ['.', "names the project's folder itself"],
    ['a\\b', 'backslash'],
  ])('refuses %j in words', (value, words) => {
    const parsed = parseSharedFolders(`node_modules, ${value}`);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error).toContain(words);
      expect(parsed.error).toMatch(/^Shared folders: /);
    }
  });

  it('reads the mode, clone unless symlink was chosen', () => {
    expect([shareMode(undefined), shareMode('symlink'), shareMode('other')]).toEqual([
      'clone',
      'symlink',
      'clone',
    ]);
  });
});
