/**
 * A project's prompt history (oldest first), as the composer walks it with
 * Up/Down and searches it with Ctrl+R. Pure; the store keeps the list.
 */

/** How many prompts a project keeps (and the composer loads). */
export const HISTORY_LIMIT = 500;

/** The entry Up moves to from `at` (null: not browsing yet); null when there is none older. */
export function olderEntry(history: readonly string[], at: number | null): number | null {
  const next = at === null ? history.length - 1 : at - 1;
  return next >= 0 && next < history.length ? next : null;
}

/** The entry Down moves to from `at`; null when past the newest (back to an empty prompt). */
export function newerEntry(history: readonly string[], at: number): number | null {
  const next = at + 1;
  return next < history.length ? next : null;
}

/**
 * Reverse-i-search: the newest entry before `before` (exclusive; the list
 * length to start from the newest) that contains `query`, case-insensitively.
 * An empty query matches nothing.
 */
export function searchHistory(
  history: readonly string[],
  query: string,
  before: number = history.length,
): number | null {
  const q = query.toLowerCase();
  if (q === '') return null;
  for (let i = Math.min(before, history.length) - 1; i >= 0; i--) {
    if ((history[i] ?? '').toLowerCase().includes(q)) return i;
  }
  return null;
}

/** The history after sending `text`: appended, unless it repeats the newest entry; bounded. */
export function recordPrompt(
  history: readonly string[],
  text: string,
  limit = HISTORY_LIMIT,
): readonly string[] {
  if (text.trim() === '' || history[history.length - 1] === text) return history;
  return [...history, text].slice(-limit);
}
