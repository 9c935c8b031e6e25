// When the pull request poller reads a pull request's review threads (issue
// 28: idle polling costs no 200): the threads come over GraphQL, which has
// no ETags, so they are read when the pull request's or its reviews' ETag
// moved since the last read, when an ETag is missing, or once the last read
// is THREADS_RECHECK_MS old (a resolve on GitHub changes neither ETag).
import { describe, expect, it } from 'vitest';
import {
  THREADS_RECHECK_MS,
  threadsDue,
  threadsKey,
  type PullRequestPoll,
} from '../../src/domain/review-request.js';

const INFO: PullRequestPoll['info'] = {
  number: 7,
  url: 'https://github.com/acme/widgets/pull/7',
  state: 'open',
  isDraft: false,
  title: 'Add a greeting',
  body: '',
  headBranch: 'grove/greeting',
  baseBranch: 'main',
  reviewDecision: null,
  headSha: 'a'.repeat(40),
  mergedAt: null,
};

const poll = (fields: Partial<PullRequestPoll>): PullRequestPoll => ({
  info: INFO,
  pullEtag: 'W/"pull-1"',
  reviewsEtag: 'W/"reviews-1"',
  threadsReadAt: null,
  ...fields,
});

describe('reading review threads when the pull request changed', () => {
  const at = 1_800_000_000_000;
  const read = { key: 'W/"pull-1" W/"reviews-1"', at };

  it('skips the threads read at the same ETags a moment ago', () => {
    expect(threadsKey(poll({}))).toBe(read.key);
    expect(threadsDue(poll({ threadsReadAt: read }), at + 60_000)).toBe(false);
  });

  it('reads them when the pull request or its reviews changed, or they were never read', () => {
    expect(threadsDue(poll({ pullEtag: 'W/"pull-2"', threadsReadAt: read }), at + 1)).toBe(true);
    expect(threadsDue(poll({ reviewsEtag: 'W/"reviews-2"', threadsReadAt: read }), at + 1)).toBe(
      true,
    );
    expect(threadsDue(poll({}), at)).toBe(true);
  });

  it('reads them always when GitHub gave no ETag', () => {
    expect(threadsKey(poll({ reviewsEtag: null }))).toBeNull();
    expect(threadsDue(poll({ reviewsEtag: null, threadsReadAt: read }), at + 1)).toBe(true);
  });

  it('reads them again once the last read is 15 minutes old (a resolve changes no ETag)', () => {
    expect(THREADS_RECHECK_MS).toBe(15 * 60_000);
    expect(threadsDue(poll({ threadsReadAt: read }), at + THREADS_RECHECK_MS - 1)).toBe(false);
    expect(threadsDue(poll({ threadsReadAt: read }), at + THREADS_RECHECK_MS)).toBe(true);
  });
});
