import type { SessionStatus } from '../domain/session-status.js';

/**
 * Semantic colour tokens. `NO_COLOR`, `FORCE_COLOR=0` and `TERM=dumb` turn
 * every token off (`colourAllowed`), so ink draws no colour, and lines Grove
 * paints itself (list rows, `paint`) have none either.
 */
export interface Theme {
  readonly accent: string | undefined;
  readonly muted: string | undefined;
  readonly border: string | undefined;
  readonly selectedBg: string | undefined;
  readonly error: string | undefined;
  readonly warn: string | undefined;
  readonly ok: string | undefined;
  readonly diffAdded: string | undefined;
  readonly diffDeleted: string | undefined;
  readonly diffHunk: string | undefined;
  /** Background of search matches (without colour, matches are underlined). */
  readonly searchMatch: string | undefined;
  status(status: SessionStatus): string | undefined;
}

const STATUS_COLORS: Record<SessionStatus, string> = {
  Draft: 'gray',
  InProgress: 'yellow',
  Review: 'cyan',
  AgentReview: 'magenta',
  Question: 'magentaBright',
  Queued: 'blue',
  Rebasing: 'yellow',
  Merging: 'blueBright',
  Merged: 'green',
  Done: 'green',
  Canceled: 'gray',
};

/**
 * Whether `env` allows colour. chalk itself ignores NO_COLOR, so what Grove
 * draws with chalk (markdown answers) asks this too.
 */
export function colourAllowed(
  env: NodeJS.ProcessEnv | Record<string, string | undefined>,
): boolean {
  return !(
    (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') ||
    env['FORCE_COLOR'] === '0' ||
    env['FORCE_COLOR'] === 'false' ||
    env['TERM'] === 'dumb'
  );
}

export function createTheme(env: NodeJS.ProcessEnv | Record<string, string | undefined>): Theme {
  const plain = !colourAllowed(env);
  const c = (color: string): string | undefined => (plain ? undefined : color);
  return {
    accent: c('cyan'),
    muted: c('gray'),
    border: c('gray'),
    selectedBg: c('blue'),
    error: c('red'),
    warn: c('yellow'),
    ok: c('green'),
    diffAdded: c('green'),
    diffDeleted: c('red'),
    diffHunk: c('cyan'),
    searchMatch: c('yellow'),
    status: (status) => c(STATUS_COLORS[status]),
  };
}
