// The webhook channel: each new inbox item POSTed to a URL from the settings,
// for a phone (ntfy) or any receiver that takes JSON. What is sent is built
// here, from the item's sanitized words; nothing secret is in it (no token,
// no path of the person's beyond the project's name).

import { shortId } from './session.js';
import { inboxItemJson, type InboxItem } from './inbox.js';
import { assertNever } from './assert-never.js';
import { approvalShortId } from './approval.js';
import { confirmShortId } from './confirmation.js';
import type { WebhookFormat } from './settings.js';

/** What the person can run to act on the item (a headless command), with the session's short id. */
export function inboxCommandLine(item: InboxItem): string {
  const id = shortId(item.sessionId);
  switch (item.kind) {
    case 'confirm': {
      const request = confirmShortId(item.confirmationId ?? '');
      return `grove approve ${request} (or grove deny ${request})`;
    }
    case 'approval': {
      const held = approvalShortId(item.approvalId ?? '');
      return `grove approve ${held} --once (or --session; grove deny ${held})`;
    }
    case 'question':
      return `grove answer ${id} "<your answers>"`;
    case 'failedTurn':
    case 'ciFixer':
      return `grove reply ${id} "<what to do next>"`;
    case 'reviewThreads':
      return `grove threads ${id}`;
    case 'budget':
      return `grove approve budget:${id} (or grove deny budget:${id})`;
    case 'usageLimit':
      return `grove deny usage:${id} (drops the waiting prompt)`;
    case 'conflict':
    case 'failedGit':
      return `grove show ${id}`;
    default:
      return assertNever(item.kind);
  }
}

/** The longest message sent: an item's words are one line, but a question can be long. */
const MAX_TEXT = 500;

function capped(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
}

/**
 * A header value as ntfy reads it: ASCII as it is, anything else as one
 * RFC 2047 encoded word (=?UTF-8?B?…?=), which ntfy decodes. Never a line break.
 */
export function headerValue(text: string): string {
  const line = text.replace(/[\r\n]+/g, ' ');
  if (/^[\x20-\x7e]*$/.test(line)) return line;
  return `=?UTF-8?B?${Buffer.from(line, 'utf8').toString('base64')}?=`;
}

export interface WebhookRequest {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** The POST for one new item, in the chosen format. */
export function webhookRequest(item: InboxItem, format: WebhookFormat): WebhookRequest {
  const title = capped(`Grove: ${item.session} (${item.project})`);
  const command = inboxCommandLine(item);
  const message = capped(item.text);
  if (format === 'json')
    return {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...inboxItemJson(item), title, message, command }),
    };
  return {
    headers: {
      'content-type': 'text/plain; charset=utf-8',
      title: headerValue(title),
      tags: 'grove',
      'x-grove-item': headerValue(item.id),
    },
    body: `${message}\n${item.action}\n${command}`,
  };
}

/** Waits between tries of one POST that got no answer, a 429 or a 5xx: five retries, then it is dropped. */
export const WEBHOOK_RETRY_MS = [1000, 2000, 4000, 8000, 16000] as const;

/**
 * How long to wait before retry `attempt` (0-based): the receiver's
 * Retry-After when it gave one (at most a minute), else the backoff above.
 * Null: no more retries.
 */
export function webhookRetryDelay(attempt: number, retryAfterMs: number | null): number | null {
  const backoff = WEBHOOK_RETRY_MS[attempt];
  if (backoff === undefined) return null;
  return retryAfterMs === null ? backoff : Math.min(Math.max(retryAfterMs, backoff), 60_000);
}

/** Whether an answer's status is worth another try (no answer, too many requests, a server error). */
export function webhookRetryable(status: number): boolean {
  return status === 0 || status === 429 || status >= 500;
}
