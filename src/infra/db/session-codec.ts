// Rows of `session` (joined with its review request) to the domain
// `Session` and back. JSON columns are validated with zod; a malformed
// value decodes to its empty form rather than hiding the whole session.
import type { Selectable, Updateable } from 'kysely';
import * as z from 'zod/mini';
import type { CheckState } from '../../domain/checks.js';
import { isPermissionMode } from '../../domain/permission-mode.js';
import { sanitizeLine, sanitizeText } from '../../domain/sanitize.js';
import { isSessionStatus } from '../../domain/session-status.js';
import {
  SESSION_SIZES,
  sizeFromLines,
  type FocusedReviewStatus,
  type PermissionMode,
  type ReviewRequest,
  type Session,
  type SessionQuestion,
  type SessionSize,
  type TurnSummary,
} from '../../domain/session.js';
import type { SessionTable } from './schema.js';

/** Columns of `session_review_request` selected alongside a session (null when it has none). */
export interface JoinedReviewRequest {
  rr_number: number | null;
  rr_url: string | null;
  rr_state: string | null;
  rr_is_draft: number | null;
  rr_review_decision: string | null;
  rr_checks_summary: string | null;
  rr_checks_state: string | null;
  rr_head_branch: string | null;
  rr_base_branch: string | null;
}

export type SessionRow = Selectable<SessionTable> &
  JoinedReviewRequest & {
    /** Its `session_placement` row (the host `auto`, not placed yet); null or absent: none. */
    sp_session_id?: string | null;
  };

const summarySchema = z.object({ turn: z.string(), session: z.string() });
const questionsSchema = z.array(z.object({ text: z.string(), options: z.array(z.string()) }));

function parseJson<T>(text: string | null, schema: z.ZodMiniType<T>, fallback: T): T {
  if (text === null) return fallback;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : fallback;
  } catch {
    return fallback;
  }
}

export function isChecksState(value: string | null): value is CheckState {
  return value === 'pending' || value === 'failing' || value === 'passing';
}

export function isReviewRequestState(value: string): value is ReviewRequest['state'] {
  return value === 'open' || value === 'merged' || value === 'closed';
}

function decodeReviewRequest(row: JoinedReviewRequest): ReviewRequest | null {
  if (row.rr_number === null || row.rr_url === null || row.rr_state === null) return null;
  if (!isReviewRequestState(row.rr_state)) return null;
  return {
    number: row.rr_number,
    url: row.rr_url,
    state: row.rr_state,
    isDraft: row.rr_is_draft !== 0,
    reviewDecision: row.rr_review_decision,
    checksSummary: row.rr_checks_summary,
    checksState: isChecksState(row.rr_checks_state) ? row.rr_checks_state : null,
    headBranch: row.rr_head_branch ?? '',
    baseBranch: row.rr_base_branch ?? '',
  };
}

function decodeSize(row: SessionRow): SessionSize {
  const size = SESSION_SIZES.find((s) => s === row.size);
  return size ?? sizeFromLines(row.added_lines, row.deleted_lines);
}

/** An unknown mode (written by a newer Grove) fails closed: Read Only. */
function decodePermission(value: string): PermissionMode {
  return isPermissionMode(value) ? value : 'read_only';
}

function decodeFocusedStatus(value: string | null): FocusedReviewStatus | null {
  return value === 'running' || value === 'ready' || value === 'failed' ? value : null;
}

/**
 * Text that came from an agent is stored sanitized; rows written before
 * that was so are sanitized on the way out (a no-op for clean text).
 */
function cleanSummary(summary: TurnSummary | null): TurnSummary | null {
  return summary && { turn: sanitizeText(summary.turn), session: sanitizeText(summary.session) };
}

function cleanQuestions(questions: readonly SessionQuestion[]): readonly SessionQuestion[] {
  return questions.map((q) => ({
    text: sanitizeText(q.text),
    options: q.options.map(sanitizeLine),
  }));
}

export function decodeSession(row: SessionRow): Session {
  if (!isSessionStatus(row.status))
    throw new Error(`Session ${row.id} has an unknown status ${row.status}.`);
  return {
    id: row.id,
    projectId: row.project_id,
    title: sanitizeLine(row.title),
    titleProvisional: row.title_provisional !== 0,
    titleGeneration: row.title_generation,
    status: row.status,
    baseBranch: row.base_branch,
    branch: row.branch,
    worktreePath: row.worktree_path,
    agent: row.agent,
    model: row.model,
    reasoning: row.reasoning_level,
    permissionMode: decodePermission(row.permission_mode),
    prompt: row.prompt,
    size: decodeSize(row),
    addedLines: row.added_lines,
    deletedLines: row.deleted_lines,
    hasDiff: row.has_diff === null ? null : row.has_diff !== 0,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    activeSeconds: row.active_seconds,
    activeSince: row.active_since,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    queuedAt: row.queued_at,
    summary: cleanSummary(parseJson<TurnSummary | null>(row.summary, summarySchema, null)),
    questions: cleanQuestions(
      parseJson<readonly SessionQuestion[]>(row.questions, questionsSchema, []),
    ),
    providerConversationId: row.provider_conversation_id,
    commitMessage: row.commit_message,
    headCommit: row.head_commit,
    mergedCommit: row.merged_commit,
    keptBranch: row.kept_branch,
    publishedBranch: row.published_branch,
    mainCheckoutWarning: row.main_checkout_warning !== 0,
    focusedReviewText:
      row.focused_review_text === null ? null : sanitizeText(row.focused_review_text),
    focusedReviewDiffHash: row.focused_review_diff_hash,
    focusedReviewStatus: decodeFocusedStatus(row.focused_review_status),
    reviewRequest: decodeReviewRequest(row),
    parentSessionId: row.parent_session_id,
    forkContext: row.fork_context,
    guardFlag: row.guard_flag === null ? null : sanitizeText(row.guard_flag),
    host: row.host,
    ...(row.sp_session_id ? { placeAuto: true } : {}),
    issue:
      row.issue_number === null
        ? null
        : {
            number: row.issue_number,
            title: sanitizeLine(row.issue_title ?? ''),
            url: sanitizeLine(row.issue_url ?? ''),
          },
    limits:
      row.memory_max === null && row.tasks_max === null
        ? null
        : { memoryMax: row.memory_max, tasksMax: row.tasks_max },
    ciFixer: row.ci_fixer === 'on' || row.ci_fixer === 'off' ? row.ci_fixer : null,
  };
}

/** Session fields stored as they are, by column. */
const PLAIN_COLUMNS = {
  title: 'title',
  titleGeneration: 'title_generation',
  baseBranch: 'base_branch',
  branch: 'branch',
  worktreePath: 'worktree_path',
  agent: 'agent',
  model: 'model',
  reasoning: 'reasoning_level',
  permissionMode: 'permission_mode',
  prompt: 'prompt',
  size: 'size',
  addedLines: 'added_lines',
  deletedLines: 'deleted_lines',
  providerConversationId: 'provider_conversation_id',
  commitMessage: 'commit_message',
  headCommit: 'head_commit',
  mergedCommit: 'merged_commit',
  keptBranch: 'kept_branch',
  publishedBranch: 'published_branch',
  focusedReviewText: 'focused_review_text',
  focusedReviewDiffHash: 'focused_review_diff_hash',
  focusedReviewStatus: 'focused_review_status',
  parentSessionId: 'parent_session_id',
  forkContext: 'fork_context',
  guardFlag: 'guard_flag',
  host: 'host',
  ciFixer: 'ci_fixer',
} as const satisfies Partial<Record<keyof Session, keyof SessionTable>>;

/** Boolean session fields stored as 0/1. */
const FLAG_COLUMNS = {
  titleProvisional: 'title_provisional',
  mainCheckoutWarning: 'main_checkout_warning',
} as const satisfies Partial<Record<keyof Session, keyof SessionTable>>;

/**
 * The fields `sessions.update` may change. Status, timers, the merge-queue
 * time and tokens have their own methods; ids and creation time never change.
 */
export type SessionPatch = Partial<
  Pick<
    Session,
    | keyof typeof PLAIN_COLUMNS
    | keyof typeof FLAG_COLUMNS
    | 'hasDiff'
    | 'summary'
    | 'questions'
    | 'issue'
  >
>;

export function encodeSessionPatch(patch: SessionPatch): Updateable<SessionTable> {
  const out: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(PLAIN_COLUMNS)) {
    const value = patch[field as keyof typeof PLAIN_COLUMNS];
    if (value !== undefined) out[column] = value;
  }
  for (const [field, column] of Object.entries(FLAG_COLUMNS)) {
    const value = patch[field as keyof typeof FLAG_COLUMNS];
    if (value !== undefined) out[column] = value ? 1 : 0;
  }
  if (patch.hasDiff !== undefined)
    out['has_diff'] = patch.hasDiff === null ? null : patch.hasDiff ? 1 : 0;
  if (patch.summary !== undefined)
    out['summary'] = patch.summary === null ? null : JSON.stringify(patch.summary);
  if (patch.questions !== undefined) out['questions'] = JSON.stringify(patch.questions);
  if (patch.issue !== undefined) {
    out['issue_number'] = patch.issue?.number ?? null;
    out['issue_title'] = patch.issue?.title ?? null;
    out['issue_url'] = patch.issue?.url ?? null;
  }
  return out;
}
