// `grove watch`: follows the store and reports each change as events
// (domain/watch.ts). It never writes. It reads again only when some process
// wrote to the store (SQLite's data_version, checked every POLL_MS), or when
// its last reading is older than MAX_AGE_MS (an inbox item such as a
// usage-limit wait can end with time alone).
import { watchEvents, type WatchEvent, type WatchSnapshot } from '../../domain/watch.js';
import type { Runtime, Store } from '../ports.js';
import { loadInbox } from './inbox.js';

/** How often the store's change counter is read. */
export const WATCH_POLL_MS = 250;
/** The longest a reading stands when nothing was written. */
const MAX_AGE_MS = 30_000;

export async function readWatchSnapshot(deps: {
  readonly store: Store;
  readonly runtime: Runtime;
}): Promise<WatchSnapshot> {
  const { store } = deps;
  const projects = await store.projects.list();
  const [perProject, inbox] = await Promise.all([
    // The live sessions: the archive (thousands, unchanging) is never read whole.
    Promise.all(projects.map((p) => store.sessions.listLive(p.id))),
    loadInbox(deps),
  ]);
  const lastTurns = await store.operations.newestFinished(
    ['start_prompt', 'reply'],
    perProject.flat().map((s) => s.id),
  );
  const sessions = perProject.flatMap((list, i) =>
    list.map((session) => ({ session, project: projects[i]?.displayName ?? '' })),
  );
  return { sessions, inbox, lastTurns };
}

/**
 * Reports the items waiting now (marked initial), then every change until
 * `signal` aborts; `emit` gets each reading's events in order. Resolves
 * when stopped; rejects when the store cannot be read.
 */
export async function watchStore(
  deps: { readonly store: Store; readonly runtime: Runtime },
  emit: (events: readonly WatchEvent[]) => void,
  signal: AbortSignal,
  pollMs = WATCH_POLL_MS,
): Promise<void> {
  const { store, runtime } = deps;
  let mark = await store.externalChanges();
  let before = await readWatchSnapshot(deps);
  let readAt = runtime.clock.now();
  emit(watchEvents(null, before));
  while (!signal.aborted) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, pollMs);
      function done(): void {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
    if (signal.aborted) return;
    const next = await store.externalChanges();
    if (next === mark && runtime.clock.now() - readAt < MAX_AGE_MS) continue;
    mark = next;
    readAt = runtime.clock.now();
    const after = await readWatchSnapshot(deps);
    // A session that left the live ones was archived (Merged, Done, Canceled) or deleted: read it once.
    const left = before.sessions.filter(
      (entry) => !after.sessions.some((live) => live.session.id === entry.session.id),
    );
    const archived = (
      await Promise.all(
        left.map(async (entry) => {
          const session = await store.sessions.get(entry.session.id);
          return session ? [{ session, project: entry.project }] : [];
        }),
      )
    ).flat();
    const events = watchEvents(before, { ...after, sessions: [...after.sessions, ...archived] });
    before = after;
    if (events.length > 0) emit(events);
  }
}
