// The webhook channel beside the bell, terminal and desktop notifications:
// each item that starts waiting in the inbox while the TUI runs is POSTed to
// the URL in the settings (notify.webhook), as ntfy's plain text or as JSON
// (domain/webhook.ts). One POST every two seconds at most and ten a minute;
// a POST with no answer, a 429 or a 5xx is tried again with backoff; an item
// handled before its turn comes is not sent. With several Grove TUIs open,
// the first to claim an item sends it (Notifier.claim).
import type { InboxItem } from '../../domain/inbox.js';
import { WEBHOOK_KEYS, validateWebhookUrl, webhookFormat } from '../../domain/settings.js';
import { webhookRequest, webhookRetryDelay, webhookRetryable } from '../../domain/webhook.js';
import type { App } from '../app.js';
import type { Notifier, Runtime } from '../ports.js';

/** The least time between two POSTs. */
const MIN_GAP_MS = 2000;
/** The most POSTs in any minute. */
const PER_MINUTE = 10;

function keyOf(item: InboxItem): string {
  return `${item.id}@${item.since}`;
}

/** The receiver's host, for the log: the URL itself may carry a token. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(not a URL)';
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class WebhookSender {
  /**
   * Items seen (id and since) that still wait: each is considered once.
   * Keys leave with their items, so a long day does not grow the set (an
   * item that came back would meet its claim, Notifier.claim, and not be
   * sent twice).
   */
  private readonly known = new Set<string>();
  private readonly queue: InboxItem[] = [];
  /** The items of the inbox's latest reading (id and since). */
  private waiting = new Set<string>();
  private sending = false;
  private startedAt = 0;
  /** When the POSTs of the last minute were made. */
  private sentAt: number[] = [];

  constructor(
    private readonly app: App,
    private readonly notifier: Notifier,
    private readonly runtime: Runtime,
  ) {}

  /** From now on, items that start waiting are sent (those waiting already are not). */
  start(): void {
    this.startedAt = this.runtime.clock.now();
    this.app.subscribe((event) => {
      if (event.type === 'inboxLoaded') this.onItems(event.items);
    });
  }

  private url(): string | null {
    const url = (this.app.state.settings[WEBHOOK_KEYS.url] ?? '').trim();
    return url !== '' && validateWebhookUrl(url) === null ? url : null;
  }

  private onItems(items: readonly InboxItem[]): void {
    this.waiting = new Set(items.map(keyOf));
    const on = this.url() !== null;
    for (const item of items) {
      const key = keyOf(item);
      if (this.known.has(key)) continue;
      this.known.add(key);
      if (on && item.since >= this.startedAt) this.queue.push(item);
    }
    for (const key of this.known) if (!this.waiting.has(key)) this.known.delete(key);
    if (this.queue.length > 0) void this.pump();
  }

  /** How many items it remembers (they all wait now). */
  get remembered(): number {
    return this.known.size;
  }

  private stillWaiting(item: InboxItem): boolean {
    return this.waiting.has(keyOf(item));
  }

  private async pump(): Promise<void> {
    if (this.sending) return;
    this.sending = true;
    try {
      for (let item = this.queue.shift(); item; item = this.queue.shift()) {
        if (!this.stillWaiting(item)) continue;
        await this.roomToSend();
        if (!this.stillWaiting(item) || !this.notifier.claim(keyOf(item))) continue;
        await this.send(item);
      }
    } catch (error) {
      this.runtime.logger.log('warn', 'webhook: sending stopped', error);
    } finally {
      this.sending = false;
    }
  }

  /** Waits until a POST keeps to the limits. */
  private async roomToSend(): Promise<void> {
    for (;;) {
      const now = this.runtime.clock.now();
      this.sentAt = this.sentAt.filter((at) => now - at < 60_000);
      const last = this.sentAt.at(-1);
      const gap = last === undefined ? 0 : MIN_GAP_MS - (now - last);
      const full = this.sentAt.length >= PER_MINUTE ? 60_000 - (now - (this.sentAt[0] ?? now)) : 0;
      const wait = Math.max(gap, full);
      if (wait <= 0) return;
      await sleep(wait);
    }
  }

  private async send(item: InboxItem): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const url = this.url();
      if (url === null) return;
      const request = webhookRequest(
        item,
        webhookFormat(this.app.state.settings[WEBHOOK_KEYS.format]),
      );
      this.sentAt.push(this.runtime.clock.now());
      const answer = await this.notifier.post(url, request);
      if (answer.status >= 200 && answer.status < 300) {
        this.runtime.logger.log('info', `webhook: sent ${item.kind} ${item.id} to ${hostOf(url)}`);
        return;
      }
      const what = answer.status === 0 ? 'no answer' : `HTTP ${answer.status}`;
      const delay = webhookRetryable(answer.status)
        ? webhookRetryDelay(attempt, answer.retryAfterMs)
        : null;
      if (delay === null) {
        this.runtime.logger.log(
          'warn',
          `webhook: ${item.kind} ${item.id} not sent to ${hostOf(url)} (${what}${webhookRetryable(answer.status) ? ', after 5 retries' : ''})`,
        );
        return;
      }
      this.runtime.logger.log(
        'info',
        `webhook: ${hostOf(url)} gave ${what}; trying again in ${Math.round(delay / 1000)} s`,
      );
      await sleep(delay);
      if (!this.stillWaiting(item)) return;
    }
  }
}
