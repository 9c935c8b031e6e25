// Best-of-N: one prompt run by N sessions (a group), each variant checked
// with the project's check command, and a read-only judge turn that ranks
// the variants with reasons.

export const GROUP_STATUSES = [
  'running',
  'checking',
  'judging',
  'ranked',
  'chosen',
  'failed',
] as const;
export type GroupStatus = (typeof GROUP_STATUSES)[number];

export function isGroupStatus(value: string): value is GroupStatus {
  return (GROUP_STATUSES as readonly string[]).includes(value);
}

/** The check command's result in one variant's worktree. */
export interface CheckResult {
  readonly exitCode: number;
  readonly timedOut: boolean;
  /** The output's tail (bounded). */
  readonly output: string;
}

export interface GroupMember {
  readonly sessionId: string;
  /** 1-based order of the variant in the group. */
  readonly position: number;
  readonly check: CheckResult | null;
}

export interface RankEntry {
  readonly sessionId: string;
  /** 1 is the best. */
  readonly rank: number;
  readonly reason: string;
}

export interface SessionGroup {
  readonly id: string;
  readonly projectId: number;
  readonly prompt: string;
  readonly status: GroupStatus;
  readonly members: readonly GroupMember[];
  /** Best first; empty until judged. */
  readonly ranking: readonly RankEntry[];
  readonly note: string | null;
  readonly chosenSessionId: string | null;
  readonly createdAt: number;
}

/** The most variants one prompt fans out to. */
export const MAX_VARIANTS = 8;
/** How much of a check's output is kept (its tail). */
export const CHECK_OUTPUT_LIMIT = 8_000;
/** How much of each variant's diff the judge reads. */
const JUDGE_DIFF_LIMIT = 12_000;

/** A variant's agent, model and reasoning level ("claude", "codex:gpt-5.5"). */
export interface VariantChoice {
  readonly agent: string;
  readonly model: string | null;
}

/** `--agents claude,codex:gpt-5.5,gemini`: one variant per entry, cycled when N is larger. */
export function parseVariants(spec: string | null, n: number): VariantChoice[] | null {
  if (spec === null) return null;
  const entries = spec
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (entries.length === 0) return null;
  const choices = entries.map((entry) => {
    const [agent = '', model] = entry.split(':');
    return { agent: agent.trim(), model: model?.trim() || null };
  });
  return Array.from(
    { length: Math.max(n, 1) },
    (_, i) => choices[i % choices.length] as VariantChoice,
  );
}

/** The keeping-the-tail form of a check's output. */
export function checkOutputTail(output: string): string {
  return output.length <= CHECK_OUTPUT_LIMIT
    ? output
    : `…${output.slice(output.length - CHECK_OUTPUT_LIMIT)}`;
}

/** "passed", "failed (exit 1)", "timed out", "not run". */
export function checkText(check: CheckResult | null): string {
  if (!check) return 'not run';
  if (check.timedOut) return 'timed out';
  return check.exitCode === 0 ? 'passed' : `failed (exit ${check.exitCode})`;
}

export interface JudgeVariant {
  readonly sessionId: string;
  readonly label: string;
  readonly diff: string;
  readonly check: CheckResult | null;
}

/** The judge's prompt: the task, each variant's diff and check result, and the JSON to answer with. */
export function judgePrompt(
  task: string,
  variants: readonly JudgeVariant[],
  checkCommand: string,
): string {
  const parts = [
    'You are judging several attempts at the same coding task. Do not change any file.',
    'Compare the variants below: correctness for the task, the check results, the size and clarity of the change.',
    '',
    '## Task',
    task,
    '',
  ];
  for (const v of variants) {
    const diff =
      v.diff.length > JUDGE_DIFF_LIMIT
        ? `${v.diff.slice(0, JUDGE_DIFF_LIMIT)}\n… (diff cut)`
        : v.diff;
    parts.push(`## Variant ${v.sessionId} (${v.label})`);
    parts.push(
      checkCommand
        ? `Check \`${checkCommand}\`: ${checkText(v.check)}`
        : 'No check command is set.',
    );
    if (v.check && v.check.exitCode !== 0 && v.check.output.trim() !== '')
      parts.push('Check output (tail):', '```', v.check.output.slice(-2_000), '```');
    parts.push('Diff:', '```diff', diff.trim() === '' ? '(no changes)' : diff, '```', '');
  }
  parts.push(
    'Rank every variant, best first. Put in your answer only a JSON array, one object per variant:',
    '[{"session": "<variant id>", "rank": 1, "reason": "<one sentence>"}]',
  );
  return parts.join('\n');
}

/**
 * The judge's ranking, read tolerantly: the first JSON array in the text (or
 * an object with a `ranking` array), entries naming a session by its full id
 * or a unique prefix, with `rank` as a number or a numeric string. Entries
 * for unknown sessions are dropped; sessions the judge left out come last.
 * Null when nothing can be read.
 */
export function parseRanking(text: string, sessionIds: readonly string[]): RankEntry[] | null {
  const list = findArray(text);
  if (!list) return null;
  const seen = new Set<string>();
  const read: { sessionId: string; rank: number; reason: string; order: number }[] = [];
  list.forEach((item, order) => {
    if (!item || typeof item !== 'object') return;
    const entry = item as Record<string, unknown>;
    const raw =
      entry['session'] ??
      entry['sessionId'] ??
      entry['session_id'] ??
      entry['id'] ??
      entry['variant'];
    const named = typeof raw === 'string' ? raw.trim() : '';
    const matches =
      named === '' ? [] : sessionIds.filter((id) => id === named || id.startsWith(named));
    const sessionId = matches.length === 1 ? matches[0] : undefined;
    if (!sessionId || seen.has(sessionId)) return;
    seen.add(sessionId);
    const rank = Number(entry['rank']);
    const reason =
      typeof entry['reason'] === 'string'
        ? entry['reason']
        : typeof entry['why'] === 'string'
          ? entry['why']
          : '';
    read.push({
      sessionId,
      rank: Number.isFinite(rank) ? rank : Number.MAX_SAFE_INTEGER,
      reason: reason.replace(/\s+/g, ' ').trim(),
      order,
    });
  });
  if (read.length === 0) return null;
  read.sort((a, b) => a.rank - b.rank || a.order - b.order);
  const ranked: RankEntry[] = read.map((r, i) => ({
    sessionId: r.sessionId,
    rank: i + 1,
    reason: r.reason,
  }));
  for (const id of sessionIds)
    if (!seen.has(id))
      ranked.push({ sessionId: id, rank: ranked.length + 1, reason: 'not ranked by the judge' });
  return ranked;
}

function findArray(text: string): unknown[] | null {
  for (let start = text.indexOf('['); start !== -1; start = text.indexOf('[', start + 1)) {
    for (let end = text.lastIndexOf(']'); end > start; end = text.lastIndexOf(']', end - 1)) {
      const value = parseJson(text.slice(start, end + 1));
      if (Array.isArray(value) && value.some((v) => v && typeof v === 'object'))
        return value as unknown[];
    }
  }
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  const value = start !== -1 && end > start ? parseJson(text.slice(start, end + 1)) : undefined;
  const ranking =
    value && typeof value === 'object' ? (value as Record<string, unknown>)['ranking'] : undefined;
  return Array.isArray(ranking) ? (ranking as unknown[]) : null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The rank of a session in its group's ranking, or null. */
export function rankOf(group: SessionGroup, sessionId: string): RankEntry | null {
  return group.ranking.find((r) => r.sessionId === sessionId) ?? null;
}

/** The ranking's winner: rank 1, or null while unjudged. */
export function winnerOf(group: SessionGroup): string | null {
  return group.ranking[0]?.sessionId ?? null;
}

/** A variant suffix at the end of a title (so a new title replaces it, never doubles it). */
const VARIANT_SUFFIX = / \(variant \d+ of \d+, [^()]*\)$/;

/** A title without its variant suffix: the task's own title (for commit messages). */
export function taskTitle(title: string): string {
  return title.replace(VARIANT_SUFFIX, '');
}

/**
 * A best-of-N variant's title: the task's title, then which variant it is
 * and what runs it — "Add a cache (variant 2 of 3, claude/opus)" — so the
 * variants of one prompt can be told apart wherever titles are shown.
 * `title` unchanged for a session outside the group.
 */
export function variantTitle(
  title: string,
  group: Pick<SessionGroup, 'members'>,
  session: { readonly id: string; readonly agent: string; readonly model: string },
): string {
  const member = group.members.find((m) => m.sessionId === session.id);
  if (!member) return title;
  return `${taskTitle(title)} (variant ${member.position} of ${group.members.length}, ${session.agent}/${session.model})`;
}
