import { findAcpAgent, type AcpAgentsConfig } from '../../domain/acp-agents.js';
import { agentName, isAcpAgentId, type ProviderId } from '../../domain/providers.js';
import { assertNever } from '../../domain/assert-never.js';
import { createAcpAgentChannel } from './acp/agent.js';
import { type AgentChannel, type ChannelOptions } from './channel.js';
import { AgentError } from './agent-error.js';
import { createClaudeChannel } from './claude/claude.js';
import { createCodexChannel } from './codex/codex.js';
import { createGeminiChannel } from './gemini/gemini.js';

/** A channel that fails every turn with `error` (an ACP agent agents.json no longer names). */
function unavailable(provider: ProviderId, error: AgentError): AgentChannel {
  return {
    provider,
    runTurn: () => Promise.reject(error),
    shutdown: () => Promise.resolve(),
  };
}

/**
 * One strategy per provider; adding a provider adds a case here and a file
 * beside it. An `acp:` id is an agent named in GROVE_HOME/agents.json.
 */
export function createChannel(
  provider: ProviderId,
  options: ChannelOptions,
  acpAgents: AcpAgentsConfig = { agents: [], error: null },
): AgentChannel {
  if (isAcpAgentId(provider)) {
    const spec = findAcpAgent(acpAgents, provider);
    if (spec) return createAcpAgentChannel(spec, options);
    const why = acpAgents.error ?? 'GROVE_HOME/agents.json does not name it (any more)';
    return unavailable(
      provider,
      new AgentError(
        provider,
        'missing_cli',
        `The ACP agent '${agentName(provider)}' cannot start: ${why}.`,
      ),
    );
  }
  switch (provider) {
    case 'claude':
      return createClaudeChannel(options);
    case 'codex':
      return createCodexChannel(options);
    case 'gemini':
      return createGeminiChannel(options);
    default:
      return assertNever(provider);
  }
}
