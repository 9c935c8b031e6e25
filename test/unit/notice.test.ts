import { describe, expect, it } from 'vitest';
import { reduce } from '../../src/app/reducer.js';
import { NOTICE_MS } from '../../src/app/composer-state.js';
import { needsTick } from '../../src/runtime/loop.js';
import { pressKeys } from '../helpers/keys.js';
import { appState } from '../helpers/render.js';

// Notices go by themselves after a few seconds, or on the next key.

const shown = reduce(appState({ now: 1000 }), {
  type: 'notice',
  notice: { level: 'info', text: 'Publishing…' },
});

describe('a notice', () => {
  it('keeps the clock ticking while it is on screen', () => {
    expect(needsTick(shown)).toBe(true);
    expect(needsTick(appState())).toBe(false);
  });

  it('stays until its time has passed since the first tick saw it', () => {
    const seen = reduce(shown, { type: 'tick', now: 50_000 });
    const almost = reduce(seen, { type: 'tick', now: 50_000 + NOTICE_MS.info - 100 });
    expect(almost.notice?.text).toBe('Publishing…');
  });

  it('goes after its time', () => {
    const seen = reduce(shown, { type: 'tick', now: 50_000 });
    expect(reduce(seen, { type: 'tick', now: 50_000 + NOTICE_MS.info }).notice).toBeNull();
  });

  it('stays longer when it is an error', () => {
    const error = reduce(appState(), {
      type: 'notice',
      notice: { level: 'error', text: 'Merge failed' },
    });
    const seen = reduce(error, { type: 'tick', now: 0 });
    expect(reduce(seen, { type: 'tick', now: NOTICE_MS.info }).notice?.text).toBe('Merge failed');
  });

  it('goes on the next key', () => {
    expect(pressKeys(shown, ['j']).state.notice).toBeNull();
  });
});
