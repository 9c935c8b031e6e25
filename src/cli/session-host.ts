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
