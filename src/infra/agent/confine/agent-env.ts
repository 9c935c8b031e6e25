import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NEVER_PASSED } from '../../../domain/agent-exposure.js';
import {
  builtinProvider,
  type BuiltinProviderId,
  type ProviderId,
} from '../../../domain/providers.js';
import { isForgeSecret } from './sandbox.js';

// The agent's environment is an allow-list: what every CLI and its tools need
// (path, home, locale, terminal, proxies, certificates), what its own
// provider needs (its API key and base URL variables, its config folders),
// and the names the person added (setting agents.passEnv). Everything else —
// other providers' keys, cloud credentials, TMUX, SSH_AUTH_SOCK, D-Bus,
// display and container sockets — stays with Grove.

/** Needed by every CLI and the commands it runs. */
const COMMON_NAMES: ReadonlySet<string> = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TERM',
  'COLORTERM',
  'TZ',
  'TMPDIR',
  'NO_COLOR',
  'FORCE_COLOR',
  'COLUMNS',
  'LINES',
  'EDITOR',
  'VISUAL',
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
  'HTTPS_PROXY',
  'https_proxy',
  'HTTP_PROXY',
  'http_proxy',
  'ALL_PROXY',
  'all_proxy',
  'NO_PROXY',
  'no_proxy',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  'IS_SANDBOX',
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
]);
const COMMON_PREFIXES: readonly string[] = ['LC_'];

interface ProviderVariables {
  readonly names: readonly string[];
  readonly prefixes: readonly string[];
}

/** Each CLI's own variables (API keys, base URLs, config folders, switches). */
const PROVIDER_VARIABLES: Record<BuiltinProviderId, ProviderVariables> = {
  claude: {
    names: [
      'MAX_THINKING_TOKENS',
      'MAX_MCP_OUTPUT_TOKENS',
      'MCP_TIMEOUT',
      'MCP_TOOL_TIMEOUT',
      'BASH_DEFAULT_TIMEOUT_MS',
      'BASH_MAX_TIMEOUT_MS',
      'BASH_MAX_OUTPUT_LENGTH',
      'USE_BUILTIN_RIPGREP',
    ],
    prefixes: ['ANTHROPIC_', 'CLAUDE_', 'DISABLE_'],
  },
  codex: { names: ['RUST_LOG'], prefixes: ['OPENAI_', 'CODEX_'] },
  gemini: { names: [], prefixes: ['GEMINI_', 'GOOGLE_'] },
};

/** Cloud credentials Claude Code uses only when told to (Bedrock, Vertex AI). */
function cloudVariables(provider: ProviderId, env: NodeJS.ProcessEnv): ProviderVariables {
  if (provider !== 'claude') return { names: [], prefixes: [] };
  const prefixes: string[] = [];
  if (env['CLAUDE_CODE_USE_BEDROCK']) prefixes.push('AWS_');
  if (env['CLAUDE_CODE_USE_VERTEX']) prefixes.push('GOOGLE_', 'CLOUDSDK_', 'VERTEX_REGION_');
  return { names: env['CLAUDE_CODE_USE_VERTEX'] ? ['CLOUD_ML_REGION'] : [], prefixes };
}

/** `env_key = "NAME"` and `env_http_headers` values: variables a Codex model provider reads. */
const CODEX_ENV_KEY = /\benv_key\s*=\s*["']([A-Za-z_][A-Za-z0-9_]*)["']/g;
const CODEX_HEADER_TABLE = /\benv_http_headers\s*=\s*\{([^}]*)\}/g;
const TOML_VALUE = /=\s*["']([A-Za-z_][A-Za-z0-9_]*)["']/g;

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** The variables Codex's model providers name, in its config.toml and in `-c` arguments. */
export function codexProviderVariables(
  env: NodeJS.ProcessEnv,
  args: readonly string[],
  home: string,
): string[] {
  const texts = [readText(join(env['CODEX_HOME'] || join(home, '.codex'), 'config.toml')), ...args];
  const names: string[] = [];
  for (const text of texts) {
    for (const match of text.matchAll(CODEX_ENV_KEY)) names.push(match[1] ?? '');
    for (const table of text.matchAll(CODEX_HEADER_TABLE))
      for (const match of (table[1] ?? '').matchAll(TOML_VALUE)) names.push(match[1] ?? '');
  }
  return names.filter((n) => n.length > 0);
}

function matches(name: string, names: ReadonlySet<string>, prefixes: readonly string[]): boolean {
  return names.has(name) || prefixes.some((p) => name.startsWith(p));
}

/** What one launch passes on: the provider, the CLI's arguments, and the person's extra names. */
export interface AgentEnvOptions {
  readonly provider: ProviderId;
  readonly args: readonly string[];
  readonly home: string;
  /** Setting agents.passEnv: exact names, or prefixes ending in `*`. */
  readonly passEnv: readonly string[];
}

/**
 * The agent's environment: only the allowed variables of `env`. Never a
 * variable of NEVER_PASSED nor a forge credential, whatever else allows it.
 */
export function agentEnvironment(
  env: NodeJS.ProcessEnv,
  options: AgentEnvOptions,
): NodeJS.ProcessEnv {
  // An agent named in agents.json: the common variables and the setting's extra names only.
  const builtin = builtinProvider(options.provider);
  const own = builtin ? PROVIDER_VARIABLES[builtin] : { names: [], prefixes: [] };
  const cloud = cloudVariables(options.provider, env);
  const extraNames = options.passEnv.filter((n) => !n.endsWith('*'));
  const names = new Set([
    ...COMMON_NAMES,
    ...own.names,
    ...cloud.names,
    ...extraNames,
    ...(options.provider === 'codex'
      ? codexProviderVariables(env, options.args, options.home)
      : []),
  ]);
  const prefixes = [
    ...COMMON_PREFIXES,
    ...own.prefixes,
    ...cloud.prefixes,
    ...options.passEnv.filter((n) => n.endsWith('*')).map((n) => n.slice(0, -1)),
  ];
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || NEVER_PASSED.has(name.toUpperCase()) || isForgeSecret(name))
      continue;
    if (matches(name, names, prefixes)) out[name] = value;
  }
  return out;
}
