import { isAbsolute, relative, resolve } from 'node:path';
import { type TurnResult } from './channel.js';
import { AgentError } from './agent-error.js';
import type { ProviderId } from '../../domain/providers.js';
import { JsonRpcPeer } from './json-rpc.js';
import { launchAgent, type AgentLauncher } from './confine/launcher.js';
import { stderrSummary, type AgentProcess } from './confine/process.js';

/** True when `path` (absolute, or relative to `root`) is inside `root`. */
export function isInside(root: string, path: string): boolean {
  const full = isAbsolute(path) ? path : resolve(root, path);
  const rel = relative(resolve(root), full);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

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
): Promise<Runtime> {
  const proc = await launchAgent(
    launcher,
    {
      provider,
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

/** Collects the pieces of a turn's result as notifications arrive. */
export class TurnAccumulator {
  message = '';
  inputTokens = 0;
  outputTokens = 0;
}

export function turnResult(
  acc: TurnAccumulator,
  conversationId: string | null,
  structured: unknown = null,
): TurnResult {
  return {
    message: acc.message,
    structured,
    inputTokens: acc.inputTokens,
    outputTokens: acc.outputTokens,
    providerConversationId: conversationId,
  };
}

export function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

export function asString(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

export function asNumber(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
