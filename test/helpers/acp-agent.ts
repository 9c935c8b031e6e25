import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, type GroveWorld } from './grove-env.js';

// The small ACP agent of test/fixtures/acp-agent, named in the world's
// GROVE_HOME/agents.json: what an agent CLI of agents.json is in the tests.

const FIXTURE = join(ROOT, 'test', 'fixtures', 'acp-agent', 'acp-agent.mjs');

/** agents.json naming the fixture `tiny`. */
export const TINY = { agents: { tiny: { command: 'acp-fixture', args: ['--stdio'] } } };

/**
 * Puts the fixture on the world's PATH as `acp-fixture` (next to its launcher,
 * in a folder the sandbox binds back: the checkout may be under /tmp, private
 * to the agent) and writes `config` (an object, or text as it is) as agents.json.
 */
export function installAcpAgent(world: GroveWorld, config: unknown = TINY): void {
  copyFileSync(FIXTURE, join(world.bin, 'acp-agent.mjs'));
  writeFileSync(
    join(world.bin, 'acp-fixture'),
    `#!/bin/sh\nexec '${process.execPath}' '${join(world.bin, 'acp-agent.mjs')}' "$@"\n`,
  );
  chmodSync(join(world.bin, 'acp-fixture'), 0o755);
  mkdirSync(world.groveHome, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(world.groveHome, 'agents.json'),
    typeof config === 'string' ? config : JSON.stringify(config),
  );
}
