import { chownSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeCodexConfig, writeGeminiSettings } from './agent-env.js';
import { ensureHostUser } from './sshd.js';

// The test host user's own folders for the agent CLIs (issue 24): each CLI
// signed in there by the host's settings, pointed at the fake model server,
// nothing of the person's.

/** A folder `name` in the host user's home, owned by it. */
export function hostHomeDir(name: string): string {
  const user = ensureHostUser();
  const dir = join(user.home, name);
  mkdirSync(dir, { recursive: true });
  chownSync(dir, user.uid, user.gid);
  return dir;
}

/** The host user's CODEX_HOME (`name` in its home): its config.toml names the fake model server at `url`. */
export function hostCodexHome(name: string, url: string): string {
  const user = ensureHostUser();
  const home = hostHomeDir(name);
  chownSync(writeCodexConfig(home, url), user.uid, user.gid);
  return home;
}

/** The host user's GEMINI_CLI_HOME (`name` in its home), with the tests' Gemini CLI settings. */
export function hostGeminiHome(name: string): string {
  const user = ensureHostUser();
  const home = hostHomeDir(name);
  const file = writeGeminiSettings(home);
  chownSync(dirname(file), user.uid, user.gid);
  chownSync(file, user.uid, user.gid);
  return home;
}
