import { join } from 'node:path';
import { isAcpAgentId, type ProviderId } from '../../../domain/providers.js';

// What an agent may write of its CLI's home and of the repository's shared
// git folder, and what stays read-only there. Pure: own-paths.ts checks what
// exists, finds the worktree's admin folder and makes the missing folders.
// docs/reliability.md ("What each agent can write") lists the result.

/** A path kept read-only whether or not it exists yet; `dir` says what it is when it does not. */
export interface ProtectedPath {
  readonly path: string;
  readonly dir: boolean;
}

/** A CLI's own state: what it must write for its session store and login, and what stays read-only. */
export interface StateFolders {
  /** Folders it writes (session store, logs, locks): writable, made when missing. */
  readonly dirs: readonly string[];
  /** Files and folders it may update when they exist (credential refresh, shared caches). */
  readonly files: readonly string[];
  /**
   * Files it rewrites that also hold settings that run code (Claude Code's
   * ~/.claude.json: `mcpServers`, per-project allowed tools): the agent gets
   * a copy for one launch, never merged back.
   */
  readonly copies: readonly string[];
  /** Settings, hooks, instructions, commands, MCP lists, extensions: read-only, existing or not. */
  readonly protect: readonly ProtectedPath[];
}

const file = (path: string): ProtectedPath => ({ path, dir: false });
const dir = (path: string): ProtectedPath => ({ path, dir: true });

/**
 * Where each CLI keeps its state, checked against the pinned CLIs by
 * running a headless turn in a fresh HOME and listing what they wrote:
 * - Claude Code writes its session store and runtime folders under
 *   ~/.claude (the folder itself stays read-only, so settings, hooks,
 *   agents, commands, skills and plugins cannot be added) and rewrites
 *   ~/.claude.json (a per-launch copy).
 * - Codex writes SQLite databases (with their -wal/-shm files) directly in
 *   $CODEX_HOME, so that folder is writable and everything in it that
 *   configures or instructs Codex is read-only.
 * - Gemini CLI writes ~/.gemini/projects.json (lock folder, temp file,
 *   rename) directly in ~/.gemini, so that folder is writable and its
 *   settings, .env, instructions, commands, extensions, policies are read-only.
 * Caches are shared by all (~/.cache, ~/.npm) when they exist.
 */
export function stateFolders(
  provider: ProviderId,
  env: NodeJS.ProcessEnv,
  home: string,
): StateFolders {
  // An agent named in agents.json gets no folder of the person's: only its worktree (and /tmp).
  if (isAcpAgentId(provider)) return { dirs: [], files: [], copies: [], protect: [] };
  const shared = [join(home, '.cache'), join(home, '.npm')];
  switch (provider) {
    case 'claude': {
      const custom = env['CLAUDE_CONFIG_DIR'];
      const config = custom || join(home, '.claude');
      const runtime = [
        'projects',
        'sessions',
        'session-env',
        'shell-snapshots',
        'todos',
        'file-history',
        'statsig',
        'debug',
      ];
      return {
        dirs: runtime.map((name) => join(config, name)),
        files: [join(config, '.credentials.json'), ...shared],
        copies: [custom ? join(config, '.claude.json') : join(home, '.claude.json')],
        protect: [
          file(join(config, 'settings.json')),
          file(join(config, 'settings.local.json')),
          file(join(config, 'CLAUDE.md')),
          ...['hooks', 'commands', 'agents', 'skills', 'plugins', 'output-styles'].map((name) =>
            dir(join(config, name)),
          ),
        ],
      };
    }
    case 'codex': {
      const config = env['CODEX_HOME'] || join(home, '.codex');
      return {
        dirs: [config],
        files: shared,
        copies: [],
        protect: [
          ...['config.toml', '.env', 'AGENTS.md', 'AGENTS.override.md', 'hooks.json'].map((name) =>
            file(join(config, name)),
          ),
          ...['rules', 'skills', 'prompts', 'hooks', 'plugins', 'agents', 'memories'].map((name) =>
            dir(join(config, name)),
          ),
        ],
      };
    }
    case 'gemini': {
      const config = join(env['GEMINI_CLI_HOME'] || home, '.gemini');
      return {
        dirs: [config],
        files: shared,
        copies: [],
        protect: [
          ...[
            'settings.json',
            '.env',
            'GEMINI.md',
            'system.md',
            'trustedFolders.json',
            'trusted_hooks.json',
          ].map((name) => file(join(config, name))),
          ...[
            'commands',
            'extensions',
            'agents',
            'skills',
            'policies',
            'bin',
            'acknowledgments',
          ].map((name) => dir(join(config, name))),
        ],
      };
    }
  }
}

/** The git folders and files of one session worktree an agent writes, and what stays read-only in them. */
export interface GitWritable {
  readonly writable: readonly string[];
  /** Folders to make when missing (so the agent's ref lock and reflog can be written). */
  readonly make: readonly string[];
  readonly protect: readonly ProtectedPath[];
}

/** The prefix of every session branch (refs/heads/grove/<id>). */
const SESSION_BRANCHES = ['refs', 'heads', 'grove'];

/**
 * What an agent in a linked worktree writes of the shared git folder
 * `common`: its own admin folder `admin` (HEAD, index, logs, ORIG_HEAD,
 * rebase state), the object store, and the folder of the session branches
 * with its reflog folder. Nothing else: not other refs, packed-refs, the
 * main index, info/, hooks, config, other worktrees' admin folders. In its
 * admin folder, `commondir` and `gitdir` (where git and Grove find the
 * repository and the worktree) and `config.worktree` stay read-only; so do
 * the object store's alternates (objects borrowed from elsewhere).
 */
export function gitWritable(common: string, admin: string): GitWritable {
  const branches = join(common, ...SESSION_BRANCHES);
  const reflogs = join(common, 'logs', ...SESSION_BRANCHES);
  return {
    writable: [admin, join(common, 'objects'), branches, reflogs],
    make: [branches, reflogs],
    protect: [
      file(join(admin, 'commondir')),
      file(join(admin, 'gitdir')),
      file(join(admin, 'config.worktree')),
      file(join(common, 'objects', 'info', 'alternates')),
      file(join(common, 'objects', 'info', 'http-alternates')),
    ],
  };
}
