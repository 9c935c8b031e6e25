// `grove host add|ls|rm|check` (issue 24): hosts as data. Adding a host does
// not connect; `check` does (src/cli/host-check.ts).
import {
  DEFAULT_HOST_KEY,
  DEFAULT_HOST_ROOT,
  LOCAL_HOST_NAME,
  hostChoice,
  destinationProblem,
  hostNameProblem,
  allowUnconfinedKey,
  hostRootProblem,
  type Host,
} from '../domain/host.js';
import { defaultMaxTurns, gigabytes } from '../domain/admission.js';
import type { HostLoad } from '../domain/placement.js';
import type { Infra } from '../compose.js';
import type { HostCommand } from './host-args.js';
import { CommandError, EXIT, type HeadlessIo } from './headless.js';
import { hostCheckCommand } from './host-check.js';
import { hostJson, printJson } from './command-json.js';

export async function hostCommand(
  infra: Infra,
  io: HeadlessIo,
  command: HostCommand,
): Promise<number> {
  switch (command.action) {
    case 'add':
      return addHost(infra, io, command);
    case 'set':
      return setHostMax(infra, io, command);
    case 'ls':
      return listHosts(infra, io, command.json);
    case 'rm':
      return removeHost(infra, io, command.name, command.json);
    case 'check':
      return hostCheckCommand(infra, io, await findHost(infra, command.name), command.json);
  }
}

/** The host of that name, or a usage error naming the hosts there are. */
export async function findHost(infra: Infra, name: string): Promise<Host> {
  const host = await infra.store.hosts.get(name);
  if (host) return host;
  const names = (await infra.store.hosts.list()).map((h) => h.name);
  throw new CommandError(
    `no host is named '${name}' (${names.length === 0 ? 'there are none: grove host add NAME DEST' : `hosts: ${names.join(', ')}`})`,
    EXIT.usage,
  );
}

async function addHost(
  infra: Infra,
  io: HeadlessIo,
  command: Extract<HostCommand, { action: 'add' }>,
): Promise<number> {
  const root = command.root ?? DEFAULT_HOST_ROOT;
  const problem =
    hostNameProblem(command.name) ??
    destinationProblem(command.destination) ??
    hostRootProblem(root);
  if (problem) throw new CommandError(problem, EXIT.usage);
  const added = await infra.store.hosts.add({
    name: command.name,
    destination: command.destination,
    root,
    createdAt: infra.clock.now(),
    maxSessions: command.max ?? null,
  });
  if (!added) {
    const existing = await infra.store.hosts.get(command.name);
    // The same host again: only whether agents may run unconfined there (and --max) change (sessions may name it).
    if (existing?.destination === command.destination && existing.root === root) {
      await infra.store.settings.setGlobal(
        allowUnconfinedKey(command.name),
        command.allowUnconfined ? 'on' : 'off',
      );
      if (command.max !== undefined) await infra.store.hosts.setMax(command.name, command.max);
      if (command.json) {
        printJson(io, {
          ...hostJson(existing),
          allowUnconfined: command.allowUnconfined,
          max: command.max === undefined ? (existing.maxSessions ?? null) : command.max,
          added: false,
        });
        return EXIT.ok;
      }
      io.stdout.write(
        command.allowUnconfined
          ? `Host ${command.name}: agents may run there without bubblewrap when it has none: they can then write anywhere its user can.\n`
          : `Host ${command.name}: agents run there only inside bubblewrap.\n`,
      );
      return EXIT.ok;
    }
    throw new CommandError(
      `a host is already named '${command.name}' (${existing?.destination ?? '?'}); grove host rm ${command.name} first to change it`,
      EXIT.usage,
    );
  }
  // Stored either way: a host added again without the flag confines again.
  await infra.store.settings.setGlobal(
    allowUnconfinedKey(command.name),
    command.allowUnconfined ? 'on' : 'off',
  );
  if (command.json) {
    printJson(io, {
      ...hostJson({ name: command.name, destination: command.destination, root }),
      allowUnconfined: command.allowUnconfined,
      max: command.max ?? null,
      added: true,
    });
    return EXIT.ok;
  }
  io.stdout.write(
    `Added host ${command.name}: ssh ${command.destination}, root ${root}.\n${
      command.max === undefined ? '' : `Host ${command.name}: ${maxWords(command.max)}.\n`
    }${
      command.allowUnconfined
        ? `Agents may run on ${command.name} without bubblewrap when it has none: they can then write anywhere its user can.\n`
        : ''
    }Check it: grove host check ${command.name}\n`,
  );
  return EXIT.ok;
}

/** A host's maximum in words. */
function maxWords(max: number | null): string {
  return max === null
    ? 'at most auto turns at once (from its cores and memory)'
    : `at most ${max} turns at once`;
}

async function setHostMax(
  infra: Infra,
  io: HeadlessIo,
  command: Extract<HostCommand, { action: 'set' }>,
): Promise<number> {
  const host = await findHost(infra, command.name);
  await infra.store.hosts.setMax(host.name, command.max);
  if (command.json) printJson(io, { name: host.name, max: command.max });
  else io.stdout.write(`Host ${host.name}: ${maxWords(command.max)}.\n`);
  return EXIT.ok;
}

async function listHosts(infra: Infra, io: HeadlessIo, json: boolean): Promise<number> {
  const hosts = await infra.store.hosts.list();
  const loads = await infra.store.hosts.loads();
  // Every Grove process's turns with a live lease (no owner is '').
  const running = await infra.store.operations.runningTurnsElsewhere('', infra.clock.now());
  if (json) {
    const rows = hosts.map((h) => {
      const load = loads[h.name];
      return {
        ...hostJson(h),
        max: h.maxSessions ?? null,
        running: running[h.name] ?? 0,
        load: load ? loadJson(load) : null,
      };
    });
    io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return EXIT.ok;
  }
  if (hosts.length === 0) {
    io.stdout.write('No hosts. Add one: grove host add NAME DEST\n');
    return EXIT.ok;
  }
  const width = Math.max(...hosts.map((h) => h.name.length));
  for (const h of hosts) {
    const load = loads[h.name];
    const max = h.maxSessions ?? (load ? `auto (${defaultMaxTurns(load)})` : 'auto');
    io.stdout.write(
      `${h.name.padEnd(width)}  ${h.destination}  (root ${h.root})  max ${max}, ${running[h.name] ?? 0} running${load ? `; load ${load.load1.toFixed(2)}, ${gigabytes(load.availableBytes)} free (read ${new Date(load.readAt).toISOString()})` : ''}\n`,
    );
  }
  return EXIT.ok;
}

/** A reading as --json gives it: the figures and when they were read (ISO 8601). */
function loadJson(load: HostLoad) {
  return {
    cores: load.cores,
    totalBytes: load.totalBytes,
    availableBytes: load.availableBytes,
    load1: load.load1,
    readAt: new Date(load.readAt).toISOString(),
  };
}

async function removeHost(
  infra: Infra,
  io: HeadlessIo,
  name: string,
  json: boolean,
): Promise<number> {
  const host = await findHost(infra, name);
  const using = await infra.store.hosts.sessionsOn(name);
  if (using > 0) {
    io.stderr.write(
      `grove: host '${name}' is in use by ${using} session${using === 1 ? '' : 's'}; it stays.\n`,
    );
    return EXIT.failed;
  }
  await infra.store.hosts.remove(name);
  // A project may still name it as its default host: its new sessions are then refused in words, and it says so now.
  for (const project of await infra.store.projects.list()) {
    const chosen = await infra.store.settings.getProject(project.id, DEFAULT_HOST_KEY);
    if (hostChoice(chosen) === name)
      io.stderr.write(
        `grove: ${name} was the default host of ${project.path}: its new sessions are refused until another is chosen in Settings (Default host), or started with --host ${LOCAL_HOST_NAME}.\n`,
      );
  }
  if (json) printJson(io, hostJson(host));
  else io.stdout.write(`Removed host ${name}.\n`);
  return EXIT.ok;
}
