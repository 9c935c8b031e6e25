// The inbox commands of AppIntents (issue 25), as the Controller implements
// them: reading the inbox into the snapshot when the store changed, opening
// an item's session, answering a held agent request, and confirming or
// refusing an MCP client's irreversible request (the asking grove mcp acts).
import type { ApprovalChoice } from '../domain/approval.js';
import type { InboxItem } from '../domain/inbox.js';
import { ReviewCommands } from './review-commands.js';
import type { ApprovalDesk } from './services/approvals.js';
import { decideConfirmation } from './services/confirmations.js';
import { loadInbox } from './services/inbox.js';
import { loadSettings, type ProjectService } from './services/projects.js';

/** The longest the inbox goes unread on the refresh timer when nothing was written. */
const INBOX_MAX_AGE_MS = 30_000;

export abstract class InboxCommands extends ReviewCommands {
  abstract readonly approvals: ApprovalDesk;
  abstract readonly projects: ProjectService;
  abstract openSession(sessionId: string): void;
  /** The store's change marks when the inbox was last read, and when that was. */
  private inboxMark = '';
  private inboxReadAt = 0;

  /** Everything waiting on the person, across every project (read from the store). */
  inbox(): Promise<InboxItem[]> {
    return loadInbox(this.deps);
  }

  loadInbox(): void {
    this.deps.app.task('Reading the inbox', () => this.refreshInbox());
  }

  /**
   * Reads the inbox and puts it in the snapshot when it changed. On the
   * refresh timer (`quiet`), it reads only when some process wrote to the
   * store since the last read, or that read is older than INBOX_MAX_AGE_MS
   * (the words of a wait say how long is left): reading every project's
   * sessions and operations every two seconds would cost the TUI in
   * proportion to everything ever stored.
   */
  protected async refreshInbox(quiet = false): Promise<void> {
    const store = this.deps.store;
    const mark = `${await store.externalChanges()}:${await store.ownChanges()}`;
    const now = this.deps.runtime.clock.now();
    if (quiet && mark === this.inboxMark && now - this.inboxReadAt < INBOX_MAX_AGE_MS) return;
    this.inboxMark = mark;
    this.inboxReadAt = now;
    const items = await this.inbox();
    if (JSON.stringify(items) !== JSON.stringify(this.deps.app.state.inbox))
      this.deps.app.emit({ type: 'inboxLoaded', items });
    // A prompt held here that no limit holds any more (raised or dropped in another process,
    // grove approve / deny budget:ID): the session is no longer marked held.
    const held = this.deps.app.state.budget?.held ?? {};
    for (const sessionId of Object.keys(held))
      if (!items.some((i) => i.kind === 'budget' && i.sessionId === sessionId))
        this.deps.app.emit({ type: 'budgetHeld', sessionId, stop: null });
  }

  decideApproval(ref: string, choice: ApprovalChoice): void {
    this.deps.app.task('Answering the request', async () => {
      const outcome = await this.approvals.decide(ref, choice);
      if (!outcome.ok) this.notice('warn', `Not answered: ${outcome.why}.`);
      // The allow list changed: the Settings tab shows (and edits) the new value.
      else if (choice === 'allowList')
        this.deps.app.emit({
          type: 'settingsLoaded',
          settings: await loadSettings(this.deps.store, this.deps.app.state.activeProjectId),
        });
      await this.refreshInbox();
    });
  }

  decideConfirmation(ref: string, confirm: boolean): void {
    this.deps.app.task('Answering the request', async () => {
      const outcome = await decideConfirmation(this.deps, ref, confirm);
      if (!outcome.ok) this.notice('warn', `Not answered: ${outcome.why}.`);
      await this.refreshInbox();
    });
  }

  openInboxItem(projectId: number, sessionId: string): void {
    this.deps.app.emit({ type: 'inboxView', view: null });
    if (this.deps.app.state.activeProjectId === projectId) this.openSession(sessionId);
    else
      this.projects.activate(projectId, () => {
        // The project's sessions (queued by the switch) are in the snapshot before the view opens on one.
        this.deps.app.drain();
        this.openSession(sessionId);
      });
  }
}
