import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { RemoteRunCursor, RemoteServerAttach } from '../../src/infra/agent/channel.js';
import {
  conversationIdOf,
  lastRequest,
  readSentLog,
  rejoinRun,
  requestBefore,
} from '../../src/infra/agent/left-run.js';

// Taking over a JSON-RPC run a killed Grove left on a host (left-run.ts): the
// input log read back from the host (untrusted text), and the run's output
// handed on again from byte 0 with what was answered dropped, this Grove's
// ids shifted past the old ones, and the lines the transcript had taken in
// marked as replayed.

const line = (message: unknown): string => `${JSON.stringify(message)}\n`;

describe('readSentLog', () => {
  it('reads the requests in order, the answers, and the id past the largest', () => {
    const log = readSentLog(
      [
        line({ id: 1, method: 'initialize', params: {} }),
        line({ method: 'initialized' }),
        line({ id: 2, method: 'thread/start', params: { cwd: '/w' } }),
        line({ id: 3, method: 'turn/start', params: { threadId: 'th-1' } }),
        line({ id: 0, result: { decision: 'accept' } }),
        line({ id: 'x', error: { code: 1, message: 'no' } }),
      ].join(''),
    );
    expect(log.requests.map((r) => `${String(r.id)} ${r.method}`)).toEqual([
      '1 initialize',
      '2 thread/start',
      '3 turn/start',
    ]);
    expect([...log.answered]).toEqual(['n0', 'sx']);
    expect(log.idBase).toBe(4);
    expect(log.cut).toBe(false);
    const turn = lastRequest(log, 'turn/start');
    expect(turn?.params['threadId']).toBe('th-1');
    expect(turn && requestBefore(log, turn)?.method).toBe('thread/start');
  });

  it('skips what is not a JSON object, and says when the last line was cut short', () => {
    const log = readSentLog(
      [
        'not json\n',
        '[1,2]\n',
        '{"id": 1, "method": "initialize"\n',
        line({ id: 1e300, method: 'huge' }),
        line({ id: 5, method: 'session/prompt', params: 'not an object' }),
        '{"id":6,"method":"session/pro',
      ].join(''),
    );
    expect(log.requests.map((r) => r.method)).toEqual(['session/prompt']);
    expect(log.requests[0]?.params).toEqual({});
    // An id no peer of Grove's makes does not move the base.
    expect(log.idBase).toBe(6);
    expect(log.cut).toBe(true);
  });

  it('takes a thread or session id only as a short word', () => {
    expect(conversationIdOf('019a2b-thread_1')).toBe('019a2b-thread_1');
    expect(conversationIdOf('a b')).toBeNull();
    expect(conversationIdOf('$(rm -rf ~)')).toBeNull();
    expect(conversationIdOf(42)).toBeNull();
    expect(conversationIdOf('x'.repeat(300))).toBeNull();
  });
});

/** An attached run whose output is `out` (already ended) and whose stdin is recorded. */
function attached(out: string): { run: RemoteServerAttach; written: string[] } {
  const stdout = new PassThrough();
  stdout.end(out);
  const written: string[] = [];
  const stdin = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      written.push(chunk.toString());
      callback();
    },
  });
  const exited = new Promise<{ code: number | null; signal: null }>((resolve) =>
    stdout.on('end', () => resolve({ code: 0, signal: null })),
  );
  return {
    written,
    run: {
      stdout,
      stdin,
      exited,
      sent: '',
      sentTooLarge: false,
      stderrTail: () => '',
      kill: () => {},
      stop: () => Promise.resolve(),
    },
  };
}

describe('rejoinRun', () => {
  const sent = [
    line({ id: 1, method: 'initialize', params: {} }),
    line({ id: 2, method: 'turn/start', params: { threadId: 't' } }),
    line({ id: 7, result: { decision: 'accept' } }),
  ].join('');
  const out = [
    line({ id: 1, result: {} }),
    line({ method: 'item/completed', params: { n: 1 } }),
    line({ id: 7, method: 'approval', params: {} }),
    line({ id: 2, result: { turn: { id: 'turn-1' } } }),
    line({ method: 'item/completed', params: { n: 2 } }),
    line({ id: 8, method: 'approval', params: {} }),
    line({ id: 3 + 1, result: { mine: true } }),
  ].join('');

  it('hands on what is still to be answered, gives the old answers to onOld, and marks the replayed lines', async () => {
    const { run, written } = attached(out);
    const log = readSentLog(sent);
    // The transcript had taken in the first two lines.
    const firstTwo = Buffer.byteLength(out.split('\n').slice(0, 2).join('\n') + '\n');
    const offsets: number[] = [];
    const cursor: RemoteRunCursor = {
      runId: 'r-1',
      pgid: 1,
      offset: firstTwo,
      line: () => offsets.push(cursor.offset),
    };
    const old: string[] = [];
    const rejoined = rejoinRun(run, log, cursor, (request, message) =>
      old.push(`${request.method} ${JSON.stringify(message['result'])}`),
    );
    const seen: { text: string; replayed: boolean }[] = [];
    rejoined.process.stdout.on('data', (chunk: Buffer) =>
      seen.push({ text: chunk.toString().trim(), replayed: rejoined.replayed() }),
    );
    rejoined.begin();
    await rejoined.process.exited;

    expect(old).toEqual(['initialize {}', 'turn/start {"turn":{"id":"turn-1"}}']);
    expect(seen).toEqual([
      { text: line({ method: 'item/completed', params: { n: 1 } }).trim(), replayed: true },
      { text: line({ method: 'item/completed', params: { n: 2 } }).trim(), replayed: false },
      // Request 7 was answered by the earlier Grove; 8 was not.
      { text: line({ id: 8, method: 'approval', params: {} }).trim(), replayed: false },
      // An answer to this Grove's request 1, sent as 4 (the log's base is 3).
      { text: line({ id: 1, result: { mine: true } }).trim(), replayed: false },
    ]);
    expect(offsets.at(-1)).toBe(Buffer.byteLength(out));

    // This Grove's requests go out past the old ids; answers and notifications as they are.
    rejoined.process.stdin.write(line({ id: 1, method: 'turn/interrupt', params: {} }));
    rejoined.process.stdin.write(line({ id: 8, result: { decision: 'decline' } }));
    rejoined.process.stdin.write('{"method":"session/cancel"');
    rejoined.process.stdin.write('}\n');
    expect(written.join('')).toBe(
      [
        line({ id: 4, method: 'turn/interrupt', params: {} }),
        line({ id: 8, result: { decision: 'decline' } }),
        '{"method":"session/cancel"}\n',
      ].join(''),
    );
  });
});
