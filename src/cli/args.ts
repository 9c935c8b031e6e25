import { MAX_VARIANTS } from '../domain/best-of.js';
import { parseArgs } from 'node:util';
import * as z from 'zod/mini';
import {
  PERMISSION_MODES,
  parsePermissionModeFlag,
  permissionModeFlag,
  type PermissionMode,
} from '../domain/permission-mode.js';
import { UsageError } from './usage-error.js';
import { HOST_HELP, parseHostCommand, type HostCommand } from './host-args.js';

export const OUTPUTS = ['text', 'json', 'stream-json', 'diff'] as const;
export type OutputFormat = (typeof OUTPUTS)[number];

export type HeadlessCommand =
  | {
      kind: 'run';
      dir: string | null;
      agent: string | null;
      model: string | null;
      reasoning: string | null;
      n: number | null;
      agents: string | null;
      /** The host the session runs on (grove host add); null: this machine. */
      host: string | null;
      mode: PermissionMode | null;
      output: OutputFormat;
      timeoutMs: number | null;
      progress: boolean;
      prompt: string | null;
    }
  | {
      kind: 'reply';
      dir: string | null;
      id: string;
      mode: PermissionMode | null;
      output: OutputFormat;
      timeoutMs: number | null;
      progress: boolean;
      prompt: string | null;
      threads: boolean;
    }
  | { kind: 'ls'; dir: string | null; json: boolean; all: boolean }
  | { kind: 'inbox'; json: boolean }
  | { kind: 'watch'; json: boolean }
  | { kind: 'mcp'; dir: string | null }
  | { kind: 'approve'; item: string; session: boolean }
  | { kind: 'deny'; item: string }
  | { kind: 'show'; dir: string | null; id: string; json: boolean }
  | { kind: 'diff'; dir: string | null; id: string }
  | { kind: 'merge'; dir: string | null; id: string; progress: boolean; acknowledge: boolean }
  | { kind: 'rebase'; dir: string | null; id: string; progress: boolean }
  | { kind: 'cancel'; dir: string | null; id: string; yes: boolean }
  | {
      kind: 'publish';
      dir: string | null;
      id: string;
      branch: string | null;
      progress: boolean;
      acknowledge: boolean;
    }
  | { kind: 'threads'; dir: string | null; id: string; json: boolean; resolve: boolean }
  | { kind: 'gc'; dir: string | null; days: number | null; dryRun: boolean }
  | { kind: 'doctor'; json: boolean }
  | HostCommand
  | { kind: 'help'; command: string };

export const COMMAND_NAMES = [
  'run',
  'reply',
  'ls',
  'inbox',
  'watch',
  'mcp',
  'approve',
  'deny',
  'show',
  'diff',
  'merge',
  'rebase',
  'cancel',
  'publish',
  'threads',
  'gc',
  'doctor',
  'host',
] as const;

const EXIT_LINE =
  'Exit codes: 0 done, 1 the agent or a git step failed, 2 usage error,\n3 the agent asked questions, 4 timed out, 5 held at a budget limit,\n130 interrupted.';
const TURN_OPTIONS = `  --mode MODE         auto-edit, read-only or plan: what the agent may do
  --output FORMAT     text (default), json, stream-json or diff
  --timeout DURATION  Stop the turn after DURATION (90s, 10m, 1h) and exit 4
  --progress          Show progress on standard error even when it is not a terminal`;

/** `grove <command> --help`; docs/usage/cli.md quotes each one verbatim (a test checks). */
export const COMMAND_HELP: Record<(typeof COMMAND_NAMES)[number], string> = {
  run: `Usage: grove run [-C DIR] [--agent ID] [--model M] [--reasoning L] [-n N] [--agents LIST] [--host NAME] [--mode MODE] [--output FORMAT] [--timeout DURATION] [--progress] [PROMPT]

Creates a session exactly as 'a' does in the TUI (worktree, branch grove/<id>,
.worktreeinclude, setup command), runs one turn, prints the result and exits.
The prompt is PROMPT, or standard input when PROMPT is '-' or absent and
standard input is not a terminal. --mode sets the session's permission mode
(default auto-edit).

Options:
  -C DIR              The repository (default: the current directory)
  --agent ID          claude, codex, gemini, or an ACP agent's name in
                      GROVE_HOME/agents.json (default: the project's main model)
  --model M           The agent's model (default: the project's main model)
  --reasoning L       The reasoning level (default: the project's main model)
  -n N                Best of N: run the prompt in N sessions, then the check
                      command in each and a judge that ranks them (prints the
                      ranking; see docs/usage/parallel.md)
  --agents LIST       With -n: the variants' agents, cycled (claude,codex:gpt-5.5)
  --host NAME         Run the session's agent on host NAME (grove host add;
                      Claude Code only; see docs/usage/hosts.md)
${TURN_OPTIONS}

${EXIT_LINE}`,
  reply: `Usage: grove reply ID [--mode MODE] [--output FORMAT] [--timeout DURATION] [--progress] [--threads] [PROMPT]

Sends a follow-up prompt to session ID and runs the turn; answers its questions
too. The prompt is PROMPT, or standard input when PROMPT is '-' or absent and
standard input is not a terminal. --mode changes the session's permission
mode first; the session keeps it. With --threads the prompt is the pull
request's open review threads (file, line, comments); after the turn Grove
pushes and replies on each thread with what changed and the commit.

Options:
${TURN_OPTIONS}
  --threads           Send the pull request's open review threads as the turn

${EXIT_LINE}`,
  ls: `Usage: grove ls [-C DIR] [--json] [--all]

Lists the project's sessions, newest first: the active ones, or all of them
(the archive too) with --all.

Options:
  -C DIR  The repository (default: the current directory)
  --json  Print a JSON array
  --all   Include merged, done and canceled sessions`,
  inbox: `Usage: grove inbox [--json]

Lists everything waiting on you, across every project, oldest first: agent
requests held for your approval, agent questions, prompts held at a budget
limit or waiting for a usage limit, conflicts, failed turns and git steps,
and review threads to answer.

Options:
  --json  Print a JSON array`,
  watch: `Usage: grove watch [--json]

Follows every project's sessions and inbox, and prints each change as it
happens: a session created, a status changed, a turn finished, an item waiting
on you added or handled (by any Grove process). It first prints the items
already waiting, then a ready line, and runs until Ctrl+C, SIGTERM or the
reader closing the output.

Options:
  --json  Print one JSON object per line (NDJSON)

Exit codes: 0 stopped by Ctrl+C or SIGTERM, 1 the store could not be read,
141 the reader closed the output.`,
  mcp: `Usage: grove mcp [-C DIR]

Runs an MCP server on standard input and output for an agent CLI (Claude Code,
Codex, Gemini CLI) to list, start, follow and answer the Grove sessions of the
project in DIR (default: the current directory): grove_list_sessions,
grove_show_session, grove_read_diff, grove_read_inbox, grove_start_session,
grove_reply, grove_wait_session. Merge, publish, cancel and approvals are not
tools. Turns it starts run in this process; it ends when the client closes the
stream, once they are over. Add it to an agent, e.g.:
  claude mcp add grove -- grove mcp -C /path/to/repo

Options:
  -C DIR  The repository (default: the current directory)`,
  approve: `Usage: grove approve ITEM [--once|--session]

Approves a request an agent CLI holds for you (an approval in grove inbox):
once (the default), or for the rest of the session (the same command in the
same folder, or an edit of the same files, then passes without asking).
ITEM is the request's id as grove inbox shows it (8 characters, or the
item's id approval:…). The waiting turn goes on.

Options:
  --once     Approve this request only (the default)
  --session  Approve it and the same request again in this session`,
  deny: `Usage: grove deny ITEM

Denies a request an agent CLI holds for you (an approval in grove inbox).
ITEM is the request's id as grove inbox shows it. The waiting turn goes on
without it.`,
  show: `Usage: grove show ID [--json]

Shows a session: status, branch, worktree, pull request, transcript (tool calls folded
to one line), summary, and the agent's open questions with their options.

Options:
  --json  Print the JSON object of 'grove run --output json' plus the transcript`,
  diff: `Usage: grove diff ID

Prints the session's diff against its base branch, uncommitted and untracked
files included.`,
  merge: `Usage: grove merge ID [--progress] [--acknowledge]

Rebases the session onto its base branch (conflicts go to the agent) and
squash-merges it in the main checkout as one commit, as 'm' does. Prints the
new status and commit.

Options:
  --progress     Show progress on standard error even when it is not a terminal
  --acknowledge  You have read what Grove put back after the agent changed git
                 state outside its worktree (grove show says it): merge anyway`,
  rebase: `Usage: grove rebase ID [--progress]

Rebases the session branch onto its base branch (conflicts go to the agent),
as 'r' does.

Options:
  --progress  Show progress on standard error even when it is not a terminal`,
  cancel: `Usage: grove cancel ID [--yes]

Cancels the session: stops the agent and removes the worktree. Uncommitted work
is committed to the branch first, and the branch is kept when it holds work.
When there is work (or a running turn), it only says what would happen and
exits 2, unless --yes is given.

Options:
  -y, --yes  Cancel even though the session holds work (it stays on the branch)`,
  publish: `Usage: grove publish ID [--branch NAME] [--progress] [--acknowledge]

Pushes the session branch and opens (or refreshes) its draft pull request on
GitHub, as 'p' does. Prints the status and the pull request's address.

Options:
  --branch NAME  The remote branch (default: the session branch)
  --progress     Show progress on standard error even when it is not a terminal
  --acknowledge  You have read what Grove put back after the agent changed git
                 state outside its worktree (grove show says it): publish anyway`,
  threads: `Usage: grove threads ID [--json] [--resolve]

Lists the unresolved review threads of the session's pull request, fetched
from GitHub now: file and line, author, the first line of the first comment,
the number of replies, and Grove's progress (sent to the agent, answered).
'grove reply ID --threads' sends the open ones to the agent. When GitHub
cannot be asked, says why and lists the threads as last fetched (exit 1).

Options:
  --json     Print a JSON array of {id, path, line, startLine, outdated, state, repliedCommit, comments}
  --resolve  Resolve on GitHub the threads Grove answered, then list the rest`,
  gc: `Usage: grove gc [-C DIR] [--days N] [--dry-run]

Reclaims disk: removes the worktrees of the project's Done and Canceled
sessions last changed N or more days ago. Uncommitted and untracked work in
a worktree is first kept as a commit at refs/grove/snapshots/<id>; a worktree
whose work cannot be kept (a rebase half done, a submodule with changes, a
locked worktree) is left alone, with the reason. Prints each worktree, the
space reclaimed and the command that restores each snapshot. Branches are
not touched.

Options:
  -C DIR     The repository (default: the current directory)
  --days N   Only sessions last changed N or more days ago (default: the
             'Reclaim after' setting, 14)
  --dry-run  List what would be removed and kept, and change nothing

Exit codes: 0 done, 1 a worktree was left in place (see why), 2 usage error.`,
  doctor: `Usage: grove doctor [--json]

Checks what Grove depends on and says how to fix each problem: Node.js and
better-sqlite3, git, the agent CLIs (installed, version, signed in), the
GitHub token's source, GROVE_HOME (permissions, free disk), the database
(quick_check, schema version), the sandbox engine, tmux and the clipboard.
Needs no repository and changes nothing.

Options:
  --json  Print a JSON array of {check, status, detail, fix}

Exit codes: 0 nothing failed (warnings allowed), 1 a check failed, 2 usage error.`,
  host: HOST_HELP,
};

/** `30s`, `5m`, `1h`, `1500ms`, or plain seconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new UsageError(`invalid duration '${text}' (use e.g. 90s, 10m, 1h)`);
  const value = Number(match[1]);
  const unit = match[2] ?? 's';
  const factor = unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 3_600_000;
  return Math.round(value * factor);
}

const Output = z.enum(OUTPUTS, {
  message: '--output must be one of text, json, stream-json, diff',
});

/** `--mode auto-edit|read-only|plan`; null when absent. */
function parseMode(value: unknown): PermissionMode | null {
  if (typeof value !== 'string') return null;
  const mode = parsePermissionModeFlag(value);
  if (!mode)
    throw new UsageError(
      `--mode must be one of ${PERMISSION_MODES.map(permissionModeFlag).join(', ')} (got '${value}')`,
    );
  return mode;
}

interface Parsed {
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: string[];
}

function parse(
  args: readonly string[],
  options: Record<string, { type: 'string' | 'boolean'; short?: string }>,
): Parsed {
  try {
    return parseArgs({
      args: [...args],
      options: {
        C: { type: 'string', short: 'C' },
        help: { type: 'boolean', short: 'h' },
        ...options,
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(
      (error instanceof Error ? error.message : String(error)).replace(
        /\. To specify a positional argument.*$/s,
        '',
      ),
    );
  }
}

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function needId(command: string, positionals: string[]): string {
  const id = positionals[0];
  if (!id) throw new UsageError(`${command} needs a session ID`);
  return id;
}

function needItem(command: string, positionals: string[]): string {
  const item = positionals[0];
  if (!item) throw new UsageError(`${command} needs an ITEM (an approval's id from grove inbox)`);
  return item;
}

function noMore(positionals: string[], from: number): void {
  const extra = positionals[from];
  if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
}

/** What goes to stderr for a usage error: the message, the usage line, where to read more. */
export function usageErrorText(error: UsageError): string {
  const help = COMMAND_NAMES.find((c) => c === error.command);
  if (!help)
    return `grove: ${error.message}\nUsage: grove [-C DIR] [--help] [--version]\nTry 'grove --help' for more.\n`;
  const usage = COMMAND_HELP[help].split('\n')[0] ?? '';
  return `grove: ${error.message}\n${usage}\nTry 'grove ${help} --help' for more.\n`;
}

/** Parses a headless command (argv after the command name). */
export function parseHeadless(
  name: (typeof COMMAND_NAMES)[number],
  args: readonly string[],
): HeadlessCommand {
  try {
    return parseCommand(name, args);
  } catch (error) {
    if (error instanceof UsageError) error.command = name;
    throw error;
  }
}

/** The flags `grove run` and `grove reply` share (TURN_OPTIONS is their help): the turn's mode, output, timeout and progress. */
const TURN_FLAGS = {
  mode: { type: 'string' },
  output: { type: 'string' },
  timeout: { type: 'string' },
  progress: { type: 'boolean' },
} as const;

function turnOptions(values: Parsed['values']) {
  const output = Output.safeParse(values['output'] ?? 'text');
  if (!output.success) throw new UsageError(output.error.issues[0]?.message ?? 'invalid --output');
  const timeout = values['timeout'];
  return {
    dir: str(values['C']),
    mode: parseMode(values['mode']),
    output: output.data,
    timeoutMs: typeof timeout === 'string' ? parseDuration(timeout) : null,
    progress: values['progress'] === true,
  };
}

function parseCommand(
  name: (typeof COMMAND_NAMES)[number],
  args: readonly string[],
): HeadlessCommand {
  switch (name) {
    case 'run': {
      const { values, positionals } = parse(args, {
        agent: { type: 'string' },
        model: { type: 'string' },
        reasoning: { type: 'string' },
        n: { type: 'string', short: 'n' },
        agents: { type: 'string' },
        host: { type: 'string' },
        ...TURN_FLAGS,
      });
      if (values.help) return { kind: 'help', command: name };
      noMore(positionals, 1);
      const n = typeof values.n === 'string' ? Number(values.n) : null;
      if (n !== null && (!Number.isInteger(n) || n < 2 || n > MAX_VARIANTS))
        throw new UsageError(`-n must be a whole number from 2 to ${MAX_VARIANTS}`);
      if (typeof values.agents === 'string' && n === null)
        throw new UsageError('--agents needs -n N');
      if (typeof values.host === 'string' && n !== null)
        throw new UsageError('--host cannot be used with -n N yet');
      return {
        kind: 'run',
        ...turnOptions(values),
        agent: str(values.agent),
        model: str(values.model),
        reasoning: str(values.reasoning),
        n,
        agents: str(values.agents),
        host: str(values.host),
        prompt: positionals[0] ?? null,
      };
    }
    case 'reply': {
      const { values, positionals } = parse(args, {
        ...TURN_FLAGS,
        threads: { type: 'boolean' },
      });
      if (values.help) return { kind: 'help', command: name };
      noMore(positionals, 2);
      const options = turnOptions(values);
      const threads = values.threads === true;
      if (threads && positionals[1] !== undefined)
        throw new UsageError('--threads takes no PROMPT (the review threads are the prompt)');
      return {
        kind: 'reply',
        ...options,
        id: needId(name, positionals),
        prompt: positionals[1] ?? null,
        threads,
      };
    }
    case 'ls': {
      const { values, positionals } = parse(args, {
        json: { type: 'boolean' },
        all: { type: 'boolean' },
      });
      if (values.help) return { kind: 'help', command: name };
      noMore(positionals, 0);
      return {
        kind: 'ls',
        dir: str(values.C),
        json: values.json === true,
        all: values.all === true,
      };
    }
    case 'inbox': {
      const { values, positionals } = parse(args, { json: { type: 'boolean' } });
      if (values.help) return { kind: 'help', command: name };
      noMore(positionals, 0);
      return { kind: 'inbox', json: values.json === true };
    }
    case 'mcp': {
      const { values, positionals } = parse(args, {});
      if (values.help) return { kind: 'help', command: name };
      noMore(positionals, 0);
      return { kind: 'mcp', dir: str(values.C) };
    }
    case 'watch': {
      const { values, positionals } = parse(args, { json: { type: 'boolean' } });
      if (values.help) return { kind: 'help', command: name };
      noMore(positionals, 0);
      return { kind: 'watch', json: values.json === true };
    }
    case 'approve': {
      const { values, positionals } = parse(args, {
        once: { type: 'boolean' },
        session: { type: 'boolean' },
      });
      if (values.help) return { kind: 'help', command: name };
      noMore(positionals, 1);
      if (values.once === true && values.session === true)
        throw new UsageError('give --once or --session, not both');
      return {
        kind: 'approve',
        item: needItem(name, positionals),
        session: values.session === true,
      };
    }
    case 'deny': {
      const { values, positionals } = parse(args, {});
      if (values.help) return { kind: 'help', command: name };
      noMore(positionals, 1);
      return { kind: 'deny', item: needItem(name, positionals) };
    }
    case 'show': {
      const { values, positionals } = parse(args, { json: { type: 'boolean' } });
      if (values.help) return { kind: 'help', command: name };
      noMore(positionals, 1);
      return {
        kind: 'show',
        dir: str(values.C),
        id: needId(name, positionals),
        json: values.json === true,
      };
    }
    case 'diff':
    case 'rebase': {
      const { values, positionals } = parse(args, { progress: { type: 'boolean' } });
      if (values.help) return { kind: 'help', command: name };
      noMore(positionals, 1);
      if (name === 'diff')
        return { kind: 'diff', dir: str(values.C), id: needId(name, positionals) };
      return {
        kind: name,
        dir: str(values.C),
        id: needId(name, positionals),
        progress: values.progress === true,
      };
    }
    case 'merge': {
      const { values, positionals } = parse(args, {
        progress: { type: 'boolean' },
        acknowledge: { type: 'boolean' },
      });
      if (values.help) return { kind: 'help', command: name };
      noMore(positionals, 1);
      return {
        kind: 'merge',
        dir: str(values.C),
        id: needId(name, positionals),
        progress: values.progress === true,
        acknowledge: values.acknowledge === true,
      };
    }
    case 'cancel': {
      const { values, positionals } = parse(args, { yes: { type: 'boolean', short: 'y' } });
      if (values.help) return { kind: 'help', command: name };
      noMore(positionals, 1);
      return {
        kind: 'cancel',
        dir: str(values.C),
        id: needId(name, positionals),
        yes: values.yes === true,
      };
    }
    case 'publish': {
      const { values, positionals } = parse(args, {
        branch: { type: 'string' },
        progress: { type: 'boolean' },
        acknowledge: { type: 'boolean' },
      });
      if (values.help) return { kind: 'help', command: name };
      noMore(positionals, 1);
      return {
        kind: 'publish',
        dir: str(values.C),
        id: needId(name, positionals),
        branch: str(values.branch),
        progress: values.progress === true,
        acknowledge: values.acknowledge === true,
      };
    }
    case 'threads': {
      const { values, positionals } = parse(args, {
        json: { type: 'boolean' },
        resolve: { type: 'boolean' },
      });
      if (values.help) return { kind: 'help', command: name };
      noMore(positionals, 1);
      return {
        kind: 'threads',
        dir: str(values.C),
        id: needId(name, positionals),
        json: values.json === true,
        resolve: values.resolve === true,
      };
    }
    case 'gc': {
      const { values, positionals } = parse(args, {
        days: { type: 'string' },
        'dry-run': { type: 'boolean' },
      });
      if (values.help) return { kind: 'help', command: name };
      noMore(positionals, 0);
      const days = str(values.days);
      if (days !== null && !/^\d+$/.test(days))
        throw new UsageError(`--days must be a whole number of days (got '${days}')`);
      return {
        kind: 'gc',
        dir: str(values.C),
        days: days === null ? null : Number(days),
        dryRun: values['dry-run'] === true,
      };
    }
    case 'doctor': {
      const { values, positionals } = parse(args, { json: { type: 'boolean' } });
      if (values.help) return { kind: 'help', command: name };
      noMore(positionals, 0);
      return { kind: 'doctor', json: values.json === true };
    }
    case 'host':
      return parseHostCommand(args) ?? { kind: 'help', command: name };
    default:
      throw new UsageError(`unknown command '${String(name)}'`);
  }
}
