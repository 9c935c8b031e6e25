import { z } from 'zod';

// The JSON shapes documented in docs/usage/cli.md, written out here (not
// imported from src/) so the tests check the binary against the document.

const Status = z.enum([
  'Draft',
  'InProgress',
  'Question',
  'Review',
  'AgentReview',
  'Queued',
  'Merging',
  'Rebasing',
  'Merged',
  'Done',
  'Canceled',
]);
const Uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

const IssueSchema = z
  .object({
    number: z.number().int().positive(),
    title: z.string(),
    url: z.string().startsWith('https://'),
  })
  .strict()
  .nullable();

export const ResultSchema = z
  .object({
    sessionId: Uuid,
    title: z.string(),
    // grove/<id>, with a slug of the issue's title for a session started from one.
    branch: z.string().regex(/^grove\/[0-9a-f]{8}(-[a-z0-9]+)*$/),
    baseBranch: z.string().min(1),
    worktree: z.string().startsWith('/'),
    host: z.string().nullable(),
    status: Status,
    agent: z.union([z.enum(['claude', 'codex', 'gemini']), z.string().regex(/^acp:[a-z0-9_-]+$/)]),
    model: z.string().min(1),
    permissionMode: z.enum(['auto-edit', 'read-only', 'plan']),
    answer: z.string(),
    summary: z.object({ turn: z.string(), session: z.string() }).strict().nullable(),
    questions: z.array(z.object({ text: z.string(), options: z.array(z.string()) }).strict()),
    files: z.array(
      z
        .object({
          path: z.string().min(1),
          added: z.number().int().nonnegative(),
          deleted: z.number().int().nonnegative(),
        })
        .strict(),
    ),
    usage: z
      .object({
        inputTokens: z.number().int().nonnegative(),
        outputTokens: z.number().int().nonnegative(),
        totalTokens: z.number().int().nonnegative(),
        groveTokens: z.number().int().nonnegative(),
        byRole: z.array(
          z
            .object({
              role: z.enum(['turn', 'title', 'commit', 'review', 'rebase', 'judge', 'repair']),
              model: z.string().min(1),
              inputTokens: z.number().int().nonnegative(),
              outputTokens: z.number().int().nonnegative(),
              requests: z.number().int().positive(),
            })
            .strict(),
        ),
      })
      .strict(),
    durationMs: z.number().int().nonnegative(),
    pullRequest: z
      .object({ number: z.number().int(), url: z.string(), state: z.string() })
      .strict()
      .nullable(),
    issue: IssueSchema,
  })
  .strict();

const CheckSchema = z
  .object({ exitCode: z.number(), timedOut: z.boolean(), output: z.string() })
  .strict()
  .nullable();

/** What the session's agent process tree uses (docs/usage/capacity.md); null while no agent runs. */
const ResourcesSchema = z
  .object({
    cpuPercent: z.number().nonnegative(),
    rssBytes: z.number().int().nonnegative(),
    processes: z.number().int().positive(),
    sampledAt: z.iso.datetime(),
  })
  .strict()
  .nullable();

export const ShowSchema = ResultSchema.extend({
  /** The best-of-N group the session is a variant of. */
  group: z
    .object({
      id: z.string(),
      status: z.string(),
      prompt: z.string(),
      note: z.string().nullable(),
      rank: z.number().nullable(),
      chosenSession: z.string().nullable(),
      ranking: z.array(
        z
          .object({
            session: z.string(),
            rank: z.number(),
            reason: z.string(),
            agent: z.string().nullable(),
            model: z.string().nullable(),
            check: CheckSchema,
          })
          .strict(),
      ),
    })
    .strict()
    .nullable(),
  /** Its next prompt waits for the agent's usage limit to lift. */
  waiting: z.object({ agent: z.string(), until: z.iso.datetime() }).strict().nullable(),
  /** What the agent guard put back, until the person acknowledges it. */
  guard: z.string().nullable(),
  resources: ResourcesSchema,
  /** The worktree's size on disk in bytes (du -s); null: no worktree on this machine. */
  diskBytes: z.number().int().nonnegative().nullable(),
  /** The pull request's head-commit checks as the poller last read them (docs/usage/github.md). */
  checks: z
    .object({
      headSha: z.string(),
      state: z.enum(['pending', 'failing', 'passing']).nullable(),
      error: z.string().nullable(),
      fetchedAt: z.iso.datetime(),
      items: z.array(
        z
          .object({
            kind: z.enum(['check_run', 'status']),
            name: z.string(),
            state: z.enum(['pending', 'failing', 'passing']),
            conclusion: z.string().nullable(),
            url: z.string().nullable(),
            logTail: z.string().nullable(),
            logError: z.string().nullable(),
          })
          .strict(),
      ),
    })
    .strict()
    .nullable(),
  transcript: z.array(
    z.object({ kind: z.string().min(1), content: z.string(), at: z.iso.datetime() }).strict(),
  ),
}).strict();

export const ListSchema = z.array(
  z
    .object({
      sessionId: Uuid,
      title: z.string(),
      status: Status,
      size: z.enum(['XS', 'S', 'M', 'L', 'XL', 'XXL']),
      added: z.number().int().nonnegative(),
      deleted: z.number().int().nonnegative(),
      agent: z.string(),
      model: z.string(),
      branch: z.string(),
      host: z.string().nullable(),
      activeSeconds: z.number().int().nonnegative(),
      resources: ResourcesSchema,
      updatedAt: z.iso.datetime(),
      diskBytes: z.number().int().nonnegative().nullable(),
      issue: IssueSchema,
    })
    .strict(),
);

/** `grove inbox --json`: everything waiting on the person, oldest first. */
export const InboxSchema = z.array(
  z
    .object({
      id: z.string(),
      kind: z.enum([
        'confirm',
        'approval',
        'question',
        'budget',
        'usageLimit',
        'conflict',
        'reviewThreads',
        'failedTurn',
        'failedGit',
      ]),
      sessionId: Uuid,
      projectId: z.number().int(),
      project: z.string(),
      session: z.string(),
      since: z.iso.datetime(),
      until: z.nullable(z.iso.datetime()),
      text: z.string(),
      action: z.string(),
      approvalId: z.optional(Uuid),
      confirmationId: z.optional(Uuid),
    })
    .strict(),
);

const Event = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('session'),
      sessionId: Uuid,
      branch: z.string(),
      worktree: z.string(),
    })
    .strict(),
  z.object({ type: z.literal('status'), status: Status, title: z.string() }).strict(),
  z.object({ type: z.literal('progress'), text: z.string() }).strict(),
  z
    .object({
      type: z.literal('transcript'),
      entries: z.array(z.object({ kind: z.string(), content: z.string() }).strict()),
    })
    .strict(),
  ResultSchema.extend({ type: z.literal('result') }).strict(),
]);
export const StreamEventSchema = Event;
export type StreamEvent = z.infer<typeof Event>;

// What `--json` prints for the commands that act on a session, an approval or a host
// (docs/usage/cli.md, "JSON output").

const Sha = z.string().regex(/^[0-9a-f]{40}$/);
const PullRequest = z
  .object({ number: z.number().int(), url: z.string(), state: z.string() })
  .strict()
  .nullable();

/** `grove approve|deny ITEM --json` on an MCP client's confirmation. */
export const ConfirmationDecisionSchema = z
  .object({
    confirmationId: Uuid,
    sessionId: Uuid,
    decision: z.enum(['confirmed', 'refused']),
    action: z.enum(['merge', 'publish', 'cancel', 'approve']),
    detail: z.string().nullable(),
    client: z.string(),
  })
  .strict();

/** `grove approve|deny ITEM --json`. */
export const ApprovalDecisionSchema = z
  .object({
    approvalId: Uuid,
    sessionId: Uuid,
    decision: z.enum(['once', 'session', 'allowList', 'denied']),
    agent: z.string().min(1),
    kind: z.enum(['command', 'edit', 'network']),
    subject: z.string(),
    cwd: z.string().nullable(),
  })
  .strict();

/** `grove approve|deny budget:ID --json`: a prompt a budget limit held, raised or dropped. */
export const BudgetDecisionSchema = z
  .object({
    item: z.string().regex(/^budget:[0-9a-f-]{36}$/),
    sessionId: Uuid,
    decision: z.enum(['raised', 'dropped']),
    scope: z.enum(['session', 'project']),
    measure: z.enum(['tokens', 'usd']),
    heldAt: z.number().nonnegative(),
    limit: z.number().nonnegative(),
    prompt: z.string(),
    status: Status,
  })
  .strict();

/** `grove deny usage:ID --json`: the prompt that waited for its agent's usage limit, dropped. */
export const UsageDecisionSchema = z
  .object({
    item: z.string().regex(/^usage:[0-9a-f-]{36}$/),
    sessionId: Uuid,
    decision: z.literal('dropped'),
    agent: z.string().min(1),
    until: z.iso.datetime(),
    prompt: z.string(),
    status: Status,
  })
  .strict();

/** `grove diff ID --json`. */
export const DiffSchema = z
  .object({
    sessionId: Uuid,
    // grove/<id>, with a slug of the issue's title for a session started from one.
    branch: z.string().regex(/^grove\/[0-9a-f]{8}(-[a-z0-9]+)*$/),
    baseBranch: z.string().min(1),
    files: ResultSchema.shape.files,
    patch: z.string(),
  })
  .strict();

/** `grove merge|rebase|publish ID --json`. */
export const LandSchema = z
  .object({
    sessionId: Uuid,
    status: Status,
    branch: z.string().min(1),
    baseBranch: z.string().min(1),
    commit: Sha.nullable(),
    remoteBranch: z.string().min(1).nullable(),
    pullRequest: PullRequest,
  })
  .strict();

/** `grove cancel ID --json`. */
export const CancelSchema = z
  .object({ sessionId: Uuid, status: Status, keptBranch: z.string().min(1).nullable() })
  .strict();

/** `grove gc --json`. */
export const GcSchema = z
  .object({
    dryRun: z.boolean(),
    days: z.number().int().nonnegative(),
    bytes: z.number().int().nonnegative(),
    items: z.array(
      z
        .object({
          sessionId: Uuid,
          status: Status,
          title: z.string(),
          worktree: z.string().startsWith('/'),
          action: z.enum(['removed', 'wouldRemove', 'kept']),
          bytes: z.number().int().nonnegative(),
          snapshot: z
            .object({
              ref: z.string().startsWith('refs/grove/snapshots/'),
              commit: Sha.nullable(),
              restore: z.string().min(1).nullable(),
            })
            .strict()
            .nullable(),
          reason: z.string().min(1).nullable(),
          shared: z.array(
            z
              .object({
                path: z.string().min(1),
                kind: z.enum(['link', 'folder']),
                bytes: z.number().int().nonnegative(),
              })
              .strict(),
          ),
        })
        .strict(),
    ),
    hosts: z.array(
      z
        .object({
          sessionId: Uuid,
          host: z.string().min(1),
          action: z.enum(['cleaned', 'kept', 'pending']),
          detail: z.string().min(1),
        })
        .strict(),
    ),
  })
  .strict();

/** `grove host rm NAME --json` (and each element of `grove host ls --json`). */
export const HostSchema = z
  .object({ name: z.string().min(1), destination: z.string().min(1), root: z.string().min(1) })
  .strict();

/** `grove host add NAME DEST --json`. */
export const HostAddSchema = HostSchema.extend({
  allowUnconfined: z.boolean(),
  max: z.number().int().min(0).nullable(),
  added: z.boolean(),
}).strict();

/** `grove host set NAME max N --json`. */
export const HostSetSchema = z
  .object({ name: z.string().min(1), max: z.number().int().min(0).nullable() })
  .strict();

/** Each element of `grove host ls --json`: the host, its maximum, its turns running, its last reading. */
export const HostListSchema = HostSchema.extend({
  max: z.number().int().min(0).nullable(),
  running: z.number().int().min(0),
  load: z
    .object({
      cores: z.number().int().min(1),
      totalBytes: z.number().min(0),
      availableBytes: z.number().min(0),
      load1: z.number().min(0),
      readAt: z.string().datetime(),
    })
    .strict()
    .nullable(),
}).strict();
