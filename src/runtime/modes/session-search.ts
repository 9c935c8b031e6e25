import { actionFor } from '../../domain/key-lookup.js';
import type { Key } from '../../domain/keys.js';
import { bufferFrom, insertText } from '../../domain/composer.js';
import type { AppState } from '../../app/state.js';
import {
  NO_FILTER,
  filterQuery,
  filterSessions,
  isFiltering,
  nextStatusFilter,
  type SessionFilter,
} from '../../domain/session-filter.js';
import { assertNever } from '../../domain/assert-never.js';
import type { KeyContext } from './context.js';
import { editBuffer } from './input.js';

// The session list's search field and status filter. They change the filter
// in the snapshot: the list filters the live sessions it holds, and the
// archive, which it holds only in part, is searched in the store (the app
// reads its first matching page when the search text changes).

function setFilter(ctx: KeyContext, filter: SessionFilter): void {
  const before = filterQuery(ctx.state.sessionFilter);
  ctx.apply({ type: 'sessionFilter', filter });
  if (filterQuery(filter) !== before) ctx.intents.loadArchive(false);
}

/** The selected session when the list shows it (a filter can hide it: keys then act on none). */
export function shownSelection(state: AppState): string | null {
  const id = state.selectedSessionId;
  if (id === null || !isFiltering(state.sessionFilter)) return id;
  const shown = filterSessions(state.sessions, state.sessionFilter, state.attention);
  return shown.some((s) => s.id === id) ? id : null;
}

/** `/`: opens the search field on the kept query. */
export function openSessionSearch(ctx: KeyContext): void {
  const filter = ctx.state.sessionFilter;
  setFilter(ctx, { ...filter, input: bufferFrom(filter.query) });
}

/** `f`: the next status filter. */
export function cycleStatusFilter(ctx: KeyContext): void {
  const filter = ctx.state.sessionFilter;
  setFilter(ctx, { ...filter, status: nextStatusFilter(filter.status) });
}

/** Esc on the list: shows every session again. */
export function clearSessionFilter(ctx: KeyContext): void {
  if (ctx.state.sessionFilter !== NO_FILTER) setFilter(ctx, NO_FILTER);
}

/** A key typed in the open search field. */
export function handleSessionSearchKey(ctx: KeyContext, key: Key, id: string): void {
  const filter = ctx.state.sessionFilter;
  const input = filter.input;
  if (!input) return;
  const action = actionFor('sessionSearch', id);
  switch (action) {
    case 'keep':
      setFilter(ctx, { ...filter, query: input.text.trim(), input: null });
      return;
    case 'clear':
      setFilter(ctx, { ...filter, query: '', input: null });
      return;
    case undefined: {
      const next = editBuffer(input, key);
      if (next && !next.text.includes('\n')) setFilter(ctx, { ...filter, input: next });
      return;
    }
    default:
      assertNever(action);
  }
}

/** Text pasted into the open search field (already sanitized), on one line. */
export function handleSessionSearchPaste(ctx: KeyContext, text: string): void {
  const filter = ctx.state.sessionFilter;
  if (!filter.input) return;
  setFilter(ctx, {
    ...filter,
    input: insertText(filter.input, text.replace(/\s*\n\s*/g, ' ')),
  });
}
