import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PermissionMode } from '../../src/domain/permission-mode.js';
import type { AgentChannel } from '../../src/infra/agent/channel.js';
import { createAcpAgentChannel } from '../../src/infra/agent/acp/agent.js';
import { runProtocolTurn } from '../../src/infra/agent/protocol-turn.js';
import { installAcpAgent } from '../helpers/acp-agent.js';
import { makeWorld, type GroveWorld } from '../helpers/grove-env.js';

// One ACP agent of agents.json kept by a session across turns in different
// modes (the TUI's Shift+Tab): a Read Only or Plan turn runs it with its
// worktree read-only, so a write without asking fails; the next Auto Edit
// turn runs it writable again, and the conversation goes on.

let world: GroveWorld;
let channel: AgentChannel | null = null;
let worktree: string;

beforeEach(() => {
  world = makeWorld();
  installAcpAgent(world);
  worktree = join(world.dir, 'worktree');
  mkdirSync(worktree);
});

afterEach(async () => {
  await channel?.shutdown();
  channel = null;
  world.cleanup();
});

async function turn(mode: PermissionMode, prompt: string, conversation: string | null) {
  if (!channel) throw new Error('no channel');
  return runProtocolTurn(
    channel,
    {
      sessionId: 'session-1',
      cwd: worktree,
      mainCheckout: worktree,
      prompt,
      kind: conversation ? 'session_resume' : 'session_start',
      model: 'default',
      reasoning: 'default',
      permissionMode: mode,
      providerConversationId: conversation,
      outputSchema: null,
    },
    () => {},
    new AbortController().signal,
  );
}

describe('an ACP agent whose session changes mode between turns', () => {
  it('writes its worktree only in Auto Edit turns', async () => {
    channel = createAcpAgentChannel(
      { id: 'acp:tiny', name: 'tiny', command: 'acp-fixture', args: ['--stdio'] },
      { env: world.env(), turnTimeoutMs: 60_000 },
    );

    const first = await turn('auto_edit', 'Write it. ESCAPE:one.txt', null);
    expect(first.response.answer).toMatch(/one\.txt written/);
    const conversation = first.result.providerConversationId;

    const second = await turn('read_only', 'Look. ESCAPE:two.txt', conversation);
    expect(second.response.answer).toMatch(/two\.txt refused \(EROFS\)/);
    expect(existsSync(join(worktree, 'two.txt'))).toBe(false);

    const third = await turn('plan', 'Plan. ESCAPE:three.txt', conversation);
    expect(third.response.answer).toMatch(/three\.txt refused \(EROFS\)/);

    const fourth = await turn('auto_edit', 'Write again. ESCAPE:four.txt', conversation);
    expect(fourth.response.answer).toMatch(/four\.txt written/);
    expect(existsSync(join(worktree, 'four.txt'))).toBe(true);
  });
});
