import { assertNever } from './assert-never.js';

/**
 * What a session's agent may do. Every agent channel maps the mode to its
 * CLI's own flags and answers the CLI's approval requests by it, denying
 * whatever the mode does not allow.
 */
export const PERMISSION_MODES = ['auto_edit', 'read_only', 'plan'] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

export function isPermissionMode(value: string): value is PermissionMode {
  return (PERMISSION_MODES as readonly string[]).includes(value);
}

/** How the mode is shown: `Auto Edit`, `Read Only`, `Plan`. */
export function permissionModeLabel(mode: PermissionMode): string {
  switch (mode) {
    case 'auto_edit':
      return 'Auto Edit';
    case 'read_only':
      return 'Read Only';
    case 'plan':
      return 'Plan';
    default:
      return assertNever(mode);
  }
}

/** One line on what the mode allows (help, notices). */
export function permissionModeDescription(mode: PermissionMode): string {
  switch (mode) {
    case 'auto_edit':
      return 'edits and commands, confined to the worktree';
    case 'read_only':
      return 'reads only: no edits, no commands that change anything';
    case 'plan':
      return 'the agent proposes a plan and writes nothing';
    default:
      return assertNever(mode);
  }
}

/** The next mode in the cycle Auto Edit → Read Only → Plan → Auto Edit. */
export function nextPermissionMode(mode: PermissionMode): PermissionMode {
  const index = PERMISSION_MODES.indexOf(mode);
  return PERMISSION_MODES[(index + 1) % PERMISSION_MODES.length] ?? 'auto_edit';
}

/** The command-line spelling: `auto-edit`, `read-only`, `plan`. */
export function permissionModeFlag(mode: PermissionMode): string {
  return mode.replace('_', '-');
}

/** `auto-edit` | `read-only` | `plan` (the `--mode` values) to a mode; null when unknown. */
export function parsePermissionModeFlag(text: string): PermissionMode | null {
  const value = text.trim().toLowerCase().replace('-', '_');
  return isPermissionMode(value) ? value : null;
}
