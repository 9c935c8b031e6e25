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

const SUBJECT_MAX = 72;

/**
 * A clean summary line for a commit message, from the session title (or the
 * prompt), when the fast model could not write one: its first non-empty
 * line, without markdown marks, at most 72 characters cut at a word, with no
 * trailing punctuation. Never the raw prompt.
 */
export function fallbackCommitMessage(source: string): string {
  const line =
    source
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? '';
  const clean = line
    .replace(/^(#+|>|[-*+]|\d+[.)])\s+/, '')
    .replace(/[`*_~]/g, '')
    .replace(/\s+/g, ' ')
    .replace(/[\s.:;,!?\u2026]+$/, '')
    .trim();
  if (clean === '') return 'Grove session changes';
  const subject = clean.charAt(0).toUpperCase() + clean.slice(1);
  if (subject.length <= SUBJECT_MAX) return subject;
  const cut = subject.slice(0, SUBJECT_MAX + 1);
  const space = cut.lastIndexOf(' ');
  return (space >= SUBJECT_MAX / 2 ? cut.slice(0, space) : subject.slice(0, SUBJECT_MAX)).replace(
    /[\s.:;,!?\u2026]+$/,
    '',
  );
}
