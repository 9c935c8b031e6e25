import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmdirSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { ProviderId } from '../../../domain/providers.js';
import { gitCommonDirOf } from '../../git/git-dir.js';
import { gitWritable, stateFolders, type ProtectedPath } from './writable-paths.js';

// The paths one agent launch may write, resolved on this machine: its
// worktree and temp folder, its CLI's state folders (writable-paths.ts), and
// the parts of the shared git folder that are its own. The shared git folder
// is found from Grove's own records (the project's main checkout), and the
// worktree's admin folder from the repository's list of worktrees, never
// from the worktree's `.git` file, which the agent can rewrite.
//
// A protected path that does not exist yet is protected too. Seatbelt denies
// writes to a path whether or not it exists. bubblewrap needs something to
// mount read-only there: only where the agent could otherwise create it (a
// folder the agent may write), Grove makes an empty placeholder (an empty
// file or folder) before the launch and removes it after the last launch
// using it ends, if it is still the empty thing Grove made.

export interface OwnPathsInput {
  readonly provider: ProviderId;
  readonly env: NodeJS.ProcessEnv;
  /** Resolved HOME. */
  readonly home: string;
  /** The agent's working folder, resolved. */
  readonly cwd: string;
  /** The project's main checkout from Grove's records; absent or equal to cwd: none of the shared git folder is writable. */
  readonly mainCheckout: string | undefined;
  /** The launch's private temp folder (writable; holds the per-launch copies). */
  readonly tmp: string;
  readonly engine: 'bubblewrap' | 'seatbelt';
  /** The worktree and the shared git folder stay read-only (LaunchSpec.readOnly). */
  readonly readOnly?: boolean;
  /**
   * The main checkout's shared folders (setting worktree.shared), resolved:
   * a worktree may hold a link to them, and an agent writing through it
   * would write the person's checkout, so they stay read-only.
   */
  readonly shared?: readonly string[];
}

export interface OwnPaths {
  readonly writable: readonly string[];
  /** Read-only inside the writable paths; with bubblewrap all exist (placeholders made). */
  readonly protect: readonly string[];
  /** Per-launch copies bound over the real files (bubblewrap). */
  readonly copies: readonly { readonly source: string; readonly target: string }[];
  /** Removes the placeholders this launch made once no other launch uses them; call once, after the agent ends. */
  release(): void;
}

export function resolvedPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    // Missing: its folder resolved, so a symlinked parent still matches.
    try {
      return join(realpathSync(dirname(path)), basename(path));
    } catch {
      return resolve(path);
    }
  }
}

function ensureDir(path: string): boolean {
  try {
    mkdirSync(path, { recursive: true });
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The shared git folder of a main checkout (a main checkout is never writable by a session's agent). */
async function commonDirOfCheckout(mainCheckout: string): Promise<string | null> {
  try {
    return resolvedPath(await gitCommonDirOf(mainCheckout));
  } catch {
    return null;
  }
}

/** The admin folder (<common>/worktrees/<name>) whose `gitdir` file names `<worktree>/.git`. */
export function worktreeAdminDir(common: string, worktree: string): string | null {
  const wanted = join(worktree, '.git');
  let names: string[];
  try {
    names = readdirSync(join(common, 'worktrees'));
  } catch {
    return null;
  }
  for (const name of names) {
    const admin = join(common, 'worktrees', name);
    try {
      const named = readFileSync(join(admin, 'gitdir'), 'utf8').trim();
      const path = isAbsolute(named) ? named : resolve(admin, named);
      // The folder resolved, not `.git` itself: a `.git` symlinked to another worktree's does not match.
      if (join(resolvedPath(dirname(path)), basename(path)) === wanted) return resolvedPath(admin);
    } catch {
      // Not a worktree's admin folder.
    }
  }
  return null;
}

/** Placeholders Grove made for missing protected paths, shared by the launches using them. */
const placeholders = new Map<string, { ino: number; dir: boolean; users: number }>();

/** Makes an empty file or folder at `path` (missing) to mount read-only; false when it could not. */
function holdPlaceholder(path: string, dir: boolean, held: string[]): boolean {
  const known = placeholders.get(path);
  if (known && existsSync(path)) {
    known.users++;
    held.push(path);
    return true;
  }
  try {
    mkdirSync(dirname(path), { recursive: true });
    if (dir) mkdirSync(path);
    else closeSync(openSync(path, 'wx', 0o644));
  } catch {
    return existsSync(path);
  }
  placeholders.set(path, { ino: statSync(path).ino, dir, users: 1 });
  held.push(path);
  return true;
}

function releasePlaceholder(path: string): void {
  const known = placeholders.get(path);
  if (!known || --known.users > 0) return;
  placeholders.delete(path);
  try {
    const now = lstatSync(path);
    if (now.ino !== known.ino) return;
    if (known.dir && now.isDirectory()) rmdirSync(path);
    else if (!known.dir && now.isFile() && now.size === 0) unlinkSync(path);
  } catch {
    // Gone already, or no longer empty (rmdir refuses): left as it is.
  }
}

/** The parts of the shared git folder this agent writes, and the git paths kept read-only. */
async function gitPaths(
  cwd: string,
  mainCheckout: string | undefined,
): Promise<{ writable: string[]; make: string[]; protect: ProtectedPath[] }> {
  const none = { writable: [], make: [], protect: [] };
  const dotGit = join(cwd, '.git');
  try {
    // A main checkout (conflict resolution): its git folder stays read-only, Grove stages.
    if (lstatSync(dotGit).isDirectory()) return { ...none, protect: [{ path: dotGit, dir: true }] };
  } catch {
    return none;
  }
  // The worktree's `.git` file is not protected: Grove's own git never reads it (infra/git/location.ts).
  if (!mainCheckout || resolvedPath(mainCheckout) === cwd) return none;
  const common = await commonDirOfCheckout(mainCheckout);
  const admin = common ? worktreeAdminDir(common, cwd) : null;
  if (!common || !admin) return none;
  const git = gitWritable(common, admin);
  return { writable: [...git.writable], make: [...git.make], protect: [...git.protect] };
}

/** Everything one launch may write, with the placeholders and copies it needs made. */
export async function ownPaths(input: OwnPathsInput): Promise<OwnPaths> {
  const { cwd, tmp, engine } = input;
  const state = stateFolders(input.provider, input.env, input.home);
  const writable = input.readOnly ? [tmp] : [cwd, tmp];
  for (const dir of state.dirs) if (ensureDir(dir)) writable.push(resolvedPath(dir));
  for (const path of state.files) if (existsSync(path)) writable.push(resolvedPath(path));
  const git = input.readOnly
    ? { writable: [], make: [], protect: [] }
    : await gitPaths(cwd, input.mainCheckout);
  for (const dir of git.make) ensureDir(dir);
  for (const path of git.writable) if (existsSync(path)) writable.push(resolvedPath(path));

  const copies: { source: string; target: string }[] = [];
  if (engine === 'bubblewrap') {
    state.copies.forEach((path, i) => {
      const target = resolvedPath(path);
      try {
        if (!statSync(target).isFile()) return;
        const source = join(tmp, `.grove-copy-${i}-${basename(target)}`);
        copyFileSync(target, source);
        chmodSync(source, 0o600);
        copies.push({ source, target });
      } catch {
        // Unreadable: the real file stays read-only to the agent.
      }
    });
  }

  const inside = (path: string): boolean =>
    writable.some((w) => path === w || path.startsWith(w.endsWith(sep) ? w : w + sep));
  const held: string[] = [];
  const protect: string[] = [];
  const shared = (input.shared ?? []).map((path) => ({ path, dir: true }));
  for (const { path, dir } of [...git.protect, ...state.protect, ...shared]) {
    const p = resolvedPath(path);
    if (engine === 'seatbelt') protect.push(p);
    else if (inside(p) && (existsSync(p) || holdPlaceholder(p, dir, held))) protect.push(p);
  }
  let released = false;
  return {
    writable,
    protect,
    copies,
    release() {
      if (released) return;
      released = true;
      for (const path of held) releasePlaceholder(path);
    },
  };
}
