// Taking over a JSON-RPC agent run on a host that a killed Grove left
// mid-turn (issue 24, item 4): Codex's app-server and Gemini CLI's ACP
// process. The host keeps every byte that Grove sent the process (its input
// log) and everything the process printed (followed again from byte 0), so
// the protocol state is rebuilt from the two:
//
// - what Grove had asked (its requests, by id: the turn in flight and the
//   thread or session it runs in) and what it had answered (the agent's
//   requests it replied to: approvals, questions);
// - the agent's requests with no answer in the log are handed on, so they are
//   decided (or shown to the person) again and answered now; answered ones
//   never reach the channel;
// - answers to the earlier Grove's requests go to `onOld` (the turn's end),
//   not to this Grove's peer, which never sent them;
// - this Grove's own requests get ids above every id the log holds (shifted
//   on the way out, shifted back on the way in), so no answer is taken for
//   another's;
// - the lines the transcript had already taken in (the offset kept with the
//   turn) are handed on `replayed`: the channel rebuilds its state from them
//   (the reply text, usage, the turn id) without telling them again.
//
// The log is read back from a file on the host that an unconfined agent could
// rewrite: each line is parsed alone (bounded, anything that is not a JSON
// object skipped), ids are only compared, and nothing in it is run.
import { PassThrough, Writable } from 'node:stream';
import type {
  RemoteRunCursor,
  RemoteServerAttach,
  RemoteServerProcess,
  TurnEvent,
} from './channel.js';

/** A request the earlier Grove sent the agent. */
export interface SentRequest {
  readonly id: number | string;
  readonly method: string;
  /** Its params when they are an object, else empty. */
  readonly params: Readonly<Record<string, unknown>>;
}

/** What the input log says the earlier Grove sent. */
export interface SentLog {
  /** Its requests, in the order sent. */
  readonly requests: readonly SentRequest[];
  /** The agent's requests it answered (their ids as idKey). */
  readonly answered: ReadonlySet<string>;
  /** Above every numeric id of its requests: this Grove's requests are shifted past it. */
  readonly idBase: number;
  /** The log's last line has no end: that Grove was killed while sending it. */
  readonly cut: boolean;
}

/** Ids Grove's peers use: integers, or short strings. */
const LARGEST_ID = 2 ** 40;

/** A JSON-RPC id as a key (1 and "1" are different ids); null when it is not an id. */
export function idKey(id: unknown): string | null {
  if (typeof id === 'number' && Number.isSafeInteger(id)) return `n${String(id)}`;
  if (typeof id === 'string' && id.length <= 200) return `s${id}`;
  return null;
}

/** A line as a JSON object, or null (not JSON, not an object). */
function objectOf(line: string): Record<string, unknown> | null {
  const text = line.trim();
  if (!text.startsWith('{')) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** Reads the input log's text (remote-reattach.ts bounds its size). */
export function readSentLog(text: string): SentLog {
  const requests: SentRequest[] = [];
  const answered = new Set<string>();
  let largest = 0;
  const lines = text.split('\n');
  const cut = lines.pop() !== '';
  for (const line of lines) {
    const message = objectOf(line);
    if (!message) continue;
    const key = idKey(message['id']);
    const method = message['method'];
    if (typeof method === 'string' && method.length <= 200) {
      if (key === null) continue; // a notification: nothing waits on it
      const id = message['id'] as number | string;
      const params = message['params'];
      requests.push({
        id,
        method,
        params:
          typeof params === 'object' && params !== null && !Array.isArray(params)
            ? (params as Record<string, unknown>)
            : {},
      });
      if (typeof id === 'number' && id >= largest && id < LARGEST_ID) largest = id + 1;
    } else if (key !== null && ('result' in message || 'error' in message)) {
      answered.add(key);
    }
  }
  return { requests, answered, idBase: largest, cut };
}

/** The last request of `method` the log holds, or null. */
export function lastRequest(log: SentLog, method: string): SentRequest | null {
  for (let i = log.requests.length - 1; i >= 0; i--) {
    const request = log.requests[i];
    if (request?.method === method) return request;
  }
  return null;
}

/** The request sent just before `request` (null: it was the first). */
export function requestBefore(log: SentLog, request: SentRequest): SentRequest | null {
  const at = log.requests.indexOf(request);
  return at > 0 ? (log.requests[at - 1] ?? null) : null;
}

/** A thread or session id read from the log: a short word, else null. */
export function conversationIdOf(value: unknown): string | null {
  return typeof value === 'string' && /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,199}$/.test(value)
    ? value
    : null;
}

/** The run taken over, as the channel's peer reads and writes it. */
export interface RejoinedRun {
  /** The process for the channel's runtime: stdin and stdout rewritten as above. */
  readonly process: RemoteServerProcess;
  /** True while the line being handed on is one the transcript had taken in. */
  replayed(): boolean;
  /** Starts handing stdout's lines on: call once the channel's handlers are in place. */
  begin(): void;
}

/**
 * A taken-over turn's events: while the lines the transcript already has are
 * read again (`replayed`), they rebuild the turn but their tool, denied and
 * notice lines are not told a second time.
 */
export function toldOnce(
  run: Pick<RejoinedRun, 'replayed'>,
  onEvent: (event: TurnEvent) => void,
): (event: TurnEvent) => void {
  return (event) => {
    if (
      run.replayed() &&
      (event.type === 'tool' || event.type === 'denied' || event.type === 'notice')
    )
      return;
    onEvent(event);
  };
}

/**
 * Wraps an attached run for a JSON-RPC peer. `cursor` is the turn's (its
 * offset, where the transcript ends, is read here; from here on it is moved
 * line by line as the peer reads, as for a run this Grove started); `onOld`
 * gets each answer to a request of the earlier Grove.
 */
export function rejoinRun(
  attached: RemoteServerAttach,
  log: SentLog,
  cursor: RemoteRunCursor,
  onOld: (request: SentRequest, message: Readonly<Record<string, unknown>>) => void,
): RejoinedRun {
  const resumeAt = cursor.offset;
  const base = log.idBase;
  const old = new Map<string, SentRequest>();
  for (const request of log.requests) {
    const key = idKey(request.id);
    if (key !== null) old.set(key, request);
  }
  const stdout = new PassThrough();

  /** The line as the peer gets it, or null when it is not handed on. */
  const handled = (line: Buffer): Buffer | null => {
    const message = objectOf(line.toString('utf8'));
    if (!message) return line;
    const id = message['id'];
    const key = idKey(id);
    if (key === null) return line;
    if (typeof message['method'] === 'string')
      // The agent's request: answered by the earlier Grove, or to be decided now.
      return log.answered.has(key) ? null : line;
    if (typeof id === 'number' && id >= base)
      return Buffer.from(`${JSON.stringify({ ...message, id: id - base })}\n`);
    const request = old.get(key);
    if (request) onOld(request, message);
    return null;
  };

  let done: Promise<void> | null = null;
  const feed = async (): Promise<void> => {
    let offset = 0;
    let pending: Buffer[] = [];
    const hand = async (line: Buffer): Promise<void> => {
      offset += line.length;
      cursor.offset = offset;
      const out = handled(line);
      if (out) stdout.write(out);
      // The peer's handlers of the line have run by now (readline is synchronous on data).
      await new Promise((resolve) => setImmediate(resolve));
      cursor.line?.();
    };
    for await (const chunk of attached.stdout) {
      const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      let start = 0;
      for (let at = data.indexOf(10); at !== -1; at = data.indexOf(10, start)) {
        await hand(Buffer.concat([...pending, data.subarray(start, at + 1)]));
        pending = [];
        start = at + 1;
      }
      if (start < data.length) pending.push(data.subarray(start));
    }
    if (pending.length > 0) await hand(Buffer.concat(pending));
    stdout.end();
  };

  // This Grove's requests go out with ids past the earlier Grove's.
  let partial = '';
  const stdin = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, callback) {
      partial += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      const out = lines
        .map((line) => {
          const message = objectOf(line);
          const id = message?.['id'];
          return message && typeof message['method'] === 'string' && typeof id === 'number'
            ? JSON.stringify({ ...message, id: id + base })
            : line;
        })
        .map((line) => `${line}\n`)
        .join('');
      if (out !== '') attached.stdin.write(out);
      callback();
    },
  });

  return {
    process: {
      stdin,
      stdout,
      // Over once the run is and every line was handed on.
      exited: attached.exited.then(async (end) => {
        await done;
        return end;
      }),
      stderrTail: () => attached.stderrTail(),
      kill: () => attached.kill(),
      stop: () => attached.stop(),
    },
    replayed: () => cursor.offset <= resumeAt,
    begin() {
      done ??= feed().catch(() => {
        stdout.end();
      });
    },
  };
}

/** Lets an attached run that is not taken over end (its stdout read and dropped), then stops it. */
export async function dropAttached(attached: RemoteServerAttach): Promise<void> {
  attached.stdout.resume();
  await attached.stop();
}
