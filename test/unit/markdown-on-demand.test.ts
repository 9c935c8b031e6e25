// The markdown renderer loads only once an answer is about to be laid out
// (ui/transcript-lines.ts, whenAnswerNeeded; src/start.ts gives the loader).
import { describe, expect, it } from 'vitest';
import type { TranscriptEntry } from '../../src/domain/transcript.js';
import {
  entryLines,
  windowLines,
  whenAnswerNeeded,
  type AnswerRenderer,
} from '../../src/ui/transcript-lines.js';

const entry = (
  position: number,
  kind: TranscriptEntry['kind'],
  content: string,
): TranscriptEntry => ({ position, kind, content, createdAt: 0 });

const texts = (lines: readonly { text: string }[]): string[] => lines.map((line) => line.text);

describe('loading the markdown renderer on demand', () => {
  it('loads it just before the first answer is laid out, once, and not for prompts, notices or output', () => {
    let loads = 0;
    whenAnswerNeeded(() => {
      loads++;
      return (text) => [`md:${text.split('\n')[0] ?? ''}`];
    });

    entryLines('on-demand-a', entry(0, 'user_prompt', 'fix the bug'), 80);
    entryLines('on-demand-a', entry(1, 'notice', '[Restart] interrupted'), 80);
    entryLines('on-demand-a', entry(2, 'output', 'npm test'), 80);
    expect(loads).toBe(0);

    const first = entryLines('on-demand-a', entry(3, 'assistant_answer', '# Done\n\nFixed.'), 80);
    const second = entryLines('on-demand-a', entry(4, 'assistant_answer', 'And more.'), 80);

    expect(loads).toBe(1);
    // Laid out by the loaded renderer at once: never plain text first.
    expect(texts(first)).toEqual(['md:# Done', '']);
    expect(texts(second)).toEqual(['md:And more.', '']);
  });

  it('measures a long transcript once, with the loaded renderer', () => {
    let rendered = 0;
    const renderer: AnswerRenderer = (text) => {
      rendered++;
      return [`md:${text}`];
    };
    whenAnswerNeeded(() => renderer);
    // More answers than the layout cache keeps (4,000).
    const answers = Array.from({ length: 5_000 }, (_, i) =>
      entry(i, 'assistant_answer', `answer ${i}`),
    );

    const view = windowLines('on-demand-b', answers, [], 80, 10, 0);
    windowLines('on-demand-b', answers, [], 80, 10, 5);

    expect(rendered).toBe(5_000);
    expect(view.lines.at(-2)?.text).toBe('md:answer 4999');
  });

  it('keeps the renderer in place when the loader gives nothing, and does not ask again', () => {
    let loads = 0;
    whenAnswerNeeded(() => {
      loads++;
      return undefined;
    });

    const lines = entryLines('on-demand-c', entry(0, 'assistant_answer', '**bold**'), 80);
    entryLines('on-demand-c', entry(1, 'assistant_answer', 'again'), 80);

    expect(loads).toBe(1);
    // The renderer in place (from the test before) is kept.
    expect(texts(lines)).toEqual(['md:**bold**', '']);
  });
});
