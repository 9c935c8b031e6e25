// Hosts (issue 24): other machines a session can run on, reached with the
// system ssh. A host is a name Grove knows it by, an ssh destination (what
// `ssh` accepts: user@host, an alias of ~/.ssh/config) and a root folder on
// the host where Grove keeps its files. Pure rules only: the names, what a
// destination may be, and reading the versions a host reports.

export interface Host {
  readonly name: string;
  /** What `ssh` is given as its destination. */
  readonly destination: string;
  /** Grove's folder on the host: relative to the login folder (the home), `~/…`, or absolute. */
  readonly root: string;
  readonly createdAt: number;
  /** Its most turns at once (`--max`); null or absent: auto, from its cores and memory as for this machine. */
  readonly maxSessions?: number | null;
}

/** Where Grove keeps its files on a host unless told otherwise: in the host user's home. */
export const DEFAULT_HOST_ROOT = '.grove-host';

/** The name of this machine where a host is chosen (never a host's own name). */
export const LOCAL_HOST_NAME = 'local';

const NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;

/** Why `name` cannot name a host, or null when it can. */
export function hostNameProblem(name: string): string | null {
  if (name === '') return 'a host name cannot be empty';
  if (name === LOCAL_HOST_NAME)
    return `'${LOCAL_HOST_NAME}' names this machine; choose another name for the host`;
  if (name === 'auto')
    return `'auto' asks Grove to choose a place (this machine or a host with room); choose another name for the host`;
  if (!NAME.test(name))
    return `'${name}' is not a host name: use 1 to 40 lower-case letters, digits, '-' and '_', starting with a letter or digit`;
  return null;
}

/** Control characters (C0, DEL, C1) and white space: never part of a destination or path Grove sends. */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Why `destination` cannot be handed to ssh, or null when it can. One
 * starting with '-' would be read by ssh as an option (`-oProxyCommand=…`
 * runs a program), even though Grove puts `--` before it.
 */
export function destinationProblem(destination: string): string | null {
  if (destination.trim() === '') return 'the destination cannot be empty';
  if (destination.startsWith('-'))
    return `'${destination}' starts with '-': ssh would read it as an option, not a destination`;
  if (UNSAFE.test(destination) || /\s/.test(destination))
    return 'the destination holds white space or control characters';
  if (destination.length > 255) return 'the destination is longer than 255 characters';
  return null;
}

/** Why `root` cannot be Grove's folder on a host, or null when it can. */
export function hostRootProblem(root: string): string | null {
  if (root.trim() === '') return 'the root folder cannot be empty';
  if (root.startsWith('-')) return `'${root}' starts with '-': commands would read it as an option`;
  if (UNSAFE.test(root)) return 'the root folder holds control characters';
  if (root.startsWith('~') && root !== '~' && !root.startsWith('~/'))
    return `'${root}': only '~/' (the host user's home) is understood, not another user's home`;
  if (root.split('/').includes('..')) return `'${root}' holds '..'`;
  return null;
}

/** `git version 2.39.5` → [2, 39, 5]; null when it is not git's answer. */
export function parseGitVersion(text: string): readonly [number, number, number] | null {
  const match = /git version (\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  if (!match) return null;
  return [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
}

/** Whether `[major, minor, …]` is at least `[wantMajor, wantMinor]`. */
export function versionAtLeast(
  found: readonly number[],
  [major, minor]: readonly [number, number],
): boolean {
  const [a = 0, b = 0] = found;
  return a > major || (a === major && b >= minor);
}

/** Where a session's agent runs on a host (infra/hosts/remote-session.ts makes it before each turn). */
export interface HostPlace {
  readonly host: Host;
  /** Grove's root folder on the host, absolute. */
  readonly root: string;
  /** The project's bare mirror on the host. */
  readonly mirror: string;
  /** The session's worktree on the host: the agent's working folder. */
  readonly worktree: string;
  /** The session's branch (the same name here and on the host). */
  readonly branch: string;
  /** True: the agent runs inside bubblewrap on the host; false: the person allowed unconfined runs there. */
  readonly confined: boolean;
}

/**
 * The local ref a session's branch on the host `host` is fetched into after a
 * turn (the branch itself is checked out in the session's local worktree).
 */
export function hostSideRef(host: string, branch: string): string {
  return `refs/grove/hosts/${host}/${branch}`;
}

/** The local ref that keeps a session's commits on `host` fetched at clean-up. */
export function hostKeptRef(host: string, sessionId: string): string {
  return `refs/grove/hosts/${host}/kept/${sessionId}`;
}

/** The global setting that allows agents to run unconfined on the host `name` (`grove host add --allow-unconfined`). */
export function allowUnconfinedKey(name: string): string {
  return `host.${name}.allowUnconfined`;
}

/** The project setting that names the host new sessions run on (empty or `local`: this machine). */
export const DEFAULT_HOST_KEY = 'host.default';

/**
 * Not a stored setting: the names of the hosts there are (comma-separated),
 * merged into the values by whoever read them, so that the default host is
 * checked against them and the composer offers them.
 */
export const KNOWN_HOSTS_KEY = 'hosts.known';

/** The hosts named in the values (KNOWN_HOSTS_KEY), in their order. */
export function knownHosts(values: Readonly<Record<string, string>>): string[] {
  return (values[KNOWN_HOSTS_KEY] ?? '').split(',').filter((name) => name !== '');
}

/** A host name as the person gave it: empty and `local` are this machine (null); `auto` is kept (domain/placement.ts). */
export function hostChoice(value: string | undefined): string | null {
  const name = (value ?? '').trim();
  return name === '' || name === LOCAL_HOST_NAME ? null : name;
}

/** The host the project's new sessions run on, as stored (null: this machine). It may name a host since removed. */
export function defaultHost(values: Readonly<Record<string, string>>): string | null {
  return hostChoice(values[DEFAULT_HOST_KEY]);
}

/** Why `name` is not one of the hosts there are, in words with what is; null when it is one (or this machine). */
export function unknownHostProblem(name: string, hosts: readonly string[]): string | null {
  const chosen = hostChoice(name);
  if (chosen === null || chosen === 'auto' || hosts.includes(chosen)) return null;
  return `No host is named '${chosen}' (${hosts.length === 0 ? 'there are none yet: grove host add NAME DEST' : `hosts: ${hosts.join(', ')}`}; ${LOCAL_HOST_NAME} is this machine).`;
}

/** The agent CLI a refusal suggests for a host. */
export const HOST_AGENT = 'claude';

/** The agent CLIs that run on hosts yet (the ACP agents of agents.json do not). */
export const HOST_AGENTS: readonly string[] = ['claude', 'codex', 'gemini'];

/** Whether `agent` runs on hosts. */
export function runsOnHosts(agent: string): boolean {
  return HOST_AGENTS.includes(agent);
}

/** What the refusals say runs on hosts. */
const ON_HOSTS = 'Only Claude Code, Codex and Gemini CLI run on hosts yet';

/**
 * What is missing for an agent of agents.json on a host, in words: the
 * refusals name it, so nobody takes the refusal for a setting to change.
 */
export const ACP_HOST_GAP =
  "Grove starts the agents of agents.json on this machine only: agents.json names the command that starts one here, not the folder where it keeps its state, which Grove's sandbox on a host must leave writable (the rest of the host is read-only to the agent)";

/**
 * Why a session of `agent` cannot be started on the host `host` (a host's
 * name; not `auto`, which keeps such an agent here), in words with what to
 * do instead; null when it can. `fromDefault`: the host is the project's
 * default host, not one the person named for this session.
 */
export function hostAgentProblem(agent: string, host: string, fromDefault: boolean): string | null {
  if (runsOnHosts(agent)) return null;
  const instead = fromDefault
    ? `this project's default host is ${host}: use --agent ${HOST_AGENT}, or --host ${LOCAL_HOST_NAME} to run ${agent} on this machine`
    : `use --agent ${HOST_AGENT} with --host ${host}, or --host ${LOCAL_HOST_NAME} to run ${agent} on this machine`;
  return `only Claude Code, Codex and Gemini CLI run on hosts yet, not ${agent} (${ACP_HOST_GAP}); ${instead}`;
}

/** What the composer is asked to do with a session, as far as its host goes. */
export type HostPick =
  /** `/host NAME` (null: this machine). */
  | { readonly kind: 'host'; readonly host: string | null }
  /** `/agent ID`. */
  | { readonly kind: 'agent'; readonly agent: string }
  /** Enter on a prompt, fanned out to `bestOf` sessions when more than 1. */
  | { readonly kind: 'prompt'; readonly bestOf: number };

/** The parts of a session the host rules read. */
export interface HostedSession {
  readonly status: string;
  readonly prompt: string | null;
  readonly agent: string;
  readonly host?: string | null;
  /** Started with the host `auto`, not placed yet. */
  readonly placeAuto?: boolean;
}

/**
 * Why the composer cannot do `pick` for `session`, in words with what to do
 * instead; null when it can. Only the built-in agent CLIs run on hosts yet, and a session's
 * host is chosen before its first prompt.
 */
export function hostPickProblem(
  session: HostedSession,
  pick: HostPick,
  agentName: (id: string) => string,
): string | null {
  // `auto`: placed by the first turn, on a host only when its agent runs there.
  const here = session.placeAuto === true ? 'auto' : (session.host ?? null);
  switch (pick.kind) {
    case 'host':
      if (pick.host === here) return null;
      if (session.status !== 'Draft' || session.prompt !== null)
        return `The host is chosen before the first prompt: this session runs on ${here ?? 'this machine'}.`;
      if (pick.host !== null && pick.host !== 'auto' && !runsOnHosts(session.agent))
        return `${ON_HOSTS}, not ${agentName(session.agent)}: /agent ${HOST_AGENT} first.`;
      return null;
    case 'agent':
      if (here === null || here === 'auto' || runsOnHosts(pick.agent)) return null;
      return `${ON_HOSTS}: /host ${LOCAL_HOST_NAME} first to run ${agentName(pick.agent)} here.`;
    case 'prompt':
      if (here === null || here === 'auto') return null;
      if (!runsOnHosts(session.agent))
        return `${ON_HOSTS}: /agent ${HOST_AGENT}, or /host ${LOCAL_HOST_NAME} for ${agentName(session.agent)}. Not sent.`;
      // Best of N on a host: every variant runs there (services/best-of.ts), admitted one by one against its maximum.
      return null;
    default: {
      const never: never = pick;
      return never;
    }
  }
}
