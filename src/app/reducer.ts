import { assertNever } from '../domain/assert-never.js';
import { isTerminal } from '../domain/session-status.js';
import { isArchived, orderedSessions } from '../domain/session-order.js';
import type { Session } from '../domain/session.js';
import type { TranscriptEntry } from '../domain/transcript.js';
import type { AppEvent } from './events.js';
import { reduceComposer, tickNotice } from './composer-state.js';
import { reduceAsk } from './popups.js';
import { NO_ARCHIVE, diffMode, placeDiffCursor, sessionById, type AppState } from './state.js';
import { holdOnOpen, holds, loadedEntries } from './transcript-hold.js';
import { attentionReason } from '../domain/attention.js';
import { emptyBuffer } from '../domain/composer.js';
import { NO_FILTER, filterSessions, matchesQuery } from '../domain/session-filter.js';
import { ACP_AGENTS_KEY } from '../domain/settings.js';
import { acpAgentIds } from '../domain/slash-commands.js';

function upsertSession(list: readonly Session[], session: Session): readonly Session[] {
  const index = list.findIndex((s) => s.id === session.id);
  if (index === -1) return [...list, session];
  if (list[index] === session) return list;
  const next = [...list];
  next[index] = session;
  return next;
}

/** The archive's counts after a session moved into it (+1) or out of it (-1), or was removed. */
function archiveAfter(
  state: AppState,
  before: Session | undefined,
  after: Session | undefined,
): AppState['archive'] {
  const { query, total, stored, read } = state.archive;
  const archived = (s: Session | undefined): boolean => s !== undefined && isArchived(s.status);
  const matching = (s: Session | undefined): boolean =>
    s !== undefined && isArchived(s.status) && matchesQuery(s, query);
  const add = (count: number | null, change: number): number | null =>
    count === null ? null : Math.max(0, count + change);
  const moved = Number(archived(after)) - Number(archived(before));
  const found = Number(matching(after)) - Number(matching(before));
  if (moved === 0 && found === 0) return state.archive;
  // A session that joins the archive is its newest: the pages read so far move down by one.
  return {
    query,
    total: add(total, found),
    stored: add(stored, moved),
    read: add(read, found) ?? 0,
  };
}

/** A page of the archive into the list, beside the rows read before (for this search or another). */
function withArchivePage(
  state: AppState,
  event: Extract<AppEvent, { type: 'archiveLoaded' }>,
): AppState {
  const known = new Set(state.sessions.map((s) => s.id));
  const sessions = [...state.sessions, ...event.sessions.filter((s) => !known.has(s.id))];
  return filterSelection(
    fixSelection({
      ...state,
      sessions,
      archive: {
        query: event.query,
        total: event.total,
        stored: event.query === '' ? event.total : state.archive.stored,
        read: (event.first ? 0 : state.archive.read) + event.sessions.length,
      },
    }),
  );
}

function withoutKey<T>(
  record: Readonly<Record<string, T>>,
  key: string,
): Readonly<Record<string, T>> {
  if (!(key in record)) return record;
  const next = { ...record };
  delete next[key];
  return next;
}

function mergeEntries(
  existing: readonly TranscriptEntry[] | undefined,
  added: readonly TranscriptEntry[],
): readonly TranscriptEntry[] {
  if (!existing) return added;
  const last = existing[existing.length - 1]?.position ?? -1;
  const fresh = added.filter((entry) => entry.position > last);
  return fresh.length === 0 ? existing : [...existing, ...fresh];
}

/** The session whose view is open, if any. */
function openSessionId(state: AppState): string | null {
  return state.mode.kind === 'session' ? state.mode.sessionId : null;
}

/** Keeps the list selection on a session that still exists. */
function fixSelection(state: AppState): AppState {
  if (state.selectedSessionId && state.sessions.some((s) => s.id === state.selectedSessionId)) {
    return state;
  }
  const first = orderedSessions(state.sessions, Object.values(state.groups))[0];
  const selectedSessionId = first?.id ?? null;
  return selectedSessionId === state.selectedSessionId ? state : { ...state, selectedSessionId };
}

/** Moves the list selection onto a session the filter shows (it stays when the filter shows none). */
function filterSelection(state: AppState): AppState {
  const shown = filterSessions(state.sessions, state.sessionFilter, state.attention);
  if (shown.some((s) => s.id === state.selectedSessionId)) return state;
  const first = orderedSessions(shown, Object.values(state.groups))[0];
  return first ? { ...state, selectedSessionId: first.id } : state;
}

/** Leaves views of a session that no longer exists. */
function fixMode(state: AppState): AppState {
  if (state.mode.kind === 'list') return state;
  const id = state.mode.sessionId;
  if (state.sessions.some((s) => s.id === id)) return state;
  return { ...state, mode: { kind: 'list' } };
}

/** Marks a session that now needs the person, unless they are looking at it. */
function withAttention(state: AppState, before: Session | undefined, after: Session): AppState {
  const reason = attentionReason(before, after);
  if (!reason) return state;
  if (state.mode.kind !== 'list' && state.mode.sessionId === after.id) return state;
  return { ...state, attention: { ...state.attention, [after.id]: reason } };
}

/**
 * A session that is over (Done, Canceled, Merged) waits for nothing and
 * collides with nothing: what was said of it while it was live (queued
 * prompts, a usage limit or budget it waited for, conflicts and overlaps,
 * its own and as the other side of another session's) goes with its status.
 */
function withoutLiveLabels(state: AppState, session: Session): AppState {
  if (!isTerminal(session.status) && session.status !== 'Merged') return state;
  const id = session.id;
  const { git, budget } = state;
  const overlaps = git?.overlaps;
  const otherOverlaps = (): AppState['git'] => {
    if (!git || !overlaps) return git;
    const kept: Record<string, NonNullable<typeof overlaps>[string]> = {};
    for (const [other, list] of Object.entries(overlaps)) {
      if (other === id) continue;
      const left = list.filter((o) => o.sessionId !== id);
      if (left.length > 0) kept[other] = left;
    }
    return {
      ...git,
      conflicts: git.conflicts.filter((c) => c !== id),
      sessions: withoutKey(git.sessions, id),
      overlaps: kept,
    };
  };
  const touchesGit =
    git !== null &&
    (git.conflicts.includes(id) ||
      id in git.sessions ||
      (overlaps !== undefined &&
        Object.entries(overlaps).some(
          ([other, list]) => other === id || list.some((o) => o.sessionId === id),
        )));
  if (
    !touchesGit &&
    !(id in state.queued) &&
    !(id in state.waiting) &&
    !(id in state.admission) &&
    !(budget && id in budget.held)
  )
    return state;
  return {
    ...state,
    queued: withoutKey(state.queued, id),
    waiting: withoutKey(state.waiting, id),
    admission: withoutKey(state.admission, id),
    budget: budget && id in budget.held ? { ...budget, held: withoutKey(budget.held, id) } : budget,
    git: touchesGit ? otherOverlaps() : git,
  };
}

/** The single reducer: every async result and every UI change passes through here. */
export function reduce(state: AppState, event: AppEvent): AppState {
  switch (event.type) {
    case 'resize':
      if (event.columns === state.columns && event.rows === state.rows) return state;
      return { ...state, columns: event.columns, rows: event.rows };
    case 'tick':
      return tickNotice(event.now === state.now ? state : { ...state, now: event.now }, event.now);
    case 'tab':
      return event.tab === state.tab ? state : { ...state, tab: event.tab };
    case 'selectSession':
      return { ...state, selectedSessionId: event.sessionId };
    case 'selectProject':
      return { ...state, selectedProjectId: event.projectId };
    case 'selectSetting':
      return { ...state, selectedSetting: event.index };
    case 'mode':
      // Opening a session is seeing it: its "needs you" marker goes.
      return {
        ...state,
        mode: event.mode,
        attention:
          event.mode.kind === 'list'
            ? state.attention
            : withoutKey(state.attention, event.mode.sessionId),
      };
    case 'sessionOpened':
      return reduce(
        { ...state, ...holdOnOpen(state, event.sessionId) },
        {
          type: 'mode',
          mode: {
            kind: 'session',
            sessionId: event.sessionId,
            scrollBack: 0,
            composer: event.compose ? emptyBuffer : null,
            question: null,
          },
        },
      );
    case 'markSession':
      if (event.sessionId === null) return { ...state, marked: [] };
      return {
        ...state,
        marked: state.marked.includes(event.sessionId)
          ? state.marked.filter((id) => id !== event.sessionId)
          : [...state.marked, event.sessionId],
      };
    case 'sessionFilter':
      return filterSelection({ ...state, sessionFilter: event.filter });
    case 'popup':
      return { ...state, popup: event.popup };
    case 'inboxLoaded':
      return { ...state, inbox: event.items };
    case 'inboxView':
      return { ...state, inboxView: event.view };
    case 'diskMeasured':
      return { ...state, disk: { ...state.disk, [event.sessionId]: event.disk } };
    case 'diskView':
      return { ...state, diskView: event.view };
    case 'notice':
      return { ...state, notice: event.notice };
    case 'databaseDamaged':
      return {
        ...state,
        databaseDamage: event.text,
        notice: { level: 'error', text: event.text },
      };
    case 'exit':
      return { ...state, exiting: true };
    case 'projectsLoaded':
      return { ...state, projects: event.projects };
    case 'projectActivated':
      return fixSelection({
        ...state,
        activeProjectId: event.projectId,
        selectedProjectId: event.projectId,
        sessions: event.sessions,
        archive: NO_ARCHIVE,
        settings: withAgentChoices(event.settings, state.agents),
        selectedSessionId: null,
        mode: { kind: 'list' },
        sessionFilter: NO_FILTER,
        transcripts: {},
        transcriptOrder: [],
        progress: {},
        queued: {},
        waiting: {},
        groups: {},
        diff: null,
        diffComments: {},
        reviewThreads: {},
        git: null,
        budget: null,
        promptHistory: [],
        drafts: {},
      });
    case 'sessionsLoaded':
      if (event.projectId !== state.activeProjectId) return state;
      return fixMode(
        fixSelection({
          ...state,
          sessions: event.sessions,
          archive: event.archive ?? state.archive,
        }),
      );
    case 'archiveLoaded':
      if (event.projectId !== state.activeProjectId) return state;
      return withArchivePage(state, event);
    case 'sessionUpdated': {
      if (event.session.projectId !== state.activeProjectId) return state;
      // A row read before a later write can arrive after it (two tasks publishing one
      // session, e.g. a title landing as the turn ends): the newer row stays.
      const known = sessionById(state, event.session.id);
      if (known && known.updatedAt > event.session.updatedAt) return state;
      const next = fixSelection({
        ...withoutLiveLabels(state, event.session),
        sessions: upsertSession(state.sessions, event.session),
        archive: archiveAfter(state, known, event.session),
      });
      return withAttention(next, sessionById(state, event.session.id), event.session);
    }
    case 'sessionRemoved':
      return fixMode(
        fixSelection({
          ...state,
          sessions: state.sessions.filter((s) => s.id !== event.sessionId),
          archive: archiveAfter(state, sessionById(state, event.sessionId), undefined),
          transcripts: withoutKey(state.transcripts, event.sessionId),
          transcriptOrder: state.transcriptOrder.filter((id) => id !== event.sessionId),
          progress: withoutKey(state.progress, event.sessionId),
          queued: withoutKey(state.queued, event.sessionId),
          waiting: withoutKey(state.waiting, event.sessionId),
          diffComments: withoutKey(state.diffComments, event.sessionId),
          reviewThreads: withoutKey(state.reviewThreads, event.sessionId),
          attention: withoutKey(state.attention, event.sessionId),
          marked: state.marked.filter((id) => id !== event.sessionId),
        }),
      );
    case 'settingsLoaded':
      return { ...state, settings: withAgentChoices(event.settings, state.agents) };
    case 'transcriptLoaded': {
      // Read when its session is opened (or made, or forked): held from now on.
      const hold = holdOnOpen(state, event.sessionId);
      const entries = loadedEntries(event.entries, hold.transcripts[event.sessionId]);
      return {
        ...state,
        ...hold,
        transcripts: { ...hold.transcripts, [event.sessionId]: entries },
      };
    }
    case 'transcriptAppended': {
      const existing = state.transcripts[event.sessionId];
      // A transcript not held is read whole when its session is opened.
      if (!existing && !holds(state, event.sessionId, openSessionId(state))) return state;
      const merged = mergeEntries(existing, event.entries);
      if (merged === existing) return state;
      return { ...state, transcripts: { ...state.transcripts, [event.sessionId]: merged } };
    }
    case 'progress':
      if (event.text === null)
        return { ...state, progress: withoutKey(state.progress, event.sessionId) };
      if (state.progress[event.sessionId] === event.text) return state;
      return { ...state, progress: { ...state.progress, [event.sessionId]: event.text } };
    case 'groupChanged':
      if (event.group.projectId !== state.activeProjectId) return state;
      return { ...state, groups: { ...state.groups, [event.group.id]: event.group } };
    case 'queueChanged':
      return {
        ...state,
        queued:
          event.prompts.length === 0
            ? withoutKey(state.queued, event.sessionId)
            : { ...state.queued, [event.sessionId]: event.prompts },
        waiting: event.waiting
          ? { ...state.waiting, [event.sessionId]: event.waiting }
          : withoutKey(state.waiting, event.sessionId),
      };
    case 'diffLoaded': {
      // A load that was canceled or superseded (a newer one started) is dropped.
      const current = state.diff;
      if (
        current &&
        current.sessionId === event.diff.sessionId &&
        (event.diff.generation ?? 0) < (current.generation ?? 0)
      )
        return state;
      const mode =
        event.place && state.mode.kind === 'diff' && state.mode.sessionId === event.diff.sessionId
          ? placeDiffCursor(
              state.mode,
              event.diff,
              event.place,
              current?.sessionId === event.diff.sessionId ? current : null,
            )
          : state.mode;
      return { ...state, diff: event.diff, mode };
    }
    case 'diffOpened': {
      // The view opens at once (at its start, or at a comment); the diff loads behind it.
      const opened = reduce(state, {
        type: 'mode',
        mode: diffMode(
          event.sessionId,
          event.comment === undefined ? {} : { focus: 'comments', commentIndex: event.comment },
        ),
      });
      return {
        ...opened,
        diff: {
          sessionId: event.sessionId,
          generation: event.generation,
          loading: true,
          error: null,
          files: [],
          added: 0,
          deleted: 0,
        },
      };
    }
    case 'diffCommentsLoaded':
      return {
        ...state,
        diffComments: { ...state.diffComments, [event.sessionId]: event.comments },
      };
    case 'reviewThreadsLoaded':
      return {
        ...state,
        reviewThreads: {
          ...state.reviewThreads,
          [event.sessionId]: { threads: event.threads, error: event.error },
        },
      };
    case 'pullRequestChecksLoaded':
      return {
        ...state,
        pullRequestChecks: { ...state.pullRequestChecks, [event.sessionId]: event.checks },
      };
    case 'agentsDetected':
      return {
        ...state,
        agents: event.agents,
        settings: withAgentChoices(state.settings, event.agents),
      };
    case 'sandboxChecked':
      return { ...state, sandboxMissing: event.missing };
    case 'hostsSampled':
      return { ...state, hosts: event.hosts };
    case 'resourcesSampled':
      return { ...state, resources: event.sample };
    case 'gitStatus': {
      if (event.projectId !== state.activeProjectId) return state;
      // Probed before some session ended: its labels do not come back.
      let next: AppState = { ...state, git: event.status };
      for (const session of state.sessions) next = withoutLiveLabels(next, session);
      return next;
    }
    case 'budgetLoaded':
      if (event.projectId !== state.activeProjectId) return state;
      return {
        ...state,
        budget: {
          project: event.project,
          sessions: event.sessions,
          held: state.budget?.held ?? {},
        },
      };
    case 'admissionWait': {
      if (event.wait === null)
        return event.sessionId in state.admission
          ? { ...state, admission: withoutKey(state.admission, event.sessionId) }
          : state;
      return { ...state, admission: { ...state.admission, [event.sessionId]: event.wait } };
    }
    case 'budgetHeld': {
      const budget = state.budget ?? {
        project: { spent: { tokens: 0, usd: 0, unpriced: [] }, tokens: null, usd: null },
        sessions: {},
        held: {},
      };
      if (event.stop === null && !(event.sessionId in budget.held)) return state;
      return {
        ...state,
        budget: {
          ...budget,
          held:
            event.stop === null
              ? withoutKey(budget.held, event.sessionId)
              : { ...budget.held, [event.sessionId]: event.stop },
        },
      };
    }
    case 'mergeNeedsConfirmation':
    case 'cancelNeedsConfirmation':
    case 'reviewRegenerationNeedsConfirmation':
    case 'publishNeedsBranch':
    case 'threadsAnswered':
    case 'budgetReached':
    case 'syncChecking':
    case 'syncPlanned':
    case 'syncStarted':
    case 'syncResolving':
    case 'syncFinished':
    case 'syncStopped':
      return reduceAsk(state, event);
    case 'fileIndexLoaded':
    case 'composerDataLoaded':
    case 'promptRecorded':
    case 'draftSaved':
    case 'composerAttach':
    case 'issueList':
      return reduceComposer(state, event);
    default:
      return assertNever(event);
  }
}

/** The settings with the ACP agents of agents.json among the agents to choose (a value never stored). */
function withAgentChoices(
  settings: AppState['settings'],
  agents: AppState['agents'],
): AppState['settings'] {
  const acp = acpAgentIds(agents).join(',');
  return (settings[ACP_AGENTS_KEY] ?? '') === acp
    ? settings
    : { ...settings, [ACP_AGENTS_KEY]: acp };
}
