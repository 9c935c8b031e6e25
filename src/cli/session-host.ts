// Where a session started from the command line runs (issue 24): `grove run`,
// `grove run -n` (every variant) and `grove mcp`'s grove_start_session all
// ask this one rule, so a host named, `auto` and the project's default host
// mean the same everywhere. Everything is checked before anything is made.
import type { Infra } from '../compose.js';
import { DEFAULT_HOST_KEY, LOCAL_HOST_NAME, hostAgentProblem, hostChoice } from '../domain/host.js';
import { isAutoHost } from '../domain/placement.js';
import { CommandError, EXIT } from './headless.js';
import { findHost } from './host.js';

/**
 * The host new sessions of `agents` run on: `flag` (`--host NAME`, `local`
 * for this machine, `auto` for the first turn to choose), else the project's
 * default host in `settings`; null: this machine. Refused in words
 * (CommandError) when no host has that name, or when an agent that cannot
 * run on hosts is sent to one by name (`auto` keeps such an agent here).
 */
export async function sessionHost(
  infra: Infra,
  flag: string | null,
  settings: Readonly<Record<string, string>>,
  agents: readonly string[],
): Promise<string | null> {
  const host = hostChoice(flag ?? settings[DEFAULT_HOST_KEY]);
  if (host === null || isAutoHost(host)) return host;
  if (flag !== null) await findHost(infra, host);
  else if (!(await infra.store.hosts.get(host))) {
    const hosts = (await infra.store.hosts.list()).map((h) => h.name);
    throw new CommandError(
      `this project's default host is ${host}, and no host has that name (${hosts.length === 0 ? 'there are none' : `hosts: ${hosts.join(', ')}`}): choose another in Settings (Default host), or run on this machine with --host ${LOCAL_HOST_NAME}`,
      EXIT.failed,
    );
  }
  for (const agent of agents) {
    const problem = hostAgentProblem(agent, host, flag === null);
    if (problem !== null) throw new CommandError(problem, EXIT.usage);
  }
  return host;
}

/**
 * Words for a host named by its own maximum (`--max N`) that has no room
 * now for `turns` more turns, counted across every Grove process of this
 * GROVE_HOME; null when it has room, or for this machine, `auto` and a host
 * whose maximum comes from its figures. The turns still wait in the queue,
 * as any turn does: this only says so at once.
 */
export async function hostRoomNote(
  infra: Infra,
  host: string | null,
  turns: number,
): Promise<string | null> {
  if (host === null || isAutoHost(host)) return null;
  const max = (await infra.store.hosts.get(host))?.maxSessions ?? null;
  if (max === null) return null;
  const counts = await infra.store.operations.runningTurnsElsewhere('', infra.clock.now());
  const running = counts[host] ?? 0;
  if (running + turns <= max) return null;
  const room = Math.max(0, max - running);
  const waiting =
    turns === 1
      ? 'the turn waits in the queue for a slot there'
      : room === 0
        ? `the ${turns} variants wait in the queue for slots there`
        : `${room} of the ${turns} variants start now and the others wait in the queue for slots there`;
  return `${host} runs at most ${max} turn${max === 1 ? '' : 's'} at once and ${running} run${running === 1 ? 's' : ''} there now: ${waiting} (grove host set ${host} max N gives it more).`;
}
