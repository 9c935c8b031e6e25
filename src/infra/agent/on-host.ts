// What the app-server channels (Codex's, Gemini CLI's) share for a session on
// a host (issue 24): whether a live process serves a turn's place, and what
// becomes of a run a killed Grove left mid-turn when it cannot be taken over
// (left-run.ts says when it can): it is stopped and the turn says why.
import type { HostPlace } from '../../domain/host.js';
import type { ProviderId } from '../../domain/providers.js';
import { AgentError } from './agent-error.js';
import type { ChannelOptions, RemoteServerAttach, TurnRequest } from './channel.js';
import { dropAttached } from './left-run.js';

/** Whether a process that runs at `a` serves a turn at `b` (the same host's worktree, or both here). */
export function samePlace(a: HostPlace | null, b: HostPlace | null): boolean {
  if (a === null || b === null) return a === b;
  return a.host.name === b.host.name && a.worktree === b.worktree;
}

/**
 * Throws when this Grove cannot start agents on hosts, and after stopping a
 * run a killed Grove left mid-turn (the request's cursor names it), with the
 * reason in words; returns when a new run may start.
 */
export async function leftRunRefusal(
  options: ChannelOptions,
  request: TurnRequest,
  place: HostPlace,
  provider: ProviderId,
  label: string,
  /** What talks to Grove (Codex's app-server). */
  server: string,
): Promise<void> {
  if (!options.remote)
    throw new AgentError(provider, 'crash', 'This Grove cannot start agents on hosts.');
  const cursor = request.remoteRun;
  if (!cursor?.runId) return;
  const name = place.host.name;
  const what = await options.remote.stopRun(place, cursor.runId, cursor.pgid).then(
    () => `so its run on ${name} was stopped`,
    (error: unknown) =>
      `and its run on ${name} could not be stopped (${error instanceof Error ? error.message : String(error)}): it may still be working there`,
  );
  throw new AgentError(
    provider,
    'crash',
    `This ${label} turn cannot be taken over: ${server} answers only the Grove that started it, ${what}. What it wrote there is brought back, and a reply goes on from there.`,
  );
}

/**
 * A left run that was attached but cannot be taken over (`why`, in words):
 * stopped, and the turn fails saying so; what the agent wrote there is
 * brought back as for any failed turn.
 */
export async function stopNotTakenOver(
  attached: RemoteServerAttach,
  place: HostPlace,
  provider: ProviderId,
  label: string,
  why: string,
): Promise<never> {
  await dropAttached(attached);
  throw new AgentError(
    provider,
    'crash',
    `This ${label} turn cannot be taken over: ${why}. Its run on ${place.host.name} was stopped; what it wrote there is brought back, and a reply goes on from there.`,
  );
}
