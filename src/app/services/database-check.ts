// The TUI's whole-file database check (infra/db/integrity.ts), once a day:
// opening the database reads only its schema and each table's first page,
// so damage deeper in the file is found here, after the first frame and
// off the event loop. Damage is said at once (a notice) and stays in the
// header for the rest of the run; `grove doctor` says the same.
import type { App } from '../app.js';
import type { Store } from '../ports.js';
import type { Logger } from '../../infra/log.js';

/** When the last check found the database whole (global setting, epoch ms). */
export const DATABASE_CHECKED_KEY = 'database.checkedAt';
/** How often the check runs: a damaged file is checked again at every start. */
export const DATABASE_CHECK_EVERY_MS = 24 * 60 * 60 * 1000;

export interface DatabaseCheckDeps {
  readonly app: Pick<App, 'emit'>;
  readonly store: Pick<Store, 'settings'>;
  /** quick_check in a worker: the damage in words, or null (integrity.ts). */
  readonly check: () => Promise<string | null>;
  readonly now: () => number;
  readonly logger: Logger;
}

export async function checkDatabaseWhenDue(deps: DatabaseCheckDeps): Promise<void> {
  const { app, store, check, now, logger } = deps;
  try {
    const last = Number((await store.settings.getGlobal(DATABASE_CHECKED_KEY)) ?? NaN);
    if (Number.isFinite(last) && now() - last < DATABASE_CHECK_EVERY_MS && last <= now()) {
      logger.log(
        'info',
        'the database check is not due: it found the file whole less than a day ago',
      );
      return;
    }
    const started = now();
    const damage = await check();
    if (damage === null) {
      await store.settings.setGlobal(DATABASE_CHECKED_KEY, String(now()));
      logger.log('info', `the database check found the file whole (${now() - started} ms)`);
      return;
    }
    logger.log('error', damage);
    app.emit({ type: 'databaseDamaged', text: damage });
  } catch (error) {
    // A check that could not run says nothing about the file: it is tried at the next start.
    logger.log('warn', 'the background database check did not run', error);
  }
}
