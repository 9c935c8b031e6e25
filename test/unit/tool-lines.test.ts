import { describe, expect, it } from 'vitest';
import {
  claudeToolLine,
  codexToolLine,
  acpToolLine,
  toolEntry,
  withoutWorktree,
  worktreePath,
  writeRefusal,
} from '../../src/infra/agent/tool-lines.js';
import { entryLines } from '../../src/ui/transcript-lines.js';

// The text of a tool line (a [Denied] line has its own tests below).
const claudeLine = (...args: Parameters<typeof claudeToolLine>) =>
  claudeToolLine(...args)?.text ?? null;
const codexLine = (...args: Parameters<typeof codexToolLine>) =>
  codexToolLine(...args)?.text ?? null;
const geminiLine = (...args: Parameters<typeof acpToolLine>) => acpToolLine(...args)?.text ?? null;

describe("the agent's tool calls as transcript entries", () => {
  it('reads a Codex command with its exit code and output', () => {
    const item = {
      type: 'commandExecution',
      id: 'i1',
      command: "/bin/bash -lc 'npm test'",
      cwd: '/w',
      status: 'completed',
      exitCode: 1,
      aggregatedOutput: '1 failing\n',
    };

    expect(codexLine(item)).toBe('Ran: npm test (exit 1)\n1 failing');
  });

  it('reads a Codex file change as the files it edited', () => {
    expect(
      codexLine(
        {
          type: 'fileChange',
          id: 'i2',
          status: 'completed',
          changes: [{ path: '/w/src/app.ts', kind: { type: 'update' }, diff: '@@ -1 +1 @@' }],
        },
        '/w',
      ),
    ).toBe('Edited src/app.ts\n@@ -1 +1 @@');
  });

  it('leaves out what is not work (messages, reasoning)', () => {
    expect(codexLine({ type: 'agentMessage', id: 'i3', text: 'hi' })).toBeNull();
  });

  it('reads a Claude Code command and a failed edit', () => {
    expect(claudeLine('Bash', { command: 'ls' }, { is_error: false, content: 'a\nb' })).toBe(
      'Ran: ls (exit 0)\na\nb',
    );
    expect(
      claudeLine(
        'Edit',
        { file_path: '/w/src/a.ts' },
        { is_error: true, content: 'File has not been read yet' },
        '/w',
      ),
    ).toBe('Edited src/a.ts (failed)\nFile has not been read yet');
    expect(claudeLine('StructuredOutput', {}, { content: '{}' })).toBeNull();
  });

  it('reads a Gemini CLI tool call only once it has finished', () => {
    expect(
      geminiLine({ sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'in_progress' }),
    ).toBeNull();
    expect(
      geminiLine(
        { sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'failed' },
        { title: 'npm test', kind: 'execute' },
      ),
    ).toBe('Ran: npm test (failed)');
  });

  it('keeps the last lines of a long output', () => {
    const entry = toolEntry(
      'Ran: seq 100 (exit 0)',
      Array.from({ length: 100 }, (_, i) => String(i + 1)).join('\n'),
    );

    expect(entry.split('\n')[1]).toBe('… (60 earlier lines)');
    expect(entry.endsWith('\n100')).toBe(true);
  });
});

describe("paths in tool lines, relative to the session's worktree", () => {
  const wt = '/home/dev/.grove/wt/demo-3f2a9c1e';

  it.each([
    ['a file inside it', `${wt}/src/app.ts`, 'src/app.ts'],
    ['a relative path', 'src/app.ts', 'src/app.ts'],
    ['the worktree itself', wt, '.'],
    ['a file outside it, resolved', `${wt}/../outside.txt`, '/home/dev/.grove/wt/outside.txt'],
    ['a sibling worktree with the same prefix', `${wt}0/src/a.ts`, `${wt}0/src/a.ts`],
    ['a file elsewhere', '/etc/hosts', '/etc/hosts'],
  ])('shows %s as %s', (_what, path, shown) => {
    expect(worktreePath(path, wt)).toBe(shown);
  });

  it('takes the worktree out of a command and leaves other paths alone', () => {
    expect(withoutWorktree(`cd ${wt} && cat ${wt}/src/a.ts ${wt}0/b /etc/hosts`, wt)).toBe(
      `cd . && cat src/a.ts ${wt}0/b /etc/hosts`,
    );
  });

  it('reads the same for every CLI, turn after turn', () => {
    expect(claudeLine('Write', { file_path: `${wt}/src/a.ts` }, { content: 'ok' }, wt)).toBe(
      'Wrote src/a.ts',
    );
    expect(claudeLine('Bash', { command: `ls ${wt}/src` }, { content: 'a.ts' }, wt)).toBe(
      'Ran: ls src (exit 0)\na.ts',
    );
    expect(
      codexLine(
        {
          type: 'commandExecution',
          command: `/bin/bash -lc 'cd ${wt} && npm test'`,
          status: 'completed',
          exitCode: 0,
        },
        wt,
      ),
    ).toBe('Ran: cd . && npm test (exit 0)');
    expect(
      geminiLine(
        {
          status: 'completed',
          title: 'Writing to src/a.ts',
          kind: 'edit',
          content: [{ type: 'diff', path: `${wt}/src/a.ts`, oldText: '', newText: 'x' }],
        },
        {},
        wt,
      ),
    ).toBe('Edited: Writing to src/a.ts\nsrc/a.ts');
  });

  it('keeps a path outside the worktree absolute', () => {
    expect(claudeLine('Read', { file_path: '/home/dev/notes.md' }, { content: 'x' }, wt)).toBe(
      'Read /home/dev/notes.md',
    );
  });
});

describe('a write something refused', () => {
  const wt = '/w';

  it('is a [Denied] line when Claude Code refused it, not "Wrote … (failed)"', () => {
    expect(
      claudeToolLine(
        'Write',
        { file_path: '/x/outside.txt' },
        {
          is_error: true,
          content:
            "Claude requested permissions to write to /x/outside.txt, but you haven't granted it yet.",
        },
        wt,
      ),
    ).toEqual({
      type: 'denied',
      text: "[Denied] Claude Code asked to write /x/outside.txt; Claude Code refused it: the session's permission mode does not allow it.",
    });
  });

  it("is a [Denied] line when Grove's sandbox refused it", () => {
    expect(
      claudeToolLine(
        'Edit',
        { file_path: '/w/.git/config' },
        { is_error: true, content: "EROFS: read-only file system, open '/w/.git/config'" },
        wt,
      ),
    ).toEqual({
      type: 'denied',
      text: "[Denied] Claude Code asked to write .git/config; Grove's sandbox refused it: the path is read-only.",
    });
  });

  it('is a [Denied] line when Gemini CLI refused a path outside its workspace', () => {
    expect(
      acpToolLine(
        {
          status: 'failed',
          kind: 'edit',
          content: [
            {
              type: 'content',
              content: {
                type: 'text',
                text: 'Path not in workspace: Attempted path "/x/outside.txt" resolves outside the allowed workspace directories: /w',
              },
            },
          ],
        },
        {},
        wt,
      ),
    ).toEqual({
      type: 'denied',
      text: '[Denied] Gemini CLI asked to write /x/outside.txt; Gemini CLI refused it: it is outside the worktree.',
    });
  });

  it('stays a failed tool line when the write went wrong for another reason', () => {
    expect(
      claudeToolLine(
        'Edit',
        { file_path: '/w/a.ts' },
        { is_error: true, content: 'String to replace not found in file.' },
        wt,
      ),
    ).toEqual({ type: 'tool', text: 'Edited a.ts (failed)\nString to replace not found in file.' });
    expect(writeRefusal('ENOSPC: no space left on device')).toBeNull();
  });

  it('leaves out a Codex change or command Grove declined (its [Denied] line says it)', () => {
    expect(
      codexToolLine(
        { type: 'fileChange', status: 'declined', changes: [{ path: '/w/a.txt' }] },
        wt,
      ),
    ).toBeNull();
    expect(
      codexToolLine({ type: 'commandExecution', command: 'rm -rf /', status: 'declined' }, wt),
    ).toBeNull();
  });
});

describe('a tool call in the session view', () => {
  const entry = {
    position: 7,
    kind: 'tool' as const,
    content: 'Ran: npm test (exit 1)\n1 failing\n  at test.ts:3',
    createdAt: 0,
  };

  it('is one line when folded', () => {
    expect(entryLines('s-fold', entry, 60).map((l) => l.text)).toEqual([
      '▸ Ran: npm test (exit 1)',
    ]);
  });

  it('shows its detail, indented, when unfolded', () => {
    expect(entryLines('s-fold', entry, 60, true).map((l) => l.text)).toEqual([
      '▾ Ran: npm test (exit 1)',
      '    1 failing',
      '      at test.ts:3',
    ]);
  });
});
