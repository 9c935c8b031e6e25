import { parseArgs } from 'node:util';
import * as z from 'zod/mini';
import { COMMAND_NAMES, parseHeadless, type HeadlessCommand } from './cli/args.js';
import { UsageError } from './cli/usage-error.js';

export const USAGE = `Usage: grove [-C DIR] [--help] [--version]
       grove [-C DIR] <command> [options]   (grove help <command> for details)

Run many AI coding agents at once on a git project, each in its own
worktree, from one terminal dashboard.

Options:
  -C DIR         Run as if started in DIR (a git repository)
  -h, --help     Show this help and exit
  -V, --version  Show the version and exit

Headless commands (they share the store with a running TUI):
  run [PROMPT]       Create a session and run one turn
  reply ID [PROMPT]  Send a follow-up prompt to a session
  ls                 List sessions
  inbox              List everything waiting on you, in every project
  watch              Print each change to sessions and the inbox as it happens
  mcp                Serve the project's sessions to an agent as MCP tools
  answer ITEM        Answer the questions an agent asks you (inbox)
  approve ITEM       Approve a request an agent holds, or raise a held budget
  deny ITEM          Deny a request an agent holds, or drop a budget-held prompt
  show ID            Show a session
  link ID            Link a session to a GitHub issue (--issue N), or --unlink
  ci-fixer ID        Set a session's own CI fixer: on, off or project
  diff ID            Print a session's diff
  merge ID           Rebase and squash-merge a session into its base branch
  rebase ID          Rebase a session onto its base branch
  cancel ID          Cancel a session (its work is kept on its branch)
  publish ID         Push a session and open its pull request
  threads ID         List the review threads of a session's pull request
  gc                 Remove old worktrees of finished sessions (work kept)
  doctor             Check Grove's set-up and say how to fix problems
  host               Name other machines for sessions and check them
  help [COMMAND]     Show this help, or a command's (as grove COMMAND --help)

Exit codes: 0 done, 1 the agent or a git step failed, 2 usage error,
3 the agent asked questions, 4 timed out, 5 held at a budget limit,
130 interrupted.

Data lives in $GROVE_HOME (default ~/.grove). Docs: docs/usage/.`;

export type CliCommand =
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  | { readonly kind: 'tui'; readonly dir: string | null }
  | { readonly kind: 'headless'; readonly command: HeadlessCommand };

export { UsageError };

const TuiArgs = z.object({
  C: z.optional(z.string().check(z.minLength(1, 'option -C needs a directory'))),
  help: z.optional(z.boolean()),
  version: z.optional(z.boolean()),
});

/** A leading `-C DIR`, `-CDIR` or `--C=DIR` as its argv words; null when argv does not start with one. */
function leadingDir(argv: readonly string[]): readonly string[] | null {
  const first = argv[0];
  if (first === undefined) return null;
  if (first === '-C' || first === '--C') return argv[1] === undefined ? null : [first, argv[1]];
  if ((first.startsWith('-C') && !first.startsWith('--')) || first.startsWith('--C='))
    return [first];
  return null;
}

/** Parses argv (without node and script). Throws UsageError with a short message. */
export function parseCli(argv: readonly string[]): CliCommand {
  const first = argv[0];
  if (first === 'help') return parseHelp(argv.slice(1));
  const name = COMMAND_NAMES.find((c) => c === first);
  if (name) return { kind: 'headless', command: parseHeadless(name, argv.slice(1)) };
  // `grove -C DIR ls` is `grove ls -C DIR`: a -C before a command goes to the command.
  const dir = leadingDir(argv);
  const after = dir ? COMMAND_NAMES.find((c) => c === argv[dir.length]) : undefined;
  if (dir && after)
    return {
      kind: 'headless',
      command: parseHeadless(after, [...dir, ...argv.slice(dir.length + 1)]),
    };
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        C: { type: 'string', short: 'C' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'V' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(
      message
        .replace(/\. To specify a positional argument.*$/s, '')
        .replace(/^Option '(-C), --C <value>' argument missing$/, 'option -C needs a directory'),
    );
  }
  const values = TuiArgs.safeParse(parsed.values);
  if (!values.success) throw new UsageError(values.error.issues[0]?.message ?? 'invalid arguments');
  if (values.data.help) return { kind: 'help' };
  if (values.data.version) return { kind: 'version' };
  const positional = parsed.positionals[0];
  if (positional !== undefined) {
    // `grove frob`: a word where a command goes is a command Grove does not have.
    if (positional === argv[0] && /^[a-z][\w-]*$/i.test(positional)) {
      throw new UsageError(
        `unknown command '${positional}' (commands: ${COMMAND_NAMES.join(', ')})`,
      );
    }
    throw new UsageError(`unexpected argument '${positional}'`);
  }
  return { kind: 'tui', dir: values.data.C ?? null };
}

/** `grove help` is `grove --help`; `grove help COMMAND` is `grove COMMAND --help`. */
function parseHelp(args: readonly string[]): CliCommand {
  const [topic, extra] = args;
  if (topic === undefined) return { kind: 'help' };
  if (topic === '--help' || topic === '-h') return { kind: 'help' };
  const name = COMMAND_NAMES.find((c) => c === topic);
  if (!name)
    throw new UsageError(
      `no help for '${topic}': not a command (commands: ${COMMAND_NAMES.join(', ')})`,
    );
  if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
  return { kind: 'headless', command: { kind: 'help', command: name } };
}
