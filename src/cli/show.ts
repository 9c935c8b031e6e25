// grove show: one session: its state, usage, budget, group and transcript, as text or JSON.
import type { Infra } from '../compose.js';
import { restoreCommand, shortId, type Session } from '../domain/session.js';
import type { TranscriptEntry } from '../domain/transcript.js';
import { permissionModeLabel } from '../domain/permission-mode.js';
import { waitingText } from '../domain/usage-limit.js';
import { EXIT, findSession, type HeadlessIo } from './headless.js';
import {
  checksJson,
  checksLines,
  resourcesJson,
  sampleAgents,
  sessionResult,
  usageLines,
  worktreeBytes,
} from './session-json.js';
import { budgetLines } from './parallel.js';
import { showGroupJson, showGroupLines } from './best-of.js';
import type { HeadlessCommand } from './args.js';

/** The agent's open questions, numbered, with their suggested answers (empty when there are none). */
export function questionLines(
  questions: readonly { readonly text: string; readonly options: readonly string[] }[],
): string {
  if (questions.length === 0) return '';
  const lines = ['', `Open questions (${questions.length}; answer with grove reply):`];
  questions.forEach((q, i) => {
    lines.push(`${i + 1}. ${q.text}`);
    if (q.options.length > 0) lines.push(`   options: ${q.options.join(' / ')}`);
  });
  return `${lines.join('\n')}\n`;
}

/** A session as `grove show --json` prints it (documented in docs/usage/cli.md). */
export async function showJson(
  infra: Infra,
  session: Session,
  entries: readonly TranscriptEntry[],
  group: Awaited<ReturnType<typeof showGroupJson>>,
  waiting: { readonly agent: string; readonly until: number } | null,
): Promise<Record<string, unknown>> {
  const diff = await infra.git
    .diffStats(session.worktreePath, session.baseBranch)
    .catch(() => null);
  const answer = entries.filter((e) => e.kind === 'assistant_answer').at(-1)?.content ?? '';
  const result = sessionResult(
    session,
    answer,
    diff?.files ?? [],
    session.activeSeconds * 1000,
    await infra.store.usage.bySession(session.id),
  );
  return {
    ...result,
    group,
    guard: session.guardFlag ?? null,
    resources: resourcesJson((await sampleAgents(infra.paths.run))?.sessions[session.id]),
    diskBytes: await worktreeBytes(session),
    checks: checksJson(await infra.store.pullRequestChecks.get(session.id)),
    waiting: waiting
      ? { agent: waiting.agent, until: new Date(waiting.until).toISOString() }
      : null,
    transcript: entries.map((e) => ({
      kind: e.kind,
      content: e.content,
      at: new Date(e.createdAt).toISOString(),
    })),
  };
}

/** Whether the session's next prompt waits for its agent's usage limit to lift, and until when. */
export async function waitingOf(
  infra: Infra,
  sessionId: string,
): Promise<{ agent: string; until: number } | null> {
  const now = infra.clock.now();
  const head = (await infra.store.operations.listUnfinished(sessionId)).find(
    (op) => op.status === 'queued',
  );
  return head?.notBefore && head.notBefore > now
    ? { agent: head.waitAgent ?? 'the agent', until: head.notBefore }
    : null;
}

export async function showCommand(
  infra: Infra,
  io: HeadlessIo,
  command: Extract<HeadlessCommand, { kind: 'show' }>,
): Promise<number> {
  const session = await findSession(infra, command.id);
  const entries = await infra.store.transcript.list(session.id);
  const group = await showGroupJson(infra, session.id);
  const variants = (await infra.store.groups.ofSession(session.id))?.members.length ?? 0;
  // Its next prompt waits for the agent's usage limit to lift.
  const waiting = await waitingOf(infra, session.id);
  if (command.json) {
    io.stdout.write(
      `${JSON.stringify(await showJson(infra, session, entries, group, waiting), null, 2)}\n`,
    );
    return EXIT.ok;
  }
  io.stdout.write(`${session.title || '(untitled)'}\n`);
  io.stdout.write(
    `id ${session.id}  status ${session.status}  [${session.size}] +${session.addedLines}/-${session.deletedLines}\n`,
  );
  io.stdout.write(
    `branch ${session.branch} (base ${session.baseBranch})  worktree ${session.worktreePath}\n`,
  );
  io.stdout.write(
    `agent ${session.agent}/${session.model} [${session.reasoning}]  mode ${permissionModeLabel(session.permissionMode)}  tokens ${session.inputTokens} in / ${session.outputTokens} out\n`,
  );
  if (session.issue)
    io.stdout.write(
      `issue #${session.issue.number} ${session.issue.title}: ${session.issue.url}\n`,
    );
  if (session.reviewRequest)
    io.stdout.write(
      `pull request #${session.reviewRequest.number} ${session.reviewRequest.state}: ${session.reviewRequest.url}\n`,
    );
  for (const line of checksLines(await infra.store.pullRequestChecks.get(session.id)))
    io.stdout.write(`${line}\n`);
  if (session.keptBranch)
    io.stdout.write(
      `kept branch ${session.keptBranch} (restore: ${restoreCommand(session.keptBranch)})\n`,
    );
  if (session.guardFlag)
    io.stdout.write(
      `[Guard] not merged or published until acknowledged (grove merge|publish ${shortId(session.id)} --acknowledge):\n${session.guardFlag}\n`,
    );
  for (const line of usageLines(await infra.store.usage.bySession(session.id)))
    io.stdout.write(`${line}\n`);
  for (const line of await budgetLines(infra, session)) io.stdout.write(`${line}\n`);
  if (waiting)
    io.stdout.write(`${waitingText(waiting, infra.clock.now())}: the next prompt is sent then\n`);
  if (group)
    for (const line of showGroupLines(group, session.id, variants)) io.stdout.write(`${line}\n`);
  for (const entry of entries) {
    // A tool call is shown folded, as in the session view: its summary line.
    if (entry.kind === 'tool') {
      io.stdout.write(`  ${entry.content.split('\n')[0] ?? ''}\n`);
      continue;
    }
    const label = entry.kind === 'user_prompt' ? '› ' : '';
    io.stdout.write(`\n${label}${entry.content}\n`);
  }
  if (session.summary) io.stdout.write(`\nSummary: ${session.summary.session}\n`);
  io.stdout.write(questionLines(session.questions));
  return EXIT.ok;
}
