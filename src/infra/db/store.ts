import { sql } from 'kysely';
import type { Executor } from './executor.js';
import { createApprovalRepo, type ApprovalRepo } from './approval-repo.js';
import { createChecksRepo, type ChecksRepo } from './checks-repo.js';
import { createCiFixerRepo, type CiFixerRepo } from './ci-fixer-repo.js';
import { createPullRequestPollRepo, type PullRequestPollRepo } from './pull-request-poll-repo.js';
import { createConfirmationRepo, type ConfirmationRepo } from './confirmation-repo.js';
import { createComposerRepo, type ComposerRepo } from './composer-repo.js';
import { createDiffCommentRepo, type DiffCommentRepo } from './diff-comment-repo.js';
import { createGitStepRepo, type GitStepRepo } from './git-step-repo.js';
import { createGroupRepo, type GroupRepo } from './group-repo.js';
import { createHostRepo, type HostRepo } from './host-repo.js';
import { createOperationRepo, type OperationRepo } from './operation-repo.js';
import { createProjectRepo, type ProjectRepo } from './project-repo.js';
import { createReviewRequestRepo, type ReviewRequestRepo } from './review-request-repo.js';
import { createReviewThreadRepo, type ReviewThreadRepo } from './review-thread-repo.js';
import { createSessionRepo, type SessionRepo } from './session-repo.js';
import { createSettingsRepo, type SettingsRepo } from './settings-repo.js';
import { createTranscriptRepo, type TranscriptRepo } from './transcript-repo.js';
import { createUsageRepo, type UsageRepo } from './usage-repo.js';

export type { NewSession, SessionPatch, SessionRepo } from './session-repo.js';
export type { OperationRepo } from './operation-repo.js';
export type { ComposerRepo } from './composer-repo.js';
export type { GitStepRepo } from './git-step-repo.js';
export type { GroupRepo } from './group-repo.js';
export type { HostRepo } from './host-repo.js';
export type { ApprovalRepo } from './approval-repo.js';
export type { ChecksRepo } from './checks-repo.js';
export type { CiFixerRepo } from './ci-fixer-repo.js';
export type { PullRequestPollRepo } from './pull-request-poll-repo.js';
export type { ConfirmationRepo } from './confirmation-repo.js';
export type { DiffCommentPatch, DiffCommentRepo, NewDiffComment } from './diff-comment-repo.js';
export type { ProjectRepo } from './project-repo.js';
export type {
  ReviewRequestInput,
  ReviewRequestRecord,
  ReviewRequestRepo,
} from './review-request-repo.js';
export type { ReviewThreadRepo } from './review-thread-repo.js';
export type { SettingsRepo } from './settings-repo.js';
export type { TranscriptRepo } from './transcript-repo.js';
export type { UsageRepo, UsageTotal } from './usage-repo.js';

/** Every repository over one executor (the database, or a transaction). */
export interface Store {
  readonly projects: ProjectRepo;
  readonly settings: SettingsRepo;
  readonly sessions: SessionRepo;
  readonly transcript: TranscriptRepo;
  readonly operations: OperationRepo;
  readonly usage: UsageRepo;
  readonly reviewRequests: ReviewRequestRepo;
  /** Unresolved pull-request review threads of published sessions. */
  readonly reviewThreads: ReviewThreadRepo;
  /** The check runs and commit statuses of published sessions' pull requests. */
  readonly pullRequestChecks: ChecksRepo;
  /** The CI fixer's failure streak of published sessions. */
  readonly ciFixer: CiFixerRepo;
  /** What the pull request poller kept of each pull request (its ETags) between looks. */
  readonly pullRequestPolls: PullRequestPollRepo;
  /** Multi-step git operations under way (what recovery finishes or undoes). */
  readonly gitSteps: GitStepRepo;
  /** Inline comments on session diffs (drafts and sent ones). */
  readonly diffComments: DiffCommentRepo;
  /** Prompt history per project and unsent drafts per session. */
  readonly composer: ComposerRepo;
  /** Best-of-N groups of sessions, their checks and rankings. */
  readonly groups: GroupRepo;
  /** Other machines sessions can run on. */
  readonly hosts: HostRepo;
  /** Agent requests held for the person, and the session grants. */
  readonly approvals: ApprovalRepo;
  /** Irreversible actions MCP clients asked for, held for the person. */
  readonly confirmations: ConfirmationRepo;
  /**
   * Runs `fn` with repositories bound to one transaction: committed when it
   * resolves, rolled back when it throws. Inside a transaction it joins it.
   * Inside `fn` use only the store it is given: the outer store waits for
   * the transaction to end (SQLite has one connection), so using it deadlocks.
   */
  transaction<T>(fn: (store: Store) => Promise<T>): Promise<T>;
  /**
   * SQLite's `data_version`: changes whenever another connection (another
   * Grove process) commits. Cheap enough to poll.
   */
  externalChanges(): Promise<number>;
  /** Rows this process's connection has changed since it opened (`total_changes()`). */
  ownChanges(): Promise<number>;
}

export function createStore(db: Executor): Store {
  const store: Store = {
    projects: createProjectRepo(db),
    settings: createSettingsRepo(db),
    sessions: createSessionRepo(db),
    transcript: createTranscriptRepo(db),
    operations: createOperationRepo(db),
    usage: createUsageRepo(db),
    reviewRequests: createReviewRequestRepo(db),
    reviewThreads: createReviewThreadRepo(db),
    pullRequestChecks: createChecksRepo(db),
    ciFixer: createCiFixerRepo(db),
    pullRequestPolls: createPullRequestPollRepo(db),
    gitSteps: createGitStepRepo(db),
    diffComments: createDiffCommentRepo(db),
    composer: createComposerRepo(db),
    groups: createGroupRepo(db),
    hosts: createHostRepo(db),
    approvals: createApprovalRepo(db),
    confirmations: createConfirmationRepo(db),
    transaction: (fn) =>
      db.isTransaction ? fn(store) : db.transaction().execute((trx) => fn(createStore(trx))),
    externalChanges: async () => {
      const { rows } = await sql<{ data_version: number }>`PRAGMA data_version`.execute(db);
      return rows[0]?.data_version ?? 0;
    },
    ownChanges: async () => {
      const { rows } = await sql<{ n: number }>`SELECT total_changes() AS n`.execute(db);
      return rows[0]?.n ?? 0;
    },
  };
  return store;
}
