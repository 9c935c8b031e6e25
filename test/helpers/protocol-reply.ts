import type { AgentResponse } from '../../src/domain/protocol.js';

// A well-formed protocol reply, as an object, as the agent's JSON text, and
// as Grove parses it (test/unit/protocol-*.test.ts).

export const REPLY = {
  answer: 'Done: **fixed** the bug.',
  questions: [],
  summary: { turn: 'fixed it', session: 'fixed a bug' },
};
export const REPLY_JSON = JSON.stringify(REPLY);
export const EXPECTED: AgentResponse = {
  answer: 'Done: **fixed** the bug.',
  questions: [],
  summary: { turn: 'fixed it', session: 'fixed a bug' },
};
