import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect } from 'vitest';
import { it as plainIt } from 'vitest';
import { parseHeadless } from '../../src/cli/args.js';
import { runHeadless } from '../../src/cli/dispatch.js';
import { CommandError, EXIT } from '../../src/cli/headless.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { openInfra, type Infra } from '../../src/compose.js';
import { groveSsh } from '../../src/infra/hosts/ssh.js';
import { sshdIt, sshdProblem, startSshd, type TestHost } from '../helpers/sshd.js';
import { HostAddSchema, HostListSchema, HostSchema, HostSetSchema } from './headless-schema.js';

// `grove host add|ls|rm|check` on a real SQLite file, and `check` against a
// private sshd that logs in as a second unix user (test/helpers/sshd.ts).

const sshIt = sshdIt();
let home: string;
let infra: Infra;
let env: NodeJS.ProcessEnv;

interface Ran {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

async function grove(...args: string[]): Promise<Ran> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  const [name, ...rest] = args;
  try {
    const code = await runHeadless(parseHeadless(name as 'host', rest), infra, {
      stdout,
      stderr,
      stdin: Object.assign(new PassThrough(), { isTTY: true }),
      stderrIsTTY: false,
      env,
      cwd: home,
    });
    return { code, out, err };
  } catch (error) {
    if (error instanceof CommandError) return { code: error.exitCode, out, err: error.message };
    throw error;
  }
}

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'grove-hosts-cmd-'));
  env = { ...process.env, GROVE_HOME: home };
  infra = openInfra(env);
});

afterEach(async () => {
  await infra.db.close();
  rmSync(home, { recursive: true, force: true });
});

describe('grove host add, ls and rm', () => {
  plainIt('adds a host, lists it (text and JSON) and removes it', async () => {
    const added = await grove('host', 'add', 'build', 'me@build.example', '--root', '~/grove');
    expect(added.code).toBe(EXIT.ok);
    expect(added.out).toContain('Added host build: ssh me@build.example, root ~/grove.');
    expect(await grove('host', 'add', 'gpu', 'gpu-box', '--max', '3')).toMatchObject({
      code: EXIT.ok,
      out: expect.stringContaining('Host gpu: at most 3 turns at once.') as unknown,
    });

    expect((await grove('host', 'ls')).out).toBe(
      'build  me@build.example  (root ~/grove)  max auto, 0 running\ngpu    gpu-box  (root .grove-host)  max 3, 0 running\n',
    );
    expect(
      (JSON.parse((await grove('host', 'ls', '--json')).out) as unknown[]).map((row) =>
        HostListSchema.parse(row),
      ),
    ).toEqual([
      {
        name: 'build',
        destination: 'me@build.example',
        root: '~/grove',
        max: null,
        running: 0,
        load: null,
      },
      { name: 'gpu', destination: 'gpu-box', root: '.grove-host', max: 3, running: 0, load: null },
    ]);

    const removed = await grove('host', 'rm', 'gpu');
    expect(removed).toMatchObject({ code: EXIT.ok, out: 'Removed host gpu.\n' });
    expect(JSON.parse((await grove('host', 'ls', '--json')).out)).toHaveLength(1);
  });

  plainIt("sets a host's most turns at once, and refuses what is not a maximum", async () => {
    await grove('host', 'add', 'build', 'me@build.example', '--max', '2');
    expect((await infra.store.hosts.get('build'))?.maxSessions).toBe(2);
    expect(await grove('host', 'set', 'build', 'max', '5')).toMatchObject({
      code: EXIT.ok,
      out: 'Host build: at most 5 turns at once.\n',
    });
    expect((await infra.store.hosts.get('build'))?.maxSessions).toBe(5);
    const json = await grove('host', 'set', 'build', 'max', 'auto', '--json');
    expect(HostSetSchema.parse(JSON.parse(json.out))).toEqual({ name: 'build', max: null });
    expect((await infra.store.hosts.get('build'))?.maxSessions).toBeNull();
    for (const bad of [
      ['set', 'build', 'max', 'many'],
      ['set', 'build', 'max', '1001'],
      ['add', 'x', 'y', '--max', '-1'],
      ['set', 'build', 'root', '2'],
    ])
      expect(() => parseHeadless('host', bad)).toThrow(UsageError);
    expect((await grove('host', 'set', 'nope', 'max', '2')).err).toMatch(/no host is named 'nope'/);
    expect((await grove('host', 'add', 'auto', 'me@box')).err).toMatch(/choose a place/);
  });

  plainIt(
    '--json prints the host added, added again and removed; a refusal prints none',
    async () => {
      const added = await grove('host', 'add', 'build', 'me@build.example', '--json');
      expect(added.code).toBe(EXIT.ok);
      expect(HostAddSchema.parse(JSON.parse(added.out))).toEqual({
        name: 'build',
        destination: 'me@build.example',
        root: '.grove-host',
        allowUnconfined: false,
        max: null,
        added: true,
      });
      const again = await grove(
        'host',
        'add',
        'build',
        'me@build.example',
        '--allow-unconfined',
        '--json',
      );
      expect(HostAddSchema.parse(JSON.parse(again.out))).toMatchObject({
        allowUnconfined: true,
        added: false,
      });
      const clash = await grove('host', 'add', 'build', 'other@box', '--json');
      expect(clash).toMatchObject({ code: EXIT.usage, out: '' });

      const removed = await grove('host', 'rm', 'build', '--json');
      expect(removed.code).toBe(EXIT.ok);
      expect(HostSchema.parse(JSON.parse(removed.out))).toEqual({
        name: 'build',
        destination: 'me@build.example',
        root: '.grove-host',
      });
      expect(await infra.store.hosts.list()).toEqual([]);
      expect(await grove('host', 'rm', 'build', '--json')).toMatchObject({
        code: EXIT.usage,
        out: '',
      });
    },
  );

  plainIt.each([
    [['bad name', 'box'], "'bad name' is not a host name"],
    [['Box', 'box'], "'Box' is not a host name"],
    [['local', 'box'], "'local' names this machine"],
    [['box', '-oProxyCommand=touch /tmp/x'], "starts with '-': ssh would read it as an option"],
    [['box', 'a b'], 'white space or control characters'],
    [['box', 'host', '--root', '../x'], "'../x' holds '..'"],
  ])('refuses %j with a clear message and changes nothing', async (args, message) => {
    const [name = '', dest = '', ...rest] = args;
    const run = await grove('host', 'add', ...rest, '--', name, dest);
    expect(run.code).toBe(EXIT.usage);
    expect(run.err).toContain(message);
    expect(await infra.store.hosts.list()).toEqual([]);
  });

  plainIt('refuses a second host of the same name and keeps the first', async () => {
    await grove('host', 'add', 'box', 'first@box');
    const run = await grove('host', 'add', 'box', 'second@box');
    expect(run.code).toBe(EXIT.usage);
    expect(run.err).toBe(
      "a host is already named 'box' (first@box); grove host rm box first to change it",
    );
    expect((await infra.store.hosts.get('box'))?.destination).toBe('first@box');
  });

  plainIt('refuses to remove a host that sessions name, and an unknown one', async () => {
    await grove('host', 'add', 'box', 'box');
    infra.db.sqlite.exec(
      "INSERT INTO project (path, display_name, created_at, last_opened_at) VALUES ('/r', 'r', 1, 1)",
    );
    infra.db.sqlite.exec(
      "INSERT INTO session (id, project_id, status, base_branch, branch, worktree_path, agent, model, reasoning_level, created_at, updated_at, host) VALUES ('s1', 1, 'Review', 'main', 'grove/s1', '/w', 'claude', 'm', 'high', 1, 1, 'box')",
    );

    const run = await grove('host', 'rm', 'box');
    expect(run.code).toBe(EXIT.failed);
    expect(run.err).toBe("grove: host 'box' is in use by 1 session; it stays.\n");
    expect(await infra.store.hosts.get('box')).toBeDefined();

    const unknown = await grove('host', 'rm', 'nope');
    expect(unknown.code).toBe(EXIT.usage);
    expect(unknown.err).toBe("no host is named 'nope' (hosts: box)");
  });
});

describe('grove host check', () => {
  let host: TestHost | undefined;
  let agentHost: TestHost | undefined;
  let bin: string;
  const SECRET = 'sk-ant-test-never-printed-0123456789';

  beforeAll(async () => {
    if (sshdProblem() !== null) return;
    host = await startSshd();
    // A second host whose PATH has an agent CLI and whose environment signs it in.
    bin = mkdtempSync(join(tmpdir(), 'grove-hosts-bin-'));
    chmodSync(bin, 0o755);
    writeFileSync(join(bin, 'claude'), '#!/bin/sh\necho "2.1.7 (Claude Code)"\n', {
      mode: 0o755,
    });
    agentHost = await startSshd({ path: [bin], env: { ANTHROPIC_API_KEY: SECRET } });
  }, 60_000);

  afterAll(async () => {
    for (const h of [host, agentHost])
      if (h)
        await groveSsh({ ...process.env, GROVE_SSH_CONFIG: h.config }, '/nonexistent').close(
          h.alias,
        );
    await host?.stop();
    await agentHost?.stop();
    if (bin) rmSync(bin, { recursive: true, force: true });
  });

  function useConfig(h: TestHost | undefined): TestHost {
    if (!h) throw new Error('no test sshd');
    env = { ...env, GROVE_SSH_CONFIG: h.config };
    return h;
  }

  sshIt('says the agent CLIs are missing on the host, item by item, and exits 1', async () => {
    const h = useConfig(host);
    await grove('host', 'add', 'box', h.alias);

    const run = await grove('host', 'check', 'box');

    expect(run.code).toBe(EXIT.failed);
    const lines = run.out.split('\n');
    expect(lines[0]).toBe(`Host box: ssh ${h.alias}, root .grove-host`);
    expect(run.out).toMatch(
      new RegExp(`^ok    login +ssh ${h.alias} logs in as ${h.user} without a prompt$`, 'm'),
    );
    expect(run.out).toMatch(/^ok {4}git +git 2\.\d+\.\d+ \(Grove needs 2\.38 or newer\)$/m);
    expect(run.out).toMatch(
      new RegExp(
        `^note {2}claude +Claude Code \\(claude\\) is not on the PATH ssh commands get on the host \\(.*/usr/bin.*\\)\\. To use it there, install it for ${h.user} on the host`,
        'm',
      ),
    );
    expect(run.out).toMatch(
      new RegExp(
        `^fail {2}agents +no agent CLI is on the PATH ssh commands get on the host as ${h.user} \\(.*\\): sessions there need at least one \\(Claude Code, Codex, Gemini CLI\\)\\. Fix: install one for ${h.user}`,
        'm',
      ),
    );
    expect(run.out).toMatch(
      new RegExp(`^ok {4}sandbox +bubblewrap .* can confine agents for ${h.user}$`, 'm'),
    );
    expect(run.out).toMatch(
      /^ok {4}network +node v\d+\.\d+\.\d+ runs the network filter's relay for confined agents$/m,
    );
    expect(run.out).toMatch(
      new RegExp(`^ok    root +Grove's folder is ${h.home}/\\.grove-host \\(writable\\)$`, 'm'),
    );
    expect(run.out).toMatch(/^(ok {4}|warn {2})disk +.* free for /m);
    expect(run.out).toMatch(/1 check failed/);

    const json = JSON.parse((await grove('host', 'check', 'box', '--json')).out) as {
      check: string;
      status: string;
    }[];
    expect(json.map((r) => r.check)).toEqual([
      'login',
      'git',
      'claude',
      'codex',
      'gemini',
      'agents',
      'sandbox',
      'network',
      'root',
      'disk',
    ]);
  });

  sshIt('passes with an agent CLI on the host signed in, without printing its key', async () => {
    const h = useConfig(agentHost);
    await grove('host', 'add', 'agents', h.alias, '--root', '~/grove root');

    const run = await grove('host', 'check', 'agents');

    expect(run.out).toMatch(
      new RegExp(
        `^ok    claude +Claude Code 2\\.1\\.7 at ${bin}/claude, signed in \\(\\$ANTHROPIC_API_KEY\\)$`,
        'm',
      ),
    );
    expect(run.out).toContain(`Grove's folder is ${h.home}/grove root (writable)`);
    expect(run.out).not.toContain(SECRET);
    expect(run.code).toBe(EXIT.ok);
  });

  sshIt('says why it cannot log in when the host would prompt, and exits 1', async () => {
    const h = useConfig(host);
    await grove('host', 'add', 'locked', h.lockedAlias);

    const run = await grove('host', 'check', 'locked');

    expect(run.code).toBe(EXIT.failed);
    expect(run.out).toMatch(
      new RegExp(
        `^fail  login  ssh cannot log in to ${h.lockedAlias} without a prompt \\(Grove never types a password or passphrase: BatchMode\\): .*Permission denied \\(publickey\\).*Fix: set up key login`,
        'm',
      ),
    );
  });
});
