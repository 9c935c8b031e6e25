import { assertNever } from '../domain/session-status.js';
import { orderedSessions } from '../domain/session-order.js';
import type { Session } from '../domain/session.js';
import type { TranscriptEntry } from '../domain/transcript.js';
import type { AppEvent } from './events.js';
import type { AppState } from './state.js';

function upsertSession(list: readonly Session[], session: Session): readonly Session[] {
  const index = list.findIndex((s) => s.id === session.id);
  if (index === -1) return [...list, session];
  if (list[index] === session) return list;
  const next = [...list];
  next[index] = session;
  return next;
}

function withoutKey<T>(record: Readonly<Record<string, T>>, key: string): Readonly<Record<string, T>> {
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

/** Keeps the list selection on a session that still exists. */
function fixSelection(state: AppState): AppState {
  if (state.selectedSessionId && state.sessions.some((s) => s.id === state.selectedSessionId)) {
    return state;
  }
  const first = orderedSessions(state.sessions)[0];
  const selectedSessionId = first?.id ?? null;
  return selectedSessionId === state.selectedSessionId ? state : { ...state, selectedSessionId };
}

/** Leaves views of a session that no longer exists. */
function fixMode(state: AppState): AppState {
  if (state.mode.kind === 'list') return state;
  const id = state.mode.sessionId;
  if (state.sessions.some((s) => s.id === id)) return state;
  return { ...state, mode: { kind: 'list' } };
}

/** The single reducer: every async result and every UI change passes through here. */
export function reduce(state: AppState, event: AppEvent): AppState {
  switch (event.type) {
    case 'resize':
      if (event.columns === state.columns && event.rows === state.rows) return state;
      return { ...state, columns: event.columns, rows: event.rows };
    case 'tick':
      return event.now === state.now ? state : { ...state, now: event.now };
    case 'tab':
      return event.tab === state.tab ? state : { ...state, tab: event.tab };
    case 'selectSession':
      return { ...state, selectedSessionId: event.sessionId };
    case 'selectProject':
      return { ...state, selectedProjectId: event.projectId };
    case 'selectSetting':
      return { ...state, selectedSetting: event.index };
    case 'mode':
      return { ...state, mode: event.mode };
    case 'popup':
      return { ...state, popup: event.popup };
    case 'notice':
      return { ...state, notice: event.notice };
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
        settings: event.settings,
        selectedSessionId: null,
        mode: { kind: 'list' },
        transcripts: {},
        progress: {},
        queued: {},
        diff: null,
        git: null,
      });
    case 'sessionsLoaded':
      if (event.projectId !== state.activeProjectId) return state;
      return fixMode(fixSelection({ ...state, sessions: event.sessions }));
    case 'sessionUpdated':
      if (event.session.projectId !== state.activeProjectId) return state;
      return fixSelection({ ...state, sessions: upsertSession(state.sessions, event.session) });
    case 'sessionRemoved':
      return fixMode(
        fixSelection({
          ...state,
          sessions: state.sessions.filter((s) => s.id !== event.sessionId),
          transcripts: withoutKey(state.transcripts, event.sessionId),
          progress: withoutKey(state.progress, event.sessionId),
          queued: withoutKey(state.queued, event.sessionId),
        }),
      );
    case 'settingsLoaded':
      return { ...state, settings: event.settings };
    case 'transcriptLoaded':
      return { ...state, transcripts: { ...state.transcripts, [event.sessionId]: event.entries } };
    case 'transcriptAppended': {
      const existing = state.transcripts[event.sessionId];
      const merged = mergeEntries(existing, event.entries);
      if (merged === existing) return state;
      return { ...state, transcripts: { ...state.transcripts, [event.sessionId]: merged } };
    }
    case 'progress':
      if (event.text === null) return { ...state, progress: withoutKey(state.progress, event.sessionId) };
      if (state.progress[event.sessionId] === event.text) return state;
      return { ...state, progress: { ...state.progress, [event.sessionId]: event.text } };
    case 'queueChanged':
      return {
        ...state,
        queued:
          event.prompts.length === 0
            ? withoutKey(state.queued, event.sessionId)
            : { ...state.queued, [event.sessionId]: event.prompts },
      };
    case 'diffLoaded':
      return { ...state, diff: event.diff };
    case 'agentsDetected':
      return { ...state, agents: event.agents };
    case 'sandboxChecked':
      return { ...state, sandboxMissing: event.missing };
    case 'gitStatus':
      if (event.projectId !== state.activeProjectId) return state;
      return { ...state, git: event.status };
    default:
      return assertNever(event);
  }
}
