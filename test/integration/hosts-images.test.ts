import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { shutdownContexts } from '../../src/cli/headless.js';
import { createImageStore, type ImageStore } from '../../src/infra/images.js';
import { startClaudeHost, type ClaudeHost } from '../helpers/claude-host.js';
import { startFakeModelServer, type FakeModelServer } from '../helpers/fake-model/server.js';
import { makeReviewWorld, reply, waitFor, type ReviewWorld } from '../helpers/review-world.js';
import { sshdIt, sshdProblem } from '../helpers/sshd.js';

// Images attached in the composer reach Claude Code on a host (issue 24): the
// composer's path (the image store's copy under GROVE_HOME, then the
// controller's sendPrompt with it) for a session on the test sshd of
// test/helpers/sshd.ts, run by the real Claude Code there against a fake model
// server. The image's bytes go in the prompt's stream-json line; no file of
// the person's is put on the host. A bad image is refused before anything
// runs there.

const it = sshdIt();
const ROOT = `.grove-test-images-${process.pid}`;
let w: ReviewWorld;
let host: ClaudeHost | undefined;
let hostModel: FakeModelServer | undefined;
let images: ImageStore;
/** Where the person's own image files are (the pasted paths). */
let desk: string;

/** A chunk of a PNG file: length, type, data, CRC of type and data. */
function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A 2×2 RGB PNG of random colours: bytes no other request can hold by chance. */
function randomPng(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(2, 0);
  header.writeUInt32BE(2, 4);
  header.set([8, 2, 0, 0, 0], 8);
  // Each row: filter byte 0, then two RGB pixels.
  const rows = Buffer.concat([Buffer.from([0]), randomBytes(6), Buffer.from([0]), randomBytes(6)]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Grove's run folders on the host (one per agent run started there). */
function hostRuns(): string[] {
  if (!host) throw new Error('no test host');
  return host.sshd
    .ssh(`ls -1 ${ROOT}/runs 2>/dev/null; true`)
    .split('\n')
    .filter((line) => line !== '');
}

async function sessionOnBuild(): Promise<string> {
  const session = await w.controller.sessions.create(
    w.projectId,
    { agent: 'claude', model: 'sonnet', reasoning: 'high' },
    w.app.state.settings,
    'auto_edit',
    'build',
  );
  await w.controller.sessions.whenReady(session.id);
  return session.id;
}

beforeAll(async () => {
  if (sshdProblem() !== null) return;
  // The host's Claude Code has a model server of its own (the test sshd must exist before the
  // world, whose Grove reaches it through its ssh config); titles and commit messages ask the world's.
  hostModel = await startFakeModelServer();
  host = await startClaudeHost(hostModel.url);
  w = await makeReviewWorld({ env: { GROVE_SSH_CONFIG: host.sshd.config } });
  await w.infra.store.hosts.add({
    name: 'build',
    destination: host.sshd.alias,
    root: ROOT,
    createdAt: w.infra.clock.now(),
  });
  // The TUI's image store: the composer copies a pasted image here before it is sent.
  images = createImageStore(join(w.world.groveHome, 'images'));
  desk = mkdtempSync(join(tmpdir(), 'grove-images-desk-'));
}, 60_000);

afterAll(async () => {
  if (!host) return;
  await shutdownContexts();
  await w.close();
  await host.close(ROOT);
  await hostModel?.close();
  rmSync(desk, { recursive: true, force: true });
});

describe('images attached to a prompt for Claude Code on a host', () => {
  it("reach the model as image blocks with the file's bytes, and no file of them is put on the host", async () => {
    const png = randomPng();
    const pasted = join(desk, 'screen shot.png');
    writeFileSync(pasted, png);
    const prompt = 'What colour is the top left pixel of this picture?';
    hostModel?.script('anthropic', [{ when: 'top left pixel', text: reply('It is a colour.') }]);
    const id = await sessionOnBuild();
    const stored = await images.attachFile(id, pasted);

    w.controller.sendPrompt(id, prompt, [stored]);

    await waitFor(
      'the answer',
      async () =>
        (await w.infra.store.transcript.list(id)).some((e) =>
          e.content.includes('It is a colour.'),
        ),
      120_000,
    );
    const turn = hostModel
      ?.modelRequests('anthropic')
      .find((r) => JSON.stringify(r.body).includes('top left pixel'));
    const body = turn?.body as {
      messages: { role: string; content: { type: string; text?: string; source?: unknown }[] }[];
    };
    const asked = body.messages.find((m) => JSON.stringify(m.content).includes('top left pixel'));
    expect(asked?.role).toBe('user');
    // The person's words and the image, as one message: the bytes of the file, base64.
    expect(asked?.content.some((block) => block.text?.includes(prompt))).toBe(true);
    expect(asked?.content.filter((block) => block.type === 'image')).toEqual([
      {
        type: 'image',
        source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') },
      },
    ]);
    // No path of this machine went with it (a local path means nothing on the host).
    const sent = JSON.stringify(body);
    expect(sent).not.toContain(stored);
    expect(sent).not.toContain('@/');
    // Nothing of the image is in the host's worktree (the agent's own folder).
    expect(
      host?.sshd.ssh(`grep -rl --binary-files=text IHDR ${ROOT}/worktrees || true`).trim(),
    ).toBe('');
    expect(await w.notices(id)).not.toContainEqual(expect.stringContaining('not sent to hosts'));
  }, 180_000);

  it('refuses an image that is gone or too large, in words, before anything runs on the host', async () => {
    const id = await sessionOnBuild();
    const gone = join(desk, 'gone.png');
    writeFileSync(gone, randomPng());
    const storedGone = await images.attachFile(id, gone);
    const big = join(desk, 'big.png');
    writeFileSync(big, randomPng());
    const storedBig = await images.attachFile(id, big);
    rmSync(storedGone);
    // Grown past the limit after it was attached (the image store checked it then).
    truncateSync(storedBig, 20 * 1024 * 1024 + 1);
    const requests = hostModel?.modelRequests('anthropic').length;
    const runs = hostRuns();

    for (const [stored, words] of [
      [storedGone, `the attached image ${storedGone.split('/').pop() ?? ''} is gone`],
      [storedBig, 'is larger than 20 MB'],
    ] as const) {
      w.controller.sendPrompt(id, 'Look at this', [stored]);
      const line = await waitFor(
        'the refusal',
        async () =>
          (await w.infra.store.transcript.list(id)).find((e) => e.content.includes(words))?.content,
        60_000,
      );
      expect(line).toContain('Nothing was sent to the host');
      await waitFor(
        'the session back in Review',
        async () => (await w.get(id)).status === 'Review',
      );
    }
    // Nothing ran there: no model request, no run folder made on the host.
    expect(hostModel?.modelRequests('anthropic').length).toBe(requests);
    expect(hostRuns()).toEqual(runs);
  }, 180_000);
});
