import { DEFAULT_HOST_KEY, KNOWN_HOSTS_KEY } from '../../domain/host.js';
import { SETTING_ROWS, dependentKeys, settingValue } from '../../domain/settings.js';
import { filterQuery } from '../../domain/session-filter.js';
import type { Session } from '../../domain/session.js';
import type { App } from '../app.js';
import type { Store } from '../ports.js';
import { ARCHIVE_PAGE, archiveUnread, type ArchiveView, type Tab } from '../state.js';

export const ACTIVE_PROJECT_KEY = 'ui.activeProject';
export const ACTIVE_TAB_KEY = 'ui.tab';

/** Global and project settings merged into one map (project rows win), with the names of the hosts there are (KNOWN_HOSTS_KEY). */
export async function loadSettings(
  store: Store,
  projectId: number | null,
): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const row of SETTING_ROWS) {
    if (row.scope !== 'global') continue;
    const value = await store.settings.getGlobal(row.key);
    if (value !== undefined && value !== null) values[row.key] = value;
  }
  if (projectId !== null) Object.assign(values, await store.settings.listProject(projectId));
  values[KNOWN_HOSTS_KEY] = (await store.hosts.list()).map((host) => host.name).join(',');
  return values;
}

/**
 * What start-up reads of a project's sessions: the live ones, and how many
 * are in the archive (counted on its index; no archived row is read). The
 * archive's rows come in pages as the list needs them (ProjectService.loadArchive).
 */
export async function startSessions(
  store: Store,
  projectId: number | null,
): Promise<{ sessions: Session[]; archive: ArchiveView }> {
  if (projectId === null)
    return { sessions: [], archive: { query: '', total: 0, stored: 0, read: 0 } };
  const [sessions, total] = await Promise.all([
    store.sessions.listLive(projectId),
    store.sessions.countArchive(projectId, ''),
  ]);
  return { sessions, archive: { query: '', total, stored: total, read: 0 } };
}

export class ProjectService {
  private seenVersion: number | null = null;
  private seenProject: number | null = null;
  /** Sessions whose progress line came from another process's running turn. */
  private progressFromElsewhere = new Set<string>();
  /** The archive page being read (project, search, offset), so a key repeat does not read it twice. */
  private archiveReading: string | null = null;

  constructor(
    private readonly app: App,
    private readonly store: Store,
    private readonly now: () => number,
    private readonly onActivated: (projectId: number) => void,
    /** This process, as recorded on the operations it runs. */
    private readonly owner: string,
  ) {}

  rememberTab(tab: Tab): void {
    this.app.task('Saving the tab', () => this.store.settings.setGlobal(ACTIVE_TAB_KEY, tab));
  }

  /** Makes the project active; `then` runs once its sessions are in the snapshot. */
  activate(projectId: number, then?: () => void): void {
    this.app.task('Switching project', async () => {
      await this.store.projects.touch(projectId, this.now());
      await this.store.settings.setGlobal(ACTIVE_PROJECT_KEY, String(projectId));
      const [sessions, settings, projects, archived, total] = await Promise.all([
        this.store.sessions.listLive(projectId),
        loadSettings(this.store, projectId),
        this.store.projects.list(),
        this.store.sessions.listArchive(projectId, { query: '', offset: 0, limit: ARCHIVE_PAGE }),
        this.store.sessions.countArchive(projectId, ''),
      ]);
      this.app.emit({ type: 'projectsLoaded', projects });
      this.app.emit({ type: 'projectActivated', projectId, sessions, settings });
      this.app.emit({
        type: 'archiveLoaded',
        projectId,
        query: '',
        sessions: archived,
        total,
        first: true,
      });
      this.app.emit({ type: 'tab', tab: 'sessions' });
      this.onActivated(projectId);
      then?.();
    });
  }

  /**
   * Reads a page of the active project's archive for the list's search: the
   * first one when the search changed or none was read yet, else the next
   * one when `more` and the store has more. A page read for a search that
   * changed meanwhile is dropped.
   */
  loadArchive(more: boolean): void {
    const state = this.app.state;
    const projectId = state.activeProjectId;
    if (projectId === null) return;
    const query = filterQuery(state.sessionFilter);
    const fresh = query !== state.archive.query || state.archive.total === null;
    if (!fresh && (!more || archiveUnread(state) === 0)) return;
    const offset = fresh ? 0 : state.archive.read;
    const key = `${projectId}\n${query}\n${offset}`;
    if (this.archiveReading === key) return;
    this.archiveReading = key;
    this.app.task('Reading the archive', async () => {
      try {
        const [sessions, total] = await Promise.all([
          this.store.sessions.listArchive(projectId, { query, offset, limit: ARCHIVE_PAGE }),
          this.store.sessions.countArchive(projectId, query),
        ]);
        const now = this.app.state;
        if (now.activeProjectId !== projectId || filterQuery(now.sessionFilter) !== query) return;
        this.app.emit({
          type: 'archiveLoaded',
          projectId,
          query,
          sessions,
          total,
          first: fresh,
        });
      } finally {
        if (this.archiveReading === key) this.archiveReading = null;
      }
    });
  }

  setSetting(key: string, value: string): void {
    const row = SETTING_ROWS.find((r) => r.key === key);
    if (!row) return;
    const refuse = (why: string): void =>
      this.app.emit({
        type: 'notice',
        notice: { level: 'warn', text: `${why} Nothing was changed.` },
      });
    const invalid = row.validate?.(value, this.app.state.settings) ?? null;
    // The hosts known here may be older than the store's (grove host add in another terminal): asked again below.
    if (invalid && key !== DEFAULT_HOST_KEY) {
      refuse(invalid);
      return;
    }
    const projectId = this.app.state.activeProjectId;
    this.app.task('Saving the setting', async () => {
      if (invalid) {
        const again = row.validate?.(value, await loadSettings(this.store, projectId)) ?? null;
        if (again) {
          refuse(again);
          return;
        }
      }
      const write = async (k: string, v: string): Promise<void> => {
        const target = SETTING_ROWS.find((r) => r.key === k);
        if (target?.scope === 'global') await this.store.settings.setGlobal(k, v);
        else if (projectId !== null) await this.store.settings.setProject(projectId, k, v);
      };
      await write(key, value);
      // A new agent resets its model and reasoning to that agent's defaults.
      const next: Record<string, string> = { ...this.app.state.settings, [key]: value };
      for (const dependent of dependentKeys(key)) {
        const depRow = SETTING_ROWS.find((r) => r.key === dependent);
        if (!depRow) continue;
        const { [dependent]: _drop, ...rest } = next;
        const fallback = settingValue(depRow, rest);
        next[dependent] = fallback;
        await write(dependent, fallback);
      }
      this.app.emit({
        type: 'settingsLoaded',
        settings: await loadSettings(this.store, projectId),
      });
    });
  }

  /**
   * Picks up what other processes changed; true when the project's sessions
   * changed. The archive is read again only as far as the list had read it.
   */
  async refreshSessions(): Promise<boolean> {
    const projectId = this.app.state.activeProjectId;
    if (projectId === null) return false;
    // Nothing was committed by another process since the last look: done.
    const version = await this.store.externalChanges();
    if (version === this.seenVersion && projectId === this.seenProject) return false;
    this.seenVersion = version;
    this.seenProject = projectId;
    const state = this.app.state;
    const { query } = state.archive;
    const [live, archived, total] = await Promise.all([
      this.store.sessions.listLive(projectId),
      this.store.sessions.listArchive(projectId, {
        query,
        offset: 0,
        limit: Math.max(ARCHIVE_PAGE, state.archive.read),
      }),
      this.store.sessions.countArchive(projectId, query),
    ]);
    const sessions: Session[] = [...live, ...archived];
    // The session open on screen stays, wherever the archive order puts it now.
    const open = state.mode.kind === 'list' ? null : state.mode.sessionId;
    if (open !== null && !sessions.some((s) => s.id === open)) {
      const session = await this.store.sessions.get(open);
      if (session?.projectId === projectId) sessions.push(session);
    }
    const known = new Map(state.sessions.map((s) => [s.id, s.updatedAt]));
    const changed =
      sessions.length !== known.size ||
      total !== state.archive.total ||
      sessions.some((s) => known.get(s.id) !== s.updatedAt);
    // A search typed meanwhile reads its own page (loadArchive): this read is for the old one.
    if (changed && this.app.state.archive.query === query)
      this.app.emit({
        type: 'sessionsLoaded',
        projectId,
        sessions,
        archive: {
          query,
          total,
          stored: query === '' ? total : state.archive.stored,
          read: archived.length,
        },
      });
    // Progress lines of turns another process runs (a headless `grove run`).
    const elsewhere = await this.store.operations.progressElsewhere(projectId, this.owner);
    const now = new Set<string>();
    for (const { sessionId, progress } of elsewhere) {
      now.add(sessionId);
      if (this.app.state.progress[sessionId] !== progress)
        this.app.emit({ type: 'progress', sessionId, text: progress });
    }
    for (const sessionId of this.progressFromElsewhere)
      if (!now.has(sessionId)) this.app.emit({ type: 'progress', sessionId, text: null });
    this.progressFromElsewhere = now;
    // The open session's transcript: entries another process appended.
    const mode = this.app.state.mode;
    const loaded = mode.kind === 'session' ? this.app.state.transcripts[mode.sessionId] : undefined;
    if (mode.kind === 'session' && loaded) {
      const last = loaded.at(-1)?.position ?? -1;
      const entries = (await this.store.transcript.list(mode.sessionId)).filter(
        (e) => e.position > last,
      );
      if (entries.length > 0)
        this.app.emit({ type: 'transcriptAppended', sessionId: mode.sessionId, entries });
    }
    return changed;
  }
}
