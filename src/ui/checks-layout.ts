// The checks of a published session's pull request on screen (issue 28,
// item 2): the list row's badge and the session view's lines, each failing
// check with the tail of its job log (sanitized and capped when it was read).
import { checksBadgeText, checksSummary, type PullRequestChecks } from '../domain/checks.js';
import type { Session } from '../domain/session.js';
import type { RowBadge } from './row-badge.js';
import { truncate } from './text.js';
import type { StyledLine } from './transcript-lines.js';

/** The list row's checks badge of an open pull request, or null. */
export function checksBadge(session: Pick<Session, 'reviewRequest'>): RowBadge | null {
  const pr = session.reviewRequest;
  const state = pr?.checksState;
  if (!pr || pr.state !== 'open' || !state) return null;
  const full = ` [${checksBadgeText(state)}]`;
  if (state === 'failing') return { full, short: ' [ci ✗]', tone: 'error' };
  if (state === 'pending') return { full, short: ' [ci …]', tone: 'muted' };
  return { full, short: ' [ci ✓]', tone: 'accent' };
}

/**
 * The session view's checks: a heading with the counts, the last refresh's
 * error, and each failing check with its log tail (or why it could not be
 * read). Nothing while every check passes or none exists.
 */
export function checkLines(
  checks: PullRequestChecks | undefined,
  session: Pick<Session, 'reviewRequest'>,
  width: number,
): StyledLine[] {
  const pr = session.reviewRequest;
  if (!pr || pr.state !== 'open' || !checks) return [];
  const failing = checks.checks.filter((c) => c.state === 'failing');
  if (failing.length === 0 && !checks.error) return [];
  const out: StyledLine[] = [
    {
      text: truncate(
        `── Checks on PR #${pr.number} (${checks.headSha.slice(0, 7)}): ${checksSummary(checks.checks) ?? 'none'} ──`,
        width,
      ),
      style: 'heading',
    },
  ];
  if (checks.error) out.push({ text: truncate(checks.error, width), style: 'error' });
  for (const check of failing) {
    const how = check.conclusion ? ` (${check.conclusion})` : '';
    out.push({
      text: truncate(`✗ ${check.name}${how}${check.url ? `  ${check.url}` : ''}`, width),
      style: 'error',
    });
    if (check.logError) out.push({ text: truncate(`  ${check.logError}`, width), style: 'muted' });
    for (const line of check.logTail?.split('\n') ?? [])
      out.push({ text: truncate(`  │ ${line}`, width), style: 'output' });
  }
  out.push({ text: '', style: 'muted' });
  return out;
}
