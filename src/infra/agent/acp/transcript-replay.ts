import type { HistoryEntry } from '../channel.js';

// A provider that lost a session's conversation (Gemini CLI cannot reload a
// session in the minute it was created) gets it again from Grove's
// transcript: the earlier prompts and answers, oldest first, ahead of the
// new prompt. Never a silent fresh start.

/** The most of the earlier conversation that is replayed (the newest part is kept). */
const MAX_REPLAY_CHARS = 60_000;

export interface Replay {
  /** The prompt to send: the conversation so far, then the new prompt. */
  readonly prompt: string;
  /** How many of the person's earlier prompts it carries. */
  readonly turns: number;
}

/** The new prompt with the earlier conversation replayed ahead of it (the prompt alone when there is none). */
export function replayPrompt(
  history: readonly HistoryEntry[],
  prompt: string,
  maxChars = MAX_REPLAY_CHARS,
): Replay {
  const kept: HistoryEntry[] = [];
  let size = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    const entry = history[i];
    if (!entry) continue;
    if (size + entry.text.length > maxChars && kept.length > 0) break;
    kept.unshift(entry);
    size += entry.text.length;
  }
  if (kept.length === 0) return { prompt, turns: 0 };
  const left = history.length - kept.length;
  const lines = [
    '<earlier_conversation>',
    'Your earlier session in this worktree could not be reloaded, so Grove gives you the conversation so far (oldest first). Continue it: the request after this block is the next message in it.',
    ...(left > 0
      ? [`(${left} earlier ${left === 1 ? 'message is' : 'messages are'} left out.)`]
      : []),
    ...kept.map((entry) =>
      entry.role === 'user'
        ? `<user>\n${entry.text}\n</user>`
        : `<assistant>\n${entry.text}\n</assistant>`,
    ),
    '</earlier_conversation>',
    '',
    prompt,
  ];
  return { prompt: lines.join('\n'), turns: kept.filter((e) => e.role === 'user').length };
}

/** The transcript line that says the conversation was replayed, or that there was none to replay. */
export function replayNotice(label: string, turns: number): string {
  if (turns === 0)
    return `[Resume] ${label} could not reload its session, and there is no earlier conversation to give it; it starts afresh.`;
  return `[Resume] ${label} could not reload its session; Grove replayed the conversation (${turns} ${turns === 1 ? 'turn' : 'turns'}).`;
}
