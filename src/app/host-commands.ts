// Where a new session runs, chosen in the TUI (issue 24): the project's
// default host (Settings › Default host) for a session made with `a`, and
// `/host NAME` in its composer before the first prompt. The hosts are read
// from the store each time (another terminal's grove host add counts), and
// the snapshot's list of them (KNOWN_HOSTS_KEY, what `/host` offers) follows.
import {
  DEFAULT_HOST_KEY,
  KNOWN_HOSTS_KEY,
  LOCAL_HOST_NAME,
  defaultHost,
  hostPickProblem,
} from '../domain/host.js';
import { isAutoHost } from '../domain/placement.js';
import { agentName, providerInfo, type ModelChoice } from '../domain/providers.js';
import type { Session } from '../domain/session.js';
import type { ControllerDeps } from './service-graph.js';
import type { SessionService } from './services/sessions.js';

type Deps = Pick<ControllerDeps, 'app' | 'store' | 'runtime'>;

function nameOf(id: string): string {
  return providerInfo(id)?.name ?? agentName(id);
}

/** The names of the hosts there are, read now; the snapshot's list is brought up to date. */
async function readHosts(deps: Deps): Promise<string[]> {
  const names = (await deps.store.hosts.list()).map((host) => host.name);
  const { app } = deps;
  const known = names.join(',');
  if ((app.state.settings[KNOWN_HOSTS_KEY] ?? '') !== known)
    app.emit({
      type: 'settingsLoaded',
      settings: { ...app.state.settings, [KNOWN_HOSTS_KEY]: known },
    });
  return names;
}

/**
 * A new session of the active project on its default host (this machine
 * when it has none). A default that names no host any more is refused in
 * words (thrown: the task's notice says it), and nothing is made.
 */
export async function createOnDefaultHost(
  deps: Deps,
  sessions: SessionService,
  projectId: number,
  choice: ModelChoice,
): Promise<Session> {
  const settings = deps.app.state.settings;
  const hosts = await readHosts(deps);
  const host = defaultHost(settings);
  if (host !== null && !isAutoHost(host) && !hosts.includes(host))
    throw new Error(
      `this project's default host is ${host}, and no host has that name (${hosts.length === 0 ? 'there are none' : `hosts: ${hosts.join(', ')}`}). Choose another in Settings (Default host, ${DEFAULT_HOST_KEY}), or ${LOCAL_HOST_NAME} for this machine.`,
    );
  return sessions.create(projectId, choice, settings, 'auto_edit', host);
}

/** `/host NAME` (null: this machine) on a session that has had no prompt yet. */
export function changeSessionHost(
  deps: Deps,
  sessions: SessionService,
  sessionId: string,
  host: string | null,
): void {
  const { app, store, runtime } = deps;
  const notice = (text: string): void =>
    app.emit({ type: 'notice', notice: { level: 'warn', text } });
  app.task('Choosing the host', async () => {
    const session = await store.sessions.get(sessionId);
    if (!session) return;
    // Asked again here: the session may have moved on since the key was read.
    const problem = hostPickProblem(session, { kind: 'host', host }, nameOf);
    if (problem !== null) {
      notice(problem);
      return;
    }
    if (host === (session.placeAuto ? 'auto' : (session.host ?? null))) return;
    if (isAutoHost(host)) {
      // Placed by its first turn (services/admission.ts).
      await store.hosts.placed(sessionId, null, runtime.clock.now());
      await store.hosts.markAuto(sessionId, runtime.clock.now());
      await sessions.note(
        sessionId,
        'notice',
        '[Host] auto: this machine, or a host with room when this machine has none, chosen when the first turn starts.',
      );
      await sessions.publishSession(sessionId);
      return;
    }
    const named = host === null ? null : await store.hosts.get(host);
    if (host !== null && !named) {
      const hosts = await readHosts(deps);
      notice(
        `No host is named '${host}' any more (${hosts.length === 0 ? 'there are none' : `hosts: ${hosts.join(', ')}`}). The session stays on ${session.host ?? 'this machine'}.`,
      );
      return;
    }
    // The host, and no longer `auto` if it was.
    await store.hosts.placed(sessionId, host, runtime.clock.now());
    await sessions.note(
      sessionId,
      'notice',
      named
        ? `[Host] ${named.name} (ssh ${named.destination}): the agent runs there, and the branch comes back here after each turn.`
        : '[Host] This machine.',
    );
    await sessions.publishSession(sessionId);
  });
}
