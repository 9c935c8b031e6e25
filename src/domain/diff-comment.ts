// Inline review comments on a session's diff: what they are, the turn prompt
// that carries them to the agent, how the transcript shows them, whether a
// turn touched their lines, and focused-review findings turned into drafts.
import { lineSnapshot, type CommentSide, type DiffRow, type LineAnchor } from './diff-rows.js';

export type { CommentSide } from './diff-rows.js';

export const COMMENT_STATUSES = ['draft', 'sent', 'addressed', 'open'] as const;
/** draft → sent (with a turn) → addressed (its lines changed) or open (they did not). */
export type CommentStatus = (typeof COMMENT_STATUSES)[number];

export const SEVERITIES = ['high', 'medium', 'low'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface DiffComment extends LineAnchor {
  readonly id: string;
  readonly sessionId: string;
  readonly path: string;
  /** Markdown. */
  readonly body: string;
  /** The commented lines as diff text when the comment was written or sent (see lineSnapshot). */
  readonly excerpt: string;
  /** The hunk the lines are in, as diff text (what the agent is shown). */
  readonly hunk: string;
  readonly severity: Severity | null;
  readonly origin: 'person' | 'review';
  readonly status: CommentStatus;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export function isCommentStatus(value: string): value is CommentStatus {
  return (COMMENT_STATUSES as readonly string[]).includes(value);
}

export function isSeverity(value: string): value is Severity {
  return (SEVERITIES as readonly string[]).includes(value);
}

export function isCommentSide(value: string): value is CommentSide {
  return value === 'new' || value === 'old' || value === 'file';
}

/** `src/a.ts:12`, `src/a.ts:12-14`, `src/a.ts (old) :3`, `src/a.ts (whole file)`. */
export function commentLocation(
  c: Pick<DiffComment, 'path' | 'side' | 'startLine' | 'endLine'>,
): string {
  if (c.side === 'file' || c.startLine === null) return `${c.path} (whole file)`;
  const lines =
    c.endLine !== null && c.endLine !== c.startLine
      ? `${c.startLine}-${c.endLine}`
      : `${c.startLine}`;
  return c.side === 'old' ? `${c.path}:${lines} (removed lines)` : `${c.path}:${lines}`;
}

function lineWords(c: Pick<DiffComment, 'side' | 'startLine' | 'endLine'>): string {
  if (c.side === 'file' || c.startLine === null) return 'the whole file';
  const many = c.endLine !== null && c.endLine !== c.startLine;
  const lines = many ? `lines ${c.startLine}-${c.endLine}` : `line ${c.startLine}`;
  return c.side === 'old' ? `${lines} of the old version (removed by the change)` : lines;
}

const firstLine = (text: string): string => text.trim().split('\n')[0]?.trim() ?? '';

/** The turn prompt: every comment with its file, lines and the hunk it refers to. */
export function commentsPrompt(comments: readonly DiffComment[]): string {
  const out = [
    `A reviewer left ${comments.length === 1 ? 'a comment' : `${comments.length} comments`} on your changes. Address each one: change the code where the comment asks for it, or say in your answer why not. Line numbers are those of the files as they are now in the worktree unless a comment says otherwise.`,
  ];
  comments.forEach((c, i) => {
    const severity = c.severity ? ` [${c.severity[0]?.toUpperCase()}${c.severity.slice(1)}]` : '';
    out.push(
      '',
      `## Comment ${i + 1}${severity}: \`${c.path}\`, ${lineWords(c)}`,
      '',
      c.body.trim(),
    );
    if (c.hunk.trim() !== '') out.push('', 'The hunk it refers to:', '```diff', c.hunk, '```');
  });
  return out.join('\n');
}

/** What the transcript shows for the turn: one line per comment. */
export function commentsDisplay(comments: readonly DiffComment[]): string {
  const lines = [`Review comments (${comments.length}):`];
  for (const c of comments) lines.push(`▸ ${commentLocation(c)}: ${firstLine(c.body)}`);
  return lines.join('\n');
}

/**
 * Whether a turn possibly addressed a comment: the text at its lines
 * before the turn (its excerpt) is not found after it, neither at the same
 * lines nor moved elsewhere in the file. A whole-file comment: the file's
 * patch changed.
 */
export function possiblyAddressed(
  comment: Pick<DiffComment, 'side' | 'startLine' | 'endLine' | 'excerpt'>,
  rowsAfter: readonly DiffRow[] | null,
): boolean {
  // The file left the diff altogether (reverted or deleted): its lines changed.
  if (rowsAfter === null) return true;
  const now = lineSnapshot(rowsAfter, comment);
  if (now === comment.excerpt) return false;
  if (comment.side === 'file' || comment.excerpt === '') return true;
  // The same lines, shifted by edits above them, are not an answer.
  return !sequenceIn(rowsAfter, comment.excerpt.split('\n'));
}

function sequenceIn(rows: readonly DiffRow[], wanted: readonly string[]): boolean {
  const texts = rows.map(
    (r) =>
      `${r.kind === 'add' ? '+' : r.kind === 'del' ? '-' : r.kind === 'ctx' ? ' ' : '#'}${r.text}`,
  );
  outer: for (let i = 0; i + wanted.length <= texts.length; i++) {
    for (let j = 0; j < wanted.length; j++) if (texts[i + j] !== wanted[j]) continue outer;
    return true;
  }
  return false;
}

// ---- Focused review findings ------------------------------------------------

export interface ReviewFinding {
  readonly severity: Severity;
  readonly path: string;
  readonly startLine: number | null;
  readonly endLine: number | null;
  readonly text: string;
}

const ITEM = /^\s*(?:[-*+]|\d+[.)])\s+\*{0,2}\[(high|medium|low)\]\*{0,2}\s*(.*)$/i;
// `path:12`, `path:12-14`, `path` (optionally in backticks), then a separator.
const LOCATION = /^`?([^\s`:]+)(?::(\d+)(?:\s*[-\u2013]\s*(\d+))?)?`?[\s:,\u2014\u2013-]*(.*)$/s;

/**
 * Findings of a focused review's `### Suggestions` list: items that start
 * with a severity tag, then a `path:line` (or `path:start-end`, or `path`)
 * location. Items without a file location are left out.
 */
export function parseReviewFindings(review: string): ReviewFinding[] {
  const out: ReviewFinding[] = [];
  const lines = review.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const item = ITEM.exec(lines[i] ?? '');
    if (!item) continue;
    // Continuation lines (indented, not a new item) belong to the item.
    let rest = item[2] ?? '';
    while (
      i + 1 < lines.length &&
      /^\s{2,}\S/.test(lines[i + 1] ?? '') &&
      !ITEM.test(lines[i + 1] ?? '')
    )
      rest += `\n${(lines[++i] ?? '').trim()}`;
    const located = LOCATION.exec(rest.trim());
    const path = located?.[1] ?? '';
    if (!located || (!path.includes('.') && !path.includes('/'))) continue;
    const start = located[2] ? Number(located[2]) : null;
    const end = located[3] ? Number(located[3]) : start;
    const text = (located[4] ?? '').trim();
    if (text === '') continue;
    out.push({
      severity: (item[1] ?? 'medium').toLowerCase() as Severity,
      path,
      startLine: start,
      endLine: start === null ? null : end,
      text,
    });
  }
  return out;
}

/** The anchor of a finding: its lines on the new side, or the whole file. */
export function findingAnchor(finding: ReviewFinding): LineAnchor {
  return finding.startLine === null
    ? { side: 'file', startLine: null, endLine: null }
    : { side: 'new', startLine: finding.startLine, endLine: finding.endLine ?? finding.startLine };
}
