import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  exposurePolicy,
  validateHiddenPaths,
  validatePassEnv,
  DEFAULT_HIDDEN_PATHS,
} from '../../src/domain/agent-exposure.js';
import type { ProviderId } from '../../src/domain/providers.js';
import { agentEnvironment } from '../../src/infra/agent/confine/agent-env.js';

// The agent's environment is an allow-list: its own provider's variables,
// what every CLI needs, and the names the person adds; never a socket, a
// forge token or another provider's key.

const HOST: NodeJS.ProcessEnv = {
  PATH: '/usr/bin:/bin',
  HOME: '/h',
  USER: 'u',
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  TERM: 'xterm-256color',
  HTTPS_PROXY: 'http://proxy.corp:3128',
  NODE_EXTRA_CA_CERTS: '/etc/corp.pem',
  ANTHROPIC_API_KEY: 'anthropic',
  ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
  CLAUDE_CONFIG_DIR: '/h/.claude',
  OPENAI_API_KEY: 'openai',
  OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
  CODEX_HOME: '/nonexistent/codex',
  GEMINI_API_KEY: 'gemini',
  GOOGLE_API_KEY: 'google',
  GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9',
  AWS_SECRET_ACCESS_KEY: 'aws',
  AWS_ACCESS_KEY_ID: 'aws-id',
  NPM_TOKEN: 'npm',
  HF_TOKEN: 'hf',
  VAULT_TOKEN: 'vault',
  GITHUB_TOKEN: 'ght',
  TMUX: '/tmp/tmux-1000/default,123,0',
  TMUX_PANE: '%1',
  SSH_AUTH_SOCK: '/tmp/ssh-x/agent.1',
  SSH_AGENT_PID: '12',
  DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
  DISPLAY: ':0',
  WAYLAND_DISPLAY: 'wayland-0',
  XAUTHORITY: '/h/.Xauthority',
  GPG_AGENT_INFO: '/h/.gnupg/S.gpg-agent:0:1',
  DOCKER_HOST: 'unix:///run/docker.sock',
  XDG_RUNTIME_DIR: '/run/user/1000',
  GROVE_HOME: '/h/.grove',
};

const NEVER = [
  'TMUX',
  'TMUX_PANE',
  'SSH_AUTH_SOCK',
  'SSH_AGENT_PID',
  'DBUS_SESSION_BUS_ADDRESS',
  'DISPLAY',
  'WAYLAND_DISPLAY',
  'XAUTHORITY',
  'GPG_AGENT_INFO',
  'DOCKER_HOST',
  'GITHUB_TOKEN',
  'AWS_SECRET_ACCESS_KEY',
  'NPM_TOKEN',
  'HF_TOKEN',
  'VAULT_TOKEN',
  'GROVE_HOME',
];

function envOf(provider: ProviderId, passEnv: string[] = [], host = HOST): NodeJS.ProcessEnv {
  return agentEnvironment(host, { provider, args: [], home: '/h', passEnv });
}

describe('the agent environment', () => {
  it.each([
    ['claude', ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'CLAUDE_CONFIG_DIR']],
    ['codex', ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'CODEX_HOME']],
    ['gemini', ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GEMINI_BASE_URL']],
  ] as const)('%s gets its own provider variables and no other provider key', (provider, own) => {
    const env = envOf(provider);
    for (const name of own) expect(env[name]).toBe(HOST[name]);
    const others = [
      'ANTHROPIC_API_KEY',
      'CLAUDE_CONFIG_DIR',
      'OPENAI_API_KEY',
      'CODEX_HOME',
      'GEMINI_API_KEY',
      'GOOGLE_API_KEY',
    ].filter((n) => !(own as readonly string[]).includes(n));
    for (const name of others) expect(env, name).not.toHaveProperty(name);
  });

  it.each(['claude', 'codex', 'gemini'] as const)(
    '%s gets path, home, locale, terminal, proxy and certificates, and never a socket or a secret',
    (provider) => {
      const env = envOf(provider);
      for (const name of [
        'PATH',
        'HOME',
        'USER',
        'LANG',
        'LC_ALL',
        'TERM',
        'HTTPS_PROXY',
        'NODE_EXTRA_CA_CERTS',
      ])
        expect(env[name], name).toBe(HOST[name]);
      for (const name of NEVER) expect(env, name).not.toHaveProperty(name);
    },
  );

  it('passes the names and prefixes the person added, but never a socket or forge token', () => {
    const env = envOf('claude', ['NPM_TOKEN', 'HF_*', 'TMUX', 'GITHUB_*', 'SSH_*']);

    expect(env['NPM_TOKEN']).toBe('npm');
    expect(env['HF_TOKEN']).toBe('hf');
    for (const name of ['TMUX', 'GITHUB_TOKEN', 'SSH_AUTH_SOCK', 'SSH_AGENT_PID'])
      expect(env, name).not.toHaveProperty(name);
  });

  it('gives Claude Code its cloud credentials only when it is set to use that cloud', () => {
    expect(envOf('claude')).not.toHaveProperty('AWS_SECRET_ACCESS_KEY');
    const bedrock = envOf('claude', [], { ...HOST, CLAUDE_CODE_USE_BEDROCK: '1' });
    expect(bedrock['AWS_SECRET_ACCESS_KEY']).toBe('aws');
    expect(envOf('codex', [], { ...HOST, CLAUDE_CODE_USE_BEDROCK: '1' })).not.toHaveProperty(
      'AWS_SECRET_ACCESS_KEY',
    );
  });

  describe('for Codex', () => {
    let dir: string | null = null;
    afterEach(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
      dir = null;
    });

    it('passes the key variables its config.toml and -c arguments name', () => {
      dir = mkdtempSync(join(tmpdir(), 'grove-agent-env-'));
      mkdirSync(join(dir, 'codex'));
      writeFileSync(
        join(dir, 'codex', 'config.toml'),
        '[model_providers.azure]\nenv_key = "AZURE_OPENAI_API_KEY"\nenv_http_headers = { "X-Org" = "MY_ORG_HEADER" }\n',
      );
      const host = {
        ...HOST,
        CODEX_HOME: join(dir, 'codex'),
        AZURE_OPENAI_API_KEY: 'azure',
        MY_ORG_HEADER: 'org',
        FROM_ARG_KEY: 'arg',
      };
      const env = agentEnvironment(host, {
        provider: 'codex',
        args: ['app-server', '-c', 'model_providers.x.env_key="FROM_ARG_KEY"'],
        home: '/h',
        passEnv: [],
      });

      expect(env['AZURE_OPENAI_API_KEY']).toBe('azure');
      expect(env['MY_ORG_HEADER']).toBe('org');
      expect(env['FROM_ARG_KEY']).toBe('arg');
      expect(envOf('claude', [], host)).not.toHaveProperty('AZURE_OPENAI_API_KEY');
    });
  });
});

describe('the exposure settings', () => {
  it('hide the default secrets when unset, and exactly the listed paths when set', () => {
    expect(exposurePolicy(undefined, undefined).hiddenPaths).toEqual(DEFAULT_HIDDEN_PATHS);
    expect(DEFAULT_HIDDEN_PATHS).toEqual(
      expect.arrayContaining([
        '~/.ssh',
        '~/.aws',
        '~/.netrc',
        '~/.npmrc',
        '~/.docker',
        '~/.kube',
        '~/.gnupg',
        '~/.config/gcloud',
      ]),
    );
    expect(exposurePolicy('', '~/.ssh, /srv/secrets').hiddenPaths).toEqual([
      '~/.ssh',
      '/srv/secrets',
    ]);
    expect(exposurePolicy('NPM_TOKEN, HF_*, TMUX', undefined).passEnv).toEqual([
      'NPM_TOKEN',
      'HF_*',
    ]);
  });

  it('refuse a variable that opens a way out, a bad name, and a relative path, in words', () => {
    expect(validatePassEnv('NPM_TOKEN, HF_*')).toBeNull();
    expect(validatePassEnv('SSH_AUTH_SOCK')).toMatch(/SSH_AUTH_SOCK is never passed/);
    expect(validatePassEnv('A-B')).toMatch(/"A-B" is not a variable name/);
    expect(validateHiddenPaths('~/.ssh, /srv/x')).toBeNull();
    expect(validateHiddenPaths('.ssh')).toMatch(/".ssh" is neither an absolute path/);
  });
});
