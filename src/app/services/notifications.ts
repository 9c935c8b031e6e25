import { attentionReason, attentionText, notifyAllowed } from '../../domain/attention.js';
import { NOTIFY_KEYS, notifyChannelOn } from '../../domain/settings.js';
import type { Session } from '../../domain/session.js';
import type { App } from '../app.js';
import type { AppEvent } from '../events.js';
import { sessionById } from '../state.js';
import type { Notifier, Runtime } from '../ports.js';
import { WebhookSender } from './webhook.js';

/**
 * Tells the person when a session needs them (questions, ready for review,
 * a failed merge, its pull request merged or closed): the terminal bell, a
 * terminal notification and a desktop one, each a setting, at most one per
 * session per 10 s and one every 2 s overall; and each new inbox item to
 * the webhook in the settings, when there is one (webhook.ts).
 */
export class Notifications {
  /** What each session looked like when last seen (status and pull request). */
  private readonly seen = new Map<string, Pick<Session, 'status' | 'reviewRequest'>>();
  private readonly last = { any: null as number | null, bySession: new Map<string, number>() };
  private readonly webhook: WebhookSender;

  constructor(
    private readonly app: App,
    private readonly notifier: Notifier,
    private readonly runtime: Runtime,
  ) {
    this.webhook = new WebhookSender(app, notifier, runtime);
  }

  start(): void {
    this.app.subscribe((event) => this.onEvent(event));
    this.webhook.start();
  }

  private onEvent(event: AppEvent): void {
    if (event.type !== 'sessionUpdated') return;
    const after = event.session;
    const before = this.seen.get(after.id) ?? sessionById(this.app.state, after.id);
    this.seen.set(after.id, { status: after.status, reviewRequest: after.reviewRequest });
    const reason = attentionReason(before, after);
    if (!reason) return;
    const now = this.runtime.clock.now();
    if (!notifyAllowed(now, after.id, this.last)) return;
    this.last.any = now;
    this.last.bySession.set(after.id, now);
    const settings = this.app.state.settings;
    const text = attentionText(reason, after.title);
    if (notifyChannelOn(settings, NOTIFY_KEYS.bell)) this.notifier.bell();
    if (notifyChannelOn(settings, NOTIFY_KEYS.osc)) this.notifier.terminal('Grove', text);
    if (notifyChannelOn(settings, NOTIFY_KEYS.desktop)) {
      this.notifier
        .desktop('Grove', text)
        .catch((error: unknown) =>
          this.runtime.logger.log('warn', 'desktop notification failed', error),
        );
    }
  }
}
