import type { ProviderId } from '../../domain/providers.js';
import type { Logger } from '../log.js';

/**
 * What Grove made of one message from an agent CLI:
 * - `valid`: a message Grove reads, and it matched its schema;
 * - `ignored`: a message of the protocol that Grove does not read;
 * - `unknown`: a message the protocol's schemas do not name (the CLI is newer);
 * - `invalid`: a message Grove reads that did not match its schema (skipped).
 */
export type WireVerdict = 'valid' | 'ignored' | 'unknown' | 'invalid';

/** Sees every message a channel receives; the drift tests count the unknown and invalid ones. */
export interface WireWatch {
  record(provider: ProviderId, message: string, verdict: WireVerdict, detail?: string): void;
}

/** The default watch: unknown and invalid messages go to the log (once per kind), never to the screen. */
export function loggingWireWatch(logger: Logger): WireWatch {
  const told = new Set<string>();
  return {
    record(provider, message, verdict, detail) {
      if (verdict === 'valid' || verdict === 'ignored') return;
      const key = `${provider} ${verdict} ${message}`;
      if (told.has(key)) return;
      told.add(key);
      if (verdict === 'invalid')
        logger.log(
          'warn',
          `${provider}: a ${message} message did not match the protocol schema and was skipped`,
          detail,
        );
      else if (verdict === 'unknown')
        logger.log(
          'info',
          `${provider}: ignored a ${message} message the protocol schema does not name`,
          detail,
        );
    },
  };
}

export const quietWireWatch: WireWatch = { record() {} };

/** A zod error's issues as one short line: "turn.status: Invalid option; …". */
export function issueText(
  issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[],
): string {
  return issues
    .slice(0, 5)
    .map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}
