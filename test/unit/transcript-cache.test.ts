import { describe, expect, it } from 'vitest';
import type { AppState } from '../../src/app/state.js';
import type { TranscriptEntry } from '../../src/domain/transcript.js';
import { setAnswerRenderer } from '../../src/ui/transcript-lines.js';
import { appState, renderFrame } from '../helpers/render.js';
import { makeSession } from '../helpers/session-factory.js';

// The markdown renderer loads after the first frame (src/start.ts). Answers
// laid out before it arrived must not stay plain text in the layout cache.

const answer: TranscriptEntry = {
  position: 0,
  kind: 'assistant_answer',
  content: 'The fix is **done**, see `cache.ts`.',
  createdAt: 0,
};

function openSession(): AppState {
  const session = makeSession('Review', { id: 'cache' });
  return appState({
    columns: 100,
    rows: 20,
    sessions: [session],
    transcripts: { cache: [answer] },
    mode: { kind: 'session', sessionId: 'cache', scrollBack: 0, composer: null, question: null },
  });
}

describe('the transcript layout cache', () => {
  it('renders answers again as markdown once the markdown renderer arrives', async () => {
    const state = openSession();
    const early = renderFrame(state);
    expect(early.text).toContain('**done**');

    const { renderMarkdown } = await import('../../src/ui/markdown.js');
    setAnswerRenderer(renderMarkdown);
    const later = renderFrame(state);

    expect(later.text).toContain('The fix is done, see');
    expect(later.text).not.toContain('**done**');
  });
});
