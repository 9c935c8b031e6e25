import { readFileSync } from 'node:fs';
import { NO_ACP_AGENTS, parseAcpAgents, type AcpAgentsConfig } from '../../../domain/acp-agents.js';

/**
 * The ACP agents named in `path` (GROVE_HOME/agents.json), read once when
 * Grove starts. No file: none. A file Grove cannot read or that has a
 * mistake: none, and the reason in `error` (doctor and `--agent` show it).
 */
export function loadAcpAgents(path: string): AcpAgentsConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return NO_ACP_AGENTS;
    return {
      agents: [],
      error: `${path}: cannot be read (${(error as Error).message}); no agent of it is offered until it is fixed`,
    };
  }
  return parseAcpAgents(text, path);
}
