import type { PullRequestChecks } from '../domain/checks.js';
import type { IssueList } from '../domain/issue.js';
import type { UsageLimit } from '../domain/usage-limit.js';
import type { SessionGroup } from '../domain/best-of.js';
import type { DiffComment } from '../domain/diff-comment.js';
import type { FileIndex } from '../domain/file-match.js';
import type { Project } from '../domain/project.js';
import type { ReviewThread } from '../domain/review-thread.js';
import type { Session } from '../domain/session.js';
import type { TranscriptEntry } from '../domain/transcript.js';
import type { BudgetStop } from '../domain/budget.js';
import type { AdmissionWait } from '../domain/admission.js';
import type { SessionFilter } from '../domain/session-filter.js';
import type { DiskMeasure } from '../domain/disk.js';
import type { InboxItem } from '../domain/inbox.js';
import type { ResourceSample } from '../domain/resources.js';
import type { HostFigures } from '../domain/placement.js';
import type {
  AgentAvailability,
  ArchiveView,
  BudgetLine,
  DiffView,
  GitStatusView,
  Mode,
  Notice,
  Popup,
  Tab,
} from './state.js';

/** What canceling a session would put at risk (kept on its branch, never lost). */
export interface WorkAtRisk {
  readonly uncommitted: number;
  readonly unmergedCommits: number;
}

/** What a sync of the project's branch with its upstream would move (found before anything changes). */
export interface SyncPlan {
  readonly branch: string;
  readonly upstream: string;
  /** The branch tip the person agrees to push. */
  readonly head: string;
  /** Subjects of the commits it would push, newest first. */
  readonly outgoing: readonly string[];
  /** Subjects of the commits it would pull (as last fetched: not listed when `fetchError`). */
  readonly incoming: readonly string[];
  /** The fetch of the remote failed (its first line): what would be pulled is unknown. */
  readonly fetchError: string | null;
}

/** What a sync moved: pulled, resolved and pushed. */
export interface SyncReport {
  readonly upstream: string;
  readonly incoming: readonly string[];
  readonly outgoing: readonly string[];
  /** Files whose conflicts the agent resolved. */
  readonly resolved: readonly string[];
}

/** Why a sync stopped (or did not start); nothing was pushed. */
export type SyncStop =
  | { readonly kind: 'detached' }
  | { readonly kind: 'noCommits'; readonly branch: string }
  | { readonly kind: 'inProgress'; readonly dir: string; readonly operation: string }
  | { readonly kind: 'dirty'; readonly dir: string }
  | { readonly kind: 'noUpstream'; readonly branch: string }
  | { readonly kind: 'badUpstream'; readonly branch: string; readonly upstream: string }
  /** Pulling stopped on conflicts and the rebase was aborted (`agentError`: the agent failed). */
  | {
      readonly kind: 'conflicts';
      readonly files: readonly string[];
      readonly agentError: string | null;
    }
  /** The pull went through (`report`), the push did not. */
  | { readonly kind: 'pushFailed'; readonly report: SyncReport; readonly error: string }
  /** The branch moved after the person said yes to what the confirmation listed. */
  | { readonly kind: 'moved'; readonly branch: string }
  | { readonly kind: 'failed'; readonly message: string };

/**
 * Every change to the snapshot is one of these, applied by the reducer.
 * Key handlers emit the UI ones; services, workers and pollers emit the rest.
 */
export type AppEvent =
  | { readonly type: 'resize'; readonly columns: number; readonly rows: number }
  | { readonly type: 'tick'; readonly now: number }
  | { readonly type: 'tab'; readonly tab: Tab }
  | { readonly type: 'selectSession'; readonly sessionId: string | null }
  | { readonly type: 'selectProject'; readonly projectId: number | null }
  | { readonly type: 'selectSetting'; readonly index: number }
  | { readonly type: 'mode'; readonly mode: Mode }
  /** A session was opened for the person (created, forked): the reducer shows its view, with an empty composer when `compose`. */
  | { readonly type: 'sessionOpened'; readonly sessionId: string; readonly compose: boolean }
  | { readonly type: 'popup'; readonly popup: Popup | null }
  /** The inbox as last read from the store. */
  | { readonly type: 'inboxLoaded'; readonly items: readonly InboxItem[] }
  /** The inbox page opened (its highlighted item) or closed (null). */
  | { readonly type: 'inboxView'; readonly view: { readonly cursor: number } | null }
  /** One session's worktree walked (the Disk view). */
  | { readonly type: 'diskMeasured'; readonly sessionId: string; readonly disk: DiskMeasure }
  /** The Disk view opened (its highlighted row) or closed (null). */
  | { readonly type: 'diskView'; readonly view: { readonly cursor: number } | null }
  | { readonly type: 'notice'; readonly notice: Notice | null }
  /** The background database check found damage (its words). */
  | { readonly type: 'databaseDamaged'; readonly text: string }
  /** The composer's issue picker: the open issues loading, read, or why not. */
  | { readonly type: 'issueList'; readonly list: IssueList }
  | { readonly type: 'exit' }
  | { readonly type: 'projectsLoaded'; readonly projects: readonly Project[] }
  | {
      readonly type: 'projectActivated';
      readonly projectId: number;
      readonly sessions: readonly Session[];
      readonly settings: Readonly<Record<string, string>>;
    }
  | {
      readonly type: 'sessionsLoaded';
      readonly projectId: number;
      /** The live sessions and the archive as far as it was read (`archive` says for what). */
      readonly sessions: readonly Session[];
      readonly archive?: ArchiveView;
    }
  /**
   * A page of the project's archive read for `query`, added to the rows read
   * before: `first` when it is the search's first page (its count of rows
   * read starts again), else the next one. `total`: how many match in the store.
   */
  | {
      readonly type: 'archiveLoaded';
      readonly projectId: number;
      readonly query: string;
      readonly sessions: readonly Session[];
      readonly total: number;
      readonly first: boolean;
    }
  | { readonly type: 'sessionUpdated'; readonly session: Session }
  | { readonly type: 'sessionRemoved'; readonly sessionId: string }
  | { readonly type: 'settingsLoaded'; readonly settings: Readonly<Record<string, string>> }
  | {
      readonly type: 'transcriptLoaded';
      readonly sessionId: string;
      readonly entries: readonly TranscriptEntry[];
    }
  | {
      readonly type: 'transcriptAppended';
      readonly sessionId: string;
      readonly entries: readonly TranscriptEntry[];
    }
  | { readonly type: 'progress'; readonly sessionId: string; readonly text: string | null }
  /** A best-of-N group changed (created, checked, judged, ranked, chosen). */
  | { readonly type: 'groupChanged'; readonly group: SessionGroup }
  /** `waiting`: the next prompt waits for its agent's usage limit to lift (null: it does not). */
  | {
      readonly type: 'queueChanged';
      readonly sessionId: string;
      readonly prompts: readonly string[];
      readonly waiting?: UsageLimit | null;
    }
  /** `place`: put the open diff view on its first line ('start') or keep its place, clamped ('keep'). */
  | { readonly type: 'diffLoaded'; readonly diff: DiffView; readonly place?: 'start' | 'keep' }
  | {
      readonly type: 'diffCommentsLoaded';
      readonly sessionId: string;
      readonly comments: readonly DiffComment[];
    }
  /** A session's pull-request review threads as stored (error: the last fetch failed, in words). */
  | {
      readonly type: 'reviewThreadsLoaded';
      readonly sessionId: string;
      readonly threads: readonly ReviewThread[];
      readonly error: string | null;
    }
  /** A session's pull-request checks as stored after a refresh (a 304 included). */
  | {
      readonly type: 'pullRequestChecksLoaded';
      readonly sessionId: string;
      readonly checks: PullRequestChecks;
    }
  | { readonly type: 'agentsDetected'; readonly agents: readonly AgentAvailability[] }
  | { readonly type: 'sandboxChecked'; readonly missing: boolean }
  /** The running agents' process trees and the machine, sampled (null: no agent runs any more). */
  | { readonly type: 'resourcesSampled'; readonly sample: ResourceSample | null }
  /** The hosts' figures for the header (services/host-sampler.ts). */
  | { readonly type: 'hostsSampled'; readonly hosts: readonly HostFigures[] }
  | { readonly type: 'gitStatus'; readonly projectId: number; readonly status: GitStatusView }
  /** Spending of the project and its sessions against their limits. */
  | {
      readonly type: 'budgetLoaded';
      readonly projectId: number;
      readonly project: BudgetLine;
      readonly sessions: Readonly<Record<string, BudgetLine>>;
    }
  /** A session's next turn waits for a turn slot or free memory (null: no longer). */
  | {
      readonly type: 'admissionWait';
      readonly sessionId: string;
      readonly wait: AdmissionWait | null;
    }
  /** A session's queued prompts are held at a budget limit (null: no longer). */
  | { readonly type: 'budgetHeld'; readonly sessionId: string; readonly stop: BudgetStop | null }
  /** A worktree's tracked and untracked files, for `@` completion. */
  | { readonly type: 'fileIndexLoaded'; readonly worktree: string; readonly files: FileIndex }
  /** The active project's prompt history and the sessions' drafts. */
  | {
      readonly type: 'composerDataLoaded';
      readonly projectId: number;
      readonly history: readonly string[];
      readonly drafts: Readonly<Record<string, string>>;
    }
  | { readonly type: 'promptRecorded'; readonly projectId: number; readonly text: string }
  /** A session's draft was stored (null: cleared). */
  | { readonly type: 'draftSaved'; readonly sessionId: string; readonly text: string | null }
  /** An image attached to the open composer of a session (or text to insert there instead). */
  | {
      readonly type: 'composerAttach';
      readonly sessionId: string;
      readonly image?: string;
      readonly insert?: string;
    }
  /** The diff view of a session opens (`comment`: at that comment in the comments pane) while load `generation` runs. */
  | {
      readonly type: 'diffOpened';
      readonly sessionId: string;
      readonly generation: number;
      readonly comment?: number;
    }
  // Facts that need the person: the reducer decides what the screen asks (src/app/popups.ts).
  /** `m` on a session that can be merged: it is merged only after a yes. */
  | { readonly type: 'mergeNeedsConfirmation'; readonly sessionId: string }
  /** `c` on a session: canceling it would put this work at risk (or none). */
  | {
      readonly type: 'cancelNeedsConfirmation';
      readonly session: Session;
      readonly risk: WorkAtRisk;
    }
  /** `f` on a session that has a focused review: a new one replaces it. */
  | { readonly type: 'reviewRegenerationNeedsConfirmation'; readonly sessionId: string }
  /** A first publish: it needs the remote branch name (`suggested`: the session branch). */
  | { readonly type: 'publishNeedsBranch'; readonly sessionId: string; readonly suggested: string }
  /** These review threads are answered on GitHub and can be resolved (asked unless something else is asked). */
  | {
      readonly type: 'threadsAnswered';
      readonly sessionId: string;
      readonly threads: readonly ReviewThread[];
    }
  /** A limit holds the session's queued prompts. */
  | { readonly type: 'budgetReached'; readonly sessionId: string; readonly stop: BudgetStop }
  /** `s`: working out what a sync of the project would pull and push. */
  | { readonly type: 'syncChecking'; readonly project: string }
  /** What a sync would push and pull; nothing moves without a yes. */
  | { readonly type: 'syncPlanned'; readonly plan: SyncPlan }
  | { readonly type: 'syncStarted'; readonly project: string }
  /** Pulling stopped on conflicts: the agent is resolving them (try `attempt` of `attempts`). */
  | {
      readonly type: 'syncResolving';
      readonly files: readonly string[];
      readonly attempt: number;
      readonly attempts: number;
    }
  | { readonly type: 'syncFinished'; readonly report: SyncReport }
  | { readonly type: 'syncStopped'; readonly reason: SyncStop }
  /** Marks a draft session in the list for R (or unmarks it); null clears every mark. */
  | { readonly type: 'markSession'; readonly sessionId: string | null }
  /** The session list's search or status filter changed (the selection moves onto a row it shows). */
  | { readonly type: 'sessionFilter'; readonly filter: SessionFilter };

export type AppEventType = AppEvent['type'];
