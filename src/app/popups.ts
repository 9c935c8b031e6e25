import { formatMeasure, raisedLimit, stopText, type BudgetStop } from '../domain/budget.js';
import { rebaseWarning, sessionLabel } from '../domain/overlap.js';
import { threadSummary, type ReviewThread } from '../domain/review-thread.js';
import { sanitizePath } from '../domain/sanitize.js';
import { shortId, type Session } from '../domain/session.js';
import type { AppEvent, SyncPlan, SyncReport, SyncStop, WorkAtRisk } from './events.js';
import type { AppState, Popup } from './state.js';

/**
 * What the screen asks and tells for the facts services report: pure
 * builders from an event's facts (and the snapshot) to a Popup. Services
 * never build popups; the reducer calls `reduceAsk` for these events.
 */

/** How many commit subjects each direction lists in the sync confirmation. */
const LISTED = 8;

function commits(count: number): string {
  return count === 1 ? '1 commit' : `${count} commits`;
}

function info(title: string, lines: readonly string[], busy = false): Popup {
  return { kind: 'info', title, lines, busy };
}

/** The merge confirmation: what happens, and the sessions that will need a rebase after it. */
export function mergePopup(state: AppState, session: Session): Popup {
  return {
    kind: 'confirm',
    title: `Merge "${session.title || session.branch}"?`,
    lines: [
      `It is rebased onto ${session.baseBranch}, squashed into one commit there, and its worktree and branch are removed.`,
      ...rebaseWarning(state.git?.overlaps?.[session.id] ?? [], (id) =>
        sessionLabel(
          state.sessions.find((s) => s.id === id),
          id,
        ),
      ),
      ...(session.guardFlag
        ? [
            'An agent changed git state outside its worktree, and Grove put it back:',
            ...session.guardFlag.split('\n'),
            'Merging acknowledges that you have read this (the transcript has the details).',
          ]
        : []),
    ],
    intent: {
      kind: 'merge',
      sessionId: session.id,
      ...(session.guardFlag ? { acknowledge: true } : {}),
    },
    yes: false,
  };
}

/**
 * Best of N, `W` or `P`: asks before the winner is merged (or published) and
 * the other variants are canceled, naming each. Null when the session is not
 * one of a group in the snapshot (the command then says why it cannot).
 */
export function winnerPopup(
  state: AppState,
  sessionId: string,
  how: 'merge' | 'publish',
): Popup | null {
  const group = Object.values(state.groups).find((g) =>
    g.members.some((m) => m.sessionId === sessionId),
  );
  if (!group) return null;
  const label = (id: string): string => {
    const session = state.sessions.find((s) => s.id === id);
    return `"${session?.title || session?.branch || shortId(id)}"`;
  };
  const winner = group.ranking[0]?.sessionId;
  const others = group.members.map((m) => m.sessionId).filter((id) => id !== winner);
  return {
    kind: 'confirm',
    title: how === 'merge' ? 'Merge the winner of best of N?' : 'Publish the winner of best of N?',
    lines: [
      winner
        ? `${label(winner)} (#1 of the ranking) ${how === 'merge' ? 'joins the merge queue' : 'is published as a pull request'}.`
        : 'The variants are not ranked yet: Grove says so and nothing changes.',
      ...(winner && others.length > 0
        ? [`Canceled (their branches are kept): ${others.map(label).join(', ')}.`]
        : []),
    ],
    intent: { kind: 'chooseWinner', sessionId, how },
    yes: false,
  };
}

/** What canceling a session does to its work, in words (the TUI's popup and `grove cancel`). */
export function cancelLines(session: Session, risk: WorkAtRisk): string[] {
  const lines = [`The agent is stopped and the worktree ${session.worktreePath} is removed.`];
  if (risk.uncommitted > 0 || risk.unmergedCommits > 0) {
    const parts: string[] = [];
    if (risk.uncommitted > 0) parts.push(`${risk.uncommitted} uncommitted change(s)`);
    if (risk.unmergedCommits > 0)
      parts.push(`${risk.unmergedCommits} commit(s) not on ${session.baseBranch}`);
    lines.push(
      `It holds ${parts.join(' and ')}: they are committed to ${session.branch} first and the branch is kept, so nothing is lost.`,
    );
  } else {
    lines.push(
      `It holds no work that is not on ${session.baseBranch}; the branch ${session.branch} is deleted.`,
    );
  }
  return lines;
}

export function cancelPopup(session: Session, risk: WorkAtRisk): Popup {
  return {
    kind: 'confirm',
    title: `Cancel "${session.title || session.branch}"?`,
    lines: cancelLines(session, risk),
    intent: { kind: 'cancelSession', sessionId: session.id },
    yes: false,
  };
}

export function regenerateReviewPopup(sessionId: string): Popup {
  return {
    kind: 'confirm',
    title: 'Regenerate the focused review?',
    lines: ['The current review is replaced by a new one.'],
    intent: { kind: 'regenerateReview', sessionId },
    yes: false,
  };
}

/** The first publish asks for the remote branch name, starting from `suggested`. */
export function publishBranchPopup(sessionId: string, suggested: string): Popup {
  return {
    kind: 'input',
    title: 'Publish: remote branch name',
    purpose: { kind: 'publishBranch', sessionId },
    buffer: { text: suggested, cursor: suggested.length, undo: [], redo: [] },
  };
}

/** The confirmation that lists the threads Grove would resolve. */
export function resolveThreadsPopup(sessionId: string, threads: readonly ReviewThread[]): Popup {
  return {
    kind: 'confirm',
    title: `Resolve ${threads.length} review ${threads.length === 1 ? 'thread' : 'threads'} on GitHub?`,
    lines: [
      ...threads.map((t) => `• ${threadSummary(t)}`),
      '',
      'Grove replied on each with the commit. Resolve them now?',
    ],
    intent: { kind: 'resolveThreads', sessionId, threadIds: threads.map((t) => t.id) },
    yes: false,
  };
}

/** Asks to raise the limit that holds the session's prompts. */
export function budgetPopup(
  sessionId: string,
  session: Session | undefined,
  stop: BudgetStop,
): Popup {
  const raised = raisedLimit(stop);
  return {
    kind: 'confirm',
    title: `Budget reached${session ? `: "${session.title || shortId(session.id)}"` : ''}`,
    lines: [
      stopText(stop),
      'The turn under way finished; the queued prompt is held and nothing more is spent.',
      `Yes: raise the ${stop.scope === 'session' ? "session's" : "project's"} limit to ${formatMeasure(stop.measure, raised)} and send it.`,
      'No: stop here (the prompt stays held; raise the budget in Settings to go on, or Ctrl+C in the session drops it).',
    ],
    intent: {
      kind: 'raiseBudget',
      sessionId,
      scope: stop.scope,
      measure: stop.measure,
      limit: raised,
    },
    yes: false,
  };
}

/** The budget notice when something else is being asked already. */
export function budgetHeldNotice(stop: BudgetStop): string {
  return `${stopText(stop)} A prompt is held: send it again, or raise the budget in Settings, to go on.`;
}

/** What a sync would do: asked when anything would move, told when nothing would. */
export function syncPlanPopup(plan: SyncPlan): Popup {
  const { branch, upstream, outgoing, incoming, fetchError } = plan;
  if (fetchError === null && incoming.length === 0 && outgoing.length === 0)
    return info('Nothing to sync', [`${branch} and ${upstream} are in step. Nothing was changed.`]);
  const remote = upstream.split('/')[0] ?? '';
  const lines: string[] = [];
  if (outgoing.length > 0) {
    lines.push(`Push ${commits(outgoing.length)} from ${branch} to ${upstream}:`);
    for (const subject of outgoing.slice(0, LISTED)) lines.push(`  ↑ ${subject}`);
    if (outgoing.length > LISTED) lines.push(`  … and ${outgoing.length - LISTED} more`);
  } else {
    lines.push(`Nothing to push: ${upstream} already has every commit of ${branch}.`);
  }
  if (fetchError !== null) {
    lines.push(`What would be pulled is unknown: fetching ${remote} failed (${fetchError}).`);
  } else if (incoming.length > 0) {
    lines.push(
      `Pull ${commits(incoming.length)} from ${upstream} into ${branch}${outgoing.length > 0 ? ' (yours are rebased on top)' : ''}:`,
    );
    for (const subject of incoming.slice(0, LISTED)) lines.push(`  ↓ ${subject}`);
    if (incoming.length > LISTED) lines.push(`  … and ${incoming.length - LISTED} more`);
  } else {
    lines.push(`Nothing new to pull from ${upstream}.`);
  }
  return {
    kind: 'confirm',
    title: `Sync ${branch} with ${upstream}?`,
    lines,
    intent: { kind: 'syncMain', branch, head: plan.head },
    yes: false,
  };
}

/** What came in (and which conflicts the agent resolved). */
function pulledLines(report: SyncReport): string[] {
  const lines = [
    report.incoming.length > 0
      ? `Pulled ${report.incoming.length} commit(s) from ${report.upstream}:`
      : `Nothing new on ${report.upstream}.`,
  ];
  for (const subject of report.incoming.slice(0, LISTED)) lines.push(`  ↓ ${subject}`);
  if (report.resolved.length > 0)
    lines.push(`Resolved conflicts in: ${report.resolved.map(sanitizePath).join(', ')}`);
  return lines;
}

export function syncFinishedPopup(report: SyncReport): Popup {
  const lines = pulledLines(report);
  if (report.outgoing.length > 0) {
    lines.push(`Pushed ${report.outgoing.length} commit(s) to ${report.upstream}:`);
    for (const subject of report.outgoing.slice(0, LISTED)) lines.push(`  ↑ ${subject}`);
  } else {
    lines.push('Nothing to push.');
  }
  return info('Sync finished', lines);
}

/** Why a sync stopped, in words. */
export function syncStopLines(reason: SyncStop): string[] {
  switch (reason.kind) {
    case 'detached':
      return ['The main checkout is not on a branch (detached HEAD). Nothing was changed.'];
    case 'noCommits':
      return [
        `${reason.branch} has no commits yet, so there is nothing to sync. Make a first commit, then sync again. Nothing was changed.`,
      ];
    case 'inProgress':
      return [
        `${reason.dir} is in the middle of a git ${reason.operation}. Finish or abort it there (git ${reason.operation} --continue or --abort), then sync again. Nothing was changed.`,
      ];
    case 'dirty':
      return [
        `${reason.dir} has uncommitted changes. Commit or stash them, then sync again. Nothing was changed.`,
      ];
    case 'noUpstream':
      return [
        `${reason.branch} has no upstream branch. Set one with: git push -u origin ${reason.branch}`,
      ];
    case 'badUpstream':
      return [`Could not read the upstream of ${reason.branch} (${reason.upstream}).`];
    case 'conflicts':
      return [
        reason.agentError === null
          ? `Pulling stopped on conflicts in ${reason.files.map(sanitizePath).join(', ')} that could not be resolved.`
          : `Pulling stopped on conflicts in ${reason.files.map(sanitizePath).join(', ')}; the agent could not resolve them: ${reason.agentError}`,
        'The rebase was aborted; your branch is as it was.',
      ];
    case 'pushFailed':
      return [...pulledLines(reason.report), `Push failed: ${reason.error}`];
    case 'moved':
      return [
        `${reason.branch} changed after the confirmation was shown, so nothing was pushed. Press s again to see what a sync would do now.`,
      ];
    case 'failed':
      return [reason.message];
  }
}

export function syncStoppedPopup(reason: SyncStop): Popup {
  return info(reason.kind === 'moved' ? 'Sync not started' : 'Sync stopped', syncStopLines(reason));
}

/** The events that report facts needing the person. */
export type AskEvent = Extract<
  AppEvent,
  {
    type:
      | 'mergeNeedsConfirmation'
      | 'cancelNeedsConfirmation'
      | 'reviewRegenerationNeedsConfirmation'
      | 'publishNeedsBranch'
      | 'threadsAnswered'
      | 'budgetReached'
      | 'syncChecking'
      | 'syncPlanned'
      | 'syncStarted'
      | 'syncResolving'
      | 'syncFinished'
      | 'syncStopped';
  }
>;

function show(state: AppState, popup: Popup): AppState {
  return { ...state, popup };
}

/** The reducer's decision for a fact that needs the person: which popup (if any) the screen shows. */
export function reduceAsk(state: AppState, event: AskEvent): AppState {
  switch (event.type) {
    case 'mergeNeedsConfirmation': {
      const session = state.sessions.find((s) => s.id === event.sessionId);
      return session ? show(state, mergePopup(state, session)) : state;
    }
    case 'cancelNeedsConfirmation':
      return show(state, cancelPopup(event.session, event.risk));
    case 'reviewRegenerationNeedsConfirmation':
      return show(state, regenerateReviewPopup(event.sessionId));
    case 'publishNeedsBranch':
      return show(state, publishBranchPopup(event.sessionId, event.suggested));
    case 'threadsAnswered':
      // Another question on screen is not replaced (the transcript says how to resolve later).
      if (state.popup !== null || event.threads.length === 0) return state;
      return show(state, resolveThreadsPopup(event.sessionId, event.threads));
    case 'budgetReached': {
      const shown = state.popup;
      if (shown === null) {
        const session = state.sessions.find((s) => s.id === event.sessionId);
        return show(state, budgetPopup(event.sessionId, session, event.stop));
      }
      // Already asking to raise a limit: that question stands.
      if (shown.kind === 'confirm' && shown.intent.kind === 'raiseBudget') return state;
      // Another question on screen is not replaced: a notice says where to act instead.
      return { ...state, notice: { level: 'warn', text: budgetHeldNotice(event.stop) } };
    }
    case 'syncChecking':
      return show(
        state,
        info('Sync', [`Checking what a sync of ${event.project} would pull and push…`], true),
      );
    case 'syncPlanned':
      return show(state, syncPlanPopup(event.plan));
    case 'syncStarted':
      return show(state, info('Syncing', [`Syncing ${event.project}…`], true));
    case 'syncResolving':
      return show(
        state,
        info(
          'Syncing',
          [
            `Conflicts in ${event.files.map(sanitizePath).join(', ')}: asking the agent to resolve them (attempt ${event.attempt} of ${event.attempts})…`,
          ],
          true,
        ),
      );
    case 'syncFinished':
      return show(state, syncFinishedPopup(event.report));
    case 'syncStopped':
      return show(state, syncStoppedPopup(event.reason));
  }
}
