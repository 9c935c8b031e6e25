import type { TextBuffer } from '../domain/composer.js';
import { orderedSessions } from '../domain/session-order.js';
import type { Project } from '../domain/project.js';
import type { Session } from '../domain/session.js';
import type { TranscriptEntry } from '../domain/transcript.js';
import type { ProviderId } from '../domain/providers.js';
import type { ModeName } from '../domain/keymap.js';

export type Tab = 'projects' | 'sessions' | 'settings';
export const TABS: readonly Tab[] = ['projects', 'sessions', 'settings'];

export interface AgentAvailability {
  readonly id: ProviderId;
  readonly binary: string;
  readonly path: string | null;
  readonly version: string | null;
  readonly error?: string;
}

export interface GitStatusView {
  readonly branch: string | null;
  readonly upstream: string | null;
  readonly ahead: number;
  readonly behind: number;
  /** Session ids whose branch would conflict with its base. */
  readonly conflicts: readonly string[];
  /** Ahead/behind of each session branch against its base. */
  readonly sessions: Readonly<Record<string, { ahead: number; behind: number }>>;
  readonly error: string | null;
}

export type ConfirmIntent =
  | { readonly kind: 'quit' }
  | { readonly kind: 'cancelSession'; readonly sessionId: string }
  | { readonly kind: 'merge'; readonly sessionId: string }
  | { readonly kind: 'regenerateReview'; readonly sessionId: string }
  /** Sync the project branch, confirmed at this tip (what the popup listed). */
  | { readonly kind: 'syncMain'; readonly branch: string; readonly head: string };

export type Popup =
  | {
      readonly kind: 'confirm';
      readonly title: string;
      readonly lines: readonly string[];
      readonly intent: ConfirmIntent;
      readonly yes: boolean;
    }
  | { readonly kind: 'help' }
  | { readonly kind: 'info'; readonly title: string; readonly lines: readonly string[]; readonly busy: boolean }
  | { readonly kind: 'input'; readonly title: string; readonly purpose: InputPurpose; readonly buffer: TextBuffer };

export type InputPurpose =
  | { readonly kind: 'setting'; readonly key: string }
  | { readonly kind: 'publishBranch'; readonly sessionId: string };

export interface QuestionState {
  readonly index: number;
  /** Highlighted option; equal to the option count when the free-text line is selected. */
  readonly selected: number;
  readonly answers: readonly string[];
  readonly buffer: TextBuffer;
}

export type Mode =
  | { readonly kind: 'list' }
  | {
      readonly kind: 'session';
      readonly sessionId: string;
      /** Lines scrolled up from the bottom; 0 follows new output. */
      readonly scrollBack: number;
      readonly composer: TextBuffer | null;
      readonly question: QuestionState | null;
    }
  | {
      readonly kind: 'diff';
      readonly sessionId: string;
      readonly fileIndex: number;
      readonly scroll: number;
    };

export interface Notice {
  readonly level: 'info' | 'warn' | 'error';
  readonly text: string;
}

export interface DiffFileView {
  readonly path: string;
  readonly status: string;
  readonly added: number;
  readonly deleted: number;
  readonly binary: boolean;
  readonly patch: string;
  readonly summarized: string | null;
}

export interface DiffView {
  readonly sessionId: string;
  readonly loading: boolean;
  readonly error: string | null;
  readonly files: readonly DiffFileView[];
  readonly added: number;
  readonly deleted: number;
}

/** The one immutable snapshot the UI renders. */
export interface AppState {
  readonly version: string;
  readonly columns: number;
  readonly rows: number;
  readonly now: number;
  readonly tab: Tab;
  readonly projects: readonly Project[];
  readonly activeProjectId: number | null;
  readonly sessions: readonly Session[];
  readonly selectedSessionId: string | null;
  readonly selectedProjectId: number | null;
  readonly selectedSetting: number;
  readonly settings: Readonly<Record<string, string>>;
  readonly mode: Mode;
  readonly popup: Popup | null;
  readonly transcripts: Readonly<Record<string, readonly TranscriptEntry[]>>;
  /** Transient progress line per working session. */
  readonly progress: Readonly<Record<string, string>>;
  /** Prompts waiting behind a running turn, per session (newest last). */
  readonly queued: Readonly<Record<string, readonly string[]>>;
  readonly diff: DiffView | null;
  readonly agents: readonly AgentAvailability[] | null;
  /** No sandbox engine can confine agents here (null: not checked yet); with the opt-out on they run unconfined. */
  readonly sandboxMissing: boolean | null;
  readonly git: GitStatusView | null;
  readonly notice: Notice | null;
  readonly exiting: boolean;
}

export function initialState(init: {
  version: string;
  columns: number;
  rows: number;
  now: number;
  tab: Tab;
  projects: readonly Project[];
  activeProjectId: number | null;
  sessions: readonly Session[];
  settings: Readonly<Record<string, string>>;
}): AppState {
  return {
    ...init,
    selectedSessionId: orderedSessions(init.sessions)[0]?.id ?? null,
    selectedProjectId: init.activeProjectId ?? init.projects[0]?.id ?? null,
    selectedSetting: 0,
    mode: { kind: 'list' },
    popup: null,
    transcripts: {},
    progress: {},
    queued: {},
    diff: null,
    agents: null,
    sandboxMissing: null,
    git: null,
    notice: null,
    exiting: false,
  };
}

export function activeProject(state: AppState): Project | undefined {
  return state.projects.find((p) => p.id === state.activeProjectId);
}

export function sessionById(state: AppState, id: string | null): Session | undefined {
  return id === null ? undefined : state.sessions.find((s) => s.id === id);
}

export function openSession(state: AppState): Session | undefined {
  return state.mode.kind === 'list' ? undefined : sessionById(state, state.mode.sessionId);
}

/** The key-binding table that applies to the snapshot right now. */
export function currentModeName(state: AppState): ModeName {
  if (state.popup) return state.popup.kind === 'help' ? 'help' : 'confirm';
  switch (state.mode.kind) {
    case 'list':
      return state.tab;
    case 'session':
      if (state.mode.composer) return 'composer';
      if (state.mode.question) return 'question';
      return 'session';
    case 'diff':
      return 'diff';
    default:
      return 'sessions';
  }
}
