import { execFileSync } from 'node:child_process';
import { expect } from 'vitest';
import type { ApiName } from '../helpers/fake-model/server.js';
import { git } from '../helpers/grove-env.js';
import type { TestHost } from '../helpers/sshd.js';
import { expectExit, reply, show, transcriptOf, until, type Harness } from './headless-harness.js';
import { ResultSchema } from './headless-schema.js';

// The second half of the kill tests of Codex's and Gemini CLI's turns on a
// host (hosts-codex, hosts-gemini; issue 24, item 4): their first Grove was
// killed with -9 while an approval of the agent waited in the inbox. The next
// `grove reply` re-attaches, takes the same request over and answers it, and
// the turn ends as if no Grove had gone.

/** The host user's processes, one command line each (empty when it runs nothing). */
export function hostProcesses(host: TestHost): string {
  try {
    return execFileSync('ps', ['-u', host.user, '-o', 'args='], { encoding: 'utf8' });
  } catch {
    return ''; // ps exits 1 when the user runs nothing
  }
}

/** A session's transcript, an entry a line with its first line only: `kind: content`. */
export async function transcriptLines(
  h: Harness,
  sessionId: string,
  env: Record<string, string>,
): Promise<string[]> {
  return (await transcriptOf(h, sessionId, env)).map((line) => line.split('\n')[0] ?? '');
}

/** The id of an approval waiting in the inbox that is not one of `seen`, once there is one. */
export async function heldApproval(
  h: Harness,
  env: Record<string, string>,
  timeoutMs: number,
  seen: readonly string[] = [],
): Promise<string> {
  let held = '';
  await until(
    'a request held in the inbox',
    async () => {
      const inbox = await h.grove(['inbox', '--json'], { env });
      const items = JSON.parse(inbox.stdout || '[]') as { kind: string; approvalId?: string }[];
      held =
        items.find((i) => i.kind === 'approval' && !seen.includes(i.approvalId ?? ''))
          ?.approvalId ?? '';
      return held !== '';
    },
    timeoutMs,
  );
  return held;
}

export interface LeftTurn {
  readonly h: Harness;
  readonly env: Record<string, string>;
  readonly host: TestHost;
  /** Grove's folder on the host. */
  readonly root: string;
  readonly sessionId: string;
  /** The left turn's prompt. */
  readonly task: string;
  /** The agent as the transcript names it. */
  readonly label: 'Codex' | 'Gemini CLI';
  readonly api: ApiName;
  /** The approval the killed Grove left waiting in the inbox. */
  readonly held: string;
  /** Words of the left turn's tool lines, each of which must be in the transcript once. */
  readonly marks: readonly string[];
  /** The agent's file the left turn's approved command wrote. */
  readonly file: string;
}

/** A JSON-RPC message of the run's input log on the host. */
export interface SentMessage {
  readonly id?: number;
  readonly method?: string;
  readonly result?: unknown;
}

/**
 * `grove reply` after the kill: it re-attaches, waits on the same request,
 * which is approved; the turn's lines are each told once, both answers come
 * in order, the file is on the branch and no run is left going on the host.
 * Returns what both Groves wrote to the left run's stdin, every request id in
 * it once.
 */
export async function replyAfterKill(left: LeftTurn): Promise<SentMessage[]> {
  const { h, env, host, root, sessionId, task, label } = left;
  h.utilities();
  h.utilities();
  h.server.script(left.api, [{ when: 'and one more', text: reply('One more done.') }]);
  const next = h.start(['reply', sessionId, '--progress', '--output', 'json', 'and one more'], {
    env,
  });
  const lines = (): Promise<string[]> => transcriptLines(h, sessionId, env);
  await until(
    'the new Grove re-attached',
    async () => (await lines()).some((l) => l.includes('[Re-attached]')),
    120_000,
  );
  // The request still waits: the same one in the inbox, held again by this Grove and answered now.
  await until(
    'this Grove waits for the answer',
    () => next.stderr().includes('Waiting for your approval'),
    120_000,
  );
  expect(await heldApproval(h, env, 60_000)).toBe(left.held);
  expectExit(await h.grove(['approve', left.held.slice(0, 8)], { env }), 0);
  const run = await next.done;
  expectExit(run, 0);
  expect(ResultSchema.parse(JSON.parse(run.stdout)).answer).toBe('One more done.');

  const told = await lines();
  const once = (text: string): number => told.filter((l) => l.includes(text)).length;
  for (const mark of left.marks)
    expect(
      told.filter((l) => l.startsWith('tool') && l.includes(mark)),
      `${mark}\n${told.join('\n')}\n${show(run)}`,
    ).toHaveLength(1);
  expect(once(`[Approval] ${label} asks to run`)).toBe(1);
  expect(once(`[Approved] ${label} asked to run`)).toBe(1);
  expect(once('[Re-attached]')).toBe(1);
  expect(told.filter((l) => l.startsWith('user_prompt'))).toEqual([
    `user_prompt: ${task}`,
    'user_prompt: and one more',
  ]);
  expect(told.filter((l) => l.startsWith('assistant_answer'))).toEqual([
    'assistant_answer: Finished after the re-attach.',
    'assistant_answer: One more done.',
  ]);
  expect(told.filter((l) => l.includes('cannot be taken over'))).toEqual([]);
  // The work came back with the branch, and nothing of the run is left on the host.
  const branch = ResultSchema.parse(JSON.parse(run.stdout)).branch;
  expect(git(h.repo, 'show', `${branch}:${left.file}`)).toBe('x');
  // Every run of this file on the host has ended (the left one and the reply's).
  const live = (): string =>
    host.ssh(`for d in ${root}/runs/*/; do [ -e "$d/exit" ] || echo "$d"; done; true`).trim();
  await until('no run left going on the host', () => live() === '', 10_000).catch(() => {
    throw new Error(`still going on the host: ${live()}\n${hostProcesses(host)}`);
  });
  // What both Groves wrote to the left run's stdin.
  const sent = host
    .ssh(
      `for f in ${root}/runs/*/in; do grep -q ${JSON.stringify(task)} "$f" && ! grep -q 'and one more' "$f" && cat "$f"; done; true`,
    )
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as SentMessage);
  const ids = sent.filter((m) => m.method !== undefined && m.id !== undefined).map((m) => m.id);
  expect(new Set(ids).size, JSON.stringify(sent)).toBe(ids.length);
  return sent;
}
