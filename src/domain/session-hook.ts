// Session hooks (issue 25, item 5): a command of the person's, run when a
// session changes state (it needs you, a turn ended in Review, something
// failed, it was merged or published). What happened reaches the command in
// GROVE_* environment variables only: a title is the agent's words, so it is
// never put into the command's text. The command runs confined like an
// agent unless the person marks the hook trusted.

import type { Session } from './session.js';
import type { SettingRow } from './setting-row.js';

export const SESSION_HOOK_EVENTS = [
  'needs-you',
  'review',
  'failed',
  'merged',
  'published',
] as const;
export type SessionHookEvent = (typeof SESSION_HOOK_EVENTS)[number];

export const SESSION_HOOK_KEYS = {
  /** The command, run with `sh -c` (empty: no hook). */
  command: 'hooks.command',
  /** on: the command runs as the person, outside the sandbox. */
  trusted: 'hooks.trusted',
  /** How long one run may take before its process group is ended. */
  timeout: 'hooks.timeout',
} as const;

export const SESSION_HOOK_TIMEOUTS = ['10s', '30s', '60s', '2m', '5m'] as const;
export const DEFAULT_SESSION_HOOK_TIMEOUT = '60s';

/** One state change a hook is run for. `detail` narrows it (see sessionHookEnv). */
export interface SessionHookFiring {
  readonly event: SessionHookEvent;
  /** needs-you: question, approval or budget; failed: turn, rebase, merge or publish; else ''. */
  readonly detail: string;
}

/** The hook as the project's settings give it; null when there is none. */
export interface SessionHookSetting {
  readonly command: string;
  readonly trusted: boolean;
  readonly timeoutMs: number;
}

/** A timeout choice in ms ('60s', '2m'); null when it is not one. */
export function sessionHookTimeoutMs(value: string): number | null {
  const match = /^(\d+)(s|m)$/.exec(value.trim());
  if (!match) return null;
  return Number(match[1]) * (match[2] === 'm' ? 60_000 : 1000);
}

export function sessionHookSetting(
  values: Readonly<Record<string, string>>,
): SessionHookSetting | null {
  const command = (values[SESSION_HOOK_KEYS.command] ?? '').trim();
  if (command === '') return null;
  return {
    command,
    trusted: values[SESSION_HOOK_KEYS.trusted] === 'on',
    timeoutMs:
      sessionHookTimeoutMs(values[SESSION_HOOK_KEYS.timeout] ?? '') ??
      (sessionHookTimeoutMs(DEFAULT_SESSION_HOOK_TIMEOUT) as number),
  };
}

/** An environment value as the kernel takes it: every character kept but NUL, which cannot be passed. */
function envValue(text: string): string {
  return text.replace(/\0/g, '');
}

/**
 * The GROVE_* variables of one run. Values are exactly the stored words
 * (a hostile title included): the command quotes them, Grove never does.
 */
export function sessionHookEnv(
  firing: SessionHookFiring,
  session: Pick<Session, 'id' | 'title' | 'status' | 'branch' | 'worktreePath'>,
  project: { readonly path: string; readonly displayName: string },
): Record<string, string> {
  return {
    GROVE_EVENT: firing.event,
    GROVE_EVENT_DETAIL: firing.detail,
    GROVE_SESSION_ID: session.id,
    GROVE_SESSION_TITLE: envValue(session.title),
    GROVE_SESSION_STATUS: session.status,
    GROVE_BRANCH: envValue(session.branch),
    GROVE_WORKTREE: envValue(session.worktreePath),
    GROVE_PROJECT_PATH: envValue(project.path),
    GROVE_PROJECT_NAME: envValue(project.displayName),
  };
}

/** The last lines of a run's output for a notice: at most 5 lines and 400 characters (sanitized where shown). */
export function outputTail(output: string): string {
  const lines = output
    .split(/\r?\n/)
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '');
  const tail = lines.slice(-5).join('\n');
  return tail.length > 400 ? `…${tail.slice(-399)}` : tail;
}

/** The transcript notice of a run that failed or was stopped; null when it went well. */
export function sessionHookNotice(
  firing: SessionHookFiring,
  result: { readonly exitCode: number; readonly timedOut: boolean; readonly output: string },
  timeoutMs: number,
): string | null {
  if (!result.timedOut && result.exitCode === 0) return null;
  const what = result.timedOut
    ? `was stopped at its time limit (${Math.round(timeoutMs / 1000)} s)`
    : `failed (exit code ${result.exitCode})`;
  const tail = outputTail(result.output);
  return `[Hook] The ${firing.event} hook ${what}.${tail === '' ? ' It printed nothing.' : `\n${tail}`}`;
}

export function sessionHookRows(): SettingRow[] {
  return [
    {
      key: SESSION_HOOK_KEYS.command,
      label: 'Session hook: command',
      scope: 'project',
      kind: 'text',
      description:
        'Runs (sh -c, in the worktree) when a session needs you, ends a turn in Review, fails, is merged or published. GROVE_EVENT, GROVE_SESSION_ID, GROVE_SESSION_TITLE, GROVE_SESSION_STATUS, GROVE_BRANCH, GROVE_WORKTREE, GROVE_PROJECT_PATH and GROVE_PROJECT_NAME say what happened: quote them ("$GROVE_SESSION_TITLE"), the title is the agent\'s. Empty: no hook.',
      choices: () => [],
      fallback: () => '',
    },
    {
      key: SESSION_HOOK_KEYS.trusted,
      label: 'Session hook: trusted',
      scope: 'project',
      kind: 'choice',
      description:
        "off: the hook runs in the agent's sandbox (it writes only the worktree, sees none of your home). on: it runs as you, with your files, environment and network.",
      choices: () => ['off', 'on'],
      fallback: () => 'off',
    },
    {
      key: SESSION_HOOK_KEYS.timeout,
      label: 'Session hook: time limit',
      scope: 'project',
      kind: 'choice',
      description:
        'How long one run of the hook may take; then it and every process it started are ended, and the session says so.',
      choices: () => [...SESSION_HOOK_TIMEOUTS],
      fallback: () => DEFAULT_SESSION_HOOK_TIMEOUT,
    },
  ];
}
