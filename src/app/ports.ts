// The infra interfaces the app works through. The composition root passes
// the real implementations (infra/db, infra/git, infra/agent); tests may pass
// the same real ones over temp folders.
import type { Clock } from '../infra/clock.js';
import type { Logger } from '../infra/log.js';
import type { GrovePaths } from '../infra/paths.js';

export type { Store } from '../infra/db/store.js';
export type { GitClient } from '../infra/git/git-client.js';
export type { AgentChannel, TurnRequest, TurnEvent, TurnResult } from '../infra/agent/channel.js';
export type { Agents, SessionTurnInput, SessionTurnOutput } from '../infra/agent/agents.js';
export type { Forge, ForgeConnection } from '../infra/forge/forge.js';
export type { Clipboard } from '../infra/clipboard.js';

export interface Runtime {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly paths: GrovePaths;
  readonly env: NodeJS.ProcessEnv;
  /** Identifies this process as the owner of operations it runs (lease). */
  readonly owner: string;
}
