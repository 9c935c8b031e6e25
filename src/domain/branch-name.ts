import { sanitizeLine } from './sanitize.js';

// Which names a session's work may be published to: a valid git branch name
// that is not the session's base branch.

export function isValidBranchName(name: string): boolean {
  return (
    /^(?!\/|.*\/\/|.*\.\.|.*@\{|.*\.lock$|.*\/$)[A-Za-z0-9._/-]+$/.test(name) &&
    !name.startsWith('-')
  );
}

/**
 * Why `name` cannot be the remote branch a session is first published to
 * (null when it can): not a branch name, or the session's base branch, where
 * the push would land the work in the base past review (and, forced, could
 * drop what others pushed there).
 */
export function remoteBranchRefusal(name: string, baseBranch: string): string | null {
  if (!isValidBranchName(name)) return `"${sanitizeLine(name)}" is not a valid branch name.`;
  if (name === baseBranch)
    return `"${name}" is the session's base branch: publishing to it would push the work straight into ${name}, past review. Name another branch.`;
  return null;
}
