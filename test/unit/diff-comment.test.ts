import { describe, expect, it } from 'vitest';
import {
  commentLocation,
  commentsDisplay,
  commentsPrompt,
  parseReviewFindings,
  possiblyAddressed,
  type DiffComment,
} from '../../src/domain/diff-comment.js';
import { lineSnapshot, parsePatchRows } from '../../src/domain/diff-rows.js';

// Inline comments: the turn prompt the agent gets, the transcript's short
// form, "possibly addressed" after a turn, and focused-review findings.

function comment(fields: Partial<DiffComment>): DiffComment {
  return {
    id: 'c',
    sessionId: 's',
    path: 'src/a.ts',
    side: 'new',
    startLine: 2,
    endLine: 3,
    body: 'Rename these.',
    excerpt: '',
    hunk: '',
    severity: null,
    origin: 'person',
    status: 'draft',
    createdAt: 0,
    updatedAt: 0,
    ...fields,
  };
}

const before = parsePatchRows('@@ -1,3 +1,4 @@\n one\n-two\n+TWO\n+two and a half\n three\n');

describe('the comments prompt', () => {
  it('gives the agent each comment with its file, line range and hunk', () => {
    const prompt = commentsPrompt([
      comment({ body: 'Rename these.', hunk: '@@ -1,3 +1,4 @@\n one\n-two\n+TWO' }),
      comment({
        path: 'README.md',
        side: 'file',
        startLine: null,
        endLine: null,
        body: 'Mention the **new** flag.',
        severity: 'high',
      }),
      comment({ side: 'old', startLine: 7, endLine: 7, body: 'Keep this line.' }),
    ]);
    expect(prompt).toContain('A reviewer left 3 comments on your changes.');
    expect(prompt).toContain(
      '## Comment 1: `src/a.ts`, lines 2-3\n\nRename these.\n\nThe hunk it refers to:\n```diff\n@@ -1,3 +1,4 @@\n one\n-two\n+TWO\n```',
    );
    expect(prompt).toContain(
      '## Comment 2 [High]: `README.md`, the whole file\n\nMention the **new** flag.',
    );
    expect(prompt).toContain(
      '## Comment 3: `src/a.ts`, line 7 of the old version (removed by the change)',
    );
  });

  it('shows one line per comment in the transcript', () => {
    expect(
      commentsDisplay([
        comment({ body: 'Rename these.\nAnd more.' }),
        comment({ path: 'b.ts', side: 'file', startLine: null, endLine: null, body: 'Split it.' }),
      ]),
    ).toBe('Review comments (2):\n▸ src/a.ts:2-3: Rename these.\n▸ b.ts (whole file): Split it.');
  });

  it.each([
    [{ startLine: 4, endLine: 4 }, 'src/a.ts:4'],
    [{ startLine: 4, endLine: 9 }, 'src/a.ts:4-9'],
    [{ side: 'old' as const, startLine: 4, endLine: 4 }, 'src/a.ts:4 (removed lines)'],
    [{ side: 'file' as const, startLine: null, endLine: null }, 'src/a.ts (whole file)'],
  ])('names the location %o as %s', (fields, text) => {
    expect(commentLocation(comment(fields))).toBe(text);
  });
});

describe('possibly addressed', () => {
  const anchor = { side: 'new' as const, startLine: 2, endLine: 3 };
  const sent = comment({ ...anchor, excerpt: lineSnapshot(before, anchor) });

  it('is not when the commented lines are the same after the turn', () => {
    expect(possiblyAddressed(sent, before)).toBe(false);
  });

  it('is when the commented lines changed', () => {
    const after = parsePatchRows('@@ -1,3 +1,4 @@\n one\n-two\n+Two\n+two and a half\n three\n');
    expect(possiblyAddressed(sent, after)).toBe(true);
  });

  it('is not when the same lines only moved down (an edit above them)', () => {
    const after = parsePatchRows(
      '@@ -1,3 +1,5 @@\n+zero\n one\n-two\n+TWO\n+two and a half\n three\n',
    );
    expect(possiblyAddressed(sent, after)).toBe(false);
  });

  it('is when the file left the diff (the change was reverted)', () => {
    expect(possiblyAddressed(sent, null)).toBe(true);
  });

  it('is, for a whole-file comment, when anything in the file changed', () => {
    const fileComment = comment({
      side: 'file',
      startLine: null,
      endLine: null,
      excerpt: lineSnapshot(before, { side: 'file', startLine: null, endLine: null }),
    });
    expect(possiblyAddressed(fileComment, before)).toBe(false);
    expect(
      possiblyAddressed(fileComment, parsePatchRows('@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n')),
    ).toBe(true);
  });
});

describe('focused review findings', () => {
  const review = [
    '## Review',
    '### Project Impact',
    'Small, see src/x.ts.',
    '### Suggestions',
    '- [High] `src/app.ts:12-14` — the error is swallowed; rethrow it.',
    '- [Medium] src/db.ts:40: close the statement',
    '  before returning.',
    '- [Low] README.md - mention the flag.',
    '- [Medium] Consider more tests.',
    '1. **[low]** test/a.test.ts:3 one more case',
  ].join('\n');

  it('reads severity, file, lines and text of each located suggestion', () => {
    expect(parseReviewFindings(review)).toEqual([
      {
        severity: 'high',
        path: 'src/app.ts',
        startLine: 12,
        endLine: 14,
        text: 'the error is swallowed; rethrow it.',
      },
      {
        severity: 'medium',
        path: 'src/db.ts',
        startLine: 40,
        endLine: 40,
        text: 'close the statement\nbefore returning.',
      },
      {
        severity: 'low',
        path: 'README.md',
        startLine: null,
        endLine: null,
        text: 'mention the flag.',
      },
      { severity: 'low', path: 'test/a.test.ts', startLine: 3, endLine: 3, text: 'one more case' },
    ]);
  });

  it('finds nothing in a review without suggestions', () => {
    expect(parseReviewFindings('## Review\n### Suggestions\nNone.')).toEqual([]);
  });
});
