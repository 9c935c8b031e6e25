import type { MentionForm } from './mentions.js';

/**
 * The agent providers Grove knows, as data. Strategy code (command lines,
 * wire formats) lives in infra/agent; this table is what the UI and the
 * settings need to offer choices.
 */
export type BuiltinProviderId = 'claude' | 'codex' | 'gemini';

/**
 * An agent CLI the person named in GROVE_HOME/agents.json (any command that
 * speaks the Agent Client Protocol), as `acp:<name>`: the prefix keeps it
 * apart from the built-in agents wherever an id is read back.
 */
export type AcpAgentId = `acp:${string}`;

export type ProviderId = BuiltinProviderId | AcpAgentId;

export type Transport = 'cli' | 'app-server';

export interface ProviderInfo {
  readonly id: ProviderId;
  readonly name: string;
  readonly binary: string;
  readonly models: readonly string[];
  readonly defaultModel: string;
  /** The cheap model used for titles and commit messages. */
  readonly fastModel: string;
  readonly reasoningLevels: readonly string[];
  readonly defaultReasoning: string;
  readonly transport: Transport;
  /** How the person signs the CLI in, shown when a turn fails on auth. */
  readonly authHint: string;
  /** How the CLI takes a file named in a prompt: `@path`, or the plain path. */
  readonly fileMentions: MentionForm;
  /** Whether a turn can carry images (attached in the composer). */
  readonly images: boolean;
}

export type BuiltinProviderInfo = ProviderInfo & { readonly id: BuiltinProviderId };

/** The built-in agents, in the order defaults follow. */
export const PROVIDERS: readonly BuiltinProviderInfo[] = [
  {
    id: 'claude',
    name: 'Claude Code',
    binary: 'claude',
    // Claude Code resolves these aliases to the newest model of each family.
    models: ['sonnet', 'opus', 'haiku'],
    defaultModel: 'sonnet',
    fastModel: 'haiku',
    reasoningLevels: ['low', 'medium', 'high', 'xhigh', 'max'],
    defaultReasoning: 'high',
    transport: 'cli',
    authHint: 'set ANTHROPIC_API_KEY or run `claude` once to log in',
    // Claude Code reads `@path` in a prompt, images included.
    fileMentions: 'at-path',
    images: true,
  },
  {
    id: 'codex',
    name: 'Codex',
    binary: 'codex',
    models: ['gpt-6.1-sol', 'gpt-6.1-terra', 'gpt-6-luna', 'gpt-5.5'],
    defaultModel: 'gpt-6.1-sol',
    fastModel: 'gpt-6-luna',
    reasoningLevels: ['low', 'medium', 'high', 'xhigh'],
    defaultReasoning: 'high',
    transport: 'app-server',
    authHint: 'set OPENAI_API_KEY or run `codex login`',
    // The app-server's text input has no `@` syntax; images are `localImage` input items.
    fileMentions: 'plain-path',
    images: true,
  },
  {
    id: 'gemini',
    name: 'Gemini CLI',
    binary: 'gemini',
    models: ['auto', 'gemini-3.8-flash', 'gemini-3.5-flash-lite'],
    defaultModel: 'auto',
    fastModel: 'gemini-3.5-flash-lite',
    reasoningLevels: ['default'],
    defaultReasoning: 'default',
    transport: 'app-server',
    authHint: 'set GEMINI_API_KEY (Google-account login does not work headless)',
    // Gemini CLI reads `@path`; ACP prompts take image content blocks.
    fileMentions: 'at-path',
    images: true,
  },
];

const ACP_PREFIX = 'acp:';

export function isAcpAgentId(id: string): id is AcpAgentId {
  return id.startsWith(ACP_PREFIX) && id.length > ACP_PREFIX.length;
}

export function acpAgentId(name: string): AcpAgentId {
  return `acp:${name}`;
}

/** The name the person gave an ACP agent (`opencode` for `acp:opencode`); a built-in id as it is. */
export function agentName(id: string): string {
  return isAcpAgentId(id) ? id.slice(ACP_PREFIX.length) : id;
}

/** The built-in agent an id names, or null for an ACP agent. */
export function builtinProvider(id: ProviderId): BuiltinProviderId | null {
  return isAcpAgentId(id) ? null : id;
}

/**
 * What Grove knows of an ACP agent from its id alone: one model and one
 * reasoning level (the agent's own choice), plain paths in prompts, no images.
 */
function acpAgentInfo(id: AcpAgentId): ProviderInfo {
  const name = agentName(id);
  return {
    id,
    name,
    binary: name,
    models: ['default'],
    defaultModel: 'default',
    fastModel: 'default',
    reasoningLevels: ['default'],
    defaultReasoning: 'default',
    transport: 'app-server',
    authHint: `sign ${name} in as its own documentation says (run it once outside Grove)`,
    fileMentions: 'plain-path',
    images: false,
  };
}

export function providerInfo(id: string): ProviderInfo | undefined {
  if (isAcpAgentId(id)) return acpAgentInfo(id);
  return PROVIDERS.find((provider) => provider.id === id);
}

export function isProviderId(id: string): id is ProviderId {
  return isAcpAgentId(id) || PROVIDERS.some((provider) => provider.id === id);
}

/** A choice of agent, model and reasoning level, as stored in settings. */
export interface ModelChoice {
  readonly agent: ProviderId;
  readonly model: string;
  readonly reasoning: string;
}

export function defaultChoice(id: ProviderId, role: 'main' | 'fast' | 'review'): ModelChoice {
  const info = providerInfo(id);
  if (!info) throw new Error(`Unknown provider ${id}`);
  return {
    agent: id,
    model: role === 'fast' ? info.fastModel : info.defaultModel,
    reasoning:
      role === 'fast' ? (info.reasoningLevels[0] ?? info.defaultReasoning) : info.defaultReasoning,
  };
}
