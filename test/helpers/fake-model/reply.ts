/**
 * The JSON an agent answers with under Grove's agent protocol (see
 * src/domain/protocol.ts), as the fake model's scripted text.
 */

/** A reply's two summaries: of this turn, and of the session so far. */
export interface ReplySummary {
  readonly turn: string;
  readonly session: string;
}

/** Summaries that name the answer: `turn: <answer>` and `session: <answer>`. */
export const namedSummary = (answer: string): ReplySummary => ({
  turn: `turn: ${answer}`,
  session: `session: ${answer}`,
});

/** Summaries that are the answer itself. */
export const sameSummary = (answer: string): ReplySummary => ({ turn: answer, session: answer });

/**
 * A maker of protocol replies: `reply(answer, extra)` is the JSON of
 * `answer`, no questions and `summary` (or `summary(answer)`). `extra` sets
 * or replaces fields (`summary`, `questions`, ...); the keys keep the order
 * answer, questions, summary, then any others.
 */
export const replyWith =
  (summary: ReplySummary | ((answer: string) => ReplySummary)) =>
  (answer: string, extra: Record<string, unknown> = {}): string =>
    JSON.stringify({
      answer,
      questions: [],
      summary: typeof summary === 'function' ? summary(answer) : summary,
      ...extra,
    });

/** A protocol reply with `namedSummary` (see `replyWith`). */
export const reply = replyWith(namedSummary);
