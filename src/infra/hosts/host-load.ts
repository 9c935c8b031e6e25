// A host's free memory and load (issue 24, item 6), read with one short
// command over the shared connection (ssh.ts: ControlMaster, so no new login
// when one is open). The host's answer is only matched against fixed shapes
// (domain/placement.ts: parseHostLoad), cut at HOST_LOAD_MAX_BYTES first;
// nothing of it is run. /proc is the kernel's: an agent on the host cannot
// write it.
import { HOST_LOAD_MAX_BYTES, parseHostLoad, type HostLoad } from '../../domain/placement.js';
import type { Host } from '../../domain/host.js';
import { HostError } from './remote-script.js';
import { sshFailure, type Ssh } from './ssh.js';

/** Linux's /proc files, then the cores online; each read capped. */
export const HOST_LOAD_SCRIPT = `head -c 8192 /proc/meminfo; echo; head -c 256 /proc/loadavg; echo; printf 'cores %s\\n' "$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc 2>/dev/null)"`;

/** How long one reading may take (a host away fails well before ssh's 15 s connect timeout would). */
const READ_TIMEOUT_MS = 10_000;

/** Reads `host`'s figures now; a HostError in words when it cannot be reached or says something else. */
export async function readHostLoad(
  ssh: Ssh,
  host: Host,
  now: () => number,
  signal?: AbortSignal,
): Promise<HostLoad> {
  const run = await ssh.run(host.destination, HOST_LOAD_SCRIPT, {
    timeoutMs: READ_TIMEOUT_MS,
    ...(signal ? { signal } : {}),
  });
  const failure = sshFailure(run, host.destination);
  if (failure) throw new HostError(failure.reason, failure.fix);
  const load = parseHostLoad(run.stdout.slice(0, HOST_LOAD_MAX_BYTES + 1), now());
  if (run.code !== 0 || !load)
    throw new HostError(
      `${host.name} did not give its free memory and load (/proc/meminfo and /proc/loadavg: Linux hosts only)`,
    );
  return load;
}
