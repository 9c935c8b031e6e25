import type { AcpAgentsConfig } from '../domain/acp-agents.js';
import { PROVIDERS } from '../domain/providers.js';
import { ACP_AGENTS_KEY } from '../domain/settings.js';
import { UsageError } from './usage-error.js';

/**
 * The ACP agents of GROVE_HOME/agents.json as settings values, for choosing
 * an agent with `--agent` / `--agents`. When `asked` names an agent that is
 * not built in and the file was refused, the refusal is the usage error (it
 * says what to fix), not an unknown agent.
 */
export function acpAgentValues(
  config: AcpAgentsConfig,
  asked: string | null,
): Record<string, string> {
  const names = (asked ?? '').split(',').map((v) => v.split(':')[0]?.trim() ?? '');
  const other = names.some((n) => n !== '' && n !== 'acp' && !PROVIDERS.some((p) => p.id === n));
  if (config.error && (other || names.includes('acp'))) throw new UsageError(config.error);
  return { [ACP_AGENTS_KEY]: config.agents.map((a) => a.id).join(',') };
}
