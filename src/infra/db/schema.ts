// Kysely's view of migrations/001_initial.sql (plus the runner's
// grove_migration table). Columns with a DEFAULT or AUTOINCREMENT are
// `Generated<>`: optional on insert. Booleans are INTEGER 0/1, times epoch ms,
// JSON columns TEXT.
import type { Generated } from 'kysely';

export interface GroveMigrationTable {
  version: number;
  name: string;
  checksum: string;
  applied_at: number;
}

export interface ProjectTable {
  id: Generated<number>;
  path: string;
  display_name: string;
  created_at: number;
  last_opened_at: number;
}

export interface SettingTable {
  name: string;
  value: string;
}

export interface ProjectSettingTable {
  project_id: number;
  name: string;
  value: string;
}

export interface SessionTable {
  id: string;
  project_id: number;
  title: Generated<string>;
  title_provisional: Generated<number>;
  title_generation: Generated<number>;
  status: string;
  base_branch: string;
  branch: string;
  worktree_path: string;
  agent: string;
  model: string;
  reasoning_level: string;
  permission_mode: Generated<string>;
  prompt: string | null;
  size: Generated<string>;
  added_lines: Generated<number>;
  deleted_lines: Generated<number>;
  has_diff: number | null;
  input_tokens: Generated<number>;
  output_tokens: Generated<number>;
  active_seconds: Generated<number>;
  active_since: number | null;
  created_at: number;
  updated_at: number;
  queued_at: number | null;
  /** The host the session runs on (host.name); null: this machine. */
  host: Generated<string | null>;
  /** JSON `{ turn, session }` or null. */
  summary: string | null;
  /** JSON array of `{ text, options }`. */
  questions: Generated<string>;
  provider_conversation_id: string | null;
  commit_message: string | null;
  head_commit: string | null;
  merged_commit: string | null;
  kept_branch: string | null;
  published_branch: string | null;
  main_checkout_warning: Generated<number>;
  focused_review_text: string | null;
  focused_review_diff_hash: string | null;
  focused_review_status: string | null;
  /** The session this one was forked from (migration 009). */
  parent_session_id: string | null;
  /** Context from the parent's transcript, put before the fork's first prompt. */
  fork_context: string | null;
  /** What Grove put back after the agent changed git state outside its worktree (migration 013). */
  guard_flag: string | null;
  /** The GitHub issue the session works on (migration 020); null: none. */
  issue_number: Generated<number | null>;
  issue_title: Generated<string | null>;
  issue_url: Generated<string | null>;
  /** The session's own limits as given (migration 021); null: the project's. */
  memory_max: Generated<string | null>;
  tasks_max: Generated<string | null>;
  /** The session's own CI fixer switch (migration 026): on, off; null: the project's setting. */
  ci_fixer: Generated<string | null>;
}

export interface SessionMessageTable {
  id: Generated<number>;
  session_id: string;
  position: number;
  kind: string;
  content: string;
  created_at: number;
}

export interface SessionOperationTable {
  id: string;
  session_id: string;
  kind: string;
  status: string;
  /** JSON object. */
  payload: Generated<string>;
  cancel_requested: Generated<number>;
  owner: string | null;
  heartbeat_at: number | null;
  queued_at: number;
  started_at: number | null;
  finished_at: number | null;
  last_error: string | null;
  /** The latest progress line while running (migration 002). */
  progress: Generated<string | null>;
  /** Queued behind an agent's usage limit: not taken before this time, waiting for `wait_agent` (migration 010). */
  not_before: Generated<number | null>;
  wait_agent: Generated<string | null>;
  /** A turn on a host: its run there, process group and stdout bytes taken in (migration 023). */
  remote_run_id: Generated<string | null>;
  remote_pgid: Generated<number | null>;
  remote_offset: Generated<number>;
}

/** Best-of-N: one prompt fanned out to several sessions (migration 011): see group-repo.ts. */
export interface SessionGroupTable {
  id: string;
  project_id: number;
  prompt: string;
  status: string;
  /** JSON [{sessionId, rank, reason}]. */
  ranking: string | null;
  note: string | null;
  chosen_session_id: string | null;
  created_at: number;
  /** The process (host:pid) checking and judging the group. */
  evaluator: string | null;
}

export interface SessionGroupMemberTable {
  session_id: string;
  group_id: string;
  position: number;
  check_exit: number | null;
  check_timed_out: number | null;
  check_output: string | null;
}

/** A multi-step git operation under way (migration 003): see git-step-repo.ts. */
export interface GitStepTable {
  id: string;
  kind: string;
  step: string;
  session_id: string | null;
  project_id: number | null;
  dir: string;
  branch: string;
  head_before: string;
  /** JSON object. */
  detail: Generated<string>;
  owner: string;
  started_at: number;
}

/** An inline comment on a session's diff (migration 004): see diff-comment-repo.ts. */
export interface DiffCommentTable {
  id: string;
  session_id: string;
  path: string;
  side: string;
  start_line: number | null;
  end_line: number | null;
  body: string;
  excerpt: Generated<string>;
  hunk: Generated<string>;
  severity: string | null;
  origin: Generated<string>;
  status: Generated<string>;
  created_at: number;
  updated_at: number;
}

/** An unresolved pull-request review thread of a session (migration 005): see review-thread-repo.ts. */
export interface ReviewThreadTable {
  session_id: string;
  thread_id: string;
  pull_number: number;
  position: number;
  path: string;
  line: number | null;
  start_line: number | null;
  is_outdated: Generated<number>;
  /** JSON array of comments. */
  comments: Generated<string>;
  state: Generated<string>;
  operation_id: string | null;
  replied_commit: string | null;
  reply_comment_id: string | null;
  fetched_at: number;
}

/** A prompt sent in a project (migration 006): see composer-repo.ts. */
export interface PromptHistoryTable {
  id: Generated<number>;
  project_id: number;
  text: string;
  created_at: number;
}

/** A session's unsent composer text (migration 006): see composer-repo.ts. */
export interface SessionDraftTable {
  session_id: string;
  text: string;
  updated_at: number;
}

/** Tokens by session, model and role (the role since migration 014). */
export interface SessionUsageTable {
  session_id: string;
  model: string;
  role: Generated<string>;
  input_tokens: Generated<number>;
  output_tokens: Generated<number>;
  invocation_count: Generated<number>;
}

/** Grove's model calls for a project rather than a session (migration 014): sync. */
export interface ProjectUsageTable {
  project_id: number;
  model: string;
  role: string;
  input_tokens: Generated<number>;
  output_tokens: Generated<number>;
  invocation_count: Generated<number>;
}

/** A session's own budget, once raised (migration 008): see usage-repo.ts. */
export interface SessionBudgetTable {
  session_id: string;
  token_limit: number | null;
  usd_limit: number | null;
}

export interface SessionReviewRequestTable {
  session_id: string;
  forge: Generated<string>;
  number: number;
  url: string;
  state: string;
  is_draft: Generated<number>;
  review_decision: string | null;
  checks_summary: string | null;
  head_branch: string;
  base_branch: string;
  written_title: string | null;
  written_body: string | null;
  last_refreshed_at: number | null;
  /** The pull request's checks (migrations/022_pull_request_checks.sql). */
  checks_head_sha: Generated<string | null>;
  checks_runs_etag: Generated<string | null>;
  checks_statuses_etag: Generated<string | null>;
  checks_json: Generated<string>;
  checks_state: Generated<string | null>;
  checks_error: Generated<string | null>;
  checks_fetched_at: Generated<number | null>;
}

/** The last git figures of a session branch, with the tips they were read at (migrations/017_session_archive.sql). */
export interface SessionGitProbeTable {
  session_id: string;
  kind: string;
  tips: string;
  value: string;
}

/** Other machines sessions can run on (migrations/015_hosts.sql). */
export interface HostTable {
  name: string;
  destination: string;
  root: Generated<string>;
  created_at: number;
  /** Its most turns at once; null: auto (migration 028). */
  max_sessions: Generated<number | null>;
  /** JSON of its last reading of free memory and load; null: never read (migration 028). */
  load_reading: Generated<string | null>;
}

/** Sessions started with the host `auto`, not placed yet (migrations/028_host_placement.sql). */
export interface SessionPlacementTable {
  session_id: string;
  created_at: number;
}

/** What is left to remove on a host for a session that ended (migrations/027_host_cleanup.sql). */
export interface HostCleanupTable {
  session_id: string;
  host: string;
  repo: string;
  branch: string;
  commit_id: string | null;
  created_at: number;
  attempted_at: number | null;
  error: string | null;
}

export interface ApprovalTable {
  id: string;
  session_id: string;
  agent: string;
  kind: string;
  subject: string;
  cwd: string | null;
  reason: string;
  scope: string;
  status: Generated<string>;
  created_at: number;
  expires_at: number;
  decided_at: number | null;
}

export interface ConfirmationTable {
  id: string;
  session_id: string;
  action: string;
  detail: string | null;
  client: string;
  owner: string;
  status: Generated<string>;
  outcome: string | null;
  created_at: number;
  expires_at: number;
  decided_at: number | null;
}

export interface DB {
  grove_migration: GroveMigrationTable;
  project: ProjectTable;
  setting: SettingTable;
  project_setting: ProjectSettingTable;
  session: SessionTable;
  session_message: SessionMessageTable;
  session_operation: SessionOperationTable;
  session_usage: SessionUsageTable;
  project_usage: ProjectUsageTable;
  session_budget: SessionBudgetTable;
  session_group: SessionGroupTable;
  session_group_member: SessionGroupMemberTable;
  session_review_request: SessionReviewRequestTable;
  session_git_probe: SessionGitProbeTable;
  git_step: GitStepTable;
  review_thread: ReviewThreadTable;
  diff_comment: DiffCommentTable;
  prompt_history: PromptHistoryTable;
  session_draft: SessionDraftTable;
  host: HostTable;
  host_cleanup: HostCleanupTable;
  session_placement: SessionPlacementTable;
  approval: ApprovalTable;
  confirmation: ConfirmationTable;
}
