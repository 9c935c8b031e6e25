import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/grove-env.js';
import { expectExit, harness, type Harness } from './headless-harness.js';
import {
  ApprovalDecisionSchema,
  BudgetDecisionSchema,
  CancelSchema,
  DiffSchema,
  GcSchema,
  HostAddSchema,
  HostSetSchema,
  HostSchema,
  LandSchema,
  ListSchema,
  ResultSchema,
  UsageDecisionSchema,
} from './headless-schema.js';

// Usage errors (exit 2), `--help` texts, and docs/usage/cli.md agreeing with
// both the binary and the JSON shapes the other headless tests check.

const COMMANDS = [
  'run',
  'reply',
  'ls',
  'inbox',
  'watch',
  'mcp',
  'answer',
  'approve',
  'deny',
  'show',
  'link',
  'ci-fixer',
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
const DOC = readFileSync(join(ROOT, 'docs', 'usage', 'cli.md'), 'utf8');

/** The ```text blocks of the doc. */
function textBlocks(): string[] {
  return [...DOC.matchAll(/```text\n([\s\S]*?)\n```/g)].map((m) => m[1] ?? '');
}

let h: Harness;

beforeAll(async () => {
  h = await harness();
});

afterAll(async () => {
  await h.close();
});

describe('usage errors exit 2 with the command usage on stderr', () => {
  const usageLine = (command: string): string =>
    readFileSync(join(ROOT, 'docs', 'usage', 'cli.md'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`Usage: grove ${command} `)) ??
    `(no usage line for ${command} in cli.md)`;

  it.each([
    [['run', '--bogus', 'hi'], 'run', "Unknown option '--bogus'"],
    [
      ['run', '--output', 'xml', 'hi'],
      'run',
      '--output must be one of text, json, stream-json, diff',
    ],
    [['run', '--timeout', 'soon', 'hi'], 'run', "invalid duration 'soon' (use e.g. 90s, 10m, 1h)"],
    [['run', 'one', 'two'], 'run', "unexpected argument 'two'"],
    [
      ['run', '--agent', 'nobody', 'hi'],
      'run',
      "unknown agent 'nobody' (use claude, codex or gemini, or name an ACP agent in GROVE_HOME/agents.json)",
    ],
    [
      ['run', '--reasoning', 'galactic', 'hi'],
      'run',
      "claude has no reasoning level 'galactic' (use low, medium, high, xhigh, max)",
    ],
    [
      ['reply', '--output', 'yaml', 'abc', 'hi'],
      'reply',
      '--output must be one of text, json, stream-json, diff',
    ],
    [
      ['run', '--mode', 'yolo', 'hi'],
      'run',
      "--mode must be one of auto-edit, read-only, plan (got 'yolo')",
    ],
    [
      ['reply', '--mode', 'write-all', 'abc', 'hi'],
      'reply',
      "--mode must be one of auto-edit, read-only, plan (got 'write-all')",
    ],
    [['reply'], 'reply', 'reply needs a session ID'],
    [['answer'], 'answer', 'answer needs an ITEM (a question of grove inbox, or a session ID)'],
    [['show'], 'show', 'show needs a session ID'],
    [['show', 'abc', '--yes'], 'show', "Unknown option '--yes'"],
    [['diff'], 'diff', 'diff needs a session ID'],
    [['merge'], 'merge', 'merge needs a session ID'],
    [['rebase', '--yes', 'abc'], 'rebase', "Unknown option '--yes'"],
    [['cancel'], 'cancel', 'cancel needs a session ID'],
    [['publish'], 'publish', 'publish needs a session ID'],
    [['threads'], 'threads', 'threads needs a session ID'],
    [['threads', 'abc', '--all'], 'threads', "Unknown option '--all'"],
    [
      ['reply', '--threads', 'abc', 'hi'],
      'reply',
      '--threads takes no PROMPT (the review threads are the prompt)',
    ],
    [['ls', 'extra'], 'ls', "unexpected argument 'extra'"],
    [['ls', '--every'], 'ls', "Unknown option '--every'"],
    [['gc', '--days', 'two'], 'gc', "--days must be a whole number of days (got 'two')"],
    [['gc', 'extra'], 'gc', "unexpected argument 'extra'"],
  ] as const)('grove %j', async (args, command, message) => {
    const run = await h.grove(args, { input: '' });

    expectExit(run, 2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `grove: ${message}\n${usageLine(command)}\nTry 'grove ${command} --help' for more.\n`,
    );
  });

  it('an unknown or ambiguous ID is a usage error too', async () => {
    const run = await h.grove(['show', 'ffffffff']);
    expectExit(run, 2);
    expect(run.stderr).toBe("grove: no session matches 'ffffffff'\n");
  });

  it('no session is made by a refused command', async () => {
    const ls = await h.grove(['ls', '--all', '--json']);
    expectExit(ls, 0);
    expect(JSON.parse(ls.stdout)).toEqual([]);
    expect(h.server.modelRequests('anthropic')).toEqual([]);
  });
});

describe('--help', () => {
  it('grove --help lists every command, the exit codes, and is quoted in cli.md', async () => {
    const run = await h.grove(['--help']);

    expectExit(run, 0);
    expect(run.stderr).toBe('');
    for (const command of COMMANDS) expect(run.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    expect(run.stdout).toContain(
      'Exit codes: 0 done, 1 the agent or a git step failed, 2 usage error,\n3 the agent asked questions, 4 timed out, 5 held at a budget limit,\n130 interrupted.',
    );
    expect(textBlocks()).toContain(run.stdout.trimEnd());
  });

  it.each(COMMANDS)(
    'grove %s --help (and -h) is printed word for word in cli.md',
    async (command) => {
      const run = await h.grove([command, '--help']);

      expectExit(run, 0);
      expect(run.stderr).toBe('');
      expect(run.stdout).toMatch(new RegExp(`^Usage: grove ${command}( |$)`));
      expect(textBlocks()).toContain(run.stdout.trimEnd());
      expect(DOC).toContain(`### grove ${command}\n\n\`\`\`text\n${run.stdout.trimEnd()}\n\`\`\``);
      expect((await h.grove([command, '-h'])).stdout).toBe(run.stdout);
    },
  );

  it('grove help is grove --help, and grove help COMMAND is grove COMMAND --help', async () => {
    const help = await h.grove(['help']);
    expectExit(help, 0);
    expect(help.stderr).toBe('');
    expect(help.stdout).toBe((await h.grove(['--help'])).stdout);
    expect(help.stdout).toMatch(/^ {2}help \[COMMAND\] /m);
    for (const command of COMMANDS) {
      const run = await h.grove(['help', command]);
      expectExit(run, 0);
      expect(run.stdout, command).toBe((await h.grove([command, '--help'])).stdout);
    }
  });

  it('grove help names the commands when asked about one Grove does not have', async () => {
    const run = await h.grove(['help', 'frob']);
    expectExit(run, 2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `grove: no help for 'frob': not a command (commands: ${COMMANDS.join(', ')})\nUsage: grove [-C DIR] [--help] [--version]\nTry 'grove --help' for more.\n`,
    );
  });

  it('every flag in a usage line is explained in the help below it', async () => {
    for (const command of COMMANDS) {
      const help = (await h.grove([command, '--help'])).stdout;
      const usage = help.split('\n')[0] ?? '';
      const flags = [...usage.matchAll(/\[(-C|--[a-z-]+)/g)].map((m) => m[1] ?? '');
      for (const flag of flags)
        expect(help.split('\n').slice(1).join('\n'), `${command} ${flag}`).toContain(`${flag} `);
    }
  });
});

describe('cli.md', () => {
  it('documents every exit code the commands use', () => {
    for (const [code, meaning] of [
      ['0', 'Done'],
      ['1', 'failed'],
      ['2', 'Usage error'],
      ['3', 'asked questions'],
      ['4', 'Timed out'],
      ['5', 'budget limit'],
      ['130', 'Interrupted'],
    ] as const) {
      expect(DOC).toMatch(new RegExp(`^\\| ${code} \\| .*${meaning}`, 'm'));
    }
  });

  it('shows the JSON object with exactly the fields of the checked schema', () => {
    const example = /The JSON object:\n\n```json\n([\s\S]*?)\n```/.exec(DOC)?.[1];
    expect(example).toBeDefined();
    expect(Object.keys(JSON.parse(example ?? '{}') as object)).toEqual(
      Object.keys(ResultSchema.shape),
    );
  });

  it('lists exactly the fields of `ls --json`', () => {
    const fields = /`grove ls --json` prints an array of `\{([^}]*)\}`/.exec(DOC)?.[1];
    expect(fields?.split(',').map((f) => f.trim())).toEqual(Object.keys(ListSchema.element.shape));
  });

  it.each([
    ['grove approve ITEM --json', ApprovalDecisionSchema],
    ['grove approve budget:ID --json', BudgetDecisionSchema],
    ['grove deny usage:ID --json', UsageDecisionSchema],
    ['grove diff ID --json', DiffSchema],
    ['grove publish ID --json', LandSchema],
    ['grove cancel ID --json', CancelSchema],
    ['grove gc --json', GcSchema],
    ['grove host add NAME DEST --json', HostAddSchema],
    ['grove host set NAME max N --json', HostSetSchema],
    ['grove host rm NAME --json', HostSchema],
  ] as const)('lists exactly the fields of `%s` under "JSON output"', (command, schema) => {
    const part = DOC.slice(DOC.indexOf('### JSON output'));
    const start = part.indexOf(`\`${command}\``);
    expect(start, command).toBeGreaterThan(0);
    const fields = /prints?(?: the host removed,)?\s+`\{([^}]*)\}`/.exec(part.slice(start))?.[1];
    expect(fields?.split(',').map((f) => f.trim())).toEqual(Object.keys(schema.shape));
  });

  it("says the exit codes in every command's --help", () => {
    for (const command of COMMANDS)
      expect(DOC, command).toMatch(
        new RegExp(`### grove ${command}\\n\\n\`\`\`text\\n[^\`]*\\nExit codes: 0 `),
      );
  });

  it('names every stream-json event type', () => {
    for (const type of ['session', 'status', 'progress', 'transcript', 'result'])
      expect(DOC).toContain(`{"type":"${type}"`);
  });
});
