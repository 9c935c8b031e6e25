import type {
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionNotification,
} from '@agentclientprotocol/sdk';
import { acpToolAsk, decideApproval, deniedLine, describeAsk, holdRequest } from '../approval.js';
import type { TurnEvent, TurnRequest } from '../channel.js';
import { acpToolLine, withoutWorktree } from '../tool-lines.js';
import type { TurnAccumulator } from '../turn-parts.js';
import type { AcpClientHandlers } from './client.js';

// What Grove does with what an ACP agent sends during a turn, for Gemini CLI
// and the agents of agents.json alike: its session updates become the turn's
// text, thinking, progress and tool lines; its permission requests get the
// answers of the session's mode (approval.ts), fail-closed.

/** The turn under way, as the handlers see it. */
export interface AcpTurn {
  readonly acc: TurnAccumulator;
  readonly request: TurnRequest;
  readonly onEvent: (event: TurnEvent) => void;
  /** The turn's signal: a request held for the person is denied when the turn stops. */
  readonly signal?: AbortSignal;
  /**
   * False: nothing is held for the person, every request gets the mode's answer (an agent of
   * agents.json outside Auto Edit runs with its worktree read-only, so a granted write would fail).
   */
  readonly holds?: boolean;
}

/**
 * The handlers of one agent process in `cwd`. `label` names the agent in
 * transcript lines; `seen` is told of every update first, turn or not
 * (Gemini counts what session/load replays).
 */
export function acpTurnHandlers(
  cwd: string,
  label: string,
  current: () => AcpTurn | null,
  seen?: (update: SessionNotification['update']) => void,
): AcpClientHandlers {
  /** Title and kind of each tool call (its updates may leave them out). */
  const toolCalls = new Map<string, { title: string; kind: string | null }>();
  /** Tool calls Grove denied (their [Denied] line is already in the transcript). */
  const deniedCalls = new Set<string>();
  return {
    update({ update }: SessionNotification): void {
      seen?.(update);
      const turn = current();
      if (!turn) return;
      switch (update.sessionUpdate) {
        case 'agent_message_chunk':
          if (update.content.type === 'text' && update.content.text) {
            turn.acc.message += update.content.text;
            turn.onEvent({ type: 'progress', text: 'Writing the answer' });
          }
          break;
        case 'agent_thought_chunk':
          turn.onEvent({
            type: 'thinking',
            text: update.content.type === 'text' ? update.content.text : '',
          });
          break;
        case 'tool_call': {
          // Text before a tool call was narration; the reply is what comes after the last one.
          turn.acc.message = '';
          turn.onEvent({
            type: 'progress',
            text: withoutWorktree(update.title || 'Using a tool', cwd).slice(0, 80),
          });
          toolCalls.set(update.toolCallId, { title: update.title, kind: update.kind ?? null });
          const report = acpToolLine(update, {}, cwd, label);
          if (report) turn.onEvent(report);
          break;
        }
        case 'tool_call_update': {
          if (update.title)
            turn.onEvent({
              type: 'progress',
              text: withoutWorktree(update.title, cwd).slice(0, 80),
            });
          // A finished tool call, kept in the transcript (folded to one line); one Grove
          // denied already has its [Denied] line and is not told again as "(failed)".
          if (deniedCalls.has(update.toolCallId)) break;
          const report = acpToolLine(update, toolCalls.get(update.toolCallId), cwd, label);
          if (report) turn.onEvent(report);
          break;
        }
        default:
          break;
      }
    },
    // Fail-closed: what the session's mode does not allow is rejected and told in the transcript,
    // unless the person may grant it (approval.ts holdRequest): then it is held for them.
    async permission({
      options: choices,
      toolCall,
    }: RequestPermissionRequest): Promise<RequestPermissionResponse> {
      const turn = current();
      const ask = acpToolAsk(toolCall);
      const decision = turn
        ? decideApproval(turn.request.permissionMode, cwd, ask)
        : ({ allow: false, reason: 'no turn is running' } as const);
      let allow = decision.allow;
      if (!decision.allow) {
        const hold = turn?.holds === false ? undefined : turn?.request.hold;
        const held = hold ? holdRequest(label, cwd, ask, decision.reason) : null;
        if (turn && hold && held) {
          const answer = await hold(held, turn.signal ?? new AbortController().signal).catch(
            () => 'denied' as const,
          );
          allow = answer === 'once' || answer === 'session';
          // The desk wrote the decision's transcript line: a rejected call is not also "(failed)".
          if (!allow) deniedCalls.add(toolCall.toolCallId);
        } else {
          deniedCalls.add(toolCall.toolCallId);
          turn?.onEvent({
            type: 'denied',
            text: deniedLine(label, describeAsk(ask, cwd), decision.reason),
          });
        }
      }
      const pick = (kind: string): string | null =>
        choices.find((o) => o.kind === kind)?.optionId ?? null;
      const optionId = allow
        ? (pick('allow_once') ?? pick('allow_always'))
        : (pick('reject_once') ?? pick('reject_always'));
      return optionId
        ? { outcome: { outcome: 'selected', optionId } }
        : { outcome: { outcome: 'cancelled' } };
    },
  };
}
