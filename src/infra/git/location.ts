import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';

// Where Grove's own git commands find a session worktree's git folder.
//
// A linked worktree names its git folder in its `.git` file, and the agent
// owns that file: pointed at a folder of the agent's making (with its own
// `core.fsmonitor` or hooks), the next git command Grove runs there would
// run the agent's program, unconfined. So Grove never reads the `.git` file
// of a worktree of a known repository. It reads the repository's own list
// instead: each `<common>/worktrees/<name>/gitdir` names the worktree it
// belongs to, and these files are read-only to every agent (the sandbox
// binds them read-only, see infra/agent/confine/sandbox.ts). A git command in such a
// worktree then runs with GIT_DIR, GIT_COMMON_DIR and GIT_WORK_TREE set from
// that list. Folders that are no worktree of a known repository (a main
// checkout, a project being added) are left to git's own discovery.

/** The variables that tell git where a worktree's folders are. */
export type GitLocationEnv = Readonly<
  Record<'GIT_DIR' | 'GIT_COMMON_DIR' | 'GIT_WORK_TREE', string>
>;

/** The main checkouts of the repositories Grove knows (its projects). */
export type RepositoryList = () => Promise<readonly string[]>;

interface Repository {
  /** The common git folder (resolved). */
  readonly common: string;
  /** Admin folder names already read, and the worktree (resolved) each belongs to. */
  readonly admins: Map<string, string>;
}

async function resolved(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return resolve(path);
  }
}

/** A main checkout's git folder: `.git` must be a folder (a main checkout is never agent-writable). */
async function commonDirOf(mainCheckout: string): Promise<string | null> {
  const dotGit = join(mainCheckout, '.git');
  try {
    return (await stat(dotGit)).isDirectory() ? await resolved(dotGit) : null;
  } catch {
    return null;
  }
}

export interface GitLocator {
  /** The git variables for a command run in `cwd`, or null to let git find them. */
  locate(cwd: string): Promise<GitLocationEnv | null>;
}

/**
 * A locator over the repositories `list` names. Each repository's worktree
 * list is read once and read again only for admin folders it has not seen
 * (one readdir per known repository when a folder is not found), so a
 * command in a known worktree costs one realpath.
 */
export function createGitLocator(list: RepositoryList): GitLocator {
  const repositories = new Map<string, Repository>();
  /** Resolved worktree path → its git variables. */
  const worktrees = new Map<string, GitLocationEnv>();
  /** Resolved main checkouts: git's own discovery is safe there. */
  const mains = new Set<string>();

  const refresh = async (): Promise<void> => {
    for (const checkout of await list()) {
      const main = await resolved(checkout);
      let repo = repositories.get(main);
      if (!repo) {
        const common = await commonDirOf(main);
        if (!common) continue;
        repo = { common, admins: new Map() };
        repositories.set(main, repo);
        mains.add(main);
      }
      let names: string[];
      try {
        names = await readdir(join(repo.common, 'worktrees'));
      } catch {
        names = [];
      }
      const present = new Set(names);
      for (const [name, path] of repo.admins) {
        if (present.has(name)) continue;
        repo.admins.delete(name);
        worktrees.delete(path);
      }
      for (const name of names) {
        if (repo.admins.has(name)) continue;
        const admin = join(repo.common, 'worktrees', name);
        let named: string;
        try {
          named = (await readFile(join(admin, 'gitdir'), 'utf8')).trim();
        } catch {
          continue; // half made by a `git worktree add` running now: read next time
        }
        if (!named) continue;
        const path = await resolved(dirname(isAbsolute(named) ? named : resolve(admin, named)));
        repo.admins.set(name, path);
        worktrees.set(path, { GIT_DIR: admin, GIT_COMMON_DIR: repo.common, GIT_WORK_TREE: path });
      }
    }
  };

  return {
    async locate(cwd) {
      const dir = await resolved(cwd);
      if (mains.has(dir)) return null;
      const known = worktrees.get(dir);
      if (known) return known;
      await refresh();
      return worktrees.get(dir) ?? null;
    },
  };
}
