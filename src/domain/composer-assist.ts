import { replaceRange, type TextBuffer } from './composer.js';
import { matchFiles, type FileIndex, type FileMatch } from './file-match.js';
import { mentionAt, type MentionToken } from './mentions.js';
import { slashCompletions, type SlashContext, type SlashItem } from './slash-commands.js';

/**
 * What the prompt composer shows around its text: the `@`-file or slash
 * picker, the prompt-history position, a Ctrl+R search, attached images and
 * an error line. Pure data; the runtime's composer handler changes it.
 */
export type Completion =
  | {
      readonly kind: 'file';
      readonly token: MentionToken;
      /** Null while the worktree's file list loads. */
      readonly match: FileMatch | null;
      readonly selected: number;
    }
  | { readonly kind: 'slash'; readonly items: readonly SlashItem[]; readonly selected: number };

/** A reverse-i-search through the project's prompt history (Ctrl+R). */
export interface HistorySearch {
  readonly query: string;
  /** The matching history entry, or null. */
  readonly at: number | null;
  /** The text before the search (Esc puts it back). */
  readonly before: TextBuffer;
}

/** The issue picker of a new session's composer (its list is AppState's `issueList`). */
export interface IssuePick {
  /** Typed filter: words of the title, author or number, and `label:x`. */
  readonly query: string;
  readonly selected: number;
}

/** How many issues the picker shows. */
export const ISSUE_PICKS = 8;

export interface ComposerAssist {
  readonly completion: Completion | null;
  /** The issue picker, open (null or absent: closed). */
  readonly issues?: IssuePick | null;
  /** The history entry on show (Up/Down on an empty prompt), or null. */
  readonly history: number | null;
  readonly search: HistorySearch | null;
  /** Images attached to the prompt (stored copies). */
  readonly images: readonly string[];
  /** Why the last Enter did nothing (an unknown command): shown until the next edit. */
  readonly error: string | null;
}

export const noAssist: ComposerAssist = {
  completion: null,
  history: null,
  search: null,
  images: [],
  error: null,
};

/** How many `@` matches the picker shows. */
export const FILE_PICKS = 8;

/** The picker for the text as it is now: an `@` mention at the cursor, or a `/command` being typed. */
export function completionFor(
  buffer: TextBuffer,
  previous: Completion | null,
  files: FileIndex | null,
  slash: SlashContext,
): Completion | null {
  const token = mentionAt(buffer.text, buffer.cursor);
  if (token) {
    const prior = previous?.kind === 'file' ? previous.match : null;
    const match = files ? matchFiles(files, token.query, FILE_PICKS, prior) : null;
    return { kind: 'file', token, match, selected: 0 };
  }
  if (buffer.text.startsWith('/') && buffer.cursor === buffer.text.length) {
    const items = slashCompletions(buffer.text, slash);
    if (items && items.length > 0) return { kind: 'slash', items, selected: 0 };
  }
  return null;
}

export function completionCount(completion: Completion): number {
  return completion.kind === 'file'
    ? (completion.match?.items.length ?? 0)
    : completion.items.length;
}

/** The picker with the highlight moved by `step`, wrapping. */
export function moveSelection(completion: Completion, step: 1 | -1): Completion {
  const count = completionCount(completion);
  if (count === 0) return completion;
  return { ...completion, selected: (completion.selected + step + count) % count };
}

/**
 * The text after accepting the highlighted item: the `@query` word becomes
 * `@path ` (a space after it), a command becomes its full text. Null when
 * nothing is highlighted.
 */
export function acceptCompletion(
  buffer: TextBuffer,
  completion: Completion,
): { buffer: TextBuffer; runs: boolean } | null {
  if (completion.kind === 'file') {
    const path = completion.match?.items[completion.selected];
    if (path === undefined) return null;
    const after = buffer.text.charAt(completion.token.end);
    const inserted = `@${path}${after === ' ' ? '' : ' '}`;
    const next = replaceRange(buffer, completion.token.start, completion.token.end, inserted);
    return { buffer: after === ' ' ? { ...next, cursor: next.cursor + 1 } : next, runs: false };
  }
  const item = completion.items[completion.selected];
  if (!item) return null;
  return { buffer: replaceRange(buffer, 0, buffer.text.length, item.text), runs: item.complete };
}
