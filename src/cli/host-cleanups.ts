// What sessions that ended left on their hosts (issue 24), removed from the
// headless commands: grove gc does every waiting clean-up of the project,
// grove host check NAME every one of that host (app/services/host-cleanup.ts).
import {
  runHostCleanups,
  type HostCleanupDeps,
  type HostCleanupOutcome,
} from '../app/services/host-cleanup.js';
import type { Infra } from '../compose.js';
import { sanitizeText } from '../domain/sanitize.js';
import { createHostCleaner } from '../infra/hosts/remote-cleanup.js';
import { groveSsh } from '../infra/hosts/ssh.js';
import type { CheckResult } from './doctor-checks.js';
import { ok, warn } from './doctor-checks.js';

/** The clean-up of a headless command: over Grove's shared ssh connections, its notes written to the transcript. */
export function cliHostCleanup(infra: Infra, env: NodeJS.ProcessEnv): HostCleanupDeps {
  return {
    store: infra.store,
    git: infra.git,
    cleaner: createHostCleaner(groveSsh(env, infra.paths.home), infra.store.hosts),
    now: () => infra.clock.now(),
    note: async (sessionId, text) => {
      await infra.store.transcript.append(
        sessionId,
        'notice',
        sanitizeText(text),
        infra.clock.now(),
      );
    },
  };
}

export function runCliHostCleanups(
  infra: Infra,
  env: NodeJS.ProcessEnv,
  filter: { readonly host?: string; readonly repo?: string },
): Promise<HostCleanupOutcome[]> {
  return runHostCleanups(cliHostCleanup(infra, env), filter);
}

/** `grove host check`'s lines for the clean-ups it did: ok when done, warn when kept or still waiting. */
export function cleanupResults(outcomes: readonly HostCleanupOutcome[]): CheckResult[] {
  return outcomes.map((o) =>
    o.kind === 'cleaned'
      ? ok('cleanup', `session ${o.sessionId.slice(0, 8)} ended: ${o.text}`)
      : warn(
          'cleanup',
          `session ${o.sessionId.slice(0, 8)} ended: ${o.text}`,
          o.kind === 'kept'
            ? 'look at what is kept on the host and remove it once you have it; grove gc tries again'
            : 'grove gc or grove host check tries again',
        ),
  );
}
