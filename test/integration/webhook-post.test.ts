import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNotifier } from '../../src/infra/notify.js';

// The webhook's side effects, for real: a POST to a local HTTP receiver, and
// the claim that lets one Grove process of a GROVE_HOME send each item.

let server: Server;
let url: string;
let home: string;
const received: { headers: IncomingMessage['headers']; body: string }[] = [];
let answer: (n: number) => { status: number; headers?: Record<string, string> } = () => ({
  status: 200,
});

beforeEach(async () => {
  received.length = 0;
  home = mkdtempSync(join(tmpdir(), 'grove-webhook-'));
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      const { status, headers } = answer(received.length);
      res.writeHead(status, headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/grove-topic`;
});

afterEach(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(home, { recursive: true, force: true });
});

describe('the webhook POST', () => {
  it('sends the body and headers as given and returns the status and Retry-After', async () => {
    answer = () => ({ status: 429, headers: { 'retry-after': '3' } });
    const notifier = createNotifier(() => {}, { GROVE_HOME: home });
    const result = await notifier.post(url, {
      headers: { 'content-type': 'text/plain; charset=utf-8', title: 'Grove: a' },
      body: 'A question: which?',
    });
    expect(result).toEqual({ status: 429, retryAfterMs: 3000 });
    expect(received).toHaveLength(1);
    expect(received[0]?.body).toBe('A question: which?');
    expect(received[0]?.headers['title']).toBe('Grove: a');
  });

  it('says "no answer" (0) for a receiver that is not there, without throwing', async () => {
    const notifier = createNotifier(() => {}, { GROVE_HOME: home });
    await new Promise((resolve) => server.close(resolve));
    expect(await notifier.post(url, { headers: {}, body: 'x' })).toEqual({
      status: 0,
      retryAfterMs: null,
    });
    server = createServer().listen(0, '127.0.0.1');
  });

  it('does not follow a redirect to another address', async () => {
    answer = () => ({ status: 302, headers: { location: 'http://127.0.0.1:9/elsewhere' } });
    const notifier = createNotifier(() => {}, { GROVE_HOME: home });
    expect((await notifier.post(url, { headers: {}, body: 'x' })).status).toBe(0);
    expect(received).toHaveLength(1);
  });
});

describe('the claim', () => {
  it('is won by one of two Grove processes of the same GROVE_HOME, once per item', () => {
    const a = createNotifier(() => {}, { GROVE_HOME: home });
    const b = createNotifier(() => {}, { GROVE_HOME: home });
    expect(a.claim('question:1@100')).toBe(true);
    expect(b.claim('question:1@100')).toBe(false);
    expect(a.claim('question:1@100')).toBe(false);
    // The same item waiting again later is a new one.
    expect(b.claim('question:1@200')).toBe(true);
    const dir = join(home, 'webhook');
    expect(readdirSync(dir)).toHaveLength(2);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });
});
