// The network filter of a long-lived agent on a host (issue 24, item 5), as
// Codex's and Gemini CLI's channels ask the host starter for it: the same
// listener of Grove's filtering proxy as for their process here (the
// launcher's hostNetwork), with the same refusal lines and holds.
import type { ChannelOptions } from './channel.js';
import type { HostNetworkOpener, NetworkAgent } from './confine/host-network.js';
import { defaultLauncher } from './confine/launcher.js';

/**
 * What to pass as `network` to RemoteAgentStarter.startServer for `agent`:
 * its opener, or nothing when the launcher cannot filter for a host (then
 * the host's network is open to it).
 */
export function hostNetworkOf(
  options: ChannelOptions,
  agent: NetworkAgent,
): { readonly network?: HostNetworkOpener } {
  const launcher = options.launcher ?? defaultLauncher();
  if (!launcher.hostNetwork) return {};
  return {
    network: (hostEnv, hostConfig) =>
      launcher.hostNetwork?.(agent, hostEnv, hostConfig) ?? Promise.resolve(null),
  };
}
