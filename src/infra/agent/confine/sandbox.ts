import { join } from 'node:path';
import { compareOrdinal } from '../../../domain/ordinal.js';

// What an agent may write, and how each sandbox engine is told so. Pure:
// the launcher (launcher.ts) resolves the paths and runs the engine.

/** The paths one agent process may write; everything else is read-only to it. */
export interface ConfinementPlan {
  /** The agent's working directory (the session's worktree). */
  readonly cwd: string;
  /** Writable folders and files, existing, absolute and resolved (no symlinks). */
  readonly writable: readonly string[];
  /** Paths inside a writable folder that stay read-only (git hooks and config, CLI settings). */
  readonly protect: readonly string[];
  /** Per-launch copies bound writable over the real files (bubblewrap; Seatbelt leaves the real file read-only). */
  readonly copies?: readonly { readonly source: string; readonly target: string }[];
  /** Secrets hidden from the agent: folders become empty, files read as empty. */
  readonly hideDirs: readonly string[];
  readonly hideFiles: readonly string[];
  /** How the network is filtered; absent: the host network, unfiltered (agents.network open). */
  readonly network?: NetworkPlan;
  /**
   * Host folders the agent sees as its own empty, writable folder (/tmp,
   * /var/tmp, /run/user/<uid>), so no socket or file another program keeps
   * there is reachable. What the agent needs inside them is bound back:
   * `readable` read-only, the writable paths writable.
   */
  readonly privateDirs?: readonly string[];
  /** Paths inside the private folders the agent still reads (its HOME, PATH entries, the main checkout). */
  readonly readable?: readonly (string | BindBack)[];
  /** Unix sockets of the host hidden from the agent (Docker, D-Bus, the ones Grove's environment names). */
  readonly hideSockets?: readonly string[];
}

/** A path bound back read-only where the agent names it (`target`), from its real path (`source`). */
export interface BindBack {
  readonly source: string;
  readonly target: string;
}

const bindBack = (entry: string | BindBack): BindBack =>
  typeof entry === 'string' ? { source: entry, target: entry } : entry;

/**
 * The filtered network of one agent: its traffic goes through Grove's proxy
 * (network-proxy.ts), which allows only its allow list.
 */
export interface NetworkPlan {
  /** bubblewrap: the private folder holding the proxy's unix socket (bound into the sandbox). */
  readonly socketDir: string | null;
  /** Seatbelt: the proxy's port on 127.0.0.1. */
  readonly proxyPort: number | null;
  /** Model servers on this machine the agent reaches at their own port (Seatbelt allows them). */
  readonly loopbackPorts: readonly number[];
}

/**
 * Environment variables that hold forge credentials. Agents never need them
 * (Grove publishes pull requests itself), and an agent holding one could push
 * or open pull requests on its own.
 */
const FORGE_TOKEN_NAMES: ReadonlySet<string> = new Set([
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'GH_ENTERPRISE_TOKEN',
  'GITHUB_ENTERPRISE_TOKEN',
  'GITLAB_TOKEN',
  'GL_TOKEN',
  'GITLAB_PRIVATE_TOKEN',
  'GITEA_TOKEN',
  'BITBUCKET_TOKEN',
  'BITBUCKET_APP_PASSWORD',
]);
const FORGE_TOKEN_PATTERN =
  /^(GH|GITHUB|GITLAB|GL|GITEA|FORGEJO|CODEBERG|BITBUCKET)_\w*(TOKEN|PASSWORD|PAT)$/i;

/** True when `name` is an environment variable that carries a forge credential (agent-env.ts never passes one). */
export function isForgeSecret(name: string): boolean {
  return FORGE_TOKEN_NAMES.has(name.toUpperCase()) || FORGE_TOKEN_PATTERN.test(name);
}

/** Forge credentials on disk that an agent could read and use. */
export function forgeSecretPaths(home: string): { dirs: string[]; files: string[] } {
  return { dirs: [join(home, '.config', 'gh')], files: [join(home, '.git-credentials')] };
}

/** Parents before children, so a bind of a folder never hides one made inside it. */
function byDepth(paths: readonly string[]): string[] {
  return [...new Set(paths)].sort(
    (a, b) => a.split('/').length - b.split('/').length || compareOrdinal(a, b),
  );
}

/**
 * bubblewrap's command line: the whole file system read-only, the writable
 * paths bound on top (so the main checkout stays read-only while its git
 * folder, bound later, is writable), then the protected paths read-only
 * again. With a network plan the agent gets its own network namespace
 * (`--unshare-net`: only `lo`, which bwrap brings up) and the proxy's socket
 * folder; the launcher runs the relay (network.ts) as the command, which
 * carries the agent's traffic to the proxy. Without one the host network is
 * kept (agents.network open).
 * `--die-with-parent` ends the sandbox when the process that started bwrap
 * dies; `--unshare-pid` ends everything inside when the sandbox's init goes.
 * No `--new-session`: the launcher already starts the agent in a new
 * session without a controlling terminal, so TIOCSTI has no terminal to
 * push input into, and the agent stays in the process group Grove stops.
 */
export function bubblewrapArgs(
  plan: ConfinementPlan,
  command: string,
  args: readonly string[],
): string[] {
  const out = [
    '--die-with-parent',
    '--unshare-pid',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
  ];
  if (plan.network) out.splice(2, 0, '--unshare-net');
  for (const mount of mountOrder(plan)) out.push(...mount.args);
  out.push('--chdir', plan.cwd, '--', command, ...args);
  return out;
}

/** One bwrap mount and where it goes in the order. */
interface Mount {
  readonly path: string;
  /** Among mounts of the same depth: private folders first, hidden things last. */
  readonly rank: number;
  readonly args: readonly string[];
}

/**
 * Every mount after the read-only root, parents before children, so a mount
 * inside a folder always lands on top of the folder's: the private /tmp
 * before the worktree, HOME and the proxy's socket folder bound back into
 * it; GROVE_HOME hidden before the session's worktree inside it is bound
 * back writable; the writable git folder before its read-only hooks.
 */
function mountOrder(plan: ConfinementPlan): Mount[] {
  const mounts: Mount[] = [];
  const add = (
    paths: readonly string[] | undefined,
    rank: number,
    args: (p: string) => string[],
  ) => {
    for (const path of new Set(paths ?? [])) mounts.push({ path, rank, args: args(path) });
  };
  add(plan.privateDirs, 0, (p) => ['--tmpfs', p]);
  for (const { source, target } of (plan.readable ?? []).map(bindBack))
    mounts.push({ path: target, rank: 1, args: ['--ro-bind', source, target] });
  add(plan.writable, 2, (p) => ['--bind', p, p]);
  for (const { source, target } of plan.copies ?? [])
    mounts.push({ path: target, rank: 2, args: ['--bind', source, target] });
  add(plan.protect, 3, (p) => ['--ro-bind-try', p, p]);
  add(plan.network?.socketDir ? [plan.network.socketDir] : [], 4, (p) => ['--ro-bind', p, p]);
  add(plan.hideDirs, 5, (p) => ['--tmpfs', p]);
  add(plan.hideFiles, 6, (p) => ['--ro-bind', '/dev/null', p]);
  add(plan.hideSockets, 7, (p) => ['--ro-bind', '/dev/null', p]);
  const depth = (p: string): number => p.split('/').length;
  return mounts.sort(
    (a, b) => depth(a.path) - depth(b.path) || a.rank - b.rank || compareOrdinal(a.path, b.path),
  );
}

/** A string literal in Seatbelt's profile language (SBPL, a Scheme). */
function sbplString(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * The Seatbelt profile for macOS (`sandbox-exec -p PROFILE`): everything is
 * allowed except writing files, which is allowed only in the writable paths
 * and the terminal devices; the protected paths and hidden secrets are
 * denied again (in SBPL the last matching rule wins). Paths must be real
 * paths: Seatbelt matches /private/tmp, not /tmp. With a network plan all
 * network use is denied except: connections to the proxy's port and the
 * loopback model servers' ports on localhost, listening on localhost, and
 * unix sockets inside the writable paths (its temporary folder).
 */
export function seatbeltProfile(plan: ConfinementPlan): string {
  const lines = ['(version 1)', '(allow default)', '(deny file-write*)'];
  const writable = byDepth(plan.writable).map((p) => `(subpath ${sbplString(p)})`);
  lines.push(
    `(allow file-write*\n  ${[...writable, '(literal "/dev/null")', '(literal "/dev/zero")', '(literal "/dev/dtracehelper")', '(regex #"^/dev/tty")', '(regex #"^/dev/fd/")'].join('\n  ')})`,
  );
  const protect = byDepth(plan.protect).map((p) => `(subpath ${sbplString(p)})`);
  if (protect.length > 0) lines.push(`(deny file-write*\n  ${protect.join('\n  ')})`);
  const hidden = [
    ...byDepth(plan.hideDirs).map((p) => `(subpath ${sbplString(p)})`),
    ...byDepth(plan.hideFiles).map((p) => `(literal ${sbplString(p)})`),
  ];
  const privateDirs = byDepth(plan.privateDirs ?? []);
  if (privateDirs.length > 0) {
    // The host's temporary folders: nothing in them is read, but what the agent needs there.
    const back = byDepth([
      ...(plan.readable ?? []).map((r) => bindBack(r).source),
      ...plan.writable,
    ]);
    lines.push(
      `(deny file-read-data\n  ${privateDirs.map((p) => `(subpath ${sbplString(p)})`).join('\n  ')})`,
    );
    if (back.length > 0)
      lines.push(
        `(allow file-read-data\n  ${back.map((p) => `(subpath ${sbplString(p)})`).join('\n  ')})`,
      );
  }
  if (hidden.length > 0) lines.push(`(deny file-read* file-write*\n  ${hidden.join('\n  ')})`);
  if (plan.network) lines.push(...seatbeltNetwork(plan.network, plan.writable));
  else lines.push(...seatbeltSockets(privateDirs, plan.writable));
  const sockets = byDepth(plan.hideSockets ?? []).map(
    (p) => `(remote unix-socket (path-literal ${sbplString(p)}))`,
  );
  if (sockets.length > 0) lines.push(`(deny network-outbound\n  ${sockets.join('\n  ')})`);
  return `${lines.join('\n')}\n`;
}

/**
 * With the host network (agents.network open): no unix socket in the host's
 * temporary folders (tmux, ssh-agent, launchd's listeners) but those in the
 * writable paths.
 */
function seatbeltSockets(privateDirs: readonly string[], writable: readonly string[]): string[] {
  if (privateDirs.length === 0) return [];
  const unix = (paths: readonly string[]): string =>
    paths.map((p) => `(remote unix-socket (subpath ${sbplString(p)}))`).join('\n  ');
  const lines = [`(deny network-outbound\n  ${unix(privateDirs)})`];
  if (writable.length > 0) lines.push(`(allow network-outbound\n  ${unix(byDepth(writable))})`);
  return lines;
}

function seatbeltNetwork(net: NetworkPlan, writable: readonly string[]): string[] {
  const ports = [
    ...new Set([...(net.proxyPort === null ? [] : [net.proxyPort]), ...net.loopbackPorts]),
  ];
  const lines = ['(deny network*)'];
  if (ports.length > 0)
    lines.push(
      `(allow network-outbound\n  ${ports.map((p) => `(remote ip "localhost:${p}")`).join('\n  ')})`,
    );
  lines.push('(allow network-bind (local ip "localhost:*"))');
  lines.push('(allow network-inbound (local ip "localhost:*"))');
  const sockets = byDepth(writable).map((p) => `(remote unix-socket (subpath ${sbplString(p)}))`);
  if (sockets.length > 0) lines.push(`(allow network-outbound\n  ${sockets.join('\n  ')})`);
  return lines;
}

/** sandbox-exec's command line for `command`. */
export function seatbeltArgs(
  plan: ConfinementPlan,
  command: string,
  args: readonly string[],
): string[] {
  return ['-p', seatbeltProfile(plan), command, ...args];
}
