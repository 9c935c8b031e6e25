// The review-thread panel's size, shared by the panel that draws it and the
// session view's layout (and so the key handlers that scroll above it).
import type { AppState } from '../app/state.js';

/** The most threads the panel shows at once; it scrolls past that. */
export const THREADS_PANEL_ROWS = 8;

/** Rows the panel takes on screen (border, title, threads, error line). */
export function threadsPanelHeight(state: AppState, sessionId: string): number {
  const view = state.reviewThreads[sessionId];
  const rows = Math.min(THREADS_PANEL_ROWS, Math.max(1, view?.threads.length ?? 0));
  return rows + 3 + (view?.error ? 1 : 0);
}
