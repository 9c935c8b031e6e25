import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { lookup } from 'node:dns/promises';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/headless.js';
import { APPROVAL_TIMEOUT_KEY, NETWORK_HOLD_CAP } from '../../src/domain/approval.js';
import { NETWORK_ALLOW_KEY } from '../../src/domain/network.js';
import type { Session } from '../../src/domain/session.js';
import {
  grove as groveOn,
  heldItem as heldOn,
  session as sessionOf,
  toldModel,
  turnOver as overOn,
} from '../helpers/approvals.js';
import { makeReviewWorld, reply, waitFor, type ReviewWorld } from '../helpers/review-world.js';
import { ApprovalDecisionSchema } from './headless-schema.js';

// Network requests held for the person (issue 25, item 2), with the real,
// pinned Claude Code, confined, its network through Grove's real proxy, on
// real SQLite: the scripted model runs `curl` to a host that is not on
// agents.network.allow. The host is this machine's own name, which
// /etc/hosts gives a loopback address, and the list names that address with
// the site's port: so the name is held (it is not on the list), and once
// approved, the address check lets it through to a real server on 127.0.0.1.

/** This machine's name when the system resolver gives it 127.0.0.1. */
const NAME = await lookup(hostname()).then(
  ({ address }) => (address === '127.0.0.1' ? hostname().toLowerCase() : null),
  () => null,
);

let w: ReviewWorld;
let site: Server;
let port: number;
let hits: string[];

beforeEach(async () => {
  w = await makeReviewWorld();
  hits = [];
  site = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.end('reached\n');
  });
  await new Promise<void>((done) => site.listen(0, '127.0.0.1', done));
  port = (site.address() as AddressInfo).port;
  await w.infra.store.settings.setGlobal(NETWORK_ALLOW_KEY, `127.0.0.1:${port}`);
});

afterEach(async () => {
  await w.controller.shutdown();
  await w.close();
  await new Promise((done) => site.close(done));
});

const grove = (name: 'approve' | 'deny' | 'inbox', ...rest: string[]) => groveOn(w, name, ...rest);
const heldItem = (sessionId: string) => heldOn(w, sessionId);
const turnOver = (sessionId: string) => overOn(w, sessionId);

async function claudeSession(): Promise<Session> {
  const session = await w.controller.sessions.create(
    w.projectId,
    { agent: 'claude', model: 'sonnet', reasoning: 'high' },
    w.app.state.settings,
  );
  await w.controller.sessions.whenReady(session.id);
  w.app.emit({ type: 'sessionUpdated', session });
  return session;
}

/** The model runs `command` for `task`, then finishes. */
function script(task: string, command: string, api: 'anthropic' | 'gemini' = 'anthropic'): void {
  w.server.script(api, [
    { when: task, toolCall: { kind: 'shell', command } },
    { when: task, text: reply('Finished.') },
  ]);
}

const curl = (path: string, host = NAME ?? ''): string =>
  `curl -s -m 90 http://${host}:${port}${path}`;

describe.skipIf(NAME === null ? 'this machine’s name does not resolve to 127.0.0.1' : false)(
  'network approvals',
  () => {
    it('holds a host not on the allow list in the inbox; approved once, the request goes through', async () => {
      script('Fetch once', `${curl('/once')} ; true`);
      const session = await claudeSession();
      expect(await w.controller.submitPrompt(session.id, 'Fetch once')).toBeNull();

      const item = await heldItem(session.id);
      expect(item.text).toBe(
        `Claude Code asks to connect to ${NAME}:${port} (not in agents.network.allow)`,
      );
      expect(item.approvalKind).toBe('network');
      expect(item.action).toContain('L: add to the allowed hosts');
      expect(hits).toEqual([]);

      const approved = await grove('approve', (item.approvalId ?? '').slice(0, 8));
      expect(approved.code).toBe(EXIT.ok);
      await turnOver(session.id);

      expect(hits).toEqual(['/once']);
      const notices = await w.notices(session.id);
      expect(
        notices.filter((n) => n.startsWith('[Approval] Claude Code asks to connect')),
      ).toHaveLength(1);
      expect(notices).toContainEqual(
        `[Approved] Claude Code asked to connect to ${NAME}:${port}; you approved it once.`,
      );
      expect(await w.infra.store.settings.getGlobal(NETWORK_ALLOW_KEY)).toBe(`127.0.0.1:${port}`);
    }, 120_000);

    it('approved for the session, the same host again passes without asking; many requests at once make one item', async () => {
      script(
        'Fetch many',
        `(${curl('/a')} & ${curl('/b')} & ${curl('/c')} & wait) ; ${curl('/later')} ; true`,
      );
      const session = await claudeSession();
      expect(await w.controller.submitPrompt(session.id, 'Fetch many')).toBeNull();

      const item = await heldItem(session.id);
      await waitFor('the three requests to reach the proxy', async () => {
        const lines = await w.notices(session.id);
        return lines.some((l) => l.startsWith('[Approval]')) ? true : undefined;
      });
      expect((await w.controller.inbox()).filter((i) => i.kind === 'approval')).toHaveLength(1);
      const approved = await grove('approve', item.id, '--session', '--json');
      expect(ApprovalDecisionSchema.parse(JSON.parse(approved.out))).toMatchObject({
        decision: 'session',
        kind: 'network',
        subject: `${NAME}:${port}`,
      });
      await turnOver(session.id);

      expect(hits.sort()).toEqual(['/a', '/b', '/c', '/later']);
      const notices = await w.notices(session.id);
      expect(notices.filter((n) => n.startsWith('[Approval]'))).toHaveLength(1);
      expect(notices).toContainEqual(
        `[Approved] Claude Code asked to connect to ${NAME}:${port}; it passed, as you approved it for this session earlier.`,
      );
    }, 120_000);

    it('added to the allow list (L), the host is written to agents.network.allow for later sessions', async () => {
      script('Fetch and keep', `${curl('/kept')} ; true`);
      const session = await claudeSession();
      expect(await w.controller.submitPrompt(session.id, 'Fetch and keep')).toBeNull();

      const item = await heldItem(session.id);
      w.controller.decideApproval(item.approvalId ?? '', 'allowList');
      await turnOver(session.id);

      expect(hits).toEqual(['/kept']);
      expect(await w.infra.store.settings.getGlobal(NETWORK_ALLOW_KEY)).toBe(
        `127.0.0.1:${port}, ${NAME}:${port}`,
      );
      await waitFor('the settings in the snapshot', () =>
        w.app.state.settings[NETWORK_ALLOW_KEY] === `127.0.0.1:${port}, ${NAME}:${port}`
          ? true
          : undefined,
      );
      expect(await w.notices(session.id)).toContainEqual(
        `[Approved] Claude Code asked to connect to ${NAME}:${port}; you approved it and added it to the allowed hosts (agents.network.allow).`,
      );

      // A later session reaches it without asking.
      script('Fetch again', `${curl('/again')} ; true`);
      const later = await claudeSession();
      expect(await w.controller.submitPrompt(later.id, 'Fetch again')).toBeNull();
      await turnOver(later.id);
      expect(hits).toEqual(['/kept', '/again']);
      expect((await w.notices(later.id)).filter((n) => n.startsWith('[Approval]'))).toEqual([]);
    }, 180_000);

    it('denied, nothing is reached and the agent reads the usual refusal', async () => {
      script('Fetch denied', `${curl('/denied')} > out.txt ; true`);
      const session = await claudeSession();
      expect(await w.controller.submitPrompt(session.id, 'Fetch denied')).toBeNull();

      const item = await heldItem(session.id);
      expect((await grove('deny', item.approvalId ?? '')).code).toBe(EXIT.ok);
      await turnOver(session.id);

      expect(hits).toEqual([]);
      expect(await w.notices(session.id)).toContainEqual(
        `[Denied] Claude Code asked to connect to ${NAME}:${port}; you denied it.`,
      );
      expect(readFileSync(join(session.worktreePath, 'out.txt'), 'utf8')).toBe(
        `network: blocked ${NAME}:${port} (not in agents.network.allow)\n`,
      );
      // --allow-list is for network requests only, and this one is decided.
      expect((await grove('approve', item.id, '--allow-list')).err).toContain('already denied');
    }, 120_000);

    it('a request nobody answers is denied when the approval timeout passes', async () => {
      w.controller.setSetting(APPROVAL_TIMEOUT_KEY, '2s');
      await waitFor('the setting', () => w.app.state.settings[APPROVAL_TIMEOUT_KEY] === '2s');
      script('Fetch late', `${curl('/late')} ; true`);
      const session = await claudeSession();
      expect(await w.controller.submitPrompt(session.id, 'Fetch late')).toBeNull();

      await heldItem(session.id);
      await turnOver(session.id);

      expect(hits).toEqual([]);
      expect(await w.notices(session.id)).toContainEqual(
        `[Denied] Claude Code asked to connect to ${NAME}:${port}; Grove denied it on timeout: nobody answered within 2s.`,
      );
    }, 120_000);

    it('a flood of names makes at most the cap of items; the rest are denied at once', async () => {
      w.controller.setSetting(APPROVAL_TIMEOUT_KEY, '5s');
      await waitFor('the setting', () => w.app.state.settings[APPROVAL_TIMEOUT_KEY] === '5s');
      const names = Array.from({ length: 40 }, (_, i) => `n${i}.flood.test`);
      script(
        'Flood',
        `for h in ${names.join(' ')}; do curl -s -m 90 http://$h:${port}/ & done ; wait ; true`,
      );
      const session = await claudeSession();
      expect(await w.controller.submitPrompt(session.id, 'Flood')).toBeNull();

      await waitFor('the cap to be reached', async () =>
        (await w.notices(session.id)).some((n) => n.includes('already wait for you'))
          ? true
          : undefined,
      );
      const held = (await w.controller.inbox()).filter(
        (i) => i.kind === 'approval' && i.sessionId === session.id,
      );
      expect(held.length).toBe(NETWORK_HOLD_CAP);
      await turnOver(session.id);

      const notices = await w.notices(session.id);
      expect(notices.filter((n) => n.startsWith('[Approval]'))).toHaveLength(NETWORK_HOLD_CAP);
      expect(notices.filter((n) => n.includes('already wait for you'))).toHaveLength(1);
      expect(hits).toEqual([]);
    }, 120_000);

    // Gemini CLI's shell runs under the same proxy. Its command names no path (`host:port`, no `/`):
    // in Auto Edit Grove answers Gemini's own ask for a command naming a path outside the worktree with a denial.
    const bare = (): string => `curl -s -m 90 ${NAME}:${port}`;

    it('Gemini CLI: a host not on the allow list is held; approved once, the request goes through', async () => {
      script('Fetch with Gemini', `${bare()} ; true`, 'gemini');
      const session = await sessionOf(w, 'gemini');
      expect(await w.controller.submitPrompt(session.id, 'Fetch with Gemini')).toBeNull();

      const item = await heldItem(session.id);
      expect(item.text).toBe(
        `Gemini CLI asks to connect to ${NAME}:${port} (not in agents.network.allow)`,
      );
      expect(item.approvalKind).toBe('network');
      expect(hits).toEqual([]);
      expect((await grove('approve', item.approvalId ?? '')).code).toBe(EXIT.ok);
      await turnOver(session.id);

      expect(hits).toEqual(['/']);
      expect(toldModel(w, 'gemini', 'Output: reached')).toBe(true);
      expect(await w.notices(session.id)).toContainEqual(
        `[Approved] Gemini CLI asked to connect to ${NAME}:${port}; you approved it once.`,
      );
    }, 120_000);

    it('Gemini CLI: denied, nothing is reached and the agent reads the usual 403 refusal', async () => {
      script(
        'Fetch denied with Gemini',
        `${bare()} -w '%{http_code}' | tee out.txt ; true`,
        'gemini',
      );
      const session = await sessionOf(w, 'gemini');
      expect(await w.controller.submitPrompt(session.id, 'Fetch denied with Gemini')).toBeNull();

      const item = await heldItem(session.id);
      expect((await grove('deny', item.approvalId ?? '')).code).toBe(EXIT.ok);
      await turnOver(session.id);

      expect(hits).toEqual([]);
      const refusal = `network: blocked ${NAME}:${port} (not in agents.network.allow)`;
      expect(readFileSync(join(session.worktreePath, 'out.txt'), 'utf8')).toBe(`${refusal}\n403`);
      expect(toldModel(w, 'gemini', `Output: ${refusal}`)).toBe(true);
      expect(await w.notices(session.id)).toContainEqual(
        `[Denied] Gemini CLI asked to connect to ${NAME}:${port}; you denied it.`,
      );
    }, 120_000);
  },
);
