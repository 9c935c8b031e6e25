// Codex's app-server on a host, taken over from a Grove killed mid-turn
// (issue 24, item 4; ../left-run.ts): the thread and the turn are the last
// `turn/start` the earlier Grove sent; the turn goes on in this Grove's
// channel as if it had started it (its notifications read again from the
// run's first byte, quietly up to where the transcript ends).
import type { HostPlace } from '../../../domain/host.js';
import { AgentError } from '../agent-error.js';
import type { TurnRequest } from '../channel.js';
import { stderrSummary } from '../confine/process.js';
import {
  conversationIdOf,
  dropAttached,
  lastRequest,
  readSentLog,
  rejoinRun,
  type RejoinedRun,
} from '../left-run.js';
import { leftRunRefusal, stopNotTakenOver } from '../on-host.js';
import { asRecord, asString } from '../turn-parts.js';
import type { ChannelOptions } from '../channel.js';
import type { Runtime } from './app-server.js';
import { JsonRpcPeer } from './json-rpc.js';
import { CODEX_STATE, codexNetwork } from './on-host.js';

/** A Codex turn taken over on a host. */
export interface CodexRejoin {
  readonly rt: Runtime;
  readonly thread: string;
  readonly run: RejoinedRun;
}

/**
 * Takes over the run `request.remoteRun` names. Null: the turn had not
 * reached Codex (its `turn/start` is not in the log), so the run was stopped
 * and the cursor cleared, for the turn to start a run of its own. Throws (the
 * run stopped) when it cannot be taken over, saying why.
 */
export async function rejoinCodex(
  options: ChannelOptions,
  request: TurnRequest,
  place: HostPlace,
  label: string,
  tell: {
    readonly progress: (text: string) => void;
    readonly notice: (text: string) => void;
    /** The answer to the earlier Grove's turn/start: the turn's id. */
    readonly turnId: (id: string) => void;
  },
): Promise<CodexRejoin | null> {
  const cursor = request.remoteRun;
  const runId = cursor?.runId;
  if (!cursor || !runId) return null;
  const server = `${label}'s app-server`;
  if (!options.remote?.attachServer)
    return leftRunRefusal(options, request, place, 'codex', label, server).then(() => null);
  const attached = await options.remote.attachServer(place, {
    runId,
    pgid: cursor.pgid,
    stateDir: CODEX_STATE,
    onReconnect: tell.progress,
    onNotice: tell.notice,
    ...codexNetwork(options, (event) => {
      if (event.type === 'notice') tell.notice(event.text);
    }),
  });
  const log = attached.sentTooLarge ? null : readSentLog(attached.sent);
  const turn = log ? lastRequest(log, 'turn/start') : null;
  const thread = conversationIdOf(turn?.params['threadId']);
  const why = !log
    ? 'what Grove sent it is larger than Grove reads back'
    : log.cut
      ? 'the Grove before was killed while it sent a message there, and the rest of that message is not known'
      : turn && !thread
        ? 'the thread its turn runs in cannot be read from what Grove sent it'
        : null;
  if (why || !log) return stopNotTakenOver(attached, place, 'codex', label, why ?? '');
  if (!turn || !thread) {
    // Codex never got the turn: nothing of it ran; the turn starts a run of its own.
    await dropAttached(attached);
    cursor.runId = null;
    cursor.pgid = null;
    cursor.offset = 0;
    return null;
  }
  const run = rejoinRun(attached, log, cursor, (sent, message) => {
    if (sent !== turn) return;
    const id = asString(asRecord(asRecord(message['result'])['turn'])['id']);
    if (id) tell.turnId(id);
  });
  const peer = new JsonRpcPeer(run.process, false);
  const rt: Runtime = { proc: run.process, peer, cwd: place.worktree, remote: place, dead: false };
  void run.process.exited.then((exit) => {
    rt.dead = true;
    peer.close(
      new AgentError(
        'codex',
        'crash',
        `${label} exited (${exit.signal ?? `code ${exit.code ?? '?'}`}).`,
        stderrSummary(run.process.stderrTail()),
      ),
    );
  });
  return { rt, thread, run };
}
