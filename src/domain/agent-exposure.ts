// What of the person's environment and files a confined agent sees: the
// settings that widen the environment allow-list and change the list of
// hidden secrets (infra/agent/confine/agent-env.ts and host-exposure.ts apply them).

/** More environment variable names an agent gets (comma-separated; `NAME_*` for a prefix). */
export const PASS_ENV_KEY = 'agents.passEnv';
/** Files and folders hidden from agents (comma-separated; `~/` is the home folder). */
export const HIDDEN_PATHS_KEY = 'agents.hiddenPaths';

/** Secrets on disk an agent never needs, hidden unless the setting says otherwise. */
export const DEFAULT_HIDDEN_PATHS: readonly string[] = [
  '~/.ssh',
  '~/.aws',
  '~/.netrc',
  '~/.npmrc',
  '~/.docker',
  '~/.kube',
  '~/.gnupg',
  '~/.config/gcloud',
  '~/.azure',
  '~/.pgpass',
  '~/.pypirc',
  '~/.vault-token',
  '~/.password-store',
  '~/.cargo/credentials',
  '~/.cargo/credentials.toml',
  '~/.gem/credentials',
  '~/.config/hub',
  '~/.huggingface',
  '~/.cache/huggingface/token',
];

/**
 * Variables that hand the agent a way out of its sandbox (a terminal
 * multiplexer, a key agent, a desktop or container socket): never passed,
 * whatever the setting says.
 */
export const NEVER_PASSED: ReadonlySet<string> = new Set([
  'TMUX',
  'TMUX_PANE',
  'STY',
  'SSH_AUTH_SOCK',
  'SSH_AGENT_PID',
  'SSH_ASKPASS',
  'GPG_AGENT_INFO',
  'DBUS_SESSION_BUS_ADDRESS',
  'DBUS_SYSTEM_BUS_ADDRESS',
  'DISPLAY',
  'WAYLAND_DISPLAY',
  'XAUTHORITY',
  'DOCKER_HOST',
  'CONTAINER_HOST',
  'XDG_RUNTIME_DIR',
  'GROVE_HOME',
]);

export interface ExposurePolicy {
  /** Extra variable names (exact, or a prefix ending in `*`). */
  readonly passEnv: readonly string[];
  /** Paths hidden from agents, `~/` not yet expanded. */
  readonly hiddenPaths: readonly string[];
}

export const DEFAULT_EXPOSURE: ExposurePolicy = { passEnv: [], hiddenPaths: DEFAULT_HIDDEN_PATHS };

function listOf(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

/** Why the extra-variables setting cannot be stored, or null. */
export function validatePassEnv(value: string): string | null {
  for (const name of listOf(value)) {
    if (!NAME.test(name))
      return `Agent environment: "${name}" is not a variable name (examples: NPM_CONFIG_REGISTRY, MY_TOOL_*).`;
    if (NEVER_PASSED.has(name.toUpperCase()))
      return `Agent environment: ${name} is never passed to agents: it opens a way out of the sandbox.`;
  }
  return null;
}

/** Why the hidden-paths setting cannot be stored, or null. */
export function validateHiddenPaths(value: string): string | null {
  for (const path of listOf(value))
    if (!path.startsWith('/') && !path.startsWith('~/'))
      return `Hidden from agents: "${path}" is neither an absolute path nor one in the home folder (~/...).`;
  return null;
}

/** The policy from the two settings; unset: no extra variables and the default hidden list. */
export function exposurePolicy(
  passEnv: string | undefined,
  hiddenPaths: string | undefined,
): ExposurePolicy {
  return {
    passEnv: listOf(passEnv ?? '').filter(
      (name) => NAME.test(name) && !NEVER_PASSED.has(name.toUpperCase()),
    ),
    hiddenPaths:
      hiddenPaths === undefined
        ? DEFAULT_HIDDEN_PATHS
        : listOf(hiddenPaths).filter((p) => p.startsWith('/') || p.startsWith('~/')),
  };
}
