// The load bench's remote scenario (issue 24): turns of a session on an SSH
// host. A private sshd on 127.0.0.1 (as test/helpers/sshd.ts starts it: its
// own config, host key and log, logging in as the second unix user
// grove-host), a fake `claude` (POSIX sh, stream-json) on that user's PATH,
// a `grove run --host` and follow-up `grove reply` turns. An `ssh` wrapper
// first on Grove's PATH logs each ssh process (start, end, what it ran).
//
// Grove's own time per remote turn = the command's wall time minus the union
// of the intervals in which an ssh process or an agent (the host's fake
// claude, and the local one answering the title and commit-message prompts)
// was running: what is left is time in which Grove alone was working (its
// start, the database, transcript, local git, the fetch's merge). Where
// Grove works while an ssh process runs (reading the followed stream), that
// time is counted as the ssh's, so the figure is Grove's added latency.
// Control connection reuse: the sshd's "Accepted publickey" lines per turn,
// less the network forward's (a confined Claude Code turn's `ssh -R`, on a
// connection of its own by design: remote-forward.ts), so 0 = every other ssh
// of the turn went over the shared connection. The forward is counted among
// the turn's ssh processes, and as a round trip only until the turn's next
// ssh starts (the turn waits for it to be up; it then runs in the background).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installFakeClaude } from './fake-claude.mjs';
import { BIN, sleep } from './grove.mjs';
import { groveEnv, world } from './world.mjs';

const SSHD = '/usr/sbin/sshd';
const HOST_USER = 'grove-host';
const ROOT = '.grove-bench-remote';
const FOLLOW_UPS = 4;

const run = (file, args) =>
  execFileSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

function problem() {
  if (!existsSync(SSHD)) return `${SSHD} is missing (apt-get install openssh-server)`;
  if (process.getuid?.() !== 0)
    return `it needs root to make the second unix user ${HOST_USER} (uid ${process.getuid?.()})`;
  if (spawnSync('bwrap', ['--version']).status !== 0) return 'bubblewrap is missing';
  return null;
}

function hostUser() {
  if (spawnSync('id', ['-u', HOST_USER]).status !== 0)
    spawnSync('useradd', ['-m', '-s', '/bin/sh', HOST_USER]);
  run('usermod', ['-p', '*', HOST_USER]);
  const [, , uid, gid, , home] = run('getent', ['passwd', HOST_USER]).trim().split(':');
  return { uid: Number(uid), gid: Number(gid), home };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Every live process below `pid` (from /proc). */
function descendants(pid) {
  const all = readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map((n) => {
      try {
        const stat = readFileSync(`/proc/${n}/stat`, 'utf8');
        return {
          pid: Number(n),
          ppid: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]),
        };
      } catch {
        return null;
      }
    })
    .filter(Boolean);
  const found = [];
  let frontier = [pid];
  while (frontier.length > 0) {
    frontier = all.filter((p) => frontier.includes(p.ppid)).map((p) => p.pid);
    found.push(...frontier);
  }
  return found;
}

/** A private sshd (test/helpers/sshd.ts, the minimum): resolves once it listens. */
async function startSshd(dir, user, setEnv) {
  mkdirSync(dir);
  chmodSync(dir, 0o711);
  const keygen = (name) => {
    run('ssh-keygen', [
      '-q',
      '-t',
      'ed25519',
      '-N',
      '',
      '-C',
      'grove-bench',
      '-f',
      join(dir, name),
    ]);
    return readFileSync(join(dir, `${name}.pub`), 'utf8').trim();
  };
  const hostKey = keygen('host_key');
  const clientKey = keygen('client_key');
  const authorized = join(dir, 'authorized_keys');
  writeFileSync(authorized, `${clientKey}\n`, { mode: 0o600 });
  chownSync(authorized, user.uid, user.gid);
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const port = await freePort();
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_key')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${authorized}`,
      'StrictModes no',
      'UsePAM no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin no',
      `AllowUsers ${HOST_USER}`,
      'PrintMotd no',
      'LogLevel VERBOSE',
      `SetEnv ${setEnv.join(' ')}`,
      '',
    ].join('\n'),
  );
  const logFile = join(dir, 'sshd.log');
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  const child = spawn(SSHD, ['-D', '-f', config, '-E', logFile], { stdio: 'ignore' });
  for (
    let waited = 0;
    !log().includes(`Server listening on 127.0.0.1 port ${port}`);
    waited += 50
  ) {
    if (child.exitCode !== null || waited > 20_000) {
      child.kill('SIGKILL');
      throw new Error(`sshd did not start: ${log()}`);
    }
    await sleep(50);
  }
  writeFileSync(join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${hostKey}\n`);
  const alias = `grove-bench-host-${port}`;
  const clientConfig = join(dir, 'ssh_config');
  writeFileSync(
    clientConfig,
    [
      `Host ${alias}`,
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      `  User ${HOST_USER}`,
      `  IdentityFile ${join(dir, 'client_key')}`,
      '  IdentitiesOnly yes',
      '  IdentityAgent none',
      `  UserKnownHostsFile ${join(dir, 'known_hosts')}`,
      '  GlobalKnownHostsFile /dev/null',
      '  StrictHostKeyChecking yes',
      '',
    ].join('\n'),
  );
  return {
    alias,
    clientConfig,
    logins: () => (log().match(/Accepted publickey for /g) ?? []).length,
    ssh: (command) =>
      run('ssh', ['-F', clientConfig, '-o', 'BatchMode=yes', '-T', '--', alias, command]),
    stop: () => {
      for (const p of descendants(child.pid))
        try {
          process.kill(p, 'SIGKILL');
        } catch {
          // Already gone.
        }
      child.kill('SIGKILL');
    },
  };
}

/** The host user's fake `claude`: answers at once; a turn changes a file. Logs `kind start end` (ms). */
function installHostClaude(bin, log) {
  const result = (answer) =>
    JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'done',
      structured_output: { answer, questions: [], summary: null },
      session_id: '00000000-0000-4000-8000-00000000beef',
      usage: { input_tokens: 10, output_tokens: 5 },
    });
  const script = `#!/bin/sh
start=$(date +%s%3N)
for a; do [ "$a" = --version ] && { echo '2.1.330 (Claude Code)'; exit 0; }; done
input=$(cat)
kind=turn
case $input in *'Write a title for a coding task'*) kind=title ;; *'Write the git commit message'*) kind=commit ;; esac
echo '{"type":"system","subtype":"init","session_id":"00000000-0000-4000-8000-00000000beef"}'
[ "$kind" = turn ] && echo "change $start" > bench-change.txt
echo '${result('Bench change')}'
echo "$kind $start $(date +%s%3N)" >> ${log}
`;
  writeFileSync(join(bin, 'claude'), script);
  chmodSync(join(bin, 'claude'), 0o755);
}

/**
 * An `ssh` first on Grove's PATH: runs the real one and logs `start end rc kind what` (ms) per
 * process. kind: `forward` for the network forward of a confined turn (its `-R`, on a
 * connection of its own), `shared` for the rest (over the shared control connection).
 */
function installSshWrapper(bin, log) {
  const real = run('sh', ['-c', 'command -v ssh']).trim();
  writeFileSync(
    join(bin, 'ssh'),
    `#!/bin/sh
start=$(date +%s%3N)
kind=shared
for a; do last=$a; [ "$a" = -R ] && kind=forward; done
exec 3<&0
${real} "$@" <&3 3<&- &
child=$!
trap 'kill -TERM $child 2>/dev/null' TERM INT HUP
wait $child
rc=$?
what=$(printf '%s' "$last" | head -c 200 | tr '\\n\\t' '  ' | cut -c1-60)
echo "$start $(date +%s%3N) $rc $kind $what" >> ${log}
exit $rc
`,
  );
  chmodSync(join(bin, 'ssh'), 0o755);
}

/** Lines `kind start end …` of a log file (ms), those starting within [from, to]. */
function intervals(file, from, to, startField) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' '))
    .map((f) => ({ start: Number(f[startField]), end: Number(f[startField + 1]), fields: f }))
    .filter((i) => i.start >= from && i.start <= to);
}

/** The length of the union of intervals, clipped to [from, to]. */
function unionMs(list, from, to) {
  const sorted = list
    .map((i) => [Math.max(from, i.start), Math.min(to, i.end)])
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  let total = 0;
  let [curA, curB] = [null, null];
  for (const [a, b] of sorted) {
    if (curB === null || a > curB) {
      if (curB !== null) total += curB - curA;
      [curA, curB] = [a, b];
    } else curB = Math.max(curB, b);
  }
  if (curB !== null) total += curB - curA;
  return total;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function remoteScenario() {
  const why = problem();
  if (why !== null) {
    console.log(`load bench: remote skipped: ${why}`);
    return;
  }
  const user = hostUser();
  const w = world();
  const hostDir = mkdtempSync(join(tmpdir(), 'grove-bench-host-'));
  let sshd = null;
  try {
    chmodSync(hostDir, 0o711);
    const hostBin = join(hostDir, 'bin');
    const claudeDir = join(hostDir, 'claude');
    mkdirSync(hostBin);
    mkdirSync(claudeDir);
    chownSync(claudeDir, user.uid, user.gid);
    const hostCalls = join(claudeDir, 'bench-calls.log');
    installHostClaude(hostBin, hostCalls);
    const localCalls = installFakeClaude(w);
    const wrapBin = join(w.dir, 'ssh-wrap');
    mkdirSync(wrapBin);
    const sshLog = join(w.dir, 'ssh.log');
    installSshWrapper(wrapBin, sshLog);
    sshd = await startSshd(join(hostDir, 'sshd'), user, [
      `PATH=${hostBin}:/usr/local/bin:/usr/bin:/bin`,
      `CLAUDE_CONFIG_DIR=${claudeDir}`,
    ]);
    const env = {
      ...groveEnv(w, { PATH_PREFIX: `${wrapBin}:${w.fakeBin}` }),
      GROVE_SSH_CONFIG: sshd.clientConfig,
    };
    const grove = (...args) => {
      const started = Date.now();
      const out = spawnSync(process.execPath, [BIN, ...args], {
        cwd: w.repo,
        env,
        encoding: 'utf8',
        timeout: 300_000,
      });
      const ended = Date.now();
      if (out.status !== 0)
        throw new Error(`grove ${args.join(' ')} exited ${out.status}: ${out.stderr}`);
      return { started, ended, stdout: out.stdout };
    };
    grove('host', 'add', 'build', sshd.alias, '--root', ROOT);
    // Each wall time, the agents' and the ssh processes' times within it, and the sshd's logins.
    const turns = [];
    let sessionId = null;
    for (let turn = 0; turn <= FOLLOW_UPS; turn++) {
      const loginsBefore = sshd.logins();
      const r =
        turn === 0
          ? grove('run', '--host', 'build', '--output', 'json', 'Bench turn: change a file')
          : grove('reply', sessionId, '--output', 'json', `Bench turn ${turn}: change it again`);
      sessionId ??= JSON.parse(r.stdout).sessionId;
      await sleep(200); // The wrapper's log line is written just after its ssh ends.
      const ssh = intervals(sshLog, r.started, r.ended, 0);
      const forwards = ssh.filter((i) => i.fields[3] === 'forward');
      const shared = ssh.filter((i) => i.fields[3] !== 'forward');
      // The turn waits for its forward to be up, then the forward only carries the agent's
      // traffic in the background: it counts as a round trip until the next ssh starts (the
      // run's start, sent once the forward's socket is there), not for the whole turn.
      const waited = forwards.map((f) => ({
        start: f.start,
        end: Math.min(f.end, ...shared.filter((i) => i.start > f.start).map((i) => i.start)),
      }));
      const agents = [
        ...intervals(hostCalls, r.started, r.ended, 1),
        ...intervals(localCalls, r.started, r.ended, 1),
      ];
      const wall = r.ended - r.started;
      const sshMs = unionMs([...shared, ...waited], r.started, r.ended);
      const agentMs = unionMs(agents, r.started, r.ended);
      const external = unionMs([...shared, ...waited, ...agents], r.started, r.ended);
      const hostTurns = intervals(hostCalls, r.started, r.ended, 1).filter(
        (i) => i.fields[0] === 'turn',
      );
      // Where Grove's own time goes: before the first ssh, in the gaps between, after the last.
      const firstSsh = Math.min(...ssh.map((i) => i.start));
      const lastSsh = Math.max(...ssh.map((i) => i.end));
      turns.push({
        before: firstSsh - r.started,
        after: r.ended - lastSsh,
        wall,
        own: wall - external,
        sshMs,
        agentMs,
        ssh: ssh.length,
        forwards: forwards.length,
        sshEach: ssh
          .sort((a, b) => a.start - b.start)
          .map((i) => `${i.end - i.start}${i.fields[3] === 'forward' ? ' (forward)' : ''}`),
        sshWhat: ssh.map((i) =>
          i.fields[3] === 'forward'
            ? 'forward'
            : i.fields.slice(4).join(' ').split(' ')[0] || '(none)',
        ),
        agents: agents.map((i) => i.fields[0]),
        hostTurns: hostTurns.length,
        logins: sshd.logins() - loginsBefore,
      });
    }
    // The same follow-up turns of a session on this machine (the Node fake claude): Grove's own there.
    let localId = null;
    const local = [];
    for (let turn = 0; turn <= 3; turn++) {
      const r =
        turn === 0
          ? grove('run', '--host', 'local', '--output', 'json', 'Bench local turn: change a file')
          : grove('reply', localId, '--output', 'json', `Bench local turn ${turn}: again`);
      localId ??= JSON.parse(r.stdout).sessionId;
      await sleep(200);
      const agents = intervals(localCalls, r.started, r.ended, 1);
      if (turn > 0)
        local.push({
          own: r.ended - r.started - unionMs(agents, r.started, r.ended),
          kinds: agents.map((i) => i.fields[0]),
        });
    }
    // Node's own start (the local fake claude is a Node script; its log starts after it).
    const boot = median(
      Array.from({ length: 5 }, () => {
        const t = Date.now();
        spawnSync(process.execPath, ['-e', '']);
        return Date.now() - t;
      }),
    );
    const follow = turns.slice(1);
    const fmt = (v) => v.toFixed(0);
    const describe = (t) =>
      `wall ${fmt(t.wall)} ms, ssh ${fmt(t.sshMs)} ms (${t.ssh} processes, ${t.forwards} of them the network forward), agents ${fmt(t.agentMs)} ms (${t.agents.join(', ')}), Grove's own ${fmt(t.own)} ms, new ssh logins ${t.logins} (${t.logins - t.forwards} for the shared connection) (Grove alone: ${fmt(t.before)} ms before the first ssh, ${fmt(t.own - t.before - t.after)} ms between, ${fmt(t.after)} ms after the last)`;
    console.log(`remote turn (a session on an SSH host over 127.0.0.1, fake claude there):`);
    console.log(
      `  first turn (grove run --host: mirror, worktree, run, bring back): ${describe(turns[0])}`,
    );
    for (const [i, t] of follow.entries())
      console.log(`  follow-up ${i + 1} (grove reply): ${describe(t)}`);
    console.log(
      `  each ssh process of follow-up 1, in order (ms, the followed stream lasts as long as the agent): ${follow[0].sshEach.join(', ')}`,
    );
    const counts = follow.map((t) => t.ssh);
    const byWhat = follow[0].sshWhat.reduce((m, k) => ({ ...m, [k]: (m[k] ?? 0) + 1 }), {});
    console.log(
      `Grove's own time per remote follow-up turn (wall minus ssh and agent time; includes Grove's ~${fmt(boot)} ms Node start and each local agent process's Node start): median ${fmt(median(follow.map((t) => t.own)))} ms`,
    );
    // Not a difference to subtract: here the agents start in the local sandbox (its set-up and
    // their Node start count as Grove's) and the commit message is an agent's; on the host the
    // turn commits with the agent's summary.
    console.log(
      `  for comparison, grove reply of a session on this machine (wall minus the agents, ${local[0].kinds.join(', ')}; their sandbox and Node start count here): ${local.map((l) => fmt(l.own)).join(', ')} ms, median ${fmt(median(local.map((l) => l.own)))} ms`,
    );
    console.log(
      `ssh processes per follow-up turn: ${counts.join(', ')} (first turn ${turns[0].ssh}), of which the network forward of the confined turn: ${follow.map((t) => t.forwards).join(', ')} (first turn ${turns[0].forwards})${turns.some((t) => t.forwards === 0) ? ' (a turn with NO forward: its network was not filtered)' : ''}; one follow-up's by command: ${Object.entries(
        byWhat,
      )
        .map(([k, n]) => `${k} ${n}`)
        .join(', ')}`,
    );
    // The forward's own connection is one login per turn by design (remote-forward.ts); the
    // shared control connection must take every other ssh of a follow-up turn.
    const sharedLogins = turns.map((t) => t.logins - t.forwards);
    console.log(
      `shared control connection: ${sharedLogins.join(', ')} new sshd logins per turn (${sharedLogins.slice(1).every((n) => n === 0) ? 'reused by every follow-up turn' : 'NOT reused'}); the network forward's own connection: ${turns.map((t) => t.forwards).join(', ')} logins per turn; agent runs on the host per turn: ${turns.map((t) => t.hostTurns).join(', ')}`,
    );
  } finally {
    try {
      sshd?.ssh(`rm -rf ${ROOT}`);
    } catch {
      // The host's folder goes with the user's next bench.
    }
    // The shared connection's master (its socket in GROVE_HOME/ssh) ends with its folder.
    for (const n of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      try {
        const cmd = readFileSync(`/proc/${n}/cmdline`, 'utf8');
        if (cmd.includes(w.groveHome) && cmd.startsWith('ssh')) process.kill(Number(n), 'SIGTERM');
      } catch {
        // Gone, or not ours.
      }
    }
    sshd?.stop();
    rmSync(hostDir, { recursive: true, force: true });
    rmSync(w.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}
