// Prompts Grove writes itself (utility prompts to the fast and review models).

const MAX_DIFF_CHARS = 60_000;

export function truncateDiff(diff: string): string {
  if (diff.length <= MAX_DIFF_CHARS) return diff;
  return `${diff.slice(0, MAX_DIFF_CHARS)}\n… (diff truncated: ${diff.length - MAX_DIFF_CHARS} more characters)`;
}

export function titlePrompt(request: string): string {
  return [
    'Write a title for a coding task so a developer can recognise it in a list.',
    'Rules: at most 72 characters, present tense, describe the goal, no quotes, no trailing period.',
    'Put only the title in `answer`. If the request has no actionable goal, answer with an empty string.',
    '',
    '<request>',
    request.slice(0, 8000),
    '</request>',
  ].join('\n');
}

export function commitMessagePrompt(title: string, previous: string | null, diff: string): string {
  return [
    'Write the git commit message for the changes below. They are all the work of one session, so the message describes the whole change, not the last step.',
    'Format: a subject line of at most 72 characters in the imperative present tense (no Conventional Commit prefix unless the repository uses one), a blank line, then a short body of what changed and why, wrapped at 72 columns.',
    'Follow any commit guidance in the repository (AGENTS.md, CLAUDE.md, CONTRIBUTING.md). Do not run any commands and do not change files.',
    'Put only the commit message in `answer`.',
    '',
    `Session title: ${title}`,
    previous ? `Current message (refine it if it still fits):\n${previous}` : '',
    '',
    '```diff',
    truncateDiff(diff),
    '```',
  ].join('\n');
}

export function hookFixPrompt(output: string): string {
  return [
    'Grove tried to commit your changes and a git hook rejected the commit. Make the smallest edits that let the commit succeed (formatting, lint, tests), without changing the intent of the work. Do not commit yourself.',
    '',
    '```text',
    output.slice(-12_000),
    '```',
  ].join('\n');
}

/** A clean first line for a commit message (the fallback when no model is available). */
export function fallbackCommitMessage(title: string): string {
  const subject = title.trim().replace(/\s+/g, ' ') || 'Grove session changes';
  return subject.length > 72 ? subject.slice(0, 72) : subject;
}
