import { describe, expect, it } from 'vitest';
import type { InboxItem } from '../../src/domain/inbox.js';
import {
  headerValue,
  inboxCommandLine,
  webhookRequest,
  webhookRetryDelay,
  webhookRetryable,
} from '../../src/domain/webhook.js';
import { validateWebhookUrl } from '../../src/domain/settings.js';
import { App } from '../../src/app/app.js';
import type { Notifier, Runtime } from '../../src/app/ports.js';
import { WebhookSender } from '../../src/app/services/webhook.js';
import { bareState } from '../helpers/state.js';

// What the webhook channel sends for an inbox item, and when it tries again.

const ITEM: InboxItem = {
  id: 'question:0123456789abcdef',
  kind: 'question',
  sessionId: '0123456789abcdef',
  projectId: 1,
  project: 'api',
  session: 'Pick a greeting ☃',
  since: Date.UTC(2026, 10, 26, 12, 0, 0),
  until: null,
  text: 'A question: Which greeting?',
  action: 'Answer it in the session (Enter), or grove answer ID',
};

function decode(value: string): string {
  const match = /^=\?UTF-8\?B\?(.*)\?=$/.exec(value);
  return match ? Buffer.from(match[1] ?? '', 'base64').toString('utf8') : value;
}

describe('the webhook request', () => {
  it('is ntfy text: the words and the command in the body, the title in a header ntfy decodes', () => {
    const request = webhookRequest(ITEM, 'ntfy');
    expect(request.body).toBe(
      'A question: Which greeting?\nAnswer it in the session (Enter), or grove answer ID\ngrove answer 01234567 "<your answers>"',
    );
    expect(request.headers['title']).toMatch(/^=\?UTF-8\?B\?[A-Za-z0-9+/=]+\?=$/);
    expect(decode(request.headers['title'] ?? '')).toBe('Grove: Pick a greeting ☃ (api)');
    expect(request.headers['x-grove-item']).toBe(ITEM.id);
  });

  it('is one JSON object with the item id, kind, title, message and command', () => {
    const request = webhookRequest(ITEM, 'json');
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body)).toEqual({
      id: ITEM.id,
      kind: 'question',
      title: 'Grove: Pick a greeting ☃ (api)',
      message: 'A question: Which greeting?',
      action: ITEM.action,
      command: 'grove answer 01234567 "<your answers>"',
      text: ITEM.text,
      sessionId: ITEM.sessionId,
      projectId: 1,
      project: 'api',
      session: 'Pick a greeting ☃',
      since: '2026-11-26T12:00:00.000Z',
      until: null,
    });
  });

  it('never lets a line break into a header, and caps long words', () => {
    expect(headerValue('a\r\nX-Evil: 1')).toBe('a X-Evil: 1');
    const long = webhookRequest({ ...ITEM, text: 'x'.repeat(2000) }, 'ntfy');
    expect(long.body.split('\n')[0]).toHaveLength(500);
  });

  it('names the command that acts on each kind', () => {
    expect(inboxCommandLine({ ...ITEM, kind: 'reviewThreads' })).toBe('grove threads 01234567');
    expect(inboxCommandLine({ ...ITEM, kind: 'failedGit' })).toBe('grove show 01234567');
    expect(inboxCommandLine({ ...ITEM, kind: 'budget' })).toBe(
      'grove approve budget:01234567 (or grove deny budget:01234567)',
    );
    expect(inboxCommandLine({ ...ITEM, kind: 'usageLimit' })).toBe(
      'grove deny usage:01234567 (drops the waiting prompt)',
    );
    expect(inboxCommandLine({ ...ITEM, kind: 'approval', approvalId: 'abcdef0123456789' })).toBe(
      'grove approve abcdef01 --once (or --session; grove deny abcdef01)',
    );
  });
});

describe('the webhook URL setting', () => {
  it('takes http and https URLs and empty (off), and refuses the rest with the reason', () => {
    expect(validateWebhookUrl('')).toBeNull();
    expect(validateWebhookUrl('https://ntfy.sh/grove-topic')).toBeNull();
    expect(validateWebhookUrl('http://127.0.0.1:8080/hook')).toBeNull();
    expect(validateWebhookUrl('ntfy.sh/topic')).toMatch(/not a URL/);
    expect(validateWebhookUrl('file:///etc/passwd')).toMatch(/only http and https/);
    expect(validateWebhookUrl('https://me:secret@example.com/')).toMatch(/user name or password/);
  });
});

describe('retries', () => {
  it('wait 1, 2, 4, 8 and 16 s, or the Retry-After given (at most a minute), then stop', () => {
    expect([0, 1, 2, 3, 4, 5].map((n) => webhookRetryDelay(n, null))).toEqual([
      1000,
      2000,
      4000,
      8000,
      16000,
      null,
    ]);
    expect(webhookRetryDelay(0, 30_000)).toBe(30_000);
    expect(webhookRetryDelay(0, 600_000)).toBe(60_000);
  });

  it('are made on no answer, 429 and 5xx only', () => {
    expect([0, 429, 500, 503].every(webhookRetryable)).toBe(true);
    expect([200, 400, 401, 404].some(webhookRetryable)).toBe(false);
  });
});

describe('the webhook sender over a long day', () => {
  it('forgets the items that stopped waiting, so what it remembers stays the size of the inbox', () => {
    const app = new App(bareState(), { log: () => {} });
    const runtime = {
      clock: { now: () => ITEM.since },
      logger: { log: () => {} },
    } as unknown as Runtime;
    const notifier = {} as Notifier; // the URL is not set: nothing is sent or claimed
    const sender = new WebhookSender(app, notifier, runtime);
    sender.start();

    for (let turn = 0; turn < 1000; turn++) {
      const waiting = { ...ITEM, id: `question:${turn}`, since: ITEM.since + turn };
      app.emit({ type: 'inboxLoaded', items: [ITEM, waiting] });
    }

    expect(sender.remembered).toBe(2);
  });
});
