import * as z from 'zod';
import { PROVIDERS, acpAgentId, type AcpAgentId } from './providers.js';

// Extra agent CLIs that speak the Agent Client Protocol, named by the person
// in GROVE_HOME/agents.json:
//
//   { "agents": { "opencode": { "command": "opencode", "args": ["acp"] } } }
//
// A file with any mistake is refused whole (no agent of it is offered), with
// a message that names the mistake.

/** One ACP agent: the name the person chose and the command that starts it speaking ACP on stdio. */
export interface AcpAgentSpec {
  readonly id: AcpAgentId;
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
}

export interface AcpAgentsConfig {
  readonly agents: readonly AcpAgentSpec[];
  /** Why the file was refused (then `agents` is empty), or null. */
  readonly error: string | null;
}

export const NO_ACP_AGENTS: AcpAgentsConfig = { agents: [], error: null };

const NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;

const AgentEntry = z.strictObject({
  command: z.string().trim().min(1, 'its command is empty'),
  args: z.array(z.string()).optional(),
});

const AgentsFile = z.strictObject({
  agents: z.record(z.string(), AgentEntry),
});

function issueWords(issue: z.core.$ZodIssue): string {
  const where = issue.path.map(String);
  const agent = where[0] === 'agents' && where[1] !== undefined ? `agent '${where[1]}'` : null;
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => `'${k}'`).join(', ');
    const known = agent ? "'command', 'args'" : "'agents'";
    return `${agent ? `${agent} has` : 'the file has'} an unknown field ${keys} (known: ${known})`;
  }
  if (agent && where.length === 2 && issue.code === 'invalid_type')
    return `${agent} must be an object with a 'command' and optional 'args'`;
  if (agent && where[2] === 'args') return `${agent}: 'args' must be a list of strings`;
  if (agent && where[2] === 'command') {
    return issue.code === 'invalid_type'
      ? `${agent}: 'command' must be a string`
      : `${agent}: ${issue.message}`;
  }
  if (where.length === 0 || where[0] === 'agents')
    return `the file must be an object { "agents": { "NAME": { "command": …, "args": […] } } }`;
  return issue.message;
}

/** Reads the text of GROVE_HOME/agents.json; `where` names the file in messages. */
export function parseAcpAgents(text: string, where: string): AcpAgentsConfig {
  const refuse = (why: string): AcpAgentsConfig => ({
    agents: [],
    error: `${where}: ${why}; no agent of it is offered until it is fixed`,
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return refuse(`not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const parsed = AgentsFile.safeParse(json);
  if (!parsed.success) {
    const [first] = parsed.error.issues;
    return refuse(first ? issueWords(first) : 'not an agents file');
  }
  const agents: AcpAgentSpec[] = [];
  for (const [name, entry] of Object.entries(parsed.data.agents)) {
    if (PROVIDERS.some((p) => p.id === name))
      return refuse(`the name '${name}' is a built-in agent's; give the ACP agent another name`);
    if (!NAME.test(name))
      return refuse(
        `the name '${name}' is not allowed (lower-case letters, digits, '-' and '_', at most 32)`,
      );
    agents.push({
      id: acpAgentId(name),
      name,
      command: entry.command.trim(),
      args: entry.args ?? [],
    });
  }
  return { agents, error: null };
}

/** The configured agent a name (`opencode`) or id (`acp:opencode`) names, if any. */
export function findAcpAgent(config: AcpAgentsConfig, nameOrId: string): AcpAgentSpec | undefined {
  return config.agents.find((a) => a.name === nameOrId || a.id === nameOrId);
}
