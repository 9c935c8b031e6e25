import { describe, expect, it } from 'vitest';
import { findAcpAgent, parseAcpAgents } from '../../src/domain/acp-agents.js';
import { providerInfo } from '../../src/domain/providers.js';
import {
  ACP_AGENTS_KEY,
  INSTALLED_AGENTS_KEY,
  SETTING_ROWS,
  settingValue,
} from '../../src/domain/settings.js';
import { argChoices, parseSlash } from '../../src/domain/slash-commands.js';
import { agentEnvironment } from '../../src/infra/agent/confine/agent-env.js';
import { agentAllowList } from '../../src/infra/agent/confine/network.js';
import { stateFolders } from '../../src/infra/agent/confine/writable-paths.js';

const WHERE = '/home/me/.grove/agents.json';
const parse = (value: unknown): ReturnType<typeof parseAcpAgents> =>
  parseAcpAgents(typeof value === 'string' ? value : JSON.stringify(value), WHERE);

describe('agents.json', () => {
  it('names ACP agents by a name and a command with arguments', () => {
    const config = parse({
      agents: { opencode: { command: 'opencode', args: ['acp'] }, goose: { command: 'goose' } },
    });

    expect(config.error).toBeNull();
    expect(config.agents).toEqual([
      { id: 'acp:opencode', name: 'opencode', command: 'opencode', args: ['acp'] },
      { id: 'acp:goose', name: 'goose', command: 'goose', args: [] },
    ]);
    expect(findAcpAgent(config, 'goose')?.id).toBe('acp:goose');
    expect(findAcpAgent(config, 'acp:opencode')?.name).toBe('opencode');
  });

  it.each([
    [
      'an unknown field of an agent',
      { agents: { kimi: { command: 'kimi', argv: ['--acp'] } } },
      "agent 'kimi' has an unknown field 'argv' (known: 'command', 'args')",
    ],
    [
      'an unknown field of the file',
      { agents: {}, timeout: 5 },
      "the file has an unknown field 'timeout' (known: 'agents')",
    ],
    [
      'an empty command',
      { agents: { qwen: { command: '  ' } } },
      "agent 'qwen': its command is empty",
    ],
    ['no command', { agents: { qwen: { args: [] } } }, "agent 'qwen': 'command' must be a string"],
    [
      'arguments that are not strings',
      { agents: { qwen: { command: 'qwen', args: '--acp' } } },
      "agent 'qwen': 'args' must be a list of strings",
    ],
    [
      "a built-in agent's name",
      { agents: { claude: { command: 'claude-code-acp' } } },
      "the name 'claude' is a built-in agent's; give the ACP agent another name",
    ],
    [
      'a name with a space',
      { agents: { 'my agent': { command: 'x' } } },
      "the name 'my agent' is not allowed",
    ],
    ['text that is not JSON', '{ agents: ', 'not JSON'],
    ['a list instead of an object', [], 'the file must be an object'],
  ])('refuses %s, offering none of its agents and saying why', (_what, value, words) => {
    const config = parse(value);

    expect(config.agents).toEqual([]);
    expect(config.error).toContain(words);
    expect(config.error).toMatch(new RegExp(`^${WHERE}: `));
    expect(config.error).toContain('no agent of it is offered until it is fixed');
  });

  it('refuses the whole file when one agent of it is wrong', () => {
    const config = parse({ agents: { goose: { command: 'goose' }, codex: { command: 'x' } } });

    expect(config.agents).toEqual([]);
    expect(config.error).toContain("the name 'codex' is a built-in agent's");
  });
});

describe('an ACP agent where agents are chosen', () => {
  it('has one model and one reasoning level, the agent’s own, and takes no images', () => {
    const info = providerInfo('acp:opencode');

    expect(info).toMatchObject({
      id: 'acp:opencode',
      name: 'opencode',
      models: ['default'],
      reasoningLevels: ['default'],
      images: false,
    });
  });

  it('is offered by /agent under its name, and /agent NAME picks it', () => {
    const context = { agent: 'claude', acpAgents: ['acp:opencode'] };

    expect(argChoices('agent', context).map((c) => c.value)).toEqual([
      'claude',
      'codex',
      'gemini',
      'opencode',
    ]);
    expect(parseSlash('/agent opencode', context)).toEqual({
      kind: 'run',
      action: { name: 'agent', agent: 'acp:opencode' },
    });
    expect(parseSlash('/agent opencode', { agent: 'claude' }).kind).toBe('error');
  });

  it('is a choice of the main model’s agent in Settings', () => {
    const row = SETTING_ROWS.find((r) => r.key === 'main.agent');

    expect(row?.choices({ [ACP_AGENTS_KEY]: 'acp:opencode,acp:goose' })).toEqual([
      'claude',
      'codex',
      'gemini',
      'acp:opencode',
      'acp:goose',
    ]);
  });
});

describe("an ACP agent's confinement", () => {
  const host = {
    PATH: '/usr/bin',
    HOME: '/h',
    ANTHROPIC_API_KEY: 'a',
    OPENAI_API_KEY: 'o',
    GEMINI_API_KEY: 'g',
    GITHUB_TOKEN: 't',
    OPENROUTER_API_KEY: 'r',
  };

  it('gets the common variables and the extra names only, no built-in CLI’s keys', () => {
    const env = agentEnvironment(host, {
      provider: 'acp:opencode',
      args: [],
      home: '/h',
      passEnv: ['OPENROUTER_API_KEY'],
    });

    expect(env).toEqual({ PATH: '/usr/bin', HOME: '/h', OPENROUTER_API_KEY: 'r' });
  });

  it('gets no folder of the person’s to write', () => {
    expect(stateFolders('acp:opencode', {}, '/h')).toEqual({
      dirs: [],
      files: [],
      copies: [],
      protect: [],
    });
  });

  it('reaches no model API host Grove knows of, only the servers its environment names', () => {
    const { allow } = agentAllowList(
      'acp:opencode',
      { OPENAI_BASE_URL: 'https://llm.example.com/v1' },
      [],
      '/h',
      [],
    );

    expect(allow.map((a) => a.host)).toEqual(['llm.example.com']);
  });
});

describe('an ACP agent chosen in Settings', () => {
  it('stays chosen where agents.json was not read, instead of becoming another agent', () => {
    const row = SETTING_ROWS.find((r) => r.key === 'main.agent');
    if (!row) throw new Error('no main.agent row');

    expect(settingValue(row, { 'main.agent': 'acp:opencode' })).toBe('acp:opencode');
    expect(settingValue(row, { 'main.agent': 'nobody' })).toBe('claude');
  });
});

describe('agents not chosen', () => {
  const rows = (key: string) => {
    const row = SETTING_ROWS.find((r) => r.key === key);
    if (!row) throw new Error(`no ${key} row`);
    return row;
  };

  it('follow an installed ACP agent that is the main agent, for titles, commit messages and reviews', () => {
    const values = {
      [INSTALLED_AGENTS_KEY]: 'codex,acp:opencode',
      [ACP_AGENTS_KEY]: 'acp:opencode',
      'main.agent': 'acp:opencode',
    };

    expect(settingValue(rows('fast.agent'), values)).toBe('acp:opencode');
    expect(settingValue(rows('review.agent'), values)).toBe('acp:opencode');
  });

  it('are the first built-in agent installed, an ACP agent only when none is', () => {
    expect(
      settingValue(rows('main.agent'), {
        [INSTALLED_AGENTS_KEY]: 'gemini,acp:opencode',
        [ACP_AGENTS_KEY]: 'acp:opencode',
      }),
    ).toBe('gemini');
    expect(
      settingValue(rows('main.agent'), {
        [INSTALLED_AGENTS_KEY]: 'acp:opencode',
        [ACP_AGENTS_KEY]: 'acp:opencode',
      }),
    ).toBe('acp:opencode');
  });
});
