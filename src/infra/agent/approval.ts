import { homedir } from 'node:os';
import { isAbsolute, relative, resolve } from 'node:path';
import { permissionModeLabel, type PermissionMode } from '../../domain/permission-mode.js';
import { asRecord, asString } from './turn-parts.js';
import { withoutWorktree, worktreePath } from './tool-lines.js';
import { approves, type ApprovalHold, type HoldRequest } from './approval-hold.js';
import { authority } from './confine/network.js';
import { NOT_LISTED, type NetworkHold } from './confine/network-proxy.js';

// Fail-closed answers to an agent CLI's approval requests. A CLI asks only
// for what its own sandbox or mode does not already allow, so anything not
// clearly allowed by the session's mode is denied, and the denial is told
// to the person in the transcript.

/** What an agent CLI asks to be allowed. */
export type ApprovalAsk =
  | {
      readonly kind: 'command';
      /** The command line as the CLI shows it. */
      readonly command: string;
      /** Where it runs (null: the CLI's working directory). */
      readonly cwd: string | null;
      /** Paths the command names, when the CLI says. */
      readonly paths: readonly string[];
      /** An explicit request to run outside the CLI's sandbox. */
      readonly escalation: boolean;
    }
  | {
      readonly kind: 'edit';
      /** The files the edit writes (empty when the CLI did not say). */
      readonly paths: readonly string[];
      /** A folder the CLI wants write access to for this edit. */
      readonly grantRoot: string | null;
    }
  | {
      /** A tool that only reads (files, searches, the web). */
      readonly kind: 'read';
      readonly what: string;
    }
  | {
      /** More permissions than the sandbox has (network, file-system roots), or a tool Grove does not know. */
      readonly kind: 'permissions';
      readonly what: string;
    };

export type ApprovalDecision =
  { readonly allow: true } | { readonly allow: false; readonly reason: string };

export type { ApprovalHold, HoldAnswer, HoldRequest } from './approval-hold.js';
export { approves } from './approval-hold.js';

/** True when `path` (absolute, or relative to `root`) is inside `root`. */
export function isInside(root: string, path: string): boolean {
  const full = isAbsolute(path) ? path : resolve(root, path);
  const rel = relative(resolve(root), full);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Folders outside the worktree a command may name in Auto Edit: system
 * programs and libraries (read), the null and standard devices. Not the
 * temporary folder: a main checkout may live there.
 */
const SHARED_PREFIXES: readonly string[] = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/dev/null',
  '/dev/stdin',
  '/dev/stdout',
  '/dev/stderr',
  '/dev/tty',
  '/dev/zero',
  '/dev/urandom',
  '/dev/random',
  '/dev/fd',
];

/**
 * Paths a shell command line names: absolute paths, `~` paths and paths
 * through `..`. A heuristic (a command can build a path at run time); the
 * OS sandbox is what confines the command's effects.
 */
export function commandPaths(command: string): string[] {
  const out: string[] = [];
  for (const match of command.matchAll(
    /(?:^|[\s'"=:(,<>|;&`])((?:~|\.\.|\.)?\/[^\s'"`;|&<>(),]*|\.\.(?=$|[\s'"`;|&<>)]))/g,
  )) {
    const path = match[1];
    if (path) out.push(path.startsWith('~') ? `${homedir()}${path.slice(1)}` : path);
  }
  return out;
}

const deny = (reason: string): ApprovalDecision => ({ allow: false, reason });
const ALLOW: ApprovalDecision = { allow: true };

/**
 * The answer to one approval request in a session of `mode` whose worktree
 * is `worktree`: Auto Edit allows commands and edits inside the worktree
 * only and never an escape from the sandbox; Read Only and Plan allow no
 * edit and no command that asks.
 */
export function decideApproval(
  mode: PermissionMode,
  worktree: string,
  ask: ApprovalAsk,
): ApprovalDecision {
  if (ask.kind === 'read') return ALLOW;
  if (mode !== 'auto_edit') return deny(`the session is in ${permissionModeLabel(mode)} mode`);
  switch (ask.kind) {
    case 'command': {
      if (ask.escalation) return deny('it asked to run outside the sandbox');
      if (ask.cwd !== null && !isInside(worktree, ask.cwd))
        return deny(`it runs in ${ask.cwd}, outside the worktree`);
      const outside = ask.paths.find((path) => {
        const full = resolve(ask.cwd ?? worktree, path);
        return (
          !isInside(worktree, full) && !SHARED_PREFIXES.some((prefix) => isInside(prefix, full))
        );
      });
      if (outside !== undefined) return deny(`it names ${outside}, outside the worktree`);
      return ALLOW;
    }
    case 'edit': {
      if (ask.grantRoot !== null && !isInside(worktree, ask.grantRoot))
        return deny(`it asked for write access to ${ask.grantRoot}, outside the worktree`);
      if (ask.paths.length === 0 && ask.grantRoot === null)
        return deny('the files it writes are not known');
      const outside = ask.paths.find((path) => !isInside(worktree, path));
      if (outside !== undefined) return deny(`it writes ${outside}, outside the worktree`);
      return ALLOW;
    }
    case 'permissions':
      return deny('Grove grants no permissions beyond the worktree');
    default:
      return deny('Grove does not know this kind of request');
  }
}

function clip(text: string, max = 120): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** What was asked, in words: "run `rm -rf x`", "edit src/a.ts". */
export function describeAsk(ask: ApprovalAsk, worktree: string | null = null): string {
  switch (ask.kind) {
    case 'command': {
      // Paths relative to the worktree; a command that runs in the worktree itself says no folder.
      const where = ask.cwd ? worktreePath(ask.cwd, worktree) : '.';
      return `run \`${clip(withoutWorktree(ask.command, worktree)) || 'a command'}\`${where === '.' ? '' : ` in ${where}`}`;
    }
    case 'edit':
      return ask.paths.length > 0
        ? `edit ${clip(ask.paths.map((p) => worktreePath(p, worktree)).join(', '))}`
        : ask.grantRoot
          ? `write in ${worktreePath(ask.grantRoot, worktree)}`
          : 'edit files';
    case 'read':
      return clip(ask.what);
    case 'permissions':
      return `get ${clip(ask.what)}`;
    default:
      return 'do something';
  }
}

/** The transcript line for a denied request: `[Denied] Codex asked to run … : why.` */
export function deniedLine(agentLabel: string, what: string, reason: string): string {
  return `[Denied] ${agentLabel} asked to ${what}; Grove denied it: ${reason}.`;
}

function toolPaths(toolCall: Record<string, unknown>): string[] {
  const locations = Array.isArray(toolCall['locations']) ? toolCall['locations'].map(asRecord) : [];
  const content = Array.isArray(toolCall['content']) ? toolCall['content'].map(asRecord) : [];
  return [
    ...new Set(
      [
        ...locations.map((l) => asString(l['path'])),
        ...content.map((c) => asString(c['path'])),
      ].filter((p): p is string => p !== null),
    ),
  ];
}

/**
 * An ACP tool call as an ask (Gemini CLI's, or any ACP agent's). A shell command (`execute`) says where it runs
 * only in its content ("[current working directory …]"); the paths it names
 * are read from the command line, a heuristic backed by the OS sandbox.
 */
export function acpToolAsk(toolCall: Record<string, unknown>): ApprovalAsk {
  const title = asString(toolCall['title']) ?? 'a tool';
  const paths = toolPaths(toolCall);
  switch (asString(toolCall['kind'])) {
    case 'execute': {
      const content = Array.isArray(toolCall['content']) ? toolCall['content'].map(asRecord) : [];
      const text = content.map((c) => asString(asRecord(c['content'])['text']) ?? '').join('\n');
      const cwd = /\[current working directory ([^\]\n]+)\]/.exec(text)?.[1] ?? null;
      return {
        kind: 'command',
        command: title,
        cwd,
        paths: [...paths, ...commandPaths(title)],
        escalation: false,
      };
    }
    case 'edit':
    case 'delete':
    case 'move':
      return { kind: 'edit', paths, grantRoot: null };
    case 'read':
    case 'search':
    case 'fetch':
    case 'think':
      return { kind: 'read', what: `use ${title}` };
    default:
      return { kind: 'permissions', what: `permission for ${title}` };
  }
}

/** True when a path has a `.git` part (git's own folder, its hooks and config). */
function intoGit(path: string): boolean {
  return path.split(/[\\/]/).some((part) => part === '.git');
}

/**
 * Why Grove forbids the request whatever the person would say, or null: a
 * command that runs outside the worktree or names a path outside it (system
 * folders aside) or into `.git`; an edit whose files are not known, or that
 * writes outside the worktree or into `.git`; any request for more
 * permissions (network, file-system roots). Such a request is never held:
 * approvals change only what the CLI's own policy asks about.
 */
export function hardDenial(worktree: string, ask: ApprovalAsk): string | null {
  switch (ask.kind) {
    case 'command': {
      if (ask.cwd !== null && !isInside(worktree, ask.cwd))
        return `it runs in ${ask.cwd}, outside the worktree`;
      // Git's folder by a relative name too (`.git/hooks/x`), which commandPaths does not read as a path.
      if (/(?:^|[\s'"=:(,<>|;&`/])\.git(?=$|[\s/'"`;|&<>)])/.test(ask.command))
        return 'it names .git, which the agent may not change';
      const paths = [...ask.paths, ...commandPaths(ask.command)];
      const base = ask.cwd ?? worktree;
      const bad = paths.find((path) => {
        const full = resolve(base, path);
        if (intoGit(relative(worktree, full)) || intoGit(path)) return true;
        return (
          !isInside(worktree, full) && !SHARED_PREFIXES.some((prefix) => isInside(prefix, full))
        );
      });
      return bad === undefined ? null : `it names ${bad}, outside what the agent may write`;
    }
    case 'edit': {
      if (ask.grantRoot !== null && !isInside(worktree, ask.grantRoot))
        return `it asked for write access to ${ask.grantRoot}, outside the worktree`;
      if (ask.paths.length === 0) return 'the files it writes are not known';
      const bad = ask.paths.find(
        (path) => !isInside(worktree, path) || intoGit(relative(worktree, resolve(worktree, path))),
      );
      return bad === undefined ? null : `it writes ${bad}, outside what the agent may write`;
    }
    case 'read':
      return null;
    case 'permissions':
      return 'Grove grants no permissions beyond the worktree';
    default:
      return 'Grove does not know this kind of request';
  }
}

/**
 * The request to hold for a denied ask, or null when it is not the
 * person's to grant (hardDenial). `reason` is why the mode denied it.
 */
export function holdRequest(
  agent: string,
  worktree: string,
  ask: ApprovalAsk,
  reason: string,
): HoldRequest | null {
  if (hardDenial(worktree, ask) !== null) return null;
  if (ask.kind === 'command') {
    const where = ask.cwd ? worktreePath(ask.cwd, worktree) : '.';
    return {
      agent,
      kind: 'command',
      subject: withoutWorktree(ask.command, worktree).trim() || ask.command,
      cwd: where === '.' ? null : where,
      reason,
    };
  }
  if (ask.kind === 'edit')
    return {
      agent,
      kind: 'edit',
      subject: ask.paths.map((p) => worktreePath(p, worktree)).join(', '),
      cwd: null,
      reason,
    };
  return null;
}

/** Why a held network request beyond the cap is refused, as the agent reads it. */
export const BUSY_WHY = `${NOT_LISTED}; too many requests already wait for approval`;

/**
 * The launcher's network hold for a turn: a request to `host:port` not on
 * the allow list held for the person as a `network` request (the turn's
 * approval desk). A denial reads to the agent as the usual refusal.
 */
export function networkHold(agent: string, hold: ApprovalHold, signal: AbortSignal): NetworkHold {
  return async (host, port) => {
    const answer = await hold(
      { agent, kind: 'network', subject: authority(host, port), cwd: null, reason: NOT_LISTED },
      signal,
    ).catch(() => 'denied' as const);
    if (approves(answer)) return { kind: 'approved' };
    return { kind: 'denied', why: answer === 'busy' ? BUSY_WHY : NOT_LISTED };
  };
}
