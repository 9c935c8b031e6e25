// The composer's issue picker (issue 28, item 1): the open issues read in the
// background (never on the key or render path; the list arrives as an
// `issueList` event, errors in words), and a new session started from the
// chosen issue as `grove run --issue` starts one.
import { issuePrompt } from '../domain/issue.js';
import type { App } from './app.js';
import { openIssuesForPicker, readIssue, sessionIssue } from './services/issues.js';
import type { Forge, GitClient, Store } from './ports.js';

export interface IssueCommandDeps {
  readonly app: App;
  readonly store: Store;
  readonly git: GitClient;
  readonly forge: Forge;
  readonly now: () => number;
  readonly signal: AbortSignal;
  /** Queues the session's prompt as the composer's Enter does; resolves with why it was refused, or null. */
  readonly submitPrompt: (sessionId: string, text: string) => Promise<string | null>;
}

const TIMEOUT_MS = 60_000;

/** Reads the active project's open issues into `issueList` (a newer ask wins over an older answer). */
export function loadIssues(deps: IssueCommandDeps, projectId: number): void {
  const { app } = deps;
  app.emit({ type: 'issueList', list: { projectId, status: 'loading' } });
  app.task('Listing the issues', async () => {
    const project = app.state.projects.find((p) => p.id === projectId);
    if (!project) return;
    try {
      const signal = AbortSignal.any([deps.signal, AbortSignal.timeout(TIMEOUT_MS)]);
      const { issues, viewer } = await openIssuesForPicker(deps, project.path, signal);
      app.emit({ type: 'issueList', list: { projectId, status: 'ready', issues, viewer } });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      app.emit({ type: 'issueList', list: { projectId, status: 'error', message } });
    }
  });
}

/**
 * Starts a new session from issue `number`: the issue is read again (with its
 * comments), linked to the session, and its prompt (the person's `text`
 * first) queued. A refusal is a notice and the session stays as it was.
 */
export function startFromIssue(
  deps: IssueCommandDeps,
  sessionId: string,
  number: number,
  text: string,
): void {
  const { app, store } = deps;
  app.task(`Starting from issue #${number}`, async () => {
    const session = await store.sessions.get(sessionId);
    const project = session ? await store.projects.get(session.projectId) : undefined;
    if (!session || !project) return;
    const signal = AbortSignal.any([deps.signal, AbortSignal.timeout(TIMEOUT_MS)]);
    const issue = await readIssue(deps, project.path, String(number), signal);
    await store.sessions.update(sessionId, { issue: sessionIssue(issue) }, deps.now());
    const linked = await store.sessions.get(sessionId);
    if (linked) app.emit({ type: 'sessionUpdated', session: linked });
    const refused = await deps.submitPrompt(sessionId, issuePrompt(issue, text || null));
    if (refused) app.emit({ type: 'notice', notice: { level: 'warn', text: refused } });
  });
}
