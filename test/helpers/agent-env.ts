import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FakeModelServer } from './fake-model/server.js';

/**
 * Gemini CLI's settings in `home` (its `.gemini/settings.json`): signed in by
 * GEMINI_API_KEY, no folder trust, statistics or telemetry, one attempt.
 * Returns the file.
 */
export function writeGeminiSettings(home: string): string {
  mkdirSync(join(home, '.gemini'), { recursive: true });
  const file = join(home, '.gemini', 'settings.json');
  writeFileSync(
    file,
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
      privacy: { usageStatisticsEnabled: false },
      general: { maxAttempts: 1 },
      telemetry: { enabled: false },
    }),
  );
  return file;
}

/**
 * Codex's `config.toml` in `codexHome`: the fake model server at `url` as its
 * provider (key from FAKE_OPENAI_KEY), no analytics, plugins or retries.
 * Returns the file.
 */
export function writeCodexConfig(codexHome: string, url: string): string {
  mkdirSync(codexHome, { recursive: true });
  const file = join(codexHome, 'config.toml');
  writeFileSync(
    file,
    [
      'model_provider = "fake"',
      '[analytics]',
      'enabled = false',
      '[features]',
      'plugins = false',
      'unbounded_connection_retries = false',
      '[model_providers.fake]',
      'name = "Fake local"',
      `base_url = "${url}/v1"`,
      'env_key = "FAKE_OPENAI_KEY"',
      'wire_api = "responses"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
    ].join('\n'),
  );
  return file;
}

/**
 * Environment that points the real agent CLIs at the fake model server,
 * with a private HOME, no outside traffic and no retries (so a failure is
 * quick). Writes the config files Codex and Gemini need into that HOME.
 */
export function agentEnv(
  server: FakeModelServer,
  home: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  writeGeminiSettings(home);
  const codexHome = join(home, '.codex');
  writeCodexConfig(codexHome, server.url);
  return {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: 'sk-test',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_MAX_RETRIES: '0',
    DISABLE_AUTOUPDATER: '1',
    CODEX_HOME: codexHome,
    FAKE_OPENAI_KEY: 'sk-test',
    GOOGLE_GEMINI_BASE_URL: server.url,
    GEMINI_API_KEY: 'test-key',
    GEMINI_CLI_NO_RELAUNCH: 'true',
    ...extra,
  };
}
