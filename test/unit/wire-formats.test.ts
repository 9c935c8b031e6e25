import { describe, expect, it } from 'vitest';
import { readClaudeLine } from '../../src/infra/agent/claude/stream.js';
import {
  checkNotification,
  checkServerRequest,
  isCodexNotification,
} from '../../src/infra/agent/codex/wire.js';
import { loggingWireWatch } from '../../src/infra/agent/wire-check.js';
import type { LogLevel } from '../../src/infra/log.js';

// The schema checks of the wire formats (the real CLIs are in test/integration/agents-wire.test.ts).

describe('Claude Code stream-json lines', () => {
  it('reads an assistant message with a tool use', () => {
    const line = JSON.stringify({
      type: 'assistant',
      session_id: 's',
      message: {
        content: [{ type: 'tool_use', id: 't1', name: 'Write', input: { file_path: 'a.txt' } }],
      },
    });

    const read = readClaudeLine(line);

    expect(read).toMatchObject({
      name: 'assistant',
      verdict: 'valid',
      event: { type: 'assistant' },
    });
  });

  it('calls an event no schema names unknown and skips it', () => {
    const read = readClaudeLine(JSON.stringify({ type: 'brand_new_event', data: 1 }));

    expect(read).toEqual({ name: 'brand_new_event', verdict: 'unknown', event: null });
  });

  it('calls a tool use without its name invalid and says which field', () => {
    const line = JSON.stringify({
      type: 'assistant',
      session_id: 's',
      message: { content: [{ type: 'tool_use', id: 't1', input: {} }] },
    });

    const read = readClaudeLine(line);

    expect(read?.verdict).toBe('invalid');
    expect(read?.event).toBeNull();
    expect(read?.issue).toMatch(/content/);
  });

  it('reads a result event with its usage', () => {
    const line = JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: false,
      session_id: 's',
      result: '{}',
      usage: { input_tokens: 3, output_tokens: 4 },
    });

    expect(readClaudeLine(line)?.event).toMatchObject({
      type: 'result',
      usage: { input_tokens: 3, output_tokens: 4, cache_read_input_tokens: 0 },
    });
  });

  it('skips lines that are not JSON objects', () => {
    expect(readClaudeLine('Loading…')).toBeNull();
  });
});

describe('Codex app-server messages', () => {
  it('accepts a turn/completed the generated schema describes', () => {
    const checked = checkNotification('turn/completed', {
      threadId: 'th',
      turn: { id: 'tu', items: [], status: 'completed', error: null },
    });

    expect(checked.ok).toBe(true);
  });

  it('rejects a turn/completed whose status the protocol does not have', () => {
    const checked = checkNotification('turn/completed', {
      threadId: 'th',
      turn: { id: 'tu', items: [], status: 'finished', error: null },
    });

    expect(checked.ok).toBe(false);
    expect(checked.ok ? '' : checked.issue).toContain('status');
  });

  it('rejects an approval request without its thread', () => {
    const checked = checkServerRequest('item/fileChange/requestApproval', {
      turnId: 'tu',
      itemId: 'i',
    });

    expect(checked.ok).toBe(false);
  });

  it('knows the notifications of the protocol that Grove does not read', () => {
    expect([
      isCodexNotification('turn/diff/updated'),
      isCodexNotification('no/such/thing'),
    ]).toEqual([true, false]);
  });
});

describe('the logging wire watch', () => {
  it('logs an unknown message once, however often it comes', () => {
    const lines: [LogLevel, string][] = [];
    const watch = loggingWireWatch({ log: (level, message) => lines.push([level, message]) });

    watch.record('claude', 'brand_new_event', 'unknown');
    watch.record('claude', 'brand_new_event', 'unknown');
    watch.record('claude', 'assistant', 'valid');

    expect(lines).toEqual([
      ['info', 'claude: ignored a brand_new_event message the protocol schema does not name'],
    ]);
  });
});
