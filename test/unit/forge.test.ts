import { describe, expect, it } from 'vitest';
import { ForgeError, toForgeError } from '../../src/infra/forge/errors.js';
import { parseGitHubRemote } from '../../src/infra/forge/remote.js';
import { resolveGitHubToken } from '../../src/infra/forge/token.js';

describe('parseGitHubRemote', () => {
  it.each([
    'https://github.com/acme/widgets.git',
    'https://github.com/acme/widgets',
    'https://github.com/acme/widgets/',
    'https://x-access-token:secret@github.com/acme/widgets.git',
    'ssh://git@github.com/acme/widgets.git',
    'ssh://git@ssh.github.com:443/acme/widgets.git',
    'git@github.com:acme/widgets.git',
    'git@github.com:acme/widgets',
    'github.com:acme/widgets.git',
    'https://GitHub.com/acme/widgets.git',
  ])('%s is acme/widgets on github.com', (url) => {
    expect(parseGitHubRemote(url)).toEqual({
      host: 'github.com',
      owner: 'acme',
      repo: 'widgets',
      apiBaseUrl: 'https://api.github.com',
      graphqlUrl: 'https://api.github.com/graphql',
    });
  });

  it("puts an Enterprise host's API at https://HOST/api/v3", () => {
    expect(parseGitHubRemote('git@ghe.example.com:team/app.git')).toEqual({
      host: 'ghe.example.com',
      owner: 'team',
      repo: 'app',
      apiBaseUrl: 'https://ghe.example.com/api/v3',
      graphqlUrl: 'https://ghe.example.com/api/graphql',
    });
    expect(parseGitHubRemote('https://ghe.example.com/team/app')?.apiBaseUrl).toBe(
      'https://ghe.example.com/api/v3',
    );
    expect(parseGitHubRemote('https://ghe.example.com:8443/team/app.git')?.apiBaseUrl).toBe(
      'https://ghe.example.com:8443/api/v3',
    );
    // An SSH port says nothing about the web server's.
    expect(parseGitHubRemote('ssh://git@ghe.example.com:2222/team/app.git')?.apiBaseUrl).toBe(
      'https://ghe.example.com/api/v3',
    );
  });

  it('takes the API base from GROVE_GITHUB_API_URL when set', () => {
    expect(
      parseGitHubRemote('git@github.com:acme/widgets.git', {
        GROVE_GITHUB_API_URL: 'http://127.0.0.1:9999/',
      })?.apiBaseUrl,
    ).toBe('http://127.0.0.1:9999');
  });

  it('never keeps credentials from the URL', () => {
    expect(
      JSON.stringify(parseGitHubRemote('https://me:hunter2hunter2@github.com/acme/widgets.git')),
    ).not.toContain('hunter2');
  });

  it.each([
    '/srv/git/widgets.git',
    'file:///srv/git/widgets.git',
    'https://github.com/acme',
    'https://github.com/acme/widgets/tree/main',
    '',
  ])('%s is not a GitHub repository', (url) => {
    expect(parseGitHubRemote(url)).toBeNull();
  });
});

describe('toForgeError', () => {
  const failure = (status: number, data: unknown, headers: Record<string, string> = {}) => ({
    status,
    response: { headers, data },
  });

  it('words each GitHub failure', () => {
    expect(toForgeError(failure(401, { message: 'Bad credentials' }), 'acme/widgets').reason).toBe(
      'bad_credentials',
    );
    expect(
      toForgeError(
        failure(403, { message: 'Resource not accessible by personal access token' }),
        'acme/widgets',
      ).message,
    ).toMatch(/needs the `repo` scope .* on acme\/widgets/);
    expect(
      toForgeError(failure(403, { message: 'Protected branch update failed' }), 'acme/widgets')
        .reason,
    ).toBe('branch_protection');
    expect(toForgeError(failure(404, { message: 'Not Found' }), 'acme/widgets').message).toBe(
      'Repository acme/widgets not found on GitHub, or the token cannot see it.',
    );
    expect(
      toForgeError(
        failure(422, {
          message: 'Validation Failed',
          errors: [{ resource: 'PullRequest', field: 'head', code: 'invalid' }],
        }),
        'acme/widgets',
      ).message,
    ).toBe('GitHub did not accept the request: Validation Failed: head invalid.');
    expect(toForgeError(failure(503, 'down'), 'acme/widgets').reason).toBe('server');
    expect(
      toForgeError(
        { status: 500, message: 'fetch failed', cause: { code: 'ECONNREFUSED' } },
        'acme/widgets',
      ).message,
    ).toMatch(/Cannot reach GitHub \(ECONNREFUSED\)/);
  });

  it('gives the reset time of a used-up rate limit, from the headers', () => {
    const reset = Date.UTC(2031, 0, 1, 17, 45) / 1000;
    const error = toForgeError(
      failure(
        403,
        { message: 'API rate limit exceeded' },
        { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
      ),
      'acme/widgets',
    );
    expect(error).toBeInstanceOf(ForgeError);
    expect(error.reason).toBe('rate_limited');
    expect(error.resetAt).toBe(reset * 1000);
    const local = new Date(reset * 1000);
    expect(error.message).toContain(
      `resets at ${String(local.getHours()).padStart(2, '0')}:${String(local.getMinutes()).padStart(2, '0')}`,
    );
  });

  it("reads a secondary rate limit's retry-after", () => {
    const error = toForgeError(
      failure(
        403,
        { message: 'You have exceeded a secondary rate limit' },
        { 'retry-after': '60' },
      ),
      'acme/widgets',
      () => 1_000_000,
    );
    expect(error.reason).toBe('rate_limited');
    expect(error.resetAt).toBe(1_060_000);
  });

  it("waits as a secondary rate limit's retry-after says, not until the primary limit's reset", () => {
    const error = toForgeError(
      failure(
        403,
        { message: 'You have exceeded a secondary rate limit. Please wait a few minutes.' },
        { 'retry-after': '120', 'x-ratelimit-remaining': '4000', 'x-ratelimit-reset': '99999999' },
      ),
      'acme/widgets',
      () => 1_000_000,
    );
    expect(error.reason).toBe('rate_limited');
    expect(error.resetAt).toBe(1_120_000);
    expect(error.message).toMatch(/^GitHub's secondary rate limit stopped Grove's requests/);
  });

  it('waits a minute on a secondary rate limit that names no wait, and on a 429 with retry-after', () => {
    const quiet = toForgeError(
      failure(403, { message: 'You have exceeded a secondary rate limit' }, {}),
      'acme/widgets',
      () => 1_000_000,
    );
    expect(quiet.resetAt).toBe(1_060_000);
    const tooMany = toForgeError(
      failure(429, { message: 'Too Many Requests' }, { 'retry-after': '5' }),
      'acme/widgets',
      () => 1_000_000,
    );
    expect(tooMany.reason).toBe('rate_limited');
    expect(tooMany.resetAt).toBe(1_005_000);
  });
});

describe('resolveGitHubToken', () => {
  const noGh = () => Promise.resolve(null);

  it('prefers GITHUB_TOKEN, then GH_TOKEN, then gh for the host', async () => {
    expect(
      await resolveGitHubToken({ GITHUB_TOKEN: ' a ', GH_TOKEN: 'b' }, 'github.com', noGh),
    ).toEqual({ token: 'a', source: 'GITHUB_TOKEN' });
    expect(await resolveGitHubToken({ GH_TOKEN: 'b' }, 'github.com', noGh)).toEqual({
      token: 'b',
      source: 'GH_TOKEN',
    });
    const asked: (readonly string[])[] = [];
    const gh = (args: readonly string[]) => {
      asked.push(args);
      return Promise.resolve('c');
    };
    expect(await resolveGitHubToken({ GITHUB_TOKEN: '  ' }, 'ghe.example.com', gh)).toEqual({
      token: 'c',
      source: 'gh',
    });
    expect(asked).toEqual([['auth', 'token', '--hostname', 'ghe.example.com']]);
    expect(await resolveGitHubToken({}, 'github.com', noGh)).toBeNull();
  });
});
