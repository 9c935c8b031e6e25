import type { Operation } from '../../domain/operation.js';
import type { App } from '../app.js';
import type { Agents, GitClient, HostSessions, Runtime, Store } from '../ports.js';
import type { ChannelPool } from './channel-pool.js';
import type { SessionService } from './sessions.js';
import type { ApprovalDesk } from './approvals.js';

/** What the turn runner (turn.ts) and the commit and title after a turn (turn-commit.ts) are given. */
export interface TurnDeps {
  readonly app: App;
  readonly store: Store;
  readonly git: GitClient;
  readonly agents: Agents;
  readonly sessions: SessionService;
  readonly pool: ChannelPool;
  readonly runtime: Runtime;
  /** Aborted when Grove shuts down: detached work (title generation) stops with it. */
  readonly shutdown: AbortSignal;
  /** Sessions on hosts (issue 24): absent, a session with a host fails its turn in words. */
  readonly hosts?: HostSessions;
  /** Holds requests the mode would deny for the person; absent: they are denied at once. */
  readonly approvals?: ApprovalDesk;
  /** Runs after a successful turn (auto-push, review-thread replies, focused review). */
  readonly afterTurn?: (
    sessionId: string,
    signal: AbortSignal,
    operation: Operation,
  ) => Promise<void>;
}
