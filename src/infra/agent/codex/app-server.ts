import { AgentError } from '../agent-error.js';
import type { ProviderId } from '../../../domain/providers.js';
import { JsonRpcPeer } from './json-rpc.js';
import { launchAgent, type AgentLauncher } from '../confine/launcher.js';
import { stderrSummary, type AgentProcess } from '../confine/process.js';

/** A long-lived agent process speaking JSON-RPC, started lazily and restartable. */
export interface Runtime {
  readonly proc: AgentProcess;
  readonly peer: JsonRpcPeer;
  readonly cwd: string;
  dead: boolean;
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
  const runtime: Runtime = { proc, peer, cwd, dead: false };
  void proc.exited.then((exit) => {
    runtime.dead = true;
    peer.close(
      new AgentError(
        provider,
        'crash',
        `${label} exited (${exit.signal ?? `code ${exit.code ?? '?'}`}).`,
        stderrSummary(proc.stderrTail()),
      ),
    );
  });
  return runtime;
}
