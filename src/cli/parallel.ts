import type { Infra } from '../compose.js';
import { budgetText, stopText } from '../domain/budget.js';
import { formatBytes } from '../domain/gc.js';
import { rebaseWarning, sessionLabel } from '../domain/overlap.js';
import { shortId, type Session } from '../domain/session.js';
import type { SharedUse } from '../domain/shared-folders.js';
import { budgetStatus } from '../app/services/budget.js';
import { collectGarbage, gcDays } from '../app/services/gc.js';
import { detectOverlaps, withVariantGroups } from '../app/services/overlap.js';
import { loadSettings } from '../app/services/projects.js';
import { EXIT, openProject, type HeadlessIo } from './headless.js';
import { gcJson, printJson } from './command-json.js';
import { runCliHostCleanups } from './host-cleanups.js';
import type { HostCleanupOutcome } from '../app/services/host-cleanup.js';

// What `grove show`, `grove merge` and `grove gc` say about parallel sessions:
// budgets, overlaps and reclaimed disk.

/** `grove show`'s budget lines: the session's and the project's spending against their limits, and a hold. */
export async function budgetLines(infra: Infra, session: Session): Promise<string[]> {
  const status = await budgetStatus(infra, session.id, { alwaysPrice: true });
  if (!status) return [];
  const { limits } = status;
  const part = (
    spent: typeof status.session,
    tokens: number | null,
    usd: number | null,
  ): string => {
    const parts = [budgetText('tokens', spent.tokens, tokens)];
    if (usd !== null || spent.usd > 0) parts.push(budgetText('usd', spent.usd, usd));
    return parts.join(', ');
  };
  const lines = [
    `budget session ${part(status.session, limits.sessionTokens, limits.sessionUsd)}; project ${part(status.project, limits.projectTokens, limits.projectUsd)}`,
  ];
  if (
    status.session.unpriced.length > 0 &&
    (limits.sessionUsd !== null || limits.projectUsd !== null)
  )
    lines.push(
      `no price known for ${status.session.unpriced.join(', ')} (only its tokens count; see prices.json in GROVE_HOME)`,
    );
  if (status.stop) {
    const queued = (await infra.store.operations.listUnfinished(session.id)).filter(
      (op) => op.status === 'queued' && (op.kind === 'start_prompt' || op.kind === 'reply'),
    ).length;
    lines.push(
      `held: ${stopText(status.stop)}${queued > 0 ? ` ${queued === 1 ? '1 queued prompt waits' : `${queued} queued prompts wait`} for the limit to be raised.` : ' New prompts wait until the limit is raised.'}`,
    );
  }
  return lines;
}

/**
 * Before `grove merge`: the other live sessions of the project that changed
 * the same files and will need a rebase once this one lands.
 */
export async function mergeOverlapLines(
  infra: Infra,
  session: Session,
  projectPath: string,
): Promise<string[]> {
  const live = (await infra.store.sessions.listLive(session.projectId)).filter(
    (s) => s.status !== 'Draft',
  );
  if (!live.some((s) => s.id === session.id)) live.push(session);
  const groups = await infra.store.groups.listByProject(session.projectId);
  const overlaps = await detectOverlaps(
    infra.git,
    projectPath,
    withVariantGroups(live, groups),
  ).catch(() => ({}) as Record<string, never>);
  return rebaseWarning(overlaps[session.id] ?? [], (id) =>
    sessionLabel(
      live.find((s) => s.id === id),
      id,
    ),
  );
}

/** `grove gc`. */
/** What of a worktree is shared (worktree.shared), one line each. */
export function sharedLines(shared: readonly SharedUse[]): string[] {
  return shared.map((u) =>
    u.kind === 'link'
      ? `shared: ${u.path} is a link into the main checkout (not counted; only the link goes)`
      : `shared: ${u.path} is its own folder or a copy-on-write clone (${formatBytes(u.allocated)}, counted in full)`,
  );
}

export async function runGc(
  infra: Infra,
  io: HeadlessIo,
  command: { dir: string | null; days: number | null; dryRun: boolean; json: boolean },
): Promise<number> {
  const project = await openProject(infra, io, command.dir);
  const days = command.days ?? gcDays(await loadSettings(infra.store, project.id));
  const report = await collectGarbage(infra, project, { days, dryRun: command.dryRun });
  // What sessions of the project that ended left on their hosts (issue 24): removed now, or said why not.
  const hosts: readonly HostCleanupOutcome[] = command.dryRun
    ? (await infra.store.hosts.cleanups({ repo: project.path })).map((c) => ({
        sessionId: c.sessionId,
        host: c.host,
        kind: 'pending' as const,
        text: `would remove what it left on ${c.host}${c.error ? ` (last try: ${c.error})` : ''}`,
      }))
    : await runCliHostCleanups(infra, io.env, { repo: project.path });
  const kept = report.items.some((item) => item.kind === 'skipped');
  if (command.json) {
    printJson(io, gcJson(report, days, command.dryRun, hosts));
    return kept ? EXIT.failed : EXIT.ok;
  }
  const out = (line: string): boolean => io.stdout.write(`${line}\n`);
  for (const h of hosts) out(`host ${h.host}  ${shortId(h.sessionId)}  ${h.kind}: ${h.text}`);
  const name = (s: Session): string =>
    `${shortId(s.id)}  ${s.status.padEnd(8)} ${s.title || s.branch}`;
  if (report.items.length === 0) {
    out(
      `Nothing to reclaim: no Done or Canceled session of ${project.displayName} last changed ${days} or more days ago still has a worktree.`,
    );
    return EXIT.ok;
  }
  for (const item of report.items) {
    switch (item.kind) {
      case 'removed':
        out(`removed  ${name(item.session)}`);
        out(`         ${item.session.worktreePath} (${formatBytes(item.bytes)})`);
        for (const line of sharedLines(item.shared)) out(`         ${line}`);
        if (item.snapshot) {
          out(
            `         uncommitted work kept at ${item.snapshot.ref} (${item.snapshot.commit.slice(0, 12)})`,
          );
          out(`         restore: ${item.snapshot.restore}`);
        } else out('         nothing uncommitted to keep');
        break;
      case 'wouldRemove':
        out(`would remove  ${name(item.session)}`);
        out(`              ${item.session.worktreePath} (${formatBytes(item.bytes)})`);
        for (const line of sharedLines(item.shared)) out(`              ${line}`);
        out(
          item.snapshot
            ? `              would keep ${item.changes > 0 ? `${item.changes} uncommitted or untracked path${item.changes === 1 ? '' : 's'}` : 'its commit (on no branch)'} at refs/grove/snapshots/${item.session.id}`
            : '              nothing uncommitted to keep',
        );
        break;
      case 'skipped':
        out(`kept     ${name(item.session)}`);
        out(`         ${item.session.worktreePath}: not removed, ${item.reason}`);
        break;
      default:
        break;
    }
  }
  out(
    command.dryRun
      ? `Would reclaim ${formatBytes(report.bytes)} (dry run: nothing was changed).`
      : `Reclaimed ${formatBytes(report.bytes)}.`,
  );
  return kept ? EXIT.failed : EXIT.ok;
}
