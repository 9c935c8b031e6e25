// The markdown renderer loads only once an answer is laid out
// (ui/transcript-lines.ts, whenAnswerNeeded; src/start.ts loads it).
import { describe, expect, it } from 'vitest';
import type { TranscriptEntry } from '../../src/domain/transcript.js';
import { entryLines, setAnswerRenderer, whenAnswerNeeded } from '../../src/ui/transcript-lines.js';

const entry = (
  position: number,
  kind: TranscriptEntry['kind'],
  content: string,
): TranscriptEntry => ({
  position,
  kind,
  content,
  createdAt: 0,
});

describe('loading the markdown renderer on demand', () => {
  it('asks for it at the first answer laid out, once, and not for prompts, notices or output', () => {
    let asked = 0;
    whenAnswerNeeded(() => asked++);

    entryLines('on-demand', entry(0, 'user_prompt', 'fix the bug'), 80);
    entryLines('on-demand', entry(1, 'notice', '[Restart] interrupted'), 80);
    entryLines('on-demand', entry(2, 'output', 'npm test'), 80);
    expect(asked).toBe(0);

    const plain = entryLines('on-demand', entry(3, 'assistant_answer', '# Done\n\nFixed.'), 80);
    entryLines('on-demand', entry(4, 'assistant_answer', 'And more.'), 80);

    expect(asked).toBe(1);
    // Until it arrives, the answer is laid out as plain text.
    expect(plain.map((line) => line.text)).toEqual(['# Done', '', 'Fixed.', '']);

    // Once plugged in, answers are laid out again by it.
    setAnswerRenderer((text) => [`md:${text.split('\n')[0] ?? ''}`]);
    expect(
      entryLines('on-demand', entry(3, 'assistant_answer', '# Done\n\nFixed.'), 80).map(
        (line) => line.text,
      ),
    ).toEqual(['md:# Done', '']);
    expect(asked).toBe(1);
  });
});
