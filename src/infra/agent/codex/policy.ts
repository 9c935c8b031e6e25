// Codex's policies and asks: the approval policy and sandbox a thread or turn
// runs under for a permission mode, and Codex's approval requests as Grove's
// asks (approval.ts decides them).
import type { PermissionMode } from '../../../domain/permission-mode.js';
import type { ApprovalAsk } from '../approval.js';
import { asRecord, asString } from '../turn-parts.js';
import type { SandboxPolicy } from './protocol/v2.gen.js';

/**
 * The thread's approval policy and sandbox for a mode. The policy is always
 * on-request, so whatever the sandbox does not allow comes to Grove as an
 * approval request, is denied by the mode and shows in the transcript.
 */
export function codexPolicy(mode: PermissionMode): {
  approvalPolicy: 'on-request';
  sandbox: 'read-only' | 'workspace-write';
} {
  return mode === 'auto_edit'
    ? { approvalPolicy: 'on-request', sandbox: 'workspace-write' }
    : { approvalPolicy: 'on-request', sandbox: 'read-only' };
}

/** The same policy as a per-turn override (turn/start), used when the mode changed since the thread opened. */
export function codexTurnPolicy(mode: PermissionMode): {
  approvalPolicy: 'on-request';
  sandboxPolicy: SandboxPolicy;
} {
  return mode === 'auto_edit'
    ? {
        approvalPolicy: 'on-request',
        sandboxPolicy: {
          type: 'workspaceWrite',
          writableRoots: [],
          networkAccess: false,
          excludeTmpdirEnvVar: false,
          excludeSlashTmp: true,
        },
      }
    : { approvalPolicy: 'on-request', sandboxPolicy: { type: 'readOnly', networkAccess: false } };
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : [];
}

/** Paths a command's parsed actions name (reads, listings, searches). */
function actionPaths(actions: unknown): string[] {
  const list = Array.isArray(actions) ? actions.map(asRecord) : [];
  return list.map((a) => asString(a['path'])).filter((p): p is string => p !== null && p !== '');
}

/**
 * Codex's approval requests as asks. Under the on-request policy Codex asks
 * about a command only to run it outside its sandbox (an explicit
 * escalation, an unsandboxed retry or more network), so every command ask
 * is an escalation.
 */
export function codexAsk(
  method: string,
  params: unknown,
  changePaths: (itemId: string) => readonly string[],
): ApprovalAsk | null {
  const p = asRecord(params);
  switch (method) {
    case 'item/commandExecution/requestApproval': {
      const command =
        asString(p['command']) ??
        (asString(p['kind']) === 'writeStdin' ? 'input to a running command' : 'a command');
      return {
        kind: 'command',
        command,
        cwd: asString(p['cwd']),
        paths: actionPaths(p['commandActions']),
        escalation: true,
      };
    }
    case 'execCommandApproval':
      return {
        kind: 'command',
        command: stringList(p['command']).join(' ') || 'a command',
        cwd: asString(p['cwd']),
        paths: actionPaths(p['parsedCmd']),
        escalation: true,
      };
    case 'item/fileChange/requestApproval':
      return {
        kind: 'edit',
        paths: changePaths(asString(p['itemId']) ?? ''),
        grantRoot: asString(p['grantRoot']),
      };
    case 'applyPatchApproval':
      return {
        kind: 'edit',
        paths: Object.keys(asRecord(p['fileChanges'])),
        grantRoot: asString(p['grantRoot']),
      };
    case 'item/permissions/requestApproval': {
      const wanted = asRecord(p['permissions']);
      const what = [
        wanted['network'] ? 'network access' : null,
        wanted['fileSystem'] ? 'more file-system access' : null,
      ]
        .filter(Boolean)
        .join(' and ');
      return { kind: 'permissions', what: what || 'more permissions' };
    }
    default:
      return null;
  }
}
