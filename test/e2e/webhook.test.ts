import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { agentWorldEnv, makeRepo, runGrove, startGrove } from '../helpers/grove-env.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { reply } from '../helpers/fake-model/reply.js';
import { withStore } from '../helpers/seed.js';
import { waitUntil } from '../helpers/wait.js';

// The webhook channel in the built Grove, in tmux: a question asked in
// another project (by `grove run`) reaches the TUI's inbox, and the TUI POSTs
// it to a local receiver in ntfy's format: the words, the command that acts on
// it, the title in a header. The receiver first answers 503 with Retry-After;
// Grove tries again. What the agent wrote arrives without escape sequences and
// cannot add a header.

const e2e = setUpE2eWorld();
let env: Record<string, string>;
let receiver: Server;
let url: string;
const received: { headers: IncomingMessage['headers']; body: string }[] = [];

beforeEach(async () => {
  env = agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home));
  received.length = 0;
  receiver = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      if (received.length === 1) res.writeHead(503, { 'retry-after': '1' }).end();
      else res.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/grove-topic`;
});

afterEach(async () => {
  await new Promise((resolve) => receiver.close(resolve));
});

function decode(value: string): string {
  const match = /^=\?UTF-8\?B\?(.*)\?=$/.exec(value);
  return match ? Buffer.from(match[1] ?? '', 'base64').toString('utf8') : value;
}

describe('the webhook', () => {
  it('POSTs a new question to the URL in the settings, again after a 503, with its command and no escape sequence', async () => {
    const here = makeRepo(e2e.world, 'here');
    const other = makeRepo(e2e.world, 'other');
    await withStore(e2e.world.groveHome, async (store) => {
      await store.settings.setGlobal('notify.webhook', url);
    });
    // The title is written beside the turn; the question is held until the
    // title is stored, so the POST's title header is the written one, not the
    // prompt's (on a loaded machine the turn could otherwise end first).
    const titled = waitUntil(
      'the title is stored',
      () =>
        withStore(e2e.world.groveHome, async (store) => {
          const project = (await store.projects.list()).find((p) => p.displayName === 'other');
          const sessions = project ? await store.sessions.listByProject(project.id) : [];
          return sessions.some((s) => s.title === 'Pick a greeting' && !s.titleProvisional);
        }).then((stored) => stored || undefined),
      60_000,
    );
    e2e.server.script('anthropic', [
      { when: 'Write a title for a coding task', text: reply('Pick a greeting') },
      {
        when: 'Greet the user',
        until: titled,
        then: {
          text: reply('', {
            questions: [
              {
                text: 'Which \u001b[31mgreeting\u001b[0m?\r\nX-Evil: yes',
                options: ['hello', 'hi'],
              },
            ],
          }),
        },
      },
    ]);
    const t = await startGrove(e2e.world, here, { env, columns: 120, rows: 30 });
    e2e.term = t;
    await t.waitFor('No sessions yet.');

    const asked = await runGrove(env, other, ['run', 'Greet the user']);
    expect(asked.code, asked.out).toBe(3);
    const id = /grove reply ([0-9a-f]{8})/.exec(asked.out)?.[1] ?? '';
    await t.waitFor('1 in the inbox');

    await waitUntil('the POST tried again after the 503', () => received.length >= 2, 30_000);
    const [first, second] = received;
    expect(second?.body).toBe(first?.body);
    const lines = (second?.body ?? '').split('\n');
    expect(lines[0]).toMatch(/^A question: Which .*greeting.*\?/);
    expect(lines.at(-1)).toBe(`grove answer ${id} "<your answers>"`);
    expect(second?.body).not.toContain('\u001b');
    expect(lines).toHaveLength(3);
    expect(decode(String(second?.headers['title']))).toBe('Grove: Pick a greeting (other)');
    expect(second?.headers['x-evil']).toBeUndefined();
    expect(second?.headers['x-grove-item']).toMatch(/^question:/);
    expect(received).toHaveLength(2);
  });
});
