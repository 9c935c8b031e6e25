// `grove host check NAME`: what the host has and lacks for sessions, item by
// item, in `grove doctor`'s words and format (ok / note / warn / fail, how to
// fix each). Exit 0 when nothing failed, 1 otherwise.
import type { Infra } from '../compose.js';
import type { Host } from '../domain/host.js';
import { parseGitVersion, versionAtLeast } from '../domain/host.js';
import { PROVIDERS } from '../domain/providers.js';
import { probeHost, SIGN_IN, type AgentFacts, type HostFacts } from '../infra/hosts/probe.js';
import { groveSsh } from '../infra/hosts/ssh.js';
import { formatText } from './doctor.js';
import { cleanupResults, runCliHostCleanups } from './host-cleanups.js';
import { fail, INSTALL, MINIMUM_GIT, note, ok, warn, type CheckResult } from './doctor-checks.js';
import { EXIT, type HeadlessIo } from './headless.js';

const MiB = 1024 * 1024;
const LOW_DISK = 1024 * MiB;
const FULL_DISK = 100 * MiB;

function size(bytes: number): string {
  return bytes >= 1024 * MiB
    ? `${(bytes / (1024 * MiB)).toFixed(1)} GiB`
    : `${Math.round(bytes / MiB)} MiB`;
}

function gitLine(facts: HostFacts): CheckResult {
  const need = `${MINIMUM_GIT[0]}.${MINIMUM_GIT[1]}`;
  const install = `install git ${need} or newer on the host (sudo apt install git)`;
  if (facts.git === '')
    return fail('git', `git is not on the host's PATH (${facts.path})`, install);
  const version = parseGitVersion(facts.git);
  if (version === null) return fail('git', `git --version said: ${facts.git}`, install);
  const text = version.join('.');
  if (!versionAtLeast(version, MINIMUM_GIT))
    return fail('git', `git ${text} on the host is too old: Grove needs ${need} or newer`, install);
  return ok('git', `git ${text} (Grove needs ${need} or newer)`);
}

function agentLine(agent: AgentFacts, facts: HostFacts): CheckResult {
  const provider = PROVIDERS.find((p) => p.id === agent.id);
  const name = provider?.name ?? agent.id;
  const install = INSTALL[agent.id];
  if (agent.path === null)
    return note(
      agent.id,
      `${name} (${provider?.binary ?? agent.id}) is not on the PATH ssh commands get on the host (${facts.path})`,
      `to use it there, install it for ${facts.user} on the host (${install}) where that PATH finds it`,
    );
  const version = agent.versionLine ? /\d+\.\d+\.\d+[\w.-]*/.exec(agent.versionLine)?.[0] : null;
  if (!version)
    return fail(
      agent.id,
      `${agent.path} on the host does not run: ${agent.versionLine ?? 'no version reported'}`,
      `reinstall it on the host: ${install}`,
    );
  const what = `${name} ${version} at ${agent.path}`;
  const looked = [...SIGN_IN[agent.id].files, ...SIGN_IN[agent.id].variables.map((v) => `$${v}`)];
  if (agent.signIn.length > 0)
    return ok(agent.id, `${what}, signed in (${agent.signIn.join(', ')})`);
  return warn(
    agent.id,
    `${what}, not signed in as far as files tell (looked for ${looked.join(', ')})`,
    `sign in on the host as ${facts.user}: ssh to it and run ${provider?.binary ?? agent.id} once`,
  );
}

function sandboxLine(facts: HostFacts): CheckResult {
  if (facts.bwrap === '')
    return warn(
      'sandbox',
      'bubblewrap (bwrap) is not on the host: agents there could not be confined to their worktree',
      'install it on the host (sudo apt install bubblewrap)',
    );
  if (facts.bwrapRuns !== 'yes')
    return warn(
      'sandbox',
      `${facts.bwrap} is on the host but cannot confine a process for ${facts.user}: ${facts.bwrapRuns || 'no answer'}`,
      'allow unprivileged user namespaces on the host (kernel.unprivileged_userns_clone=1)',
    );
  return ok('sandbox', `${facts.bwrap} can confine agents for ${facts.user}`);
}

/** The network filter for confined agents on the host: its relay runs in the host's node. */
function networkLine(facts: HostFacts): CheckResult {
  if (facts.node === '')
    return warn(
      'network',
      `node is not on the PATH ssh commands get on the host (${facts.path}): the filter of a confined agent's network there runs in it, so Claude Code turns there are refused`,
      `install Node.js 18 or newer for ${facts.user} on the host (sudo apt install nodejs)`,
    );
  return ok('network', `node ${facts.node} runs the network filter's relay for confined agents`);
}

function rootLines(host: Host, facts: HostFacts): CheckResult[] {
  if (!facts.root.writable)
    return [
      fail(
        'root',
        `Grove's folder ${host.root} cannot be created or written on the host`,
        `give ${facts.user} a writable folder, or re-add the host with --root DIR`,
      ),
    ];
  const root = ok('root', `Grove's folder is ${facts.root.path} (writable)`);
  const free = facts.freeBytes;
  if (free === null) return [root, warn('disk', 'df did not say how much disk is free', null)];
  const fix = `free space on the host's disk of ${facts.root.path}, or re-add the host with --root on a larger disk`;
  if (free < FULL_DISK)
    return [root, fail('disk', `only ${size(free)} free for ${facts.root.path}`, fix)];
  if (free < LOW_DISK)
    return [root, warn('disk', `only ${size(free)} free for ${facts.root.path}`, fix)];
  return [root, ok('disk', `${size(free)} free for ${facts.root.path}`)];
}

/** The check's lines for a host that answered. */
export function hostCheckResults(host: Host, facts: HostFacts): CheckResult[] {
  const agents = facts.agents.map((agent) => agentLine(agent, facts));
  const none = facts.agents.every((a) => a.path === null);
  return [
    ok('login', `ssh ${host.destination} logs in as ${facts.user} without a prompt`),
    gitLine(facts),
    ...agents,
    ...(none
      ? [
          fail(
            'agents',
            `no agent CLI is on the PATH ssh commands get on the host as ${facts.user} (${facts.path}): sessions there need at least one (${PROVIDERS.map((p) => p.name).join(', ')})`,
            `install one for ${facts.user} on the host so \`ssh ${host.destination} command -v claude\` finds it, and sign in there`,
          ),
        ]
      : []),
    sandboxLine(facts),
    networkLine(facts),
    ...rootLines(host, facts),
  ];
}

/** Runs `grove host check`; 0 when nothing failed (warnings allowed), 1 otherwise. */
export async function hostCheckCommand(
  infra: Infra,
  io: HeadlessIo,
  host: Host,
  json: boolean,
): Promise<number> {
  const probe = await probeHost(groveSsh(io.env, infra.paths.home), host);
  const results = probe.ok
    ? hostCheckResults(host, probe.facts)
    : [fail('login', probe.failure.reason, probe.failure.fix)];
  // A host that answers gets the clean-ups that waited for it (sessions there that ended).
  if (probe.ok)
    results.push(...cleanupResults(await runCliHostCleanups(infra, io.env, { host: host.name })));
  if (json) io.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  else {
    io.stdout.write(`Host ${host.name}: ssh ${host.destination}, root ${host.root}\n\n`);
    io.stdout.write(formatText(results));
  }
  return results.some((r) => r.status === 'fail') ? EXIT.failed : EXIT.ok;
}
