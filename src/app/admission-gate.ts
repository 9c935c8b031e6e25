// The admission gate (services/admission.ts) over the real figures: global
// settings, the turns other processes run (the database), the hosts and
// their readings (services/host-loads.ts) for sessions placed with `auto`,
// the session's line in the list and view, and one transcript notice when a
// turn starts waiting (or waits for another reason) or is placed.
import { MAX_TURNS_KEY, MEMORY_FLOOR_KEY, admissionText } from '../domain/admission.js';
import type { AdmissionWait } from '../domain/admission.js';
import { runsOnHosts } from '../domain/host.js';
import { hostFiguresText } from '../domain/placement.js';
import type { App } from './app.js';
import type { Runtime, Store } from './ports.js';
import { Admission } from './services/admission.js';
import { HostLoads } from './services/host-loads.js';

/** What the gate is built from (service-graph.ts's ControllerDeps has them). */
interface GateDeps {
  readonly app: App;
  readonly store: Store;
  readonly runtime: Runtime;
}

/** The hosts' readings, where the runtime can read hosts (null: it cannot). */
export function hostLoadsOf(deps: GateDeps): HostLoads | null {
  const { runtime, store } = deps;
  const read = runtime.hostLoad;
  if (!read) return null;
  return new HostLoads({
    read,
    save: (name, load) => store.hosts.saveLoad(name, load),
    now: () => runtime.clock.now(),
    logger: runtime.logger,
  });
}

export function admissionGate(
  deps: GateDeps,
  hostLoads: HostLoads | null,
  wake: (sessionId: string) => void,
  note: (sessionId: string, text: string) => Promise<void>,
  published: (sessionId: string) => Promise<unknown>,
): Admission | null {
  const { app, store, runtime } = deps;
  const machine = runtime.machine;
  if (!machine) return null;
  return new Admission({
    machine,
    settings: async () => ({
      [MAX_TURNS_KEY]: await store.settings.getGlobal(MAX_TURNS_KEY),
      [MEMORY_FLOOR_KEY]: await store.settings.getGlobal(MEMORY_FLOOR_KEY),
    }),
    runningElsewhere: () =>
      store.operations.runningTurnsElsewhere(runtime.owner, runtime.clock.now()),
    placeOf: async (sessionId) => {
      const session = await store.sessions.get(sessionId);
      return {
        host: session?.host ?? null,
        auto: session ? await store.hosts.isAuto(sessionId) : false,
        hostsAllowed: session ? runsOnHosts(session.agent) : false,
      };
    },
    hosts: () => store.hosts.list(),
    ...(hostLoads ? { hostLoad: (host) => hostLoads.get(host) } : {}),
    place: async (sessionId, host, why) => {
      await store.hosts.placed(sessionId, host, runtime.clock.now());
      const named = host === null ? null : await store.hosts.get(host);
      const reading = host === null ? undefined : hostLoads?.last().get(host);
      const figures = named
        ? hostFiguresText(reading?.load ?? null, named.maxSessions ?? null)
        : '';
      const where = named
        ? `${named.name} (ssh ${named.destination}${figures === '' ? '' : `; ${figures}`})`
        : 'this machine';
      await note(
        sessionId,
        `[Placement] The session runs on ${where}.${why.length === 0 ? '' : ` No room elsewhere: ${why.join('; ')}.`}`,
      );
      await published(sessionId);
    },
    wake,
    onWait: (sessionId: string, wait: AdmissionWait | null) => {
      const was = app.state.admission[sessionId];
      if (wait === null ? was === undefined : admissionText(wait) === (was && admissionText(was)))
        return;
      app.emit({ type: 'admissionWait', sessionId, wait });
      if (wait !== null && was?.kind !== wait.kind)
        void note(sessionId, `[Admission] The turn is queued, ${admissionText(wait)}.`).catch(
          () => {},
        );
    },
    logger: runtime.logger,
  });
}
