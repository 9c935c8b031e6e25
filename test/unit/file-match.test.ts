import { describe, expect, it } from 'vitest';
import { fileIndex, matchFiles, scorePath } from '../../src/domain/file-match.js';

// The `@` picker's fuzzy matcher: correctness on a small list, and a 100k-path
// repository typed one key at a time (each key narrows the previous result).

const PATHS = [
  'README.md',
  'src/app/controller.ts',
  'src/app/reducer.ts',
  'src/domain/composer.ts',
  'src/ui/components/Composer.tsx',
  'test/unit/composer.test.ts',
  'docs/usage/workflow.md',
];

describe('scorePath', () => {
  it('is -1 when the query is not a subsequence of the path', () => {
    expect(scorePath('src/app/reducer.ts', 'xyz')).toBe(-1);
  });

  it('prefers a match in the file name to one spread over the folders', () => {
    expect(scorePath('src/reducer.ts', 'red')).toBeGreaterThan(
      scorePath('src/render/edit.ts', 'red'),
    );
  });

  it('prefers the shorter path when the match is the same', () => {
    expect(scorePath('a/composer.ts', 'composer')).toBeGreaterThan(
      scorePath('a/b/c/composer.ts', 'composer'),
    );
  });
});

describe('matchFiles', () => {
  const index = fileIndex(PATHS);

  it('lists the first paths for an empty query', () => {
    expect(matchFiles(index, '', 3).items).toEqual(PATHS.slice(0, 3));
  });

  it('matches case-insensitively, best first', () => {
    const match = matchFiles(index, 'COMPOSER', 10);
    expect(match.items[0]).toBe('src/domain/composer.ts');
    expect(new Set(match.items)).toEqual(
      new Set([
        'src/domain/composer.ts',
        'src/ui/components/Composer.tsx',
        'test/unit/composer.test.ts',
      ]),
    );
  });

  it('matches a fuzzy subsequence across folders', () => {
    expect(matchFiles(index, 'sacon', 10).items).toEqual(['src/app/controller.ts']);
  });

  it('keeps only the best `limit` matches', () => {
    expect(matchFiles(index, 's', 2).items).toHaveLength(2);
  });

  it('finds nothing when nothing matches', () => {
    expect(matchFiles(index, 'zzz', 5).items).toEqual([]);
  });

  it('gives the same result when it narrows the previous match as when it scans everything', () => {
    const first = matchFiles(index, 'co', 10);
    expect(matchFiles(index, 'com', 10, first).items).toEqual(matchFiles(index, 'com', 10).items);
  });

  it('scans everything again when the query is not an extension of the previous one', () => {
    const first = matchFiles(index, 'red', 10);
    expect(matchFiles(index, 'wor', 10, first).items).toEqual(['docs/usage/workflow.md']);
  });
});

describe('a 100,000-file repository', () => {
  // 100 top folders × 100 sub-folders × 10 files, plus the one file looked for.
  const paths: string[] = [];
  for (let a = 0; a < 100; a++)
    for (let b = 0; b < 100; b++)
      for (let c = 0; c < 10; c++)
        paths.push(`pkg${a}/module${b}/file${c}_${(a * 7 + b * 13 + c) % 97}.ts`);
  paths.push('services/payments/invoice-renderer.tsx');

  it('finds the one file typed a key at a time, each key narrowing the last result', () => {
    const started = performance.now();
    const index = fileIndex(paths);
    const indexed = performance.now();
    let match = matchFiles(index, '', 8);
    const perKey: number[] = [];
    for (const key of 'invrend') {
      const before = performance.now();
      match = matchFiles(index, match.query + key, 8, match);
      perKey.push(performance.now() - before);
    }
    // Reported for the record (no assertion on time): the index once, then each key.
    console.info(
      `100k paths: index ${(indexed - started).toFixed(1)} ms; keys ${perKey.map((ms) => ms.toFixed(1)).join(', ')} ms`,
    );
    expect(paths).toHaveLength(100_001);
    expect(match.items).toEqual(['services/payments/invoice-renderer.tsx']);
    expect(match.candidates).toHaveLength(1);
  });
});
