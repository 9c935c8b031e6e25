// Codex's app-server on a host (issue 24): started there for one turn through
// the host starter (remote-server.ts), in the session's worktree, with
// CODEX_HOME (else ~/.codex) as its writable state folder. A run a killed
// Grove left mid-turn is stopped, not re-attached (../on-host.ts).
import type { HostPlace } from '../../../domain/host.js';
import type { ChannelOptions, RemoteStateDir, TurnEvent, TurnRequest } from '../channel.js';
import { leftRunRefusal } from '../on-host.js';
import { hostNetworkOf } from '../on-host-network.js';
import { startRemoteRuntime, type Runtime } from './app-server.js';

/** Codex's own folder on a host, kept writable in the sandbox there: CODEX_HOME, else ~/.codex. */
export const CODEX_STATE: RemoteStateDir = {
  variable: 'CODEX_HOME',
  fallback: '.codex',
  // Its model servers (model_providers, openai_base_url) are named there.
  config: 'config.toml',
};

/** Starts `binary app-server` for `request` on its host; `tell` reaches the running turn. */
export async function startCodexOnHost(
  options: ChannelOptions,
  request: TurnRequest,
  place: HostPlace,
  binary: string,
  label: string,
  tell: (event: TurnEvent) => void,
): Promise<Runtime> {
  await leftRunRefusal(options, request, place, 'codex', label, `${label}'s app-server`);
  if (!options.remote) throw new Error('unreachable: checked by leftRunRefusal');
  const cursor = request.remoteRun;
  return startRemoteRuntime('codex', label, options.remote, place, {
    command: binary,
    args: ['app-server'],
    stateDir: CODEX_STATE,
    withVersion: false,
    onReconnect: (text) => tell({ type: 'progress', text }),
    onNotice: (text) => tell({ type: 'notice', text }),
    ...(cursor ? { cursor } : {}),
    ...codexNetwork(options, tell),
  });
}

/** Its network through Grove's filter here, as for Codex here: a refused host is a transcript line. */
export function codexNetwork(
  options: ChannelOptions,
  tell: (event: TurnEvent) => void,
): ReturnType<typeof hostNetworkOf> {
  return hostNetworkOf(options, {
    provider: 'codex',
    args: ['app-server'],
    onNetworkDenied: (line) => tell({ type: 'notice', text: line }),
  });
}
