import type { AppState, Popup } from '../app/state.js';
import { openSession } from '../app/state.js';
import { displayKeys, type Binding, type BindingSubject, type ModeName } from '../domain/keymap.js';
import { availableBindings } from '../domain/key-lookup.js';
import { cellWidth, wrapPlain } from './text.js';

/**
 * Where popups go and how wide they are. A question (confirm) or a field
 * (input) sits at the bottom, just above the panel the person is typing in
 * (the composer, the question or thread panel) or above the footer, where
 * they are looking; the help overlay fills the screen's width and wraps.
 */

/** Rows the footer takes. */
const FOOTER_ROWS = 2;
/** Rows above the page: the status bar and the tab bar. */
const BAR_ROWS = 2;
/** The widest a confirmation, notice or field gets (long lines wrap). */
const MAX_DIALOG_WIDTH = 76;
/** The widest the help gets: wider reads badly. */
const MAX_HELP_WIDTH = 140;

export function popupWidth(state: AppState, popup: Popup): number {
  const most = popup.kind === 'help' ? MAX_HELP_WIDTH : MAX_DIALOG_WIDTH;
  return Math.max(10, Math.min(state.columns - 2, most));
}

/**
 * The row a popup of `height` rows starts on. `panelRows`: the rows the page's
 * bottom panel takes (0 when none), which a confirmation stays above.
 */
export function popupTop(state: AppState, popup: Popup, height: number, panelRows: number): number {
  if (popup.kind === 'help') return BAR_ROWS + 1;
  const bottom = state.rows - FOOTER_ROWS - panelRows;
  // When the panel leaves too little room, the popup covers it rather than the bars.
  const top = bottom - height >= BAR_ROWS ? bottom - height : state.rows - FOOTER_ROWS - height;
  return Math.max(BAR_ROWS, top);
}

/** The most lines of text a dialog shows (the rest of the screen is bars, border and buttons). */
export function dialogTextRows(state: AppState): number {
  return Math.max(3, state.rows - 9);
}

/** The open session as the key tables see it (undefined on the lists). */
export function bindingSubject(state: AppState): BindingSubject | undefined {
  const session = openSession(state);
  if (!session) return undefined;
  return {
    status: session.status,
    pullRequest: session.reviewRequest !== null,
    bestOf: Object.values(state.groups).some((g) =>
      g.members.some((m) => m.sessionId === session.id),
    ),
  };
}

/** The keys the footer offers: the popup's while one is open, else those of the page or panel. */
export function footerBindings(state: AppState, modeName: ModeName): readonly Binding[] {
  const popup = state.popup;
  if (!popup) return availableBindings(modeName, bindingSubject(state));
  // A notice and a field say their keys inside; the page's keys do not answer under them.
  if (popup.kind === 'info' || popup.kind === 'input') return [];
  return availableBindings(popup.kind === 'help' ? 'help' : 'confirm');
}

/** The key rows the help overlay lists: those of the page under it (the composer's while it is open). */
export function helpRowsFor(state: AppState): readonly Binding[] {
  if (state.inboxView) return availableBindings('inbox');
  // The inbox key answers on every page: its row closes every page's help.
  const inbox = availableBindings('inbox').filter((row) => row.action === 'open');
  return [...pageHelpRows(state), ...inbox];
}

function pageHelpRows(state: AppState): readonly Binding[] {
  const session = bindingSubject(state);
  const underlying: ModeName =
    state.mode.kind === 'list' ? state.tab : state.mode.kind === 'diff' ? 'diff' : 'session';
  const panel =
    underlying === 'session' && session && state.mode.kind === 'session'
      ? state.mode.composer
        ? 'composer'
        : state.mode.threads
          ? 'threads'
          : null
      : null;
  return availableBindings(panel ?? underlying, session);
}

/** One line of the help: the keys (on a row's first line only) and a piece of its description. */
export interface HelpLine {
  readonly keys: string;
  readonly help: string;
}

/** The keys column: as wide as the widest keys, within limits. */
function keysWidth(rows: readonly Binding[], inner: number): number {
  const widest = Math.max(0, ...rows.map((row) => cellWidth(displayKeys(row))));
  return Math.max(8, Math.min(widest + 2, 30, Math.floor(inner / 3)));
}

/** Keys like `Shift+Enter/Alt+Enter/Ctrl+J` wrapped after a `/`, never inside a key. */
function wrapKeys(keys: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const part of keys.split('/')) {
    const next = line === '' ? part : `${line}/${part}`;
    if (line !== '' && cellWidth(next) > width) {
      lines.push(`${line}/`);
      line = part;
    } else line = next;
  }
  lines.push(line);
  return lines.flatMap((text) => wrapPlain(text, width));
}

/** The help's lines at `inner` cells: every description whole, wrapped under itself. */
export function helpLines(
  rows: readonly Binding[],
  inner: number,
): { readonly lines: readonly HelpLine[]; readonly keysWidth: number } {
  const keys = keysWidth(rows, inner);
  const helpWidth = Math.max(1, inner - keys);
  const lines: HelpLine[] = [];
  for (const row of rows) {
    const keyParts = wrapKeys(displayKeys(row), keys - 1);
    const helpParts = wrapPlain(row.help, helpWidth);
    const count = Math.max(keyParts.length, helpParts.length);
    for (let i = 0; i < count; i++)
      lines.push({ keys: keyParts[i] ?? '', help: helpParts[i] ?? '' });
  }
  return { lines, keysWidth: keys };
}

/** The help's text width inside its border and padding. */
export function helpInner(state: AppState): number {
  return popupWidth(state, { kind: 'help' }) - 4;
}

/** How many help lines show at once, and from which one (its scroll, clamped). */
export function helpWindow(
  state: AppState,
  total: number,
): { start: number; visible: number; total: number } {
  const visible = dialogTextRows(state) - 1;
  const wanted = state.popup?.kind === 'help' ? (state.popup.scroll ?? 0) : 0;
  return { start: Math.max(0, Math.min(wanted, total - visible)), visible, total };
}

/** The help's lines for the snapshot (what the overlay shows and its keys scroll). */
export function helpLinesFor(state: AppState): ReturnType<typeof helpLines> {
  return helpLines(helpRowsFor(state), helpInner(state));
}
