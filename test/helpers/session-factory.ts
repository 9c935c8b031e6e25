import type { Session } from '../../src/domain/session.js';
import type { SessionStatus } from '../../src/domain/session-status.js';

/** An in-memory session with every field set, for pure tests. */
let counter = 0;
export function makeSession(status: SessionStatus, fields: Partial<Session> = {}): Session {
  counter++;
  return {
    id: `s${counter}`,
    projectId: 1,
    title: `t${counter}`,
    titleProvisional: false,
    titleGeneration: 0,
    status,
    baseBranch: 'main',
    branch: `grove/${counter}`,
    worktreePath: `/wt/${counter}`,
    agent: 'claude',
    model: 'sonnet',
    reasoning: 'high',
    permissionMode: 'auto_edit',
    prompt: 'p',
    size: 'XS',
    addedLines: 0,
    deletedLines: 0,
    hasDiff: null,
    inputTokens: 0,
    outputTokens: 0,
    activeSeconds: 0,
    activeSince: null,
    createdAt: counter,
    updatedAt: counter,
    queuedAt: null,
    summary: null,
    questions: [],
    providerConversationId: null,
    commitMessage: null,
    headCommit: null,
    mergedCommit: null,
    keptBranch: null,
    publishedBranch: null,
    mainCheckoutWarning: false,
    focusedReviewText: null,
    focusedReviewDiffHash: null,
    focusedReviewStatus: null,
    reviewRequest: null,
    ...fields,
  };
}
