import { openDiskView } from './disk.js';
import { ARCHIVE_PAGE, TABS, archiveUnread } from '../../app/state.js';
import { actionFor } from '../../domain/key-lookup.js';
import { orderedSessions } from '../../domain/session-order.js';
import { SETTING_ROWS, cycleSetting, settingValue } from '../../domain/settings.js';
import { bufferFrom } from '../../domain/composer.js';
import { assertNever } from '../../domain/assert-never.js';
import type { KeyContext } from './context.js';
import { filterSessions } from '../../domain/session-filter.js';
import {
  clearSessionFilter,
  cycleStatusFilter,
  openSessionSearch,
  shownSelection,
} from './session-search.js';

function switchTab(ctx: KeyContext, step: 1 | -1): void {
  const index = TABS.indexOf(ctx.state.tab);
  const tab = TABS[(index + step + TABS.length) % TABS.length] ?? 'sessions';
  ctx.apply({ type: 'tab', tab });
  ctx.intents.rememberTab(tab);
}

/** Keys shared by the three list tabs; returns true when handled. */
function common(ctx: KeyContext, action: string): boolean {
  switch (action) {
    case 'nextTab':
      switchTab(ctx, 1);
      return true;
    case 'syncMain':
      ctx.intents.syncMain();
      return true;
    case 'help':
      ctx.apply({ type: 'popup', popup: { kind: 'help' } });
      return true;
    case 'quit':
      ctx.apply({
        type: 'popup',
        popup: {
          kind: 'confirm',
          title: 'Quit Grove?',
          lines: ['Running agents are stopped; their sessions wait in Review.'],
          intent: { kind: 'quit' },
          yes: false,
        },
      });
      return true;
    default:
      return false;
  }
}

function moveSession(ctx: KeyContext, to: (index: number, count: number) => number): void {
  const { sessions, sessionFilter, attention, groups } = ctx.state;
  const shown = filterSessions(sessions, sessionFilter, attention);
  const ordered = orderedSessions(shown, Object.values(groups));
  if (ordered.length === 0) return;
  const current = ordered.findIndex((s) => s.id === ctx.state.selectedSessionId);
  const next = Math.max(0, Math.min(ordered.length - 1, to(current, ordered.length)));
  ctx.apply({ type: 'selectSession', sessionId: ordered[next]?.id ?? null });
  // The archive is read in pages: a selection half a page from the last row read asks for the next.
  if (ordered.length - 1 - next < ARCHIVE_PAGE / 2 && archiveUnread(ctx.state) > 0)
    ctx.intents.loadArchive(true);
}

export function handleSessionsKey(ctx: KeyContext, id: string): void {
  const action = actionFor('sessions', id);
  if (!action || common(ctx, action)) return;
  const selected = shownSelection(ctx.state);
  switch (action) {
    case 'down':
      moveSession(ctx, (i) => i + 1);
      return;
    case 'up':
      moveSession(ctx, (i) => i - 1);
      return;
    case 'first':
      moveSession(ctx, () => 0);
      return;
    case 'last':
      moveSession(ctx, (_i, n) => n - 1);
      return;
    case 'open':
      if (selected) ctx.intents.openSession(selected);
      return;
    case 'new':
      ctx.intents.createSession();
      return;
    case 'cancel':
      if (selected) ctx.intents.requestCancel(selected);
      return;
    case 'startDraft':
      if (selected) ctx.intents.startDraft(selected);
      return;
    case 'startDrafts':
      ctx.intents.startDrafts(ctx.state.marked.length > 0 ? ctx.state.marked : null);
      return;
    case 'mark': {
      const session = ctx.state.sessions.find((s) => s.id === selected);
      if (session?.status === 'Draft' && session.prompt !== null)
        ctx.apply({ type: 'markSession', sessionId: session.id });
      return;
    }
    case 'shell':
    case 'editor':
      if (selected) ctx.intents.openWorktree(selected, action);
      return;
    case 'search':
      openSessionSearch(ctx);
      return;
    case 'statusFilter':
      cycleStatusFilter(ctx);
      return;
    case 'clearFilter':
      clearSessionFilter(ctx);
      return;
    case 'disk':
      openDiskView(ctx);
      return;
    case 'nextTab':
    case 'syncMain':
    case 'help':
    case 'quit':
      return;
    default:
      assertNever(action);
  }
}

export function handleProjectsKey(ctx: KeyContext, id: string): void {
  const action = actionFor('projects', id);
  if (!action || common(ctx, action)) return;
  const projects = ctx.state.projects;
  const index = projects.findIndex((p) => p.id === ctx.state.selectedProjectId);
  switch (action) {
    case 'down':
    case 'up': {
      if (projects.length === 0) return;
      const next = Math.max(0, Math.min(projects.length - 1, index + (action === 'down' ? 1 : -1)));
      ctx.apply({ type: 'selectProject', projectId: projects[next]?.id ?? null });
      return;
    }
    case 'open':
      if (ctx.state.selectedProjectId !== null)
        ctx.intents.activateProject(ctx.state.selectedProjectId);
      return;
    case 'nextTab':
    case 'syncMain':
    case 'help':
    case 'quit':
      return;
    default:
      assertNever(action);
  }
}

export function handleSettingsKey(ctx: KeyContext, id: string): void {
  const action = actionFor('settings', id);
  if (!action || common(ctx, action)) return;
  const row = SETTING_ROWS[ctx.state.selectedSetting];
  switch (action) {
    case 'down':
    case 'up': {
      const next = Math.max(
        0,
        Math.min(SETTING_ROWS.length - 1, ctx.state.selectedSetting + (action === 'down' ? 1 : -1)),
      );
      ctx.apply({ type: 'selectSetting', index: next });
      return;
    }
    case 'next':
    case 'prev':
      if (!row) return;
      if (row.kind === 'text') {
        ctx.apply({
          type: 'popup',
          popup: {
            kind: 'input',
            title: row.label,
            purpose: { kind: 'setting', key: row.key },
            buffer: bufferFrom(settingValue(row, ctx.state.settings)),
          },
        });
        return;
      }
      ctx.intents.setSetting(
        row.key,
        cycleSetting(row, ctx.state.settings, action === 'next' ? 1 : -1),
      );
      return;
    case 'nextTab':
    case 'help':
    case 'quit':
      return;
    default:
      assertNever(action);
  }
}
