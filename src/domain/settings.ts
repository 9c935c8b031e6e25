import { PROVIDERS, providerInfo, type ProviderId } from './providers.js';

/** Settings keys Grove stores. Project rows live in `project_setting`, global ones in `setting`. */
export type SettingScope = 'global' | 'project';

export interface SettingRow {
  readonly key: string;
  readonly label: string;
  readonly scope: SettingScope;
  readonly kind: 'choice' | 'text';
  readonly description: string;
  /** Choices given the current values (for choice rows). */
  choices(values: SettingValues): readonly string[];
  fallback(values: SettingValues): string;
}

export type SettingValues = Readonly<Record<string, string>>;

const ROLES = [
  ['main', 'Main model', 'runs session turns'],
  ['fast', 'Fast model', 'writes titles and commit messages'],
  ['review', 'Review model', 'writes focused reviews'],
] as const;

export type ModelRole = (typeof ROLES)[number][0];

function agentOf(values: SettingValues, role: ModelRole): ProviderId {
  const stored = values[`${role}.agent`];
  return providerInfo(stored ?? '')?.id ?? 'claude';
}

function roleRows(role: ModelRole, label: string, purpose: string): SettingRow[] {
  return [
    {
      key: `${role}.agent`,
      label: `${label}: agent`,
      scope: 'project',
      kind: 'choice',
      description: `The agent CLI that ${purpose}.`,
      choices: () => PROVIDERS.map((p) => p.id),
      fallback: () => 'claude',
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
        return role === 'fast' ? (info.reasoningLevels[0] ?? info.defaultReasoning) : info.defaultReasoning;
      },
    },
  ];
}

/** The opt-out that lets agents run without the operating system's sandbox (off by default). */
export const ALLOW_UNCONFINED_KEY = 'agents.allowUnconfined';

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
    key: 'setup.command',
    label: 'Setup command',
    scope: 'project',
    kind: 'text',
    description: 'Runs in each new worktree (GROVE_WORKTREE, GROVE_SESSION_ID, GROVE_BASE_BRANCH are set).',
    choices: () => [],
    fallback: () => '',
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
    description: 'Only when no sandbox engine (bubblewrap, Seatbelt) is available: run agents anyway, able to write anywhere you can.',
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
];

export function settingValue(row: SettingRow, values: SettingValues): string {
  const stored = values[row.key];
  if (stored !== undefined && (row.kind === 'text' || row.choices(values).includes(stored))) return stored;
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
