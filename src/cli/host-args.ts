// `grove host SUBCOMMAND …`: the arguments of the host commands (issue 24).
import { parseArgs } from 'node:util';
import { parseHostMax } from '../domain/placement.js';
import { UsageError } from './usage-error.js';

export type HostCommand =
  | {
      kind: 'host';
      action: 'add';
      name: string;
      destination: string;
      root: string | null;
      /** Agents may run there without bubblewrap (said in words by the person). */
      allowUnconfined: boolean;
      /** `--max N` (its most turns at once; null: auto), or undefined when not given. */
      max: number | null | undefined;
      json: boolean;
    }
  | {
      kind: 'host';
      action: 'set';
      name: string;
      /** `max N|auto`: its most turns at once (null: auto). */
      max: number | null;
      json: boolean;
    }
  | { kind: 'host'; action: 'ls'; json: boolean }
  | { kind: 'host'; action: 'rm'; name: string; json: boolean }
  | { kind: 'host'; action: 'check'; name: string; json: boolean };

export const HOST_HELP = `Usage: grove host add NAME DEST [--root DIR] [--max N|auto] [--allow-unconfined] [--json] | set NAME max N|auto [--json] | ls [--json] | rm NAME [--json] | check NAME [--json]

Hosts are other machines sessions will run on, reached with your own ssh
(its config, keys and agent; BatchMode, nothing forwarded). Start a session
on one with grove run --host NAME, or let Grove choose this machine or a
host with room with grove run --host auto.

  add NAME DEST  Names a host: DEST is what ssh accepts (user@host, an alias
                 of ~/.ssh/config). Does not connect.
  set NAME max N Sets the most turns running at once on the host (0 to 1000,
                 or auto: from its cores and memory, as for this machine)
  ls             Lists the hosts, their maximum and their last reading of
                 load and free memory
  rm NAME        Forgets a host (refused while sessions run on it)
  check NAME     Says, item by item, what the host has and lacks: login
                 without a prompt, git, the agent CLIs and their sign-in,
                 bubblewrap, the root folder (created if missing), free disk

Options:
  --root DIR          Grove's folder on the host (default .grove-host in the
                      host user's home; ~/… and absolute paths too)
  --max N|auto        The most turns running at once on the host (default
                      auto: two per core, at most one per 2 GB, at least 2)
  --allow-unconfined  Let agents run on this host without bubblewrap when it
                      has none (they can then write anywhere the host user
                      can); without it such a host runs no agent. Adding the
                      same host again changes only this
  --json              Print JSON (add: the host {name, destination, root,
                      allowUnconfined, max, added}; set: {name, max}; ls:
                      an array of {name, destination, root, max, running,
                      load}; rm: the host removed {name,
                      destination, root}; check: an array of {check, status,
                      detail, fix})

Exit codes: 0 done (check: nothing failed), 1 a check failed or the host
is in use, 2 usage error.`;

const ACTIONS = ['add', 'set', 'ls', 'rm', 'check'] as const;

/** `N` or `auto` as a host's maximum, else a usage error. */
function maxValue(text: string): number | null {
  const parsed = parseHostMax(text);
  if (parsed === null)
    throw new UsageError(`'${text}' is not a maximum: give a number from 0 to 1000, or auto`);
  return parsed.max;
}

function parse(
  args: readonly string[],
  options: Record<string, { type: 'string' | 'boolean' }>,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(
      (error instanceof Error ? error.message : String(error)).replace(
        /\. To specify a positional argument.*$/s,
        '',
      ),
    );
  }
}

function exactly(positionals: readonly string[], names: readonly string[], action: string): void {
  if (positionals.length < names.length)
    throw new UsageError(`host ${action} needs ${names.join(' and ')}`);
  const extra = positionals[names.length];
  if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
}

/** Parses `grove host …` (argv after `host`); null when it asks for help. */
export function parseHostCommand(args: readonly string[]): HostCommand | null {
  const [action, ...rest] = args;
  if (action === undefined || action === '--help' || action === '-h') {
    if (action === undefined) throw new UsageError(`host needs one of ${ACTIONS.join(', ')}`);
    return null;
  }
  const known = ACTIONS.find((a) => a === action);
  if (!known) throw new UsageError(`unknown host command '${action}' (use ${ACTIONS.join(', ')})`);
  const { values, positionals } = parse(rest, {
    help: { type: 'boolean' },
    ...(known === 'add'
      ? {
          root: { type: 'string' as const },
          max: { type: 'string' as const },
          'allow-unconfined': { type: 'boolean' as const },
        }
      : {}),
    json: { type: 'boolean' },
  });
  if (values['help'] === true) return null;
  const json = values['json'] === true;
  switch (known) {
    case 'add': {
      exactly(positionals, ['NAME', 'DEST'], known);
      const root = values['root'];
      return {
        kind: 'host',
        action: 'add',
        name: positionals[0] ?? '',
        destination: positionals[1] ?? '',
        root: typeof root === 'string' ? root : null,
        allowUnconfined: values['allow-unconfined'] === true,
        max: typeof values['max'] === 'string' ? maxValue(values['max']) : undefined,
        json,
      };
    }
    case 'set': {
      exactly(positionals, ['NAME', 'max', 'N'], known);
      if (positionals[1] !== 'max')
        throw new UsageError(`host set changes only max (grove host set NAME max N|auto)`);
      return {
        kind: 'host',
        action: 'set',
        name: positionals[0] ?? '',
        max: maxValue(positionals[2] ?? ''),
        json,
      };
    }
    case 'ls':
      exactly(positionals, [], known);
      return { kind: 'host', action: 'ls', json };
    case 'rm':
      exactly(positionals, ['NAME'], known);
      return { kind: 'host', action: 'rm', name: positionals[0] ?? '', json };
    case 'check':
      exactly(positionals, ['NAME'], known);
      return { kind: 'host', action: 'check', name: positionals[0] ?? '', json };
  }
}
