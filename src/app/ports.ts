// The infra interfaces the app works through. The composition root passes
// the real implementations (infra/db, infra/git, infra/agent); tests may pass
// the same real ones over temp folders.
import type { Clock } from '../infra/clock.js';
import type { Logger } from '../infra/log.js';
import type { GrovePaths } from '../infra/paths.js';
import type { MachineFigures } from '../domain/admission.js';
import type { Host } from '../domain/host.js';
import type { HostLoad } from '../domain/placement.js';

export type { Store } from '../infra/db/store.js';
export type { GitClient } from '../infra/git/git-client.js';
export type { AgentChannel, TurnRequest, TurnEvent, TurnResult } from '../infra/agent/channel.js';
export type { Agents, SessionTurnInput, SessionTurnOutput } from '../infra/agent/agents.js';
export type { Forge, ForgeConnection } from '../infra/forge/forge.js';
export type { Clipboard } from '../infra/clipboard.js';
export type { ImageStore } from '../infra/images.js';
export type { HostSessions } from '../infra/hosts/remote-session.js';
export type { HostCleaner } from '../infra/hosts/remote-cleanup.js';

export interface Runtime {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly paths: GrovePaths;
  readonly env: NodeJS.ProcessEnv;
  /** Identifies this process as the owner of operations it runs (lease). */
  readonly owner: string;
  /**
   * Cores and memory as the admission check reads them (infra/machine-figures.ts);
   * tests pass their own. Absent: turns are admitted without a check.
   */
  readonly machine?: () => Promise<MachineFigures>;
  /**
   * A host's free memory and load, read now over its shared ssh connection
   * (infra/hosts/host-load.ts); throws in words when it cannot be reached.
   * Absent: no host is read (sessions placed with `auto` stay here).
   */
  readonly hostLoad?: (host: Host) => Promise<HostLoad>;
}

/** Hands the terminal to a program the person works in (a shell, an editor). */
export interface TerminalHandoff {
  /**
   * Runs the person's shell ($SHELL) or editor ($VISUAL, $EDITOR) in `cwd`.
   * `waited`: Grove gave it the terminal and it has exited (with
   * `exitCode`); false: it opened in a new tmux window. `command` names it.
   */
  open(
    tool: 'shell' | 'editor',
    cwd: string,
  ): Promise<{
    readonly waited: boolean;
    readonly exitCode: number | null;
    readonly command: string;
  }>;
}

export type { Notifier } from '../infra/notify.js';
