// Which sessions' transcripts the app keeps in memory (issue 26, item 3).
// A transcript grows with every turn, so holding each one a person has
// opened made the TUI's memory grow with the day's work. The app holds the
// open session's and those of the few opened before it (going back to one
// is instant); any other is read from the store again when it is opened
// (`openSession` always reads it).
import type { TranscriptEntry } from '../domain/transcript.js';

/** Transcripts held at most: the open session's and the ones opened just before. */
export const TRANSCRIPTS_HELD = 8;

type Transcripts = Readonly<Record<string, readonly TranscriptEntry[]>>;

export interface TranscriptHold {
  readonly transcripts: Transcripts;
  /** The sessions whose transcripts are held, most recently opened first. */
  readonly transcriptOrder: readonly string[];
}

/** The hold once `sessionId` is opened: it goes first, and the transcripts past the limit go. */
export function holdOnOpen(hold: TranscriptHold, sessionId: string): TranscriptHold {
  const order = [sessionId, ...hold.transcriptOrder.filter((id) => id !== sessionId)];
  if (order.length <= TRANSCRIPTS_HELD && hold.transcriptOrder[0] === sessionId) return hold;
  const kept = order.slice(0, TRANSCRIPTS_HELD);
  const transcripts: Record<string, readonly TranscriptEntry[]> = {};
  for (const id of kept) {
    const entries = hold.transcripts[id];
    if (entries) transcripts[id] = entries;
  }
  return { transcripts, transcriptOrder: kept };
}

/** Whether entries for `sessionId` are kept: its transcript is held, or it is the open session. */
export function holds(hold: TranscriptHold, sessionId: string, openId: string | null): boolean {
  return openId === sessionId || hold.transcriptOrder.includes(sessionId);
}

/** A transcript read from the store, with the entries appended while it was read (newer than its last). */
export function loadedEntries(
  loaded: readonly TranscriptEntry[],
  held: readonly TranscriptEntry[] | undefined,
): readonly TranscriptEntry[] {
  const last = loaded.at(-1)?.position ?? -1;
  const newer = (held ?? []).filter((entry) => entry.position > last);
  return newer.length === 0 ? loaded : [...loaded, ...newer];
}
