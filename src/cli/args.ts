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
import { validateMemoryMax, validateTasksMax } from '../domain/limits.js';
import { parseHostCommand, type HostCommand } from './host-args.js';
import { parseCiFixerSwitch } from '../domain/ci-fixer.js';
import { COMMAND_HELP, COMMAND_NAMES } from './command-help.js';

export { COMMAND_HELP, COMMAND_NAMES };

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
      /** `N` or an issue URL: the session starts from that GitHub issue; null: none. */
      issue: string | null;
      /** The session's own memory and process-count limits (`4G`, `512`, `none`); null: the project's. */
      memoryMax: string | null;
      tasksMax: string | null;
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
  | {
      kind: 'answer';
      dir: string | null;
      /** A question of the inbox (question:<session id>) or a session id. */
      item: string;
      mode: PermissionMode | null;
      output: OutputFormat;
      timeoutMs: number | null;
      progress: boolean;
      /** The answer's words, joined by spaces; null or '-': standard input. */
      prompt: string | null;
    }
  | { kind: 'ls'; dir: string | null; json: boolean; all: boolean }
  | { kind: 'inbox'; json: boolean }
  | { kind: 'watch'; json: boolean }
  | { kind: 'mcp'; dir: string | null }
  | { kind: 'approve'; item: string; session: boolean; allowList: boolean; json: boolean }
  | { kind: 'deny'; item: string; json: boolean }
  | { kind: 'show'; dir: string | null; id: string; json: boolean }
  | { kind: 'link'; id: string; issue: string | null; json: boolean }
  | { kind: 'ci-fixer'; id: string; own: 'on' | 'off' | null; json: boolean }
  | { kind: 'diff'; dir: string | null; id: string; json: boolean }
  | {
      kind: 'merge';
      dir: string | null;
      id: string;
      progress: boolean;
      acknowledge: boolean;
      json: boolean;
    }
  | { kind: 'rebase'; dir: string | null; id: string; progress: boolean; json: boolean }
  | { kind: 'cancel'; dir: string | null; id: string; yes: boolean; json: boolean }
  | {
      kind: 'publish';
      dir: string | null;
      id: string;
      branch: string | null;
      progress: boolean;
      acknowledge: boolean;
      json: boolean;
    }
  | { kind: 'threads'; dir: string | null; id: string; json: boolean; resolve: boolean }
  | { kind: 'gc'; dir: string | null; days: number | null; dryRun: boolean; json: boolean }
  | { kind: 'doctor'; json: boolean }
  | HostCommand
  | { kind: 'help'; command: string };

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
  json: { type: 'boolean' },
  timeout: { type: 'string' },
  progress: { type: 'boolean' },
} as const;

function turnOptions(values: Parsed['values']) {
  const json = values['json'] === true;
  const output = Output.safeParse(values['output'] ?? (json ? 'json' : 'text'));
  if (!output.success) throw new UsageError(output.error.issues[0]?.message ?? 'invalid --output');
  // --json is --output json (every headless command takes --json).
  if (json && output.data !== 'json')
    throw new UsageError(`--json is --output json; give one of them (got --output ${output.data})`);
  const timeout = values['timeout'];
  return {
    dir: str(values['C']),
    mode: parseMode(values['mode']),
    output: output.data,
    timeoutMs: typeof timeout === 'string' ? parseDuration(timeout) : null,
    progress: values['progress'] === true,
  };
}

/** `--memory-max SIZE` and `--tasks-max N` of grove run, checked as the settings are. */
function limitFlags(
  memory: unknown,
  tasks: unknown,
  n: number | null,
): { memoryMax: string | null; tasksMax: string | null } {
  const memoryMax = typeof memory === 'string' ? memory.trim() : null;
  const tasksMax = typeof tasks === 'string' ? tasks.trim() : null;
  if ((memoryMax !== null || tasksMax !== null) && n !== null)
    throw new UsageError('--memory-max and --tasks-max cannot be used with -n N yet');
  const memoryError = memoryMax === null ? null : validateMemoryMax(memoryMax || '?');
  if (memoryError) throw new UsageError(`--memory-max: ${memoryError}`);
  const tasksError = tasksMax === null ? null : validateTasksMax(tasksMax || '?');
  if (tasksError) throw new UsageError(`--tasks-max: ${tasksError}`);
  return { memoryMax, tasksMax };
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
        issue: { type: 'string' },
        'memory-max': { type: 'string' },
        'tasks-max': { type: 'string' },
        ...TURN_FLAGS,
      });
      if (values.help) return { kind: 'help', command: name };
      noMore(positionals, 1);
      const n = typeof values.n === 'string' ? Number(values.n) : null;
      if (n !== null && (!Number.isInteger(n) || n < 2 || n > MAX_VARIANTS))
        throw new UsageError(`-n must be a whole number from 2 to ${MAX_VARIANTS}`);
      if (typeof values.agents === 'string' && n === null)
        throw new UsageError('--agents needs -n N');
      if (typeof values.issue === 'string' && n !== null)
        throw new UsageError('--issue cannot be used with -n N yet');
      if (values.issue === '') throw new UsageError('--issue needs an issue number or URL');
      const limits = limitFlags(values['memory-max'], values['tasks-max'], n);
      return {
        kind: 'run',
        ...turnOptions(values),
        agent: str(values.agent),
        model: str(values.model),
        reasoning: str(values.reasoning),
        n,
        agents: str(values.agents),
        host: str(values.host),
        issue: str(values.issue),
        ...limits,
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
    case 'answer': {
      const { values, positionals } = parse(args, TURN_FLAGS);
      if (values.help) return { kind: 'help', command: name };
      const item = positionals[0];
      if (!item)
        throw new UsageError('answer needs an ITEM (a question of grove inbox, or a session ID)');
      const words = positionals.slice(1);
      return {
        kind: 'answer',
        ...turnOptions(values),
        item,
        prompt: words.length === 0 ? null : words.join(' '),
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
        'allow-list': { type: 'boolean' },
        json: { type: 'boolean' },
      });
      if (values.help) return { kind: 'help', command: name };
      noMore(positionals, 1);
      const given = [values.once, values.session, values['allow-list']].filter((v) => v === true);
      if (given.length > 1) throw new UsageError('give one of --once, --session, --allow-list');
      return {
        kind: 'approve',
        item: needItem(name, positionals),
        session: values.session === true,
        allowList: values['allow-list'] === true,
        json: values.json === true,
      };
    }
    case 'deny': {
      const { values, positionals } = parse(args, { json: { type: 'boolean' } });
      if (values.help) return { kind: 'help', command: name };
      noMore(positionals, 1);
      return { kind: 'deny', item: needItem(name, positionals), json: values.json === true };
    }
    case 'link': {
      const { values, positionals } = parse(args, {
        issue: { type: 'string' },
        unlink: { type: 'boolean' },
        json: { type: 'boolean' },
      });
      if (values.help) return { kind: 'help', command: name };
      noMore(positionals, 1);
      const issue = str(values.issue);
      if ((issue === null || issue === '') === (values.unlink !== true))
        throw new UsageError('give --issue N|URL to link the session, or --unlink');
      return { kind: 'link', id: needId(name, positionals), issue, json: values.json === true };
    }
    case 'ci-fixer': {
      const { values, positionals } = parse(args, { json: { type: 'boolean' } });
      if (values.help) return { kind: 'help', command: name };
      noMore(positionals, 2);
      const choice = parseCiFixerSwitch(positionals[1] ?? '');
      if (!choice) throw new UsageError('give on, off or project after the session ID');
      return {
        kind: 'ci-fixer',
        id: needId(name, positionals),
        own: choice.own,
        json: values.json === true,
      };
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
      const { values, positionals } = parse(args, {
        progress: { type: 'boolean' },
        json: { type: 'boolean' },
      });
      if (values.help) return { kind: 'help', command: name };
      noMore(positionals, 1);
      const json = values.json === true;
      if (name === 'diff')
        return { kind: 'diff', dir: str(values.C), id: needId(name, positionals), json };
      return {
        kind: name,
        dir: str(values.C),
        id: needId(name, positionals),
        progress: values.progress === true,
        json,
      };
    }
    case 'merge': {
      const { values, positionals } = parse(args, {
        progress: { type: 'boolean' },
        acknowledge: { type: 'boolean' },
        json: { type: 'boolean' },
      });
      if (values.help) return { kind: 'help', command: name };
      noMore(positionals, 1);
      return {
        kind: 'merge',
        dir: str(values.C),
        id: needId(name, positionals),
        progress: values.progress === true,
        acknowledge: values.acknowledge === true,
        json: values.json === true,
      };
    }
    case 'cancel': {
      const { values, positionals } = parse(args, {
        yes: { type: 'boolean', short: 'y' },
        json: { type: 'boolean' },
      });
      if (values.help) return { kind: 'help', command: name };
      noMore(positionals, 1);
      return {
        kind: 'cancel',
        dir: str(values.C),
        id: needId(name, positionals),
        yes: values.yes === true,
        json: values.json === true,
      };
    }
    case 'publish': {
      const { values, positionals } = parse(args, {
        branch: { type: 'string' },
        progress: { type: 'boolean' },
        acknowledge: { type: 'boolean' },
        json: { type: 'boolean' },
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
        json: values.json === true,
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
        json: { type: 'boolean' },
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
        json: values.json === true,
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
