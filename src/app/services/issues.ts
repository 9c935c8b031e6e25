// Sessions from GitHub issues (issue 28, item 1): reading the issue a session
// starts from or is linked to, and the open issues the composer's picker
// lists, through the project's forge connection. Every failure is an Error in
// words and changes nothing: the caller creates no session, worktree or
// branch until the issue is read and accepted.
import {
  issueRefusal,
  parseIssueRef,
  pickIssues,
  type IssueInfo,
  type SessionIssue,
} from '../../domain/issue.js';
import type { Forge, ForgeConnection, GitClient } from '../ports.js';

const REMOTE = 'origin';
/** How many open issues the picker reads (newest first). */
export const PICKER_ISSUES = 200;

export interface IssueDeps {
  readonly git: GitClient;
  readonly forge: Forge;
}

/** The forge of the project's `origin` remote; rejects in words (no remote, not GitHub, no token). */
export async function projectForge(
  deps: IssueDeps,
  projectPath: string,
  signal: AbortSignal,
): Promise<ForgeConnection> {
  const url = await deps.git.remoteUrl(projectPath, REMOTE);
  if (!url)
    throw new Error(
      `The project has no "${REMOTE}" remote, so it has no GitHub repository to read issues from.`,
    );
  return deps.forge.connect(url, signal);
}

/**
 * The open issue `ref` names (`N`, `#N` or an issue URL of the project's own
 * repository); rejects in words for another repository's URL, a pull request,
 * a closed or missing issue, or a GitHub failure.
 */
export async function readIssue(
  deps: IssueDeps,
  projectPath: string,
  ref: string,
  signal: AbortSignal,
): Promise<IssueInfo> {
  // A plain number is refused as such before any request.
  const early = parseIssueRef(ref, null);
  if ('error' in early && !/^https?:/i.test(ref.trim())) throw new Error(early.error);
  const forge = await projectForge(deps, projectPath, signal);
  const parsed = parseIssueRef(ref, forge.repository);
  if ('error' in parsed) throw new Error(parsed.error);
  const issue = await forge.issue(parsed.number, signal);
  const refused = issueRefusal(issue);
  if (refused) throw new Error(refused);
  return issue;
}

/** What a session stores of its issue. */
export const sessionIssue = (issue: IssueInfo): SessionIssue => ({
  number: issue.number,
  title: issue.title,
  url: issue.url,
});

/** The picker's issues: the open ones, assigned to the token's user first, then newest. */
export async function openIssuesForPicker(
  deps: IssueDeps,
  projectPath: string,
  signal: AbortSignal,
): Promise<{ readonly issues: IssueInfo[]; readonly viewer: string | null }> {
  const forge = await projectForge(deps, projectPath, signal);
  const [issues, viewer] = await Promise.all([
    forge.openIssues(PICKER_ISSUES, signal),
    forge.viewer(signal).catch(() => null),
  ]);
  return { issues: pickIssues(issues, '', viewer), viewer };
}
