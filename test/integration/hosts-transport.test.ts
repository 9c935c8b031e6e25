import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { shellCommand } from '../../src/infra/hosts/quote.js';
import { controlDir, createSsh, sshFailure, type Ssh } from '../../src/infra/hosts/ssh.js';
import { liveProcesses } from '../helpers/processes.js';
import { sshdIt, sshdProblem, startSshd, type TestHost } from '../helpers/sshd.js';

// The ssh transport against a real, private sshd on 127.0.0.1 that logs in as
// a second unix user (test/helpers/sshd.ts): every word of a remote command
// arrives byte for byte, the connection is shared through a socket in a 0700
// folder of GROVE_HOME, and a host that would prompt fails at once, in words.

const it = sshdIt();
/** A file the host user would create if a word were run instead of passed. */
const PWNED = `/tmp/grove-pwned-${process.pid}`;
let host: TestHost | undefined;
let groveHome: string;
let ssh: Ssh;
let sockets: string | null;

beforeAll(async () => {
  groveHome = mkdtempSync(join(tmpdir(), 'grove-hosts-home-'));
  if (sshdProblem() !== null) return;
  host = await startSshd();
  sockets = controlDir(groveHome);
  ssh = createSsh({ env: process.env, controlDir: sockets, configFile: host.config });
}, 30_000);

afterAll(async () => {
  if (host) {
    await ssh.close(host.alias);
    await host.stop();
  }
  rmSync(groveHome, { recursive: true, force: true });
});

function h(): TestHost {
  if (!host) throw new Error('no test sshd');
  return host;
}

/** Prints each word back with printf '%s' and a NUL after it, so the bytes can be compared. */
async function echo(words: readonly string[]): Promise<string[]> {
  const command = shellCommand(['printf', '%s\\0', ...words]);
  const run = await ssh.run(h().alias, command, { timeoutMs: 20_000 });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return run.stdout.split('\0').slice(0, -1);
}

describe('the test sshd', () => {
  it('logs in as the second user, in its own home', () => {
    expect(h().ssh('id -un; printf %s "$HOME"')).toBe(`${h().user}\n${h().home}`);
    expect(h().home).not.toBe(process.env['HOME']);
  });
});

describe('remote commands', () => {
  it('arrive byte for byte: prompts, JSON, paths with spaces, quotes, $, backticks and newlines', async () => {
    const words = [
      'Fix the bug in "main.ts"; don\'t touch `config`',
      '{"model":"x","env":{"A":"$HOME","B":"it\'s"}}',
      '/tmp/a folder/with spaces/file name.txt',
      "'''",
      `$(touch ${PWNED}) \${HOME} $PATH \`id\` $((1+1))`,
      'line one\nline two\n\n  indented\ttab\r\n',
      '; rm -rf ~ & | > < * ? [a] ~ # !',
      '',
      '-n',
      '=ls',
      'héllo wörld ✓ 日本語',
      '\\ \\\\ \\n',
    ];

    expect(await echo(words)).toEqual(words);
    expect(existsSync(PWNED)).toBe(false);
  });

  it('pass stdin to the remote command intact', async () => {
    const input = 'a "prompt" with $HOME and `id`\nover two lines\n';
    const run = await ssh.run(h().alias, shellCommand(['cat']), { timeoutMs: 20_000, input });
    expect(run.stdout).toBe(input);
  });

  it('share one connection through a socket in a private folder of GROVE_HOME', async () => {
    await echo(['one']);
    expect(sockets).toBe(join(groveHome, 'ssh'));
    expect(statSync(join(groveHome, 'ssh')).mode & 0o777).toBe(0o700);
    const names = readdirSync(join(groveHome, 'ssh'));
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/^[0-9a-f]{40}$/);
    const masters = (): number =>
      liveProcesses().filter(
        (p) => p.cmdline.startsWith('ssh: ') && p.cmdline.includes(join(groveHome, 'ssh')),
      ).length;
    expect(masters()).toBe(1);
    await echo(['two']);
    expect(masters()).toBe(1);
  });

  it('forward nothing to the host: no agent socket, no X11 display', async () => {
    const run = await ssh.run(
      h().alias,
      'printf "%s|%s" "${SSH_AUTH_SOCK:-none}" "${DISPLAY:-none}"',
      { timeoutMs: 20_000 },
    );
    expect(run.stdout).toBe('none|none');
  });
});

describe('a host that would prompt', () => {
  it('fails at once with the reason in words (BatchMode), without asking', async () => {
    // Its own GROVE_HOME: the same host, port and user would share the open connection (%C).
    const home = mkdtempSync(join(tmpdir(), 'grove-hosts-locked-'));
    const locked = createSsh({
      env: process.env,
      controlDir: controlDir(home),
      configFile: h().config,
    });
    const run = await locked.run(h().lockedAlias, 'true', { timeoutMs: 20_000 });
    rmSync(home, { recursive: true, force: true });

    expect(run.code).toBe(255);
    const failure = sshFailure(run, h().lockedAlias);
    expect(failure?.reason).toContain(
      `ssh cannot log in to ${h().lockedAlias} without a prompt (Grove never types a password or passphrase: BatchMode): `,
    );
    expect(failure?.reason).toMatch(/Permission denied \(publickey\)/);
    expect(failure?.fix).toContain(`ssh-copy-id ${h().lockedAlias}`);
  });
});
