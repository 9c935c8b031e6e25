import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgents, type Agents } from '../../src/infra/agent/agents.js';
import type { AgentChannel } from '../../src/infra/agent/channel.js';
import { defaultLauncher, type AgentLauncher } from '../../src/infra/agent/confine/launcher.js';
import { silentLogger } from '../../src/infra/log.js';
import { agentEnv } from '../helpers/agent-env.js';
import { startFakeModelServer, type FakeModelServer } from '../helpers/fake-model/server.js';
import { REAL_CLI_BIN } from '../helpers/real-clis.js';

// A utility prompt (the commit message) asked on a session's live Codex
// app-server runs in its own ephemeral thread there: no new agent process,
// and the session's conversation goes on as before.

const REPLY = (answer: string) => JSON.stringify({ answer, questions: [], summary: null });

let server: FakeModelServer;
let dir: string;
let repo: string;
let launches: string[];
let agents: Agents;
let channel: AgentChannel | null = null;

beforeEach(async () => {
  server = await startFakeModelServer();
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'grove-side-turn-')));
  repo = join(dir, 'repo');
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  server.setWorkdir(repo);
  launches = [];
  const real = defaultLauncher();
  const counting: AgentLauncher = {
    ...real,
    launch: (spec) => (launches.push(spec.command), real.launch(spec)),
  };
  const env = agentEnv(server, join(dir, 'home'));
  agents = createAgents(
    { ...env, PATH: `${REAL_CLI_BIN}:${env['PATH'] ?? ''}` },
    silentLogger,
    counting,
  );
});

afterEach(async () => {
  await channel?.shutdown();
  channel = null;
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const input = (prompt: string, providerConversationId: string | null) => ({
  sessionId: 'side-1',
  userPrompt: prompt,
  kind: providerConversationId ? ('session_resume' as const) : ('session_start' as const),
  cwd: repo,
  mainCheckout: join(dir, 'main-checkout'),
  model: 'gpt-5.5',
  reasoning: 'high',
  permissionMode: 'auto_edit' as const,
  providerConversationId,
});

describe('utility prompts on a live Codex app-server', () => {
  it("answers the commit message on the session's process and keeps its conversation", async () => {
    server.script('openai', [
      { when: 'remember the word HERON', text: REPLY('remembered') },
      { when: 'Write the git commit message', text: REPLY('Add the heron') },
      { when: 'which word', text: REPLY('HERON') },
    ]);
    channel = agents.create('codex');
    const first = await agents.turn(
      channel,
      input('remember the word HERON', null),
      () => {},
      new AbortController().signal,
    );

    const reply = await agents.utility(
      { agent: 'codex', model: 'gpt-5.5', reasoning: 'low' },
      'Write the git commit message for the changes below.',
      repo,
      new AbortController().signal,
      { live: channel },
    );
    const second = await agents.turn(
      channel,
      input('which word?', first.result.providerConversationId),
      () => {},
      new AbortController().signal,
    );

    expect(reply.answer).toBe('Add the heron');
    expect(second.response.answer).toBe('HERON');
    expect(launches).toHaveLength(1);
    // The utility prompt ran in a thread of its own: the session's next request does not carry it.
    const last = JSON.stringify(server.modelRequests('openai').at(-1)?.body);
    expect(last).toContain('HERON');
    expect(last).not.toContain('Write the git commit message');
  });

  it('starts its own process when the live channel is of another agent', async () => {
    server.script('openai', [{ groveOwn: true, text: REPLY('Add the heron') }]);
    channel = agents.create('claude');

    const reply = await agents.utility(
      { agent: 'codex', model: 'gpt-5.5', reasoning: 'low' },
      'Write the git commit message for the changes below.',
      repo,
      new AbortController().signal,
      { live: channel },
    );

    expect(reply.answer).toBe('Add the heron');
    expect(launches).toEqual(['codex']);
  });
});
