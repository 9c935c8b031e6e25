import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REAL_CLI_BIN } from './real-clis.js';
import { ensureHostUser, startSshd, type TestHost } from './sshd.js';

// A test host (issue 24) whose user runs the pinned real Claude Code against
// a fake model server: the private sshd of sshd.ts, its user signed in by its
// own environment (sshd's SetEnv: its own key, its own CLAUDE_CONFIG_DIR in a
// temp folder it owns), nothing of the person's.

export interface ClaudeHost {
  readonly sshd: TestHost;
  /** The host user's Claude Code folder (its CLAUDE_CONFIG_DIR). */
  readonly claudeDir: string;
  /**
   * Stops the sshd and removes `root` (Grove's folder on the host) and the
   * Claude Code folder; first ends the process group of every run there with
   * no exit code yet (a test that failed mid-turn leaves its agent going).
   */
  close(root: string): Promise<void>;
}

export async function startClaudeHost(
  modelUrl: string,
  /** More variables for the host user's commands (sshd's SetEnv). */
  env: Readonly<Record<string, string>> = {},
  /** More sshd_config lines. */
  config: readonly string[] = [],
): Promise<ClaudeHost> {
  const user = ensureHostUser();
  const claudeDir = mkdtempSync(join(tmpdir(), 'grove-host-claude-'));
  chownSync(claudeDir, user.uid, user.gid);
  chmodSync(claudeDir, 0o755);
  const sshd = await startSshd({
    path: [REAL_CLI_BIN],
    env: {
      ANTHROPIC_BASE_URL: modelUrl,
      ANTHROPIC_API_KEY: 'sk-host-own',
      CLAUDE_CONFIG_DIR: claudeDir,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      CLAUDE_CODE_MAX_RETRIES: '0',
      DISABLE_AUTOUPDATER: '1',
      ...env,
    },
    config,
  });
  return {
    sshd,
    claudeDir,
    async close(root) {
      sshd.ssh(
        `for d in ${root}/runs/*/; do [ -s "$d/pid" ] && [ ! -e "$d/exit" ] && kill -KILL -- "-$(cat "$d/pid")" 2>/dev/null; done; rm -rf ${root}`,
      );
      await sshd.stop();
      rmSync(claudeDir, { recursive: true, force: true });
    },
  };
}
