import {
  isBackgroundCall,
  isLoopbackHost,
  type AllowEntry,
  type NetworkPolicy,
} from '../../../domain/network.js';
import type { ProviderId } from '../../../domain/providers.js';
import type { Logger } from '../../log.js';
import { agentAllowList, authority, relayProxyPort } from './network.js';
import {
  deniedMessage,
  type NetworkHold,
  type NetworkProxy,
  type ProxyListener,
} from './network-proxy.js';

// One agent's listener of the filtering proxy, for an agent here (the
// launcher) or on a host (issue 24, item 5: the host reaches the listener's
// unix socket through a reverse forward, infra/hosts/remote-forward.ts, and
// the relay in the sandbox there is the one of network.ts).

/**
 * A turn's filtered network on a host (issue 24, item 5): a listener of
 * Grove's filtering proxy on this machine (a unix socket), which the host
 * reaches through a reverse forward of its own, and what the relay inside
 * the sandbox there listens on.
 */
export interface HostNetwork {
  /** The proxy listener's unix socket on this machine. */
  readonly socketPath: string;
  /** Where the relay listens for the agent's proxy traffic, on 127.0.0.1 inside the sandbox. */
  readonly proxyPort: number;
  /** Loopback ports of the person's allow list: tunnelled through the proxy to this machine's. */
  readonly forward: readonly { readonly port: number; readonly target: string }[];
  /** Model servers the host user's environment names on its own loopback: reached there, through a bridge. */
  readonly hostLoopback: readonly number[];
  /** Stops listening. */
  close(): Promise<void>;
}

/**
 * Opens a turn's HostNetwork from the model-server variables the host user's
 * environment names (their names and URLs only) and the `base_url` lines of
 * the CLI's config file there (Codex's config.toml, read only when it is a
 * file the agent cannot write); null when the network of agents is open
 * (setting agents.network).
 */
export type HostNetworkOpener = (
  hostEnv: NodeJS.ProcessEnv,
  hostConfig?: readonly string[],
) => Promise<HostNetwork | null>;

/** What a listener needs to know of the agent it filters for. */
export interface NetworkAgent {
  readonly provider: ProviderId;
  readonly args: readonly string[];
  /** Called once per destination refused, with a line for the transcript. */
  readonly onNetworkDenied?: (line: string) => void;
  /** Holds a request to a host not on the allow list for the person; absent: refused at once. */
  readonly holdNetwork?: NetworkHold;
}

/** A listener with the agent's allow list: refusals logged (its CLI's background calls only there), others held when it can. */
export function listenFor(
  proxy: NetworkProxy,
  kind: 'unix' | 'tcp',
  allow: readonly AllowEntry[],
  agent: NetworkAgent,
  logger: Logger | undefined,
): Promise<ProxyListener> {
  return proxy.listen(
    kind,
    allow,
    ({ host, port, why }) => {
      const line = deniedMessage(host, port, why);
      // The CLI's own background calls (telemetry, Codex's plugin sync) go to the log only.
      const background = isBackgroundCall(agent.provider, host, port);
      logger?.log(background ? 'info' : 'warn', `${agent.provider} agent: ${line}`);
      if (!background) agent.onNetworkDenied?.(line);
    },
    agent.holdNetwork
      ? (host, port) =>
          isBackgroundCall(agent.provider, host, port)
            ? Promise.resolve({ kind: 'notHeld' } as const)
            : (agent.holdNetwork?.(host, port) ?? Promise.resolve({ kind: 'notHeld' } as const))
      : undefined,
  );
}

/** A home no host has: nothing of this machine is read for an agent on a host (Codex's config.toml). */
const NO_HOME = '/nonexistent/grove-host-home';

/**
 * The network of one agent on a host: a unix-socket listener here with its
 * CLI's model API hosts, the other model servers the host user's
 * environment names (`hostEnv`: their variables only) and the person's allow
 * list (`hostConfig`: the `base_url` lines of its CLI's config file there);
 * null when the policy is open. A server the host names on its own
 * loopback is not on the list (the host is not trusted to open this
 * machine's loopback): it is reached on the host's loopback, through a
 * bridge there (`hostLoopback`). A loopback entry of the person's list is
 * this machine's, as for an agent here.
 */
export async function openHostNetwork(
  proxy: NetworkProxy,
  policy: NetworkPolicy,
  agent: NetworkAgent,
  hostEnv: NodeJS.ProcessEnv,
  logger: Logger | undefined,
  hostConfig: readonly string[] = [],
): Promise<HostNetwork | null> {
  if (policy.mode !== 'filtered') return null;
  const named = agentAllowList(
    agent.provider,
    hostEnv,
    [...agent.args, ...hostConfig],
    NO_HOME,
    [],
  );
  const mine = agentAllowList(agent.provider, {}, [], NO_HOME, policy.extra);
  const allow = [...named.allow.filter((entry) => !isLoopbackHost(entry.host)), ...policy.extra];
  const hostLoopback = named.loopback
    .map((l) => l.port)
    .filter((port, i, all) => all.indexOf(port) === i);
  const tunnelled = mine.loopback.filter((l) => !hostLoopback.includes(l.port));
  const listener = await listenFor(proxy, 'unix', allow, agent, logger);
  return {
    socketPath: listener.socketPath ?? '',
    proxyPort: relayProxyPort([...named.loopback, ...tunnelled]),
    forward: tunnelled.map((l) => ({ port: l.port, target: authority(l.host, l.port) })),
    hostLoopback,
    close: () => listener.close(),
  };
}
