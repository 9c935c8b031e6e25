import {
  DEFAULT_HIDDEN_PATHS,
  HIDDEN_PATHS_KEY,
  PASS_ENV_KEY,
  validateHiddenPaths,
  validatePassEnv,
} from './agent-exposure.js';
import {
  APPROVAL_TIMEOUT_KEY,
  DEFAULT_APPROVAL_TIMEOUT,
  validateApprovalTimeout,
} from './approval.js';
import {
  DEFAULT_MEMORY_FLOOR,
  MAX_TURNS_KEY,
  MEMORY_FLOOR_KEY,
  validateMaxTurns,
  validateMemoryFloor,
} from './admission.js';
import { MCP_IRREVERSIBLE_KEY } from './confirmation.js';
import { MEMORY_MAX_KEY, TASKS_MAX_KEY, validateMemoryMax, validateTasksMax } from './limits.js';
import { NETWORK_ALLOW_KEY, NETWORK_MODE_KEY, validateAllowList } from './network.js';
import {
  SHARED_FOLDERS_KEY,
  SHARE_MODE_KEY,
  SHARE_MODES,
  validateSharedFolders,
} from './shared-folders.js';
import { PROVIDERS, isAcpAgentId, providerInfo, type ProviderId } from './providers.js';
import { sessionHookRows } from './session-hook.js';
import { ciFixerRows } from './ci-fixer.js';
import { DEFAULT_HOST_KEY, LOCAL_HOST_NAME, knownHosts, unknownHostProblem } from './host.js';

import type { SettingRow, SettingValues } from './setting-row.js';

export type { SettingRow, SettingScope, SettingValues } from './setting-row.js';

const ROLES = [
  ['main', 'Main model', 'runs session turns'],
  ['fast', 'Fast model', 'writes titles and commit messages'],
  ['review', 'Review model', 'writes focused reviews'],
] as const;

export type ModelRole = (typeof ROLES)[number][0];

/**
 * Not a stored setting: the agent CLIs found on PATH (comma-separated ids),
 * merged into the values by whoever knows them, so that the agent defaults
 * follow what is installed.
 */
export const INSTALLED_AGENTS_KEY = 'agents.installed';

/**
 * Not a stored setting: the ACP agents named in GROVE_HOME/agents.json
 * (comma-separated `acp:` ids), merged into the values like the installed
 * agents, so that they are offered where an agent is chosen.
 */
export const ACP_AGENTS_KEY = 'agents.acp';

/**
 * The agents a person can choose: the built-in ones, then the ACP agents of
 * agents.json, then `chosen` when it is an ACP agent not (or not yet) among
 * them: a choice stays what the person made it even where the file was not
 * read, and an agent the file no longer names fails its turn in words
 * instead of silently becoming another agent.
 */
export function agentChoices(values: SettingValues, chosen?: string): ProviderId[] {
  const acp = (values[ACP_AGENTS_KEY] ?? '').split(',').filter(isAcpAgentId);
  const kept =
    chosen !== undefined && isAcpAgentId(chosen) && !acp.includes(chosen) ? [chosen] : [];
  return [...PROVIDERS.map((p) => p.id), ...acp, ...kept];
}

function installedAgents(values: SettingValues): ProviderId[] {
  const listed = values[INSTALLED_AGENTS_KEY];
  if (listed === undefined) return [];
  const ids = listed.split(',');
  return [
    ...PROVIDERS.map((p) => p.id).filter((id) => ids.includes(id)),
    ...ids.filter(isAcpAgentId),
  ];
}

/**
 * The agent of a role the person has not chosen: the main agent's (for the
 * fast and review roles) when it is installed, else the first installed one
 * (Claude Code, Codex, Gemini CLI in that order, then the ACP agents of
 * agents.json whose command is found), else Claude Code.
 */
export function defaultAgent(values: SettingValues, role: ModelRole): ProviderId {
  const installed = installedAgents(values);
  const known = values[INSTALLED_AGENTS_KEY] !== undefined;
  if (role !== 'main') {
    const main = agentOf(values, 'main');
    if (!known || installed.includes(main)) return main;
  }
  return installed[0] ?? 'claude';
}

function agentOf(values: SettingValues, role: ModelRole): ProviderId {
  const stored = providerInfo(values[`${role}.agent`] ?? '')?.id;
  return stored ?? defaultAgent(values, role);
}

function roleRows(role: ModelRole, label: string, purpose: string): SettingRow[] {
  return [
    {
      key: `${role}.agent`,
      label: `${label}: agent`,
      scope: 'project',
      kind: 'choice',
      description: `The agent CLI that ${purpose}.`,
      choices: (values) => agentChoices(values, values[`${role}.agent`]),
      fallback: (values) => defaultAgent(values, role),
    },
    {
      key: `${role}.model`,
      label: `${label}: model`,
      scope: 'project',
      kind: 'choice',
      description: `The model that ${purpose}.`,
      choices: (values) => providerInfo(agentOf(values, role))?.models ?? [],
      fallback: (values) => {
        const info = providerInfo(agentOf(values, role));
        return (role === 'fast' ? info?.fastModel : info?.defaultModel) ?? '';
      },
    },
    {
      key: `${role}.reasoning`,
      label: `${label}: reasoning`,
      scope: 'project',
      kind: 'choice',
      description: 'How hard the model thinks (where the agent supports it).',
      choices: (values) => providerInfo(agentOf(values, role))?.reasoningLevels ?? [],
      fallback: (values) => {
        const info = providerInfo(agentOf(values, role));
        if (!info) return '';
        return role === 'fast'
          ? (info.reasoningLevels[0] ?? info.defaultReasoning)
          : info.defaultReasoning;
      },
    },
  ];
}

/** The retry budget for failing model requests (see modelRetries). */
export const MODEL_RETRIES_KEY = 'agents.modelRetries';

/** The retry budget a turn gets: a number, or null for the agent CLI's own limit. */
export function modelRetries(values: SettingValues): number | null {
  const row = SETTING_ROWS.find((r) => r.key === MODEL_RETRIES_KEY);
  const value = row ? settingValue(row, values) : 'default';
  return /^\d+$/.test(value) ? Number(value) : null;
}

/** The opt-out that lets agents run without the operating system's sandbox (off by default). */
export const ALLOW_UNCONFINED_KEY = 'agents.allowUnconfined';

/** Whether Grove's commits run the repository's hooks: off, or sandboxed (app/services/git-hooks.ts). */
export const GIT_HOOKS_KEY = 'git.hooks';

/** Budget settings (project rows; empty: no limit). See domain/budget.ts. */
export const BUDGET_KEYS = {
  sessionTokens: 'budget.sessionTokens',
  sessionUsd: 'budget.sessionUsd',
  projectTokens: 'budget.projectTokens',
  projectUsd: 'budget.projectUsd',
} as const;

/** Notification channels when a session needs you (each 'on' or 'off'). */
export const NOTIFY_KEYS = {
  bell: 'notify.bell',
  osc: 'notify.osc',
  desktop: 'notify.desktop',
} as const;

// The webhook channel (domain/webhook.ts builds what it sends).
export const WEBHOOK_KEYS = {
  /** Where to POST (empty: off). */
  url: 'notify.webhook',
  /** ntfy (plain text with a Title header) or json. */
  format: 'notify.webhookFormat',
} as const;

export const WEBHOOK_FORMATS = ['ntfy', 'json'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

export function webhookFormat(value: string | undefined): WebhookFormat {
  return value === 'json' ? 'json' : 'ntfy';
}

/** Why `value` cannot be the webhook's URL, or null when it can (empty turns the channel off). */
export function validateWebhookUrl(value: string): string | null {
  const text = value.trim();
  if (text === '') return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not a URL (for example https://ntfy.sh/my-grove-topic)';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return `only http and https URLs can be posted to, not ${url.protocol}`;
  if (url.username || url.password)
    return 'a URL with a user name or password cannot be posted to; use a token in the path or query (ntfy: ?auth=…)';
  return null;
}

/** Whether a notification channel is on (all are, unless turned off). */
export function notifyChannelOn(
  values: SettingValues,
  key: (typeof NOTIFY_KEYS)[keyof typeof NOTIFY_KEYS],
): boolean {
  return values[key] !== 'off';
}

function notifyRows(): SettingRow[] {
  const row = (key: string, label: string, description: string): SettingRow => ({
    key,
    label,
    scope: 'global',
    kind: 'choice',
    description,
    choices: () => ['on', 'off'],
    fallback: () => 'on',
  });
  return [
    row(
      NOTIFY_KEYS.bell,
      'Notify: terminal bell',
      'Ring the terminal bell when a session needs you (questions, ready for review, a failed merge, its pull request merged or closed).',
    ),
    row(
      NOTIFY_KEYS.osc,
      'Notify: terminal notification',
      'Send an OSC 9 and OSC 777 notification (shown by iTerm2, kitty, WezTerm, foot, Ghostty, Windows Terminal, and tmux with allow-passthrough) when a session needs you.',
    ),
    row(
      NOTIFY_KEYS.desktop,
      'Notify: desktop',
      'Show a desktop notification (notify-send on Linux, osascript on macOS, where available) when a session needs you.',
    ),
    {
      key: WEBHOOK_KEYS.url,
      label: 'Notify: webhook URL',
      scope: 'global',
      kind: 'text',
      description:
        'POST each new inbox item to this URL while the TUI runs (empty: off), for example an ntfy topic (https://ntfy.sh/your-topic) to reach your phone. What is sent: the session, the project, what waits and the grove command that acts on it; never a token or a path. At most one POST every 2 s and 10 a minute, retried with backoff.',
      choices: () => [],
      fallback: () => '',
      validate: validateWebhookUrl,
    },
    {
      key: WEBHOOK_KEYS.format,
      label: 'Notify: webhook format',
      scope: 'global',
      kind: 'choice',
      description:
        'ntfy: the text as the body with a Title header (ntfy, Gotify-style receivers); json: one JSON object with the item id, kind, title, message and command.',
      choices: () => [...WEBHOOK_FORMATS],
      fallback: () => 'ntfy',
    },
  ];
}

/** Whether `grove gc` runs when the TUI starts, and the age (days) it reclaims from. */
export const GC_ON_START_KEY = 'gc.onStart';
export const GC_DAYS_KEY = 'gc.days';

const TOKEN_AMOUNT = /^\s*(\d+(\.\d+)?\s*[kKmM]?)?\s*$/;
const DOLLAR_AMOUNT = /^\s*(\$?\s*\d+(\.\d+)?)?\s*$/;

function budgetRows(): SettingRow[] {
  const row = (key: string, label: string, description: string, money: boolean): SettingRow => ({
    key,
    label,
    scope: 'project',
    kind: 'text',
    description,
    choices: () => [],
    fallback: () => '',
    validate: (value) =>
      (money ? DOLLAR_AMOUNT : TOKEN_AMOUNT).test(value.replace(/[_,]/g, ''))
        ? null
        : money
          ? `${label}: give an amount in dollars such as 5 or 12.50 (empty: no limit).`
          : `${label}: give a number of tokens such as 500k or 2M (empty: no limit).`,
  });
  return [
    row(
      BUDGET_KEYS.sessionTokens,
      'Session budget (tokens)',
      'Tokens (input + output) a session may spend before Grove holds its next prompt and asks (e.g. 2M; empty: no limit).',
      false,
    ),
    row(
      BUDGET_KEYS.sessionUsd,
      'Session budget ($)',
      'US dollars a session may spend, priced with GROVE_HOME/prices.json (example prices: edit them), before Grove holds its next prompt and asks (empty: no limit).',
      true,
    ),
    row(
      BUDGET_KEYS.projectTokens,
      'Project budget (tokens)',
      "Tokens all of this project's sessions together may spend before Grove holds new prompts and asks (empty: no limit).",
      false,
    ),
    row(
      BUDGET_KEYS.projectUsd,
      'Project budget ($)',
      "US dollars all of this project's sessions together may spend, priced with GROVE_HOME/prices.json, before Grove holds new prompts and asks (empty: no limit).",
      true,
    ),
  ];
}

export const SETTING_ROWS: readonly SettingRow[] = [
  ...ROLES.flatMap(([role, label, purpose]) => roleRows(role, label, purpose)),
  {
    key: 'worktree.dir',
    label: 'Worktree folder',
    scope: 'project',
    kind: 'text',
    description: 'Where session worktrees are created (empty: GROVE_HOME/wt).',
    choices: () => [],
    fallback: () => '',
  },
  {
    key: DEFAULT_HOST_KEY,
    label: 'Default host',
    scope: 'project',
    kind: 'text',
    description: `Where this project's new sessions run: ${LOCAL_HOST_NAME} (this machine), the name of a host (grove host add NAME DEST), or auto (this machine or a host with room, chosen when each new session's first turn starts). grove run --host NAME (or --host ${LOCAL_HOST_NAME}) and /host in the composer choose otherwise for one session. Only Claude Code, Codex and Gemini CLI run on hosts yet (not the agents of agents.json).`,
    choices: () => [],
    fallback: () => LOCAL_HOST_NAME,
    validate: (value, values) => unknownHostProblem(value, knownHosts(values ?? {})),
  },
  {
    key: 'setup.command',
    label: 'Setup command',
    scope: 'project',
    kind: 'text',
    description:
      'Runs in each new worktree (GROVE_WORKTREE, GROVE_SESSION_ID, GROVE_BASE_BRANCH are set).',
    choices: () => [],
    fallback: () => '',
  },
  {
    key: SHARED_FOLDERS_KEY,
    label: 'Shared folders',
    scope: 'project',
    kind: 'text',
    description:
      'Folders of the main checkout a new worktree shares instead of installing again, comma-separated (node_modules, .venv, target); only folders git ignores.',
    choices: () => [],
    fallback: () => '',
    validate: validateSharedFolders,
  },
  {
    key: SHARE_MODE_KEY,
    label: 'Share folders as',
    scope: 'project',
    kind: 'choice',
    description:
      'clone: a copy-on-write clone where the file system makes one, else nothing. symlink: a clone, else a link into the main checkout, read-only to agents.',
    choices: () => SHARE_MODES,
    fallback: () => 'clone',
  },
  {
    key: MEMORY_MAX_KEY,
    label: 'Memory limit per session',
    scope: 'project',
    kind: 'text',
    description:
      "The most memory each session's agent and everything it starts may use (4G, 512M; empty: none), enforced by the OS where it can (Linux cgroups); grove run --memory-max overrides it.",
    choices: () => [],
    fallback: () => '',
    validate: validateMemoryMax,
  },
  {
    key: TASKS_MAX_KEY,
    label: 'Process limit per session',
    scope: 'project',
    kind: 'text',
    description:
      "The most processes and threads each session's agent tree may have at once (512; empty: none), enforced by the OS where it can; grove run --tasks-max overrides it.",
    choices: () => [],
    fallback: () => '',
    validate: validateTasksMax,
  },
  {
    key: 'check.command',
    label: 'Check command',
    scope: 'project',
    kind: 'text',
    description:
      "Best-of-N: runs in each variant's worktree when all have finished (e.g. npm test); its result goes to the judge.",
    choices: () => [],
    fallback: () => '',
  },
  {
    key: 'check.timeout',
    label: 'Check timeout',
    scope: 'project',
    kind: 'choice',
    description:
      'How long the check command may run in each worktree before it is stopped (it then counts as failed).',
    choices: () => ['1m', '5m', '10m', '30m'],
    fallback: () => '5m',
  },
  {
    key: GIT_HOOKS_KEY,
    label: 'Repository hooks',
    scope: 'project',
    kind: 'choice',
    description:
      "Grove's own commits run no git hooks: an agent can edit them. sandboxed: pre-commit and commit-msg run inside the agent's sandbox before Grove commits.",
    choices: () => ['off', 'sandboxed'],
    fallback: () => 'off',
  },
  {
    key: 'git.statusInterval',
    label: 'Git status refresh',
    scope: 'global',
    kind: 'choice',
    description: 'How often Grove fetches and compares branches in the background.',
    choices: () => ['15s', '30s', '60s', '120s', 'off'],
    fallback: () => '30s',
  },
  {
    key: ALLOW_UNCONFINED_KEY,
    label: 'Run agents unconfined',
    scope: 'global',
    kind: 'choice',
    description:
      'Only when no sandbox engine (bubblewrap, Seatbelt) is available: run agents anyway, able to write anywhere you can and reach any host.',
    choices: () => ['off', 'on'],
    fallback: () => 'off',
  },
  {
    key: NETWORK_MODE_KEY,
    label: 'Agent network',
    scope: 'global',
    kind: 'choice',
    description:
      'What confined agents may reach: filtered (only the model APIs their CLI needs, model servers named in their environment, and the allowed hosts below) or open (any host). Unconfined agents are never filtered.',
    choices: () => ['filtered', 'open'],
    fallback: () => 'filtered',
  },
  {
    key: NETWORK_ALLOW_KEY,
    label: 'Agent network: allowed hosts',
    scope: 'global',
    kind: 'text',
    description:
      'More hosts confined agents may reach, comma-separated: example.com (ports 443 and 80), *.example.com (its subdomains), example.com:8443 (one port), 192.168.1.20:11434 (an address on this machine or your network needs its own entry with its port); * allows every host.',
    choices: () => [],
    fallback: () => '',
    validate: validateAllowList,
  },
  {
    key: PASS_ENV_KEY,
    label: 'Agent environment: more variables',
    scope: 'global',
    kind: 'text',
    description:
      "Environment variables agents get besides what their CLI needs (path, home, locale, terminal, proxies, their own provider's keys), comma-separated: NPM_CONFIG_REGISTRY, MY_TOOL_* (a prefix). TMUX, SSH_AUTH_SOCK, D-Bus, display and Docker variables and forge tokens are never passed.",
    choices: () => [],
    fallback: () => '',
    validate: validatePassEnv,
  },
  {
    key: HIDDEN_PATHS_KEY,
    label: 'Hidden from agents',
    scope: 'global',
    kind: 'text',
    description:
      "Files and folders agents cannot read, comma-separated (~/ is your home folder). GROVE_HOME, forge logins and the other agent CLIs' logins are always hidden.",
    choices: () => [],
    fallback: () => DEFAULT_HIDDEN_PATHS.join(', '),
    validate: validateHiddenPaths,
  },
  {
    key: MODEL_RETRIES_KEY,
    label: 'Model request retries',
    scope: 'global',
    kind: 'choice',
    description:
      "How often Gemini CLI may retry a failing model request before Grove stops the turn (default: Gemini CLI's own limit, general.maxAttempts, at most 9 retries). Each retry shows as progress.",
    choices: () => ['default', '0', '1', '2', '3', '5'],
    fallback: () => 'default',
  },
  {
    key: APPROVAL_TIMEOUT_KEY,
    label: 'Approval timeout',
    scope: 'global',
    kind: 'text',
    description:
      'How long a request an agent CLI holds for your approval (in the inbox) waits before it is denied, e.g. 30s, 10m, 1h.',
    choices: () => [],
    fallback: () => DEFAULT_APPROVAL_TIMEOUT,
    validate: validateApprovalTimeout,
  },
  {
    key: MCP_IRREVERSIBLE_KEY,
    label: 'MCP irreversible tools',
    scope: 'global',
    kind: 'choice',
    description:
      "on: grove mcp also offers grove_merge, grove_publish, grove_cancel, grove_approve (each only asks: nothing is done until you confirm it in the inbox, and unanswered it is refused after the approval timeout) and grove_deny (denies an agent's held request at once). off: none of these tools exist.",
    choices: () => ['off', 'on'],
    fallback: () => 'off',
  },
  {
    key: 'github.pollInterval',
    label: 'Pull request refresh',
    scope: 'global',
    kind: 'choice',
    description: 'How often Grove checks the GitHub pull requests of published sessions.',
    choices: () => ['30s', '60s', '120s', '300s', 'off'],
    fallback: () => '60s',
  },
  {
    key: MAX_TURNS_KEY,
    label: 'Most turns at once',
    scope: 'global',
    kind: 'text',
    description:
      'Agent turns running at once on this machine across Grove (every project, and grove run beside the TUI; turns on hosts count against their own maximum); more wait in the queue and start in order. auto: two per core, at most one per 2 GB of memory, at least 2. 0: none here (sessions placed with the host auto go to hosts).',
    choices: () => [],
    fallback: () => 'auto',
    validate: validateMaxTurns,
  },
  {
    key: MEMORY_FLOOR_KEY,
    label: 'Free memory a turn needs',
    scope: 'global',
    kind: 'text',
    description:
      "A new turn waits in the queue while the machine's available memory (MemAvailable) is below this, e.g. 2G or 512M; off: never waits for memory.",
    choices: () => [],
    fallback: () => DEFAULT_MEMORY_FLOOR,
    validate: validateMemoryFloor,
  },
  ...budgetRows(),
  ...ciFixerRows(),
  ...sessionHookRows(),
  ...notifyRows(),
  {
    key: GC_ON_START_KEY,
    label: 'Reclaim disk at start-up',
    scope: 'global',
    kind: 'choice',
    description:
      'Run grove gc when Grove starts: remove the worktrees of Done and Canceled sessions older than the age below, keeping any uncommitted work in refs/grove/snapshots/<id> first.',
    choices: () => ['off', 'on'],
    fallback: () => 'off',
  },
  {
    key: GC_DAYS_KEY,
    label: 'Reclaim after (days)',
    scope: 'global',
    kind: 'choice',
    description:
      'How long a Done or Canceled session keeps its worktree before grove gc (or the start-up reclaim) removes it.',
    choices: () => ['1', '7', '14', '30', '60', '90'],
    fallback: () => '14',
  },
];

export function settingValue(row: SettingRow, values: SettingValues): string {
  const stored = values[row.key];
  if (stored !== undefined && (row.kind === 'text' || row.choices(values).includes(stored)))
    return stored;
  return row.fallback(values);
}

/** The next (or previous) choice of a choice row. */
export function cycleSetting(row: SettingRow, values: SettingValues, step: 1 | -1): string {
  const choices = row.choices(values);
  if (choices.length === 0) return settingValue(row, values);
  const index = choices.indexOf(settingValue(row, values));
  return choices[(index + step + choices.length) % choices.length] ?? settingValue(row, values);
}

/** Changing an agent invalidates its model and reasoning choices. */
export function dependentKeys(key: string): string[] {
  const [role, field] = key.split('.');
  if (field === 'agent' && role) return [`${role}.model`, `${role}.reasoning`];
  return [];
}

export function parseInterval(value: string): number | null {
  const match = /^(\d+)s$/.exec(value);
  return match ? Number(match[1]) * 1000 : null;
}
