import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ownPaths } from '../../src/infra/agent/confine/own-paths.js';
import { bubblewrapArgs, seatbeltProfile } from '../../src/infra/agent/confine/sandbox.js';
import { gitWritable, stateFolders } from '../../src/infra/agent/confine/writable-paths.js';

// What an agent may write of its CLI's home and of the shared git folder
// (docs/reliability.md, "What each agent can write").

const paths = (list: readonly { path: string }[]): string[] => list.map((p) => p.path);

describe("the CLIs' state folders", () => {
  it('Claude Code writes its session store, not ~/.claude itself, and a copy of ~/.claude.json', () => {
    const state = stateFolders('claude', {}, '/h');

    expect(state.dirs).toContain('/h/.claude/projects');
    expect(state.dirs).not.toContain('/h/.claude');
    expect(state.files).toEqual(['/h/.claude/.credentials.json', '/h/.cache', '/h/.npm']);
    expect(state.copies).toEqual(['/h/.claude.json']);
    expect(paths(state.protect)).toEqual(
      expect.arrayContaining([
        '/h/.claude/settings.json',
        '/h/.claude/hooks',
        '/h/.claude/plugins',
      ]),
    );
  });

  it('Claude Code with CLAUDE_CONFIG_DIR keeps .claude.json there', () => {
    const state = stateFolders('claude', { CLAUDE_CONFIG_DIR: '/c' }, '/h');

    expect(state.dirs).toContain('/c/projects');
    expect(state.copies).toEqual(['/c/.claude.json']);
  });

  it.each([
    [
      'codex',
      {},
      '/h/.codex',
      ['config.toml', '.env', 'AGENTS.md', 'hooks.json', 'rules', 'skills'],
    ],
    ['codex', { CODEX_HOME: '/c' }, '/c', ['config.toml', 'AGENTS.override.md', 'prompts']],
    [
      'gemini',
      {},
      '/h/.gemini',
      ['settings.json', '.env', 'GEMINI.md', 'trustedFolders.json', 'extensions', 'bin'],
    ],
  ] as const)(
    '%s with %j writes %s but not its settings, instructions or extensions',
    (provider, env, home, names) => {
      const state = stateFolders(provider, env, '/h');

      expect(state.dirs).toEqual([home]);
      expect(state.copies).toEqual([]);
      expect(paths(state.protect)).toEqual(
        expect.arrayContaining(names.map((n) => `${home}/${n}`)),
      );
    },
  );
});

describe('the shared git folder', () => {
  const git = gitWritable('/r/.git', '/r/.git/worktrees/s1');

  it('is writable only in the admin folder, the object store and the session branches', () => {
    expect(git.writable).toEqual([
      '/r/.git/worktrees/s1',
      '/r/.git/objects',
      '/r/.git/refs/heads/grove',
      '/r/.git/logs/refs/heads/grove',
    ]);
    expect(git.make).toEqual(['/r/.git/refs/heads/grove', '/r/.git/logs/refs/heads/grove']);
  });

  it("keeps the admin folder's commondir, gitdir and config.worktree, and the alternates, read-only", () => {
    expect(git.protect).toEqual([
      { path: '/r/.git/worktrees/s1/commondir', dir: false },
      { path: '/r/.git/worktrees/s1/gitdir', dir: false },
      { path: '/r/.git/worktrees/s1/config.worktree', dir: false },
      { path: '/r/.git/objects/info/alternates', dir: false },
      { path: '/r/.git/objects/info/http-alternates', dir: false },
    ]);
  });
});

describe('a per-launch copy', () => {
  const plan = {
    cwd: '/w',
    writable: ['/w', '/h/.claude/projects'],
    protect: [],
    copies: [{ source: '/t/.grove-copy-0-.claude.json', target: '/h/.claude.json' }],
    hideDirs: [],
    hideFiles: [],
  };

  it('is bound writable over the real file with bubblewrap', () => {
    const args = bubblewrapArgs(plan, '/bin/claude', []);
    const at = args.indexOf('/t/.grove-copy-0-.claude.json');

    expect(args.slice(at - 1, at + 2)).toEqual([
      '--bind',
      '/t/.grove-copy-0-.claude.json',
      '/h/.claude.json',
    ]);
  });

  it('leaves the real file read-only with Seatbelt', () => {
    expect(seatbeltProfile(plan)).not.toContain('/h/.claude.json');
  });
});

describe('with Seatbelt', () => {
  it('denies missing protected paths by name and makes nothing', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'grove-own-paths-')));
    try {
      const home = join(dir, 'home');
      const cwd = join(dir, 'wt');
      mkdirSync(cwd, { recursive: true });
      const own = await ownPaths({
        provider: 'codex',
        env: {},
        home,
        cwd,
        mainCheckout: undefined,
        tmp: join(dir, 'tmp'),
        engine: 'seatbelt',
      });
      own.release();

      expect(own.writable).toContain(join(home, '.codex'));
      expect(own.protect).toContain(join(home, '.codex', 'AGENTS.md'));
      expect(existsSync(join(home, '.codex', 'AGENTS.md'))).toBe(false);
      const plan = {
        cwd,
        writable: own.writable,
        protect: own.protect,
        hideDirs: [],
        hideFiles: [],
      };
      const profile = seatbeltProfile(plan);
      expect(profile.slice(profile.lastIndexOf('(deny file-write*\n'))).toContain(
        `(subpath "${join(home, '.codex', 'AGENTS.md')}")`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
