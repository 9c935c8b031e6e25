import { AgentError } from '../agent-error.js';
import type { HostPlace } from '../../../domain/host.js';
import type { ProviderId } from '../../../domain/providers.js';
import { JsonRpcPeer } from './json-rpc.js';
import type { HostNetworkOpener } from '../confine/host-network.js';
import { launchAgent, type AgentLauncher } from '../confine/launcher.js';
import { stderrSummary } from '../confine/process.js';
import type {
  RemoteAgentStarter,
  RemoteRunCursor,
  RemoteStateDir,
  ServerProcess,
} from '../channel.js';

/** A long-lived agent process speaking JSON-RPC, started lazily and restartable. */
export interface Runtime {
  readonly proc: ServerProcess;
  readonly peer: JsonRpcPeer;
  readonly cwd: string;
  /** The host it runs on (null: this machine). */
  readonly remote: HostPlace | null;
  dead: boolean;
}

/** Marks the runtime dead and fails what waits on it once its process exits. */
function watch(runtime: Runtime, provider: ProviderId, label: string): Runtime {
  void runtime.proc.exited.then((exit) => {
    runtime.dead = true;
    runtime.peer.close(
      new AgentError(
        provider,
        'crash',
        `${label} exited (${exit.signal ?? `code ${exit.code ?? '?'}`}).`,
        stderrSummary(runtime.proc.stderrTail()),
      ),
    );
  });
  return runtime;
}

export async function startRuntime(
  provider: ProviderId,
  label: string,
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  withVersion: boolean,
  installHint: string,
  launcher?: AgentLauncher,
  onNetworkDenied?: (line: string) => void,
  mainCheckout?: string,
  sessionId?: string,
): Promise<Runtime> {
  const proc = await launchAgent(
    launcher,
    {
      provider,
      ...(sessionId === undefined ? {} : { sessionId }),
      command,
      args,
      cwd,
      env,
      ...(onNetworkDenied ? { onNetworkDenied } : {}),
      ...(mainCheckout ? { mainCheckout } : {}),
    },
    label,
    installHint,
  );
  const peer = new JsonRpcPeer(proc.child, withVersion);
  return watch(
    {
      proc: {
        exited: proc.exited,
        stderrTail: () => proc.stderrTail(),
        kill: () => proc.kill(),
        stop: () => proc.stop(),
      },
      peer,
      cwd,
      remote: null,
      dead: false,
    },
    provider,
    label,
  );
}

/**
 * The same server on a host (issue 24): started detached in the place's
 * worktree there, read by byte offset and written through the host's input
 * channel, so a dropped link loses and repeats nothing either way.
 */
export async function startRemoteRuntime(
  provider: ProviderId,
  label: string,
  starter: RemoteAgentStarter,
  place: HostPlace,
  spec: {
    readonly command: string;
    readonly args: readonly string[];
    readonly stateDir: RemoteStateDir;
    readonly withVersion: boolean;
    readonly onReconnect: (text: string) => void;
    readonly onNotice: (text: string) => void;
    readonly cursor?: RemoteRunCursor;
    readonly network?: HostNetworkOpener;
  },
): Promise<Runtime> {
  const proc = await starter.startServer(place, {
    command: spec.command,
    args: spec.args,
    stateDir: spec.stateDir,
    onReconnect: spec.onReconnect,
    onNotice: spec.onNotice,
    ...(spec.cursor ? { cursor: spec.cursor } : {}),
    ...(spec.network ? { network: spec.network } : {}),
  });
  const peer = new JsonRpcPeer(proc, spec.withVersion);
  return watch({ proc, peer, cwd: place.worktree, remote: place, dead: false }, provider, label);
}
