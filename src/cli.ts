import { parseArgs } from 'node:util';
import { z } from 'zod';

export const USAGE = `Usage: grove [-C DIR] [--help] [--version]

Run many AI coding agents at once on a git project, each in its own
worktree, from one terminal dashboard.

Options:
  -C DIR         Run as if started in DIR (a git repository)
  -h, --help     Show this help and exit
  -V, --version  Show the version and exit

Data lives in $GROVE_HOME (default ~/.grove). Docs: docs/usage/.`;

export type CliCommand =
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  | { readonly kind: 'tui'; readonly dir: string | null };

export class UsageError extends Error {
  readonly kind = 'usage' as const;
}

const TuiArgs = z.object({
  C: z.string().min(1, 'option -C needs a directory').optional(),
  help: z.boolean().optional(),
  version: z.boolean().optional(),
});

/** Parses argv (without node and script). Throws UsageError with a short message. */
export function parseCli(argv: readonly string[]): CliCommand {
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
    throw new UsageError(message.replace(/\. To specify a positional argument.*$/s, '').replace(/^Option '(-C), --C <value>' argument missing$/, 'option -C needs a directory'));
  }
  const values = TuiArgs.safeParse(parsed.values);
  if (!values.success) throw new UsageError(values.error.issues[0]?.message ?? 'invalid arguments');
  if (values.data.help) return { kind: 'help' };
  if (values.data.version) return { kind: 'version' };
  if (parsed.positionals.length > 0) {
    throw new UsageError(`unexpected argument '${parsed.positionals[0] ?? ''}'`);
  }
  return { kind: 'tui', dir: values.data.C ?? null };
}
