// Codex's app-server on a host (issue 24): started there for one turn through
// the host starter (remote-server.ts), in the session's worktree, with
// CODEX_HOME (else ~/.codex) as its writable state folder. A run a killed
// Grove left mid-turn is not re-attached (its JSON-RPC state went with that
// Grove): it is ended, and the turn says so.
import type { HostPlace } from '../../../domain/host.js';
import { AgentError } from '../agent-error.js';
import type { ChannelOptions, RemoteStateDir, TurnEvent, TurnRequest } from '../channel.js';
import { startRemoteRuntime, type Runtime } from './app-server.js';

/** Codex's own folder on a host, kept writable in the sandbox there: CODEX_HOME, else ~/.codex. */
const CODEX_STATE: RemoteStateDir = { variable: 'CODEX_HOME', fallback: '.codex' };

/** Whether a process that runs at `a` serves a turn at `b` (the same host's worktree, or both here). */
export function samePlace(a: HostPlace | null, b: HostPlace | null): boolean {
  if (a === null || b === null) return a === b;
  return a.host.name === b.host.name && a.worktree === b.worktree;
}

/** Starts `binary app-server` for `request` on its host; `tell` reaches the running turn. */
export async function startCodexOnHost(
  options: ChannelOptions,
  request: TurnRequest,
  place: HostPlace,
  binary: string,
  label: string,
  tell: (event: TurnEvent) => void,
): Promise<Runtime> {
  if (!options.remote)
    throw new AgentError('codex', 'crash', 'This Grove cannot start agents on hosts.');
  const cursor = request.remoteRun;
  if (cursor?.runId) {
    const name = place.host.name;
    const what = await options.remote.stopRun(place, cursor.runId, cursor.pgid).then(
      () => `so its run on ${name} was stopped`,
      (error: unknown) =>
        `and its run on ${name} could not be stopped (${error instanceof Error ? error.message : String(error)}): it may still be working there`,
    );
    throw new AgentError(
      'codex',
      'crash',
      `This Codex turn cannot be taken over: Codex's app-server answers only the Grove that started it, ${what}. What it wrote there is brought back, and a reply goes on from there.`,
    );
  }
  return startRemoteRuntime('codex', label, options.remote, place, {
    command: binary,
    args: ['app-server'],
    stateDir: CODEX_STATE,
    withVersion: false,
    onReconnect: (text) => tell({ type: 'progress', text }),
    onNotice: (text) => tell({ type: 'notice', text }),
    ...(cursor ? { cursor } : {}),
  });
}
