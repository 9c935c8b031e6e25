import { describe, expect, it } from 'vitest';
import {
  claudeToolLine,
  codexToolLine,
  geminiToolLine,
  toolEntry,
} from '../../src/infra/agent/tool-lines.js';
import { entryLines } from '../../src/ui/transcript-lines.js';

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

    expect(codexToolLine(item)).toBe('Ran: npm test (exit 1)\n1 failing');
  });

  it('reads a Codex file change as the files it edited', () => {
    expect(
      codexToolLine({
        type: 'fileChange',
        id: 'i2',
        status: 'completed',
        changes: [{ path: '/w/src/app.ts', kind: { type: 'update' }, diff: '@@ -1 +1 @@' }],
      }),
    ).toBe('Edited w/src/app.ts\n@@ -1 +1 @@');
  });

  it('leaves out what is not work (messages, reasoning)', () => {
    expect(codexToolLine({ type: 'agentMessage', id: 'i3', text: 'hi' })).toBeNull();
  });

  it('reads a Claude Code command and a failed edit', () => {
    expect(claudeToolLine('Bash', { command: 'ls' }, { is_error: false, content: 'a\nb' })).toBe(
      'Ran: ls (exit 0)\na\nb',
    );
    expect(
      claudeToolLine(
        'Edit',
        { file_path: '/w/src/a.ts' },
        { is_error: true, content: 'File has not been read yet' },
      ),
    ).toBe('Edited w/src/a.ts (failed)\nFile has not been read yet');
    expect(claudeToolLine('StructuredOutput', {}, { content: '{}' })).toBeNull();
  });

  it('reads a Gemini CLI tool call only once it has finished', () => {
    expect(
      geminiToolLine({ sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'in_progress' }),
    ).toBeNull();
    expect(
      geminiToolLine(
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
