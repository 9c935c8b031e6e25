import { describe, expect, it } from 'vitest';
import type { AppState } from '../../src/app/state.js';
import { ALLOW_UNCONFINED_KEY } from '../../src/domain/settings.js';
import { appState, renderFrame } from '../helpers/render.js';
import { makeSession } from '../helpers/session-factory.js';

// The session header says "unconfined" when agents run without the operating
// system's sandbox: no engine here, and the opt-out is on.

function header(overrides: Partial<AppState>): string {
  const session = makeSession('Review', { id: 's1', title: 'Fix the login' });
  const state = appState({
    sessions: [session],
    selectedSessionId: 's1',
    mode: { kind: 'session', sessionId: 's1', scrollBack: 0, composer: null, question: null },
    ...overrides,
  });
  return renderFrame(state).lines.slice(0, 4).join('\n');
}

describe('the session header', () => {
  it('says unconfined when no sandbox engine is there and the opt-out is on', () => {
    expect(header({ sandboxMissing: true, settings: { [ALLOW_UNCONFINED_KEY]: 'on' } })).toContain(
      'unconfined',
    );
  });

  it.each([
    [
      'a sandbox engine confines agents',
      { sandboxMissing: false, settings: { [ALLOW_UNCONFINED_KEY]: 'on' } },
    ],
    ['the opt-out is off (agents are refused instead)', { sandboxMissing: true, settings: {} }],
    [
      'the sandbox has not been checked yet',
      { sandboxMissing: null, settings: { [ALLOW_UNCONFINED_KEY]: 'on' } },
    ],
  ] as const)('says nothing of it when %s', (_, overrides) => {
    expect(header(overrides)).not.toContain('unconfined');
  });
});
