// Gemini CLI's ACP process on a host, taken over from a Grove killed
// mid-turn (issue 24, item 4; ../left-run.ts): the turn is the last
// `session/prompt` the earlier Grove sent, and its answer (read from the
// run's output like every line) is the turn's end. What the process printed
// before that prompt was sent (a reloaded session's replayed conversation) is
// not the turn's: the turn's text starts after the answer to the request sent
// just before the prompt.
import type { HostPlace } from '../../../domain/host.js';
import { AgentError } from '../agent-error.js';
import type { ChannelOptions, ServerAttachSpec, ServerProcess, TurnRequest } from '../channel.js';
import { stderrSummary } from '../confine/process.js';
import {
  conversationIdOf,
  dropAttached,
  idKey,
  lastRequest,
  readSentLog,
  rejoinRun,
  requestBefore,
  type RejoinedRun,
} from '../left-run.js';
import { leftRunRefusal, stopNotTakenOver } from '../on-host.js';

/** The answer to the taken-over prompt: its result, or the error the agent answered with. */
export type PromptAnswer =
  | { readonly ok: true; readonly result: Readonly<Record<string, unknown>> }
  | {
      readonly ok: false;
      readonly error: { readonly message: string; readonly data: unknown };
    };

/** A Gemini CLI turn taken over on a host. */
export interface GeminiRejoin {
  readonly run: RejoinedRun;
  /** The ACP session the prompt went to. */
  readonly sessionId: string;
  /** Resolves with the prompt's answer once it is read. */
  readonly answer: Promise<PromptAnswer>;
  /** True once the lines read are the prompt's (the agent had it). */
  readonly prompting: () => boolean;
}

/**
 * Takes over the run `request.remoteRun` names. Null: the prompt had not
 * reached Gemini CLI, so the run was stopped and the cursor cleared, for the
 * turn to start a run of its own. Throws (the run stopped) when it cannot be
 * taken over, saying why.
 */
export async function rejoinGemini(
  options: ChannelOptions,
  request: TurnRequest,
  place: HostPlace,
  label: string,
  tell: { readonly progress: (text: string) => void; readonly notice: (text: string) => void },
  /** The state folder and network filter startServer was given for the run. */
  server: Pick<ServerAttachSpec, 'stateDir' | 'network'>,
): Promise<GeminiRejoin | null> {
  const cursor = request.remoteRun;
  const runId = cursor?.runId;
  if (!cursor || !runId) return null;
  if (!options.remote?.attachServer)
    return leftRunRefusal(options, request, place, 'gemini', label, label).then(() => null);
  const attached = await options.remote.attachServer(place, {
    runId,
    pgid: cursor.pgid,
    ...server,
    onReconnect: tell.progress,
    onNotice: tell.notice,
  });
  const log = attached.sentTooLarge ? null : readSentLog(attached.sent);
  const prompt = log ? lastRequest(log, 'session/prompt') : null;
  const sessionId = conversationIdOf(prompt?.params['sessionId']);
  const why = !log
    ? 'what Grove sent it is larger than Grove reads back'
    : log.cut
      ? 'the Grove before was killed while it sent a message there, and the rest of that message is not known'
      : prompt && !sessionId
        ? 'the session its prompt went to cannot be read from what Grove sent it'
        : null;
  if (why || !log) return stopNotTakenOver(attached, place, 'gemini', label, why ?? '');
  if (!prompt || !sessionId) {
    // Gemini CLI never got the prompt: nothing of the turn ran; it starts a run of its own.
    await dropAttached(attached);
    cursor.runId = null;
    cursor.pgid = null;
    cursor.offset = 0;
    return null;
  }
  const before = requestBefore(log, prompt);
  const beforeKey = before ? idKey(before.id) : null;
  let prompting = beforeKey === null;
  let answered: (answer: PromptAnswer) => void = () => {};
  const answer = new Promise<PromptAnswer>((resolve) => (answered = resolve));
  const run = rejoinRun(attached, log, cursor, (sent, message) => {
    // The prompt went out once the request before it was answered.
    if (sent === before) prompting = true;
    if (sent !== prompt) return;
    const result = message['result'];
    const error = message['error'];
    if (typeof result === 'object' && result !== null && !Array.isArray(result))
      answered({ ok: true, result: result as Record<string, unknown> });
    else {
      const e =
        typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {};
      answered({
        ok: false,
        error: {
          message:
            typeof e['message'] === 'string' ? e['message'].slice(0, 2000) : 'the prompt failed',
          data: e['data'],
        },
      });
    }
  });
  return { run, sessionId, answer, prompting: () => prompting };
}

/**
 * Hands the taken-over run's lines on (the turn's handlers are in place) and
 * resolves with the prompt's result: as `session/prompt` would, an agent's
 * error answer throws an Error with its `data`, and a process that ended
 * without answering throws the channel's crash.
 */
export async function leftAnswer(
  proc: ServerProcess,
  left: GeminiRejoin,
  label: string,
): Promise<Readonly<Record<string, unknown>>> {
  left.run.begin();
  const answer = await Promise.race([left.answer, proc.exited]);
  if (!('ok' in answer))
    throw new AgentError(
      'gemini',
      'crash',
      `${label} exited (${answer.signal ?? `code ${answer.code ?? '?'}`}).`,
      stderrSummary(proc.stderrTail()),
    );
  if (!answer.ok) throw Object.assign(new Error(answer.error.message), { data: answer.error.data });
  return answer.result;
}
