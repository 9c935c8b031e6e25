// Subscription and rate limits an agent CLI reports with a time they lift:
// the session waits for that time with its prompt kept queued, then runs it.

/** A limit the agent's service reported, and when it lifts (ms since the epoch). */
export interface UsageLimit {
  readonly agent: string;
  readonly until: number;
}

/** How long to wait when a CLI says a rate limit was hit but not when it lifts. */
export const DEFAULT_LIMIT_WAIT_MS = 60_000;
/** The shortest wait: a reset said to the minute ("at 11:41 AM") may already look past. */
export const MIN_LIMIT_WAIT_MS = 2_000;
/** A reset further away than this is read as a misparse, and not waited for. */
const MAX_WAIT_MS = 8 * 24 * 3600_000;

/**
 * The limit an agent's error message reports, or null when the message is
 * not a usage or rate limit. Forms read:
 * - Claude Code: "Claude AI usage limit reached|1763900000" (epoch seconds),
 *   "You've hit your limit · resets 3pm (Europe/Paris)" / "resets 3:30pm",
 *   and a bare "API Error: Request rejected (429) · …rate limit…" (no time);
 * - Codex: "You've hit your usage limit. … try again at 11:41 AM." (local
 *   time, or "at Nov 24th, 2026 11:41 AM"), and "Please try again in 5s";
 * - Gemini CLI: a 429 / RESOURCE_EXHAUSTED quota error, with "Please retry
 *   in 12.5s" / "Suggested retry after 900s." or a RetryInfo `retryDelay`;
 * - any other 429 ("exceeded retry limit, last status: 429 Too Many
 *   Requests"): a short default wait.
 * `now` is the current time; local times are read in this process's time zone.
 */
export function readUsageLimit(agent: string, message: string, now: number): UsageLimit | null {
  const text = message.replace(/\s+/g, ' ');
  const at = (until: number | null): UsageLimit | null =>
    until !== null && until - now <= MAX_WAIT_MS
      ? { agent, until: Math.max(until, now + MIN_LIMIT_WAIT_MS) }
      : null;
  const epoch = /usage limit reached\|(\d{9,13})/i.exec(text);
  if (epoch?.[1]) {
    const value = Number(epoch[1]);
    return at(value < 1e12 ? value * 1000 : value);
  }
  const limited =
    /usage limit|hit your (?:usage )?limit|rate.?limit|\b429\b|RESOURCE_EXHAUSTED|resource has been exhausted|exhausted your (?:daily )?quota|quota exceeded|exceeded your current quota/i.test(
      text,
    );
  if (!limited) return null;
  const inSeconds =
    /(?:try again|retry) (?:in|after) (\d+(?:\.\d+)?)\s*(ms|s|sec|seconds?|m|min|minutes?|h|hours?)\b/i.exec(
      text,
    ) ?? /retryDelay"?:?\s*"?(\d+(?:\.\d+)?)(s)/i.exec(text);
  if (inSeconds?.[1] && inSeconds[2]) return at(now + Number(inSeconds[1]) * unitMs(inSeconds[2]));
  const clock =
    /(?:resets?|try again at|again at|until)\s+(?:at\s+)?(?:([A-Z][a-z]{2,8}) (\d{1,2})(?:st|nd|rd|th)?,? (\d{4}),? )?(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\.?)?/i.exec(
      text,
    );
  if (clock?.[4] && (clock[5] !== undefined || clock[6] !== undefined))
    return at(clockTime(now, clock));
  // Gemini's daily quota says no time: it lifts at the next midnight Pacific time, roughly.
  if (/daily quota|per ?day/i.test(text)) return null;
  return at(now + DEFAULT_LIMIT_WAIT_MS);
}

function unitMs(unit: string): number {
  const u = unit.toLowerCase();
  if (u === 'ms') return 1;
  if (u.startsWith('h')) return 3600_000;
  if (u === 'm' || u.startsWith('min')) return 60_000;
  return 1000;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** A wall-clock time ("3pm", "11:41 AM", "Nov 24th, 2026 11:41 AM"): its next occurrence after `now` when it names no day. */
function clockTime(now: number, match: RegExpExecArray): number | null {
  let hour = Number(match[4]);
  const minute = match[5] ? Number(match[5]) : 0;
  const meridiem = match[6]?.toLowerCase().replace(/\./g, '');
  if (meridiem === 'pm' && hour < 12) hour += 12;
  if (meridiem === 'am' && hour === 12) hour = 0;
  if (hour > 23 || minute > 59) return null;
  const date = new Date(now);
  if (match[1] && match[2] && match[3]) {
    const month = MONTHS.indexOf(match[1].slice(0, 3).toLowerCase());
    if (month === -1) return null;
    return new Date(Number(match[3]), month, Number(match[2]), hour, minute).getTime();
  }
  date.setHours(hour, minute, 0, 0);
  // A time already past today (by more than the minute it names) is tomorrow's.
  if (date.getTime() + 60_000 <= now) date.setDate(date.getDate() + 1);
  return date.getTime();
}

/** "waiting for claude until 15:00" (the time in this process's time zone; with the date when not today). */
export function waitingText(limit: UsageLimit, now: number): string {
  const until = new Date(limit.until);
  const hhmm = `${String(until.getHours()).padStart(2, '0')}:${String(until.getMinutes()).padStart(2, '0')}`;
  const sameDay = new Date(now).toDateString() === until.toDateString();
  return `waiting for ${limit.agent} until ${sameDay ? hhmm : `${until.toISOString().slice(0, 10)} ${hhmm}`}`;
}
