import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** Where Grove keeps its data: `GROVE_HOME`, else `~/.grove`. */
export interface GrovePaths {
  readonly home: string;
  readonly database: string;
  readonly worktrees: string;
  readonly logs: string;
  readonly logFile: string;
  /** V8's compiled code for the bundled app (infra/code-cache.ts) and Node's compile cache for what loads later. */
  readonly cache: string;
  /** Records of the agent processes Grove started (for the start-up sweep). */
  readonly run: string;
  /** The extra agent CLIs that speak ACP, named by the person (domain/acp-agents.ts). */
  readonly acpAgents: string;
  /** The person's own keys for the TUI (domain/key-bindings.ts). */
  readonly keyBindings: string;
}

export function grovePaths(env: NodeJS.ProcessEnv): GrovePaths {
  const home = resolve(env['GROVE_HOME'] || join(homedir(), '.grove'));
  return {
    home,
    database: join(home, 'db', 'grove.db'),
    worktrees: join(home, 'wt'),
    logs: join(home, 'logs'),
    logFile: join(home, 'logs', 'grove.log'),
    cache: join(home, 'cache'),
    run: join(home, 'run'),
    acpAgents: join(home, 'agents.json'),
    keyBindings: join(home, 'keys.json'),
  };
}
