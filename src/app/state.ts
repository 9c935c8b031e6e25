import type { PullRequestChecks } from '../domain/checks.js';
import type { IssueList } from '../domain/issue.js';
import type { UsageLimit } from '../domain/usage-limit.js';
import type { SessionGroup } from '../domain/best-of.js';
import type { TextBuffer } from '../domain/composer.js';
import type { ComposerAssist } from '../domain/composer-assist.js';
import type { FileIndex } from '../domain/file-match.js';
import type { DiffComment } from '../domain/diff-comment.js';
import {
  fileTree,
  nearestLine,
  parsePatchRows,
  treeOrder,
  type DiffRow,
  type LineAnchor,
} from '../domain/diff-rows.js';
import { isArchived, orderedSessions } from '../domain/session-order.js';
import type { Project } from '../domain/project.js';
import type { ReviewThread } from '../domain/review-thread.js';
import type { Session } from '../domain/session.js';
import type { TranscriptEntry } from '../domain/transcript.js';
import type { ProviderId } from '../domain/providers.js';
import type { ModeName } from '../domain/keymap.js';
import type { AttentionReason } from '../domain/attention.js';
import type { AdmissionWait } from '../domain/admission.js';
import type { BudgetMeasure, BudgetScope, BudgetStop, Spent } from '../domain/budget.js';
import type { OverlapMap } from '../domain/overlap.js';
import type { DiskMeasure } from '../domain/disk.js';
import type { InboxItem } from '../domain/inbox.js';
import type { ResourceSample } from '../domain/resources.js';
import type { HostFigures } from '../domain/placement.js';
import { NO_FILTER, filterQuery, type SessionFilter } from '../domain/session-filter.js';

export type Tab = 'projects' | 'sessions' | 'settings';
export const TABS: readonly Tab[] = ['projects', 'sessions', 'settings'];

export interface AgentAvailability {
  readonly id: ProviderId;
  readonly binary: string;
  readonly path: string | null;
  readonly version: string | null;
  readonly error?: string;
  /** Found on PATH, its version not asked yet (it is when the Projects tab is first shown). */
  readonly unasked?: true;
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
  /** Live sessions that changed the same files as another, or would conflict with it (absent: not probed). */
  readonly overlaps?: OverlapMap;
  readonly error: string | null;
}

/** Spending against a limit pair (null: no limit). */
export interface BudgetLine {
  readonly spent: Spent;
  readonly tokens: number | null;
  readonly usd: number | null;
}

/** Budgets of the active project: its spending, each session's, and the sessions held at a limit. */
export interface BudgetView {
  readonly project: BudgetLine;
  /** Sessions that spent something or have a limit. */
  readonly sessions: Readonly<Record<string, BudgetLine>>;
  /** Sessions whose queued prompts wait at a limit, and which one. */
  readonly held: Readonly<Record<string, BudgetStop>>;
}

export type ConfirmIntent =
  | { readonly kind: 'quit' }
  | { readonly kind: 'cancelSession'; readonly sessionId: string }
  /** `acknowledge`: the dialog showed what the agent guard put back; confirming acknowledges it. */
  | { readonly kind: 'merge'; readonly sessionId: string; readonly acknowledge?: boolean }
  | { readonly kind: 'regenerateReview'; readonly sessionId: string }
  /** Sync the project branch, confirmed at this tip (what the popup listed). */
  | { readonly kind: 'syncMain'; readonly branch: string; readonly head: string }
  /** Close the composer, keeping its text as the session's draft. */
  | { readonly kind: 'closeComposer'; readonly sessionId: string; readonly text: string }
  /** Best of N: merge (or publish) the ranking's winner and cancel the other variants. */
  | {
      readonly kind: 'chooseWinner';
      readonly sessionId: string;
      readonly how: 'merge' | 'publish';
    }
  /** Resolve these review threads on GitHub (Grove answered them). */
  | {
      readonly kind: 'resolveThreads';
      readonly sessionId: string;
      readonly threadIds: readonly string[];
    }
  /** Raise the limit that holds the session's prompts to `limit`, and go on. */
  | {
      readonly kind: 'raiseBudget';
      readonly sessionId: string;
      readonly scope: BudgetScope;
      readonly measure: BudgetMeasure;
      readonly limit: number;
    };

export type Popup =
  | {
      readonly kind: 'confirm';
      readonly title: string;
      readonly lines: readonly string[];
      readonly intent: ConfirmIntent;
      readonly yes: boolean;
    }
  /** `scroll`: the first key row shown, when the keys do not fit the screen. */
  | { readonly kind: 'help'; readonly scroll?: number }
  | {
      readonly kind: 'info';
      readonly title: string;
      readonly lines: readonly string[];
      readonly busy: boolean;
    }
  | {
      readonly kind: 'input';
      readonly title: string;
      readonly purpose: InputPurpose;
      readonly buffer: TextBuffer;
    };

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
      /** The composer's pickers, history, search, images and error line (absent: none). */
      readonly assist?: ComposerAssist;
      /** The review-thread panel, when open (`t`). */
      readonly threads?: ThreadPanel | null;
      /** The agent's tool calls shown unfolded (`x`); folded, each is one line. */
      readonly toolsExpanded?: boolean;
      /** Best of N (`alt+n` in a new session's composer): how many sessions the prompt runs in (absent: 1). */
      readonly bestOf?: number;
    }
  | DiffMode;

export type DiffFocus = 'files' | 'patch' | 'comments';

/** A comment being written in the diff view, in the prompt composer's editor. */
export interface CommentEditor {
  readonly buffer: TextBuffer;
  /** The stored comment being edited, or null for a new one. */
  readonly commentId: string | null;
  readonly path: string;
  readonly anchor: LineAnchor;
  /** The lines as diff text and their hunk, taken when the editor opened. */
  readonly excerpt: string;
  readonly hunk: string;
}

export interface DiffSearch {
  readonly query: string;
  /** The query being typed; null once it is confirmed. */
  readonly input: TextBuffer | null;
}

/** The diff view: which pane has the keys, the file, the line cursor and how the patch is laid out. */
export interface DiffMode {
  readonly kind: 'diff';
  readonly sessionId: string;
  readonly focus: DiffFocus;
  /** Index into DiffView.files. */
  readonly fileIndex: number;
  /** The selected row of the file's patch. */
  readonly cursor: number;
  /** The first patch row on screen. */
  readonly scroll: number;
  /** Columns scrolled right (when not wrapping). */
  readonly hscroll: number;
  readonly wrap: boolean;
  /** Where a V selection started (a row), or null. */
  readonly anchor: number | null;
  /** The selected comment in the comments pane. */
  readonly commentIndex: number;
  readonly search: DiffSearch | null;
  readonly editor: CommentEditor | null;
}

/**
 * The diff view's place once its diff arrives: the first line of the first
 * file of the tree ('start'), or where it was, clamped to what exists now ('keep').
 */
export function placeDiffCursor(
  mode: DiffMode,
  view: DiffView,
  place: 'start' | 'keep',
  previous: DiffView | null = null,
): DiffMode {
  if (view.error || view.files.length === 0) return mode;
  // Kept: the same file by path (the list may have changed), else the same index.
  const path = previous?.files[mode.fileIndex]?.path;
  const samePath = path === undefined ? -1 : view.files.findIndex((f) => f.path === path);
  const fileIndex =
    place === 'start'
      ? (treeOrder(fileTree(view.files))[0] ?? 0)
      : samePath >= 0
        ? samePath
        : Math.min(mode.fileIndex, view.files.length - 1);
  const file = view.files[fileIndex];
  const rows = file?.rows ?? (file ? parsePatchRows(file.patch) : []);
  const cursor =
    place === 'start'
      ? nearestLine(rows, 0, 1)
      : Math.min(mode.cursor, Math.max(0, rows.length - 1));
  return {
    ...mode,
    fileIndex,
    cursor,
    scroll: place === 'start' ? 0 : Math.min(mode.scroll, cursor),
    anchor: null,
  };
}

/** A diff view at its start: the patch pane of the first file. */
export function diffMode(
  sessionId: string,
  fields: Partial<Omit<DiffMode, 'kind' | 'sessionId'>> = {},
): DiffMode {
  return {
    kind: 'diff',
    sessionId,
    focus: 'patch',
    fileIndex: 0,
    cursor: 0,
    scroll: 0,
    hscroll: 0,
    wrap: false,
    anchor: null,
    commentIndex: 0,
    search: null,
    editor: null,
    ...fields,
  };
}

/** The session view's review-thread panel: the highlighted thread and the ones picked with Space. */
export interface ThreadPanel {
  readonly cursor: number;
  readonly selected: readonly string[];
}

/** A session's unresolved pull-request review threads, and why the last fetch failed. */
export interface ReviewThreadsView {
  readonly threads: readonly ReviewThread[];
  readonly error: string | null;
}

export interface Notice {
  readonly level: 'info' | 'warn' | 'error';
  readonly text: string;
  /** When the first tick saw it (it goes after a few seconds); set by the reducer. */
  readonly shownAt?: number | null;
}

export interface DiffFileView {
  readonly path: string;
  readonly status: string;
  readonly added: number;
  readonly deleted: number;
  readonly binary: boolean;
  readonly patch: string;
  readonly summarized: string | null;
  /** The patch as rows, parsed while loading (off the key path); parsed on first use when absent. */
  readonly rows?: readonly DiffRow[];
}

export interface DiffView {
  readonly sessionId: string;
  /** Which load this is: a result of an older load (canceled or superseded) is dropped. */
  readonly generation?: number;
  /** What is compared, when not the worktree (a canceled session's kept branch). */
  readonly source?: string;
  readonly loading: boolean;
  readonly error: string | null;
  readonly files: readonly DiffFileView[];
  readonly added: number;
  readonly deleted: number;
}

/** How many archived sessions one read of the archive brings (about two screens of rows). */
export const ARCHIVE_PAGE = 60;

/**
 * The archive (Merged, Done and Canceled sessions) as far as it is in
 * `sessions`: start-up reads only the live sessions; the archive comes in
 * pages, newest first, read as the list needs them (the first page after
 * the first frame, the next as the selection nears the last row read) and
 * for the list's search, which the store answers. Rows read stay (a search
 * adds its matches; clearing it shows what was read before at once).
 */
export interface ArchiveView {
  /** The search the archived rows in `sessions` were read for ('': all of them). */
  readonly query: string;
  /** How many archived sessions of the project match `query` in the store (null: not counted yet). */
  readonly total: number | null;
  /** How many archived sessions the project has in the store, whatever the search (null: not counted yet). */
  readonly stored: number | null;
  /** How many of the `query`'s archived sessions were read, newest first (where its next page starts). */
  readonly read: number;
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
  /** The live sessions of the active project, and the pages of its archive read so far (`archive`). */
  readonly sessions: readonly Session[];
  readonly archive: ArchiveView;
  readonly selectedSessionId: string | null;
  readonly selectedProjectId: number | null;
  readonly selectedSetting: number;
  readonly settings: Readonly<Record<string, string>>;
  readonly mode: Mode;
  readonly popup: Popup | null;
  /** The transcripts held in memory (app/transcript-hold.ts): the open session's and a few opened before. */
  readonly transcripts: Readonly<Record<string, readonly TranscriptEntry[]>>;
  /** The sessions whose transcripts are held, most recently opened first. */
  readonly transcriptOrder: readonly string[];
  /** Transient progress line per working session. */
  readonly progress: Readonly<Record<string, string>>;
  /** Prompts waiting behind a running turn, per session (newest last). */
  readonly queued: Readonly<Record<string, readonly string[]>>;
  /** Sessions whose next prompt waits for the agent's usage limit to lift, and until when. */
  readonly waiting: Readonly<Record<string, UsageLimit>>;
  /** Sessions whose next turn waits for a turn slot or free memory (the admission gate), and why. */
  readonly admission: Readonly<Record<string, AdmissionWait>>;
  /** Best-of-N groups of the active project, by group id. */
  readonly groups: Readonly<Record<string, SessionGroup>>;
  readonly diff: DiffView | null;
  /** Inline diff comments per session (drafts and sent ones), loaded with the diff view. */
  readonly diffComments: Readonly<Record<string, readonly DiffComment[]>>;
  /** Pull-request review threads per published session (loaded with the session view and by the poller). */
  readonly reviewThreads: Readonly<Record<string, ReviewThreadsView>>;
  /** The head commit's checks per published session, as the poller last stored them. */
  readonly pullRequestChecks: Readonly<Record<string, PullRequestChecks>>;
  readonly agents: readonly AgentAvailability[] | null;
  /** No sandbox engine can confine agents here (null: not checked yet); with the opt-out on they run unconfined. */
  readonly sandboxMissing: boolean | null;
  /** The database's damage in words, as the background check found it (null: none found). */
  readonly databaseDamage: string | null;
  /** What the running agents' process trees and the machine use (null: no agent runs, or not sampled). */
  readonly resources: ResourceSample | null;
  /** Each host's last reading, turns running and maximum, for the header (the TUI; [] until read). */
  readonly hosts: readonly HostFigures[];
  readonly git: GitStatusView | null;
  /** Budgets and spending of the active project (null: not loaded yet). */
  readonly budget: BudgetView | null;
  readonly notice: Notice | null;
  /** The file list of the worktree the composer completes `@` mentions in. */
  readonly fileIndex: { readonly worktree: string; readonly files: FileIndex } | null;
  /** The active project's prompt history, oldest first. */
  readonly promptHistory: readonly string[];
  /** The open issues the composer's issue picker lists (null: never asked). */
  readonly issueList: IssueList | null;
  /** Unsent composer text kept per session (restored when the composer opens). */
  readonly drafts: Readonly<Record<string, string>>;
  /** Sessions that need the person (the list's marker), with why; cleared when the session is opened. */
  readonly attention: Readonly<Record<string, AttentionReason>>;
  /** Draft sessions marked in the list (Space) for R to start. */
  readonly marked: readonly string[];
  /** Everything waiting on the person, across every project (read from the store, oldest first). */
  readonly inbox: readonly InboxItem[];
  /** The inbox page over whatever is on screen (its highlighted item), or null when closed. */
  readonly inboxView: { readonly cursor: number } | null;
  /** The session list's search (`/`) and status filter (`f`). */
  readonly sessionFilter: SessionFilter;
  /** Each session's worktree size as last walked in the background (the Disk view). */
  readonly disk: Readonly<Record<string, DiskMeasure>>;
  /** The Disk view over the sessions list (its highlighted row), or null when closed. */
  readonly diskView: { readonly cursor: number } | null;
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
  /** Absent: the archive is not counted yet. */
  archive?: ArchiveView;
  settings: Readonly<Record<string, string>>;
}): AppState {
  return {
    archive: NO_ARCHIVE,
    ...init,
    selectedSessionId: orderedSessions(init.sessions)[0]?.id ?? null,
    selectedProjectId: init.activeProjectId ?? init.projects[0]?.id ?? null,
    selectedSetting: 0,
    mode: { kind: 'list' },
    popup: null,
    transcripts: {},
    transcriptOrder: [],
    progress: {},
    queued: {},
    waiting: {},
    admission: {},
    groups: {},
    diff: null,
    diffComments: {},
    reviewThreads: {},
    pullRequestChecks: {},
    agents: null,
    sandboxMissing: null,
    databaseDamage: null,
    resources: null,
    hosts: [],
    git: null,
    budget: null,
    notice: null,
    fileIndex: null,
    promptHistory: [],
    issueList: null,
    drafts: {},
    attention: {},
    marked: [],
    inbox: [],
    inboxView: null,
    sessionFilter: NO_FILTER,
    disk: {},
    diskView: null,
    exiting: false,
  };
}

/** No archived session read yet. */
export const NO_ARCHIVE: ArchiveView = { query: '', total: null, stored: null, read: 0 };

/** How many archived sessions `sessions` holds (read for this search or an earlier one). */
export function archivedInList(state: Pick<AppState, 'sessions'>): number {
  return state.sessions.filter((s) => isArchived(s.status)).length;
}

/** Archived sessions the store has for the archive's search beyond the pages read (0: none, or not counted yet). */
export function archiveUnread(state: Pick<AppState, 'archive'>): number {
  return Math.max(0, (state.archive.total ?? 0) - state.archive.read);
}

/**
 * Archived sessions the list's search matches in the store beyond the `shown`
 * ones it holds; 0 while the store has not answered the search typed.
 */
export function archiveNotShown(
  state: Pick<AppState, 'archive' | 'sessionFilter'>,
  shown: number,
): number {
  if (state.archive.query !== filterQuery(state.sessionFilter)) return 0;
  return Math.max(0, (state.archive.total ?? 0) - shown);
}

/** The project's sessions in the store: the live ones and the whole archive, read or not. */
export function sessionsStored(state: Pick<AppState, 'sessions' | 'archive'>): number {
  const read = archivedInList(state);
  return state.sessions.length - read + Math.max(read, state.archive.stored ?? 0);
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
  if (state.inboxView) return 'inbox';
  if (state.diskView) return 'disk';
  switch (state.mode.kind) {
    case 'list':
      return state.tab === 'sessions' && state.sessionFilter.input ? 'sessionSearch' : state.tab;
    case 'session':
      if (state.mode.composer) return state.mode.assist?.search ? 'historySearch' : 'composer';
      if (state.mode.question) return 'question';
      if (state.mode.threads) return 'threads';
      return 'session';
    case 'diff':
      if (state.mode.editor) return 'comment';
      if (state.mode.search?.input) return 'diffSearch';
      return 'diff';
    default:
      return 'sessions';
  }
}
