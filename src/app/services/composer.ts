import type { App } from '../app.js';
import type { GitClient, ImageStore, Runtime, Store } from '../ports.js';
import { fileIndex } from '../../domain/file-match.js';
import { HISTORY_LIMIT } from '../../domain/prompt-history.js';
import { providerInfo } from '../../domain/providers.js';
import { sessionById } from '../state.js';

/** A worktree's file list is listed again when the composer asks and it is older than this. */
const FILES_FRESH_MS = 10_000;

export interface ComposerDeps {
  readonly app: App;
  readonly store: Store;
  readonly git: GitClient;
  readonly runtime: Runtime;
  /** Where attached images are stored; absent in headless commands. */
  readonly images?: ImageStore;
  /** Resolves when the session's worktree exists (it is made in the background after `a`). */
  readonly whenReady: (sessionId: string) => Promise<void>;
}

/**
 * The prompt composer's data: each worktree's file list for `@` completion
 * (listed off the key path, cached, refreshed in the background), the
 * project's prompt history, session drafts and attached images.
 */
export class ComposerService {
  private readonly files = new Map<string, { readonly at: number }>();
  private readonly listing = new Set<string>();

  constructor(private readonly deps: ComposerDeps) {}

  private get now(): number {
    return this.deps.runtime.clock.now();
  }

  private notice(level: 'info' | 'warn' | 'error', text: string): void {
    this.deps.app.emit({ type: 'notice', notice: { level, text } });
  }

  /** Lists the session's worktree files (for `@`), unless a fresh list is on hand or one is being made. */
  loadFiles(sessionId: string): void {
    const { app, git, runtime } = this.deps;
    const session = sessionById(app.state, sessionId);
    if (!session) return;
    const worktree = session.worktreePath;
    const cached = this.files.get(worktree);
    if (
      this.listing.has(worktree) ||
      (cached &&
        this.now - cached.at < FILES_FRESH_MS &&
        app.state.fileIndex?.worktree === worktree)
    )
      return;
    this.listing.add(worktree);
    app.task('Listing the worktree files', async () => {
      try {
        await this.deps.whenReady(sessionId);
        const paths = await git.listFiles(worktree, AbortSignal.timeout(30_000));
        this.files.set(worktree, { at: this.now });
        // Lower-casing 100k names happens here, once, not on a key press.
        app.emit({ type: 'fileIndexLoaded', worktree, files: fileIndex(paths) });
      } catch (error) {
        // Not cached: the next `@` asks again.
        runtime.logger.log('info', `listing files of ${worktree} failed`, error);
        app.emit({ type: 'fileIndexLoaded', worktree, files: fileIndex([]) });
      } finally {
        this.listing.delete(worktree);
      }
    });
  }

  /** Loads the project's prompt history and its sessions' drafts. */
  loadProject(projectId: number): void {
    const { app, store } = this.deps;
    app.task('Loading the prompt history', async () => {
      const [history, drafts] = await Promise.all([
        store.composer.listPrompts(projectId, HISTORY_LIMIT),
        store.composer.listDrafts(projectId),
      ]);
      app.emit({ type: 'composerDataLoaded', projectId, history, drafts });
    });
  }

  /** Remembers a sent prompt in the project's history, and drops the session's draft. */
  async recordSent(sessionId: string, text: string): Promise<void> {
    const { app, store } = this.deps;
    const session = await store.sessions.get(sessionId);
    if (!session) return;
    await store.composer.addPrompt(session.projectId, text, this.now, HISTORY_LIMIT);
    app.emit({ type: 'promptRecorded', projectId: session.projectId, text });
    if (sessionId in app.state.drafts) {
      await store.composer.saveDraft(sessionId, '', this.now);
      app.emit({ type: 'draftSaved', sessionId, text: null });
    }
  }

  saveDraft(sessionId: string, text: string): void {
    const { app, store } = this.deps;
    app.emit({ type: 'draftSaved', sessionId, text: text.trim() === '' ? null : text });
    app.task('Saving the draft', () => store.composer.saveDraft(sessionId, text, this.now));
  }

  /** Why the session's agent cannot take images, or null when it can. */
  private noImages(sessionId: string): string | null {
    const session = sessionById(this.deps.app.state, sessionId);
    if (!session) return 'The session no longer exists.';
    const info = providerInfo(session.agent);
    return info?.images
      ? null
      : `${info?.name ?? session.agent} takes no images: nothing was attached.`;
  }

  /** Attaches a pasted image path; when it is no image file, the text is pasted as it is. */
  attachFile(sessionId: string, path: string): void {
    const { app, images } = this.deps;
    const refused = this.noImages(sessionId) ?? (images ? null : 'Images cannot be attached here.');
    if (refused || !images) {
      app.emit({ type: 'composerAttach', sessionId, insert: path });
      this.notice('warn', refused ?? 'Images cannot be attached here.');
      return;
    }
    app.task('Attaching the image', async () => {
      try {
        const stored = await images.attachFile(sessionId, path);
        app.emit({ type: 'composerAttach', sessionId, image: stored });
      } catch (error) {
        app.emit({ type: 'composerAttach', sessionId, insert: path });
        this.notice(
          'warn',
          `Pasted as text, not attached: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    });
  }

  /** Attaches the clipboard's image. */
  attachClipboard(sessionId: string): void {
    const { app, images } = this.deps;
    const refused = this.noImages(sessionId) ?? (images ? null : 'Images cannot be attached here.');
    if (refused || !images) {
      this.notice('warn', refused ?? 'Images cannot be attached here.');
      return;
    }
    app.task('Pasting the clipboard image', async () => {
      try {
        const stored = await images.fromClipboard(sessionId, AbortSignal.timeout(10_000));
        app.emit({ type: 'composerAttach', sessionId, image: stored });
      } catch (error) {
        this.notice(
          'warn',
          `No image attached: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    });
  }
}
