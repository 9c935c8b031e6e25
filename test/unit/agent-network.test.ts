import { describe, expect, it } from 'vitest';
import { addressKind, canonicalAddress } from '../../src/domain/ip-address.js';
import {
  addressRefusal,
  formatAllowEntry,
  isAllowed,
  isBackgroundCall,
  isTelemetryHost,
  networkPolicy,
  parseAllowEntry,
  validateAllowList,
  withAllowEntry,
  type AllowEntry,
} from '../../src/domain/network.js';
import { agentAllowList, proxyEnv, relayProxyPort } from '../../src/infra/agent/confine/network.js';
import { deniedMessage, parseAuthority } from '../../src/infra/agent/confine/network-proxy.js';
import {
  bubblewrapArgs,
  seatbeltProfile,
  type ConfinementPlan,
} from '../../src/infra/agent/confine/sandbox.js';

function entries(...texts: string[]): AllowEntry[] {
  return texts.map((text) => {
    const parsed = parseAllowEntry(text);
    if (typeof parsed === 'string') throw new Error(parsed);
    return parsed;
  });
}

describe('the allow list', () => {
  const list = entries(
    'api.example.com',
    '*.corp.example',
    'pkg.example.org:8443',
    '127.0.0.1:9000',
    '[::1]:7000',
  );

  it.each([
    ['api.example.com', 443, true],
    ['API.Example.com.', 443, true],
    ['api.example.com', 80, true],
    ['example.com', 443, false],
    ['evil-api.example.com', 443, false],
    ['api.example.com.evil.net', 443, false],
    ['api.example.com', 8080, false],
    ['api.example.com', 22, false],
    ['git.corp.example', 443, true],
    ['a.b.corp.example', 80, true],
    ['a.b.corp.example', 22, false],
    ['corp.example', 443, false],
    ['xcorp.example', 443, false],
    ['pkg.example.org', 8443, true],
    ['pkg.example.org', 443, false],
    ['127.0.0.1', 9000, true],
    ['127.0.0.1', 9001, false],
    ['::1', 7000, true],
    ['[::1]', 7000, true],
    ['localhost', 9000, false],
  ])('%s:%i is allowed: %s', (host, port, expected) => {
    expect(isAllowed(list, host, port)).toBe(expected);
  });

  it.each([
    ['example.com', { host: 'example.com', subdomains: false, port: null }],
    ['*.Example.com', { host: 'example.com', subdomains: true, port: null }],
    ['example.com:8080', { host: 'example.com', subdomains: false, port: 8080 }],
    [
      'https://proxy.example.com:8443/v1',
      { host: 'proxy.example.com', subdomains: false, port: 8443 },
    ],
    ['[::1]:7000', { host: '::1', subdomains: false, port: 7000 }],
  ])('reads %s', (text, expected) => {
    expect(parseAllowEntry(text)).toEqual(expected);
  });

  it.each([
    ['exa mple.com'],
    ['example.com:0'],
    ['example.com:70000'],
    ['*.'],
    ['-bad.com'],
    ['a/b'],
  ])('refuses %s with a reason', (text) => {
    expect(typeof parseAllowEntry(text)).toBe('string');
  });

  it('writes entries back as they are typed', () => {
    expect(entries('*.corp.example', 'h.example:81', '[::1]:7').map(formatAllowEntry)).toEqual([
      '*.corp.example',
      'h.example:81',
      '[::1]:7',
    ]);
  });

  it('validates the setting as a whole, naming the bad entry', () => {
    expect(validateAllowList('example.com, *.corp.example  pkg.org:81, *')).toBeNull();
    expect(validateAllowList('example.com, bad/host')).toContain('"bad/host"');
  });
});

describe('the kind of an address the proxy is about to connect to', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.1.2.3', 'loopback'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['100.127.255.254', 'private'],
    ['::ffff:192.168.1.1', 'private'],
    ['fd00::2', 'private'],
    ['fc00::1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['::127.0.0.1', 'reserved'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['2002:c0a8:101::1', 'private'],
    ['not an address', 'reserved'],
    ['8.8.8.8', null],
    ['172.32.0.1', null],
    ['100.128.0.1', null],
    ['192.0.2.2', null],
    ['2606:4700::1111', null],
    ['::ffff:8.8.8.8', null],
  ])('%s is %s', (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });

  it('spells an address one way, an IPv4-mapped one as its IPv4', () => {
    expect(canonicalAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(canonicalAddress('0:0:0:0:0:0:0:1')).toBe(canonicalAddress('::1'));
    expect(canonicalAddress('example.com')).toBeNull();
  });
});

describe('the address check after the name check', () => {
  const list = entries(
    'api.example.com',
    'model.example.com:4567',
    '127.0.0.1:4567',
    'localhost:11434',
    '10.1.2.3',
    '[fd00::7]:8443',
  );

  it.each([
    ['api.example.com', 443, '93.184.215.14'],
    ['api.example.com', 443, '2606:2800:21f:cb07:6820:80da:af6b:1946'],
    ['model.example.com', 4567, '127.0.0.1'],
    ['127.0.0.1', 4567, '127.0.0.1'],
    ['localhost', 11434, '127.0.0.1'],
    ['localhost', 11434, '::1'],
    ['fd00::7', 8443, 'fd00::7'],
  ])('lets %s:%i through at %s', (host, port, address) => {
    expect(addressRefusal(list, host, port, address)).toBeNull();
  });

  it.each([
    ['api.example.com', 443, '127.0.0.1', 'resolves to 127.0.0.1, a loopback address'],
    ['api.example.com', 443, '::ffff:127.0.0.1', 'a loopback address'],
    ['api.example.com', 443, '0.0.0.0', 'an unspecified address'],
    ['api.example.com', 443, '192.168.0.10', 'a private network address'],
    ['api.example.com', 443, '169.254.169.254', 'a link-local address'],
    ['model.example.com', 4567, '127.0.0.2', 'a loopback address'],
    ['10.1.2.3', 443, '10.1.2.3', 'a private network address'],
    ['localhost', 443, '127.0.0.1', 'a loopback address'],
  ])('refuses %s:%i at %s', (host, port, address, why) => {
    expect(addressRefusal(list, host, port, address)).toContain(why);
  });

  it("refuses an address of this machine's own interfaces", () => {
    expect(addressRefusal(list, 'api.example.com', 443, '192.0.2.2', ['192.0.2.2'])).toContain(
      'an address of this machine',
    );
    expect(addressRefusal(list, 'api.example.com', 443, '192.0.2.9', ['192.0.2.2'])).toBeNull();
  });

  it('says which entry would allow it', () => {
    expect(addressRefusal(list, 'api.example.com', 443, '127.0.0.1')).toBe(
      'resolves to 127.0.0.1, a loopback address (this machine); allowed only by the entry 127.0.0.1:443 in agents.network.allow',
    );
    expect(addressRefusal(list, '10.1.2.3', 443, '10.1.2.3')).toBe(
      'a private network address; allowed only by the entry 10.1.2.3:443 in agents.network.allow',
    );
  });
});

describe('the usage-statistics hosts refused without a transcript line', () => {
  it.each([
    ['ab.chatgpt.com', true],
    ['play.googleapis.com', true],
    ['http-intake.logs.us5.datadoghq.com', true],
    ['example.com', false],
    ['chatgpt.com', false],
  ])('%s is one: %s', (host, expected) => {
    expect(isTelemetryHost(host)).toBe(expected);
  });
});

describe("a CLI's own background calls, refused without a transcript line", () => {
  it.each([
    ['codex', 'api.github.com', 443, true],
    ['codex', 'github.com', 443, true],
    ['codex', 'codeload.github.com', 443, true],
    ['codex', 'ab.chatgpt.com', 443, true],
    ['codex', 'api.github.com', 8443, false],
    ['codex', 'example.com', 443, false],
    // Claude Code's and Gemini CLI's commands go through the same proxy: their request is the agent's.
    ['claude', 'api.github.com', 443, false],
    ['gemini', 'github.com', 443, false],
    ['claude', 'statsig.anthropic.com', 443, true],
  ] as const)('%s to %s:%d is one: %s', (provider, host, port, expected) => {
    expect(isBackgroundCall(provider, host, port)).toBe(expected);
  });
});

describe('the network policy from the settings', () => {
  it('is filtered with no extra hosts by default', () => {
    expect(networkPolicy(undefined, undefined)).toEqual({ mode: 'filtered', extra: [] });
  });

  it('is open when the mode says so', () => {
    expect(networkPolicy('open', 'example.com')).toEqual({ mode: 'open' });
  });

  it('is open when the allow list holds *', () => {
    expect(networkPolicy('filtered', 'example.com, *')).toEqual({ mode: 'open' });
  });

  it('keeps the usable entries of the list', () => {
    expect(networkPolicy('filtered', 'example.com,, bad host')).toEqual({
      mode: 'filtered',
      extra: entries('example.com', 'bad', 'host'),
    });
  });
});

describe("an agent's allow list", () => {
  it("holds its CLI's model API hosts and not the other CLIs'", () => {
    const { allow } = agentAllowList('codex', {}, [], '/nonexistent', []);

    expect(isAllowed(allow, 'api.openai.com', 443)).toBe(true);
    expect(isAllowed(allow, 'chatgpt.com', 443)).toBe(true);
    expect(isAllowed(allow, 'auth.openai.com', 443)).toBe(true);
    expect(isAllowed(allow, 'api.anthropic.com', 443)).toBe(false);
  });

  it.each([
    ['claude', 'api.anthropic.com'],
    ['claude', 'platform.claude.com'],
    ['gemini', 'generativelanguage.googleapis.com'],
    ['gemini', 'cloudcode-pa.googleapis.com'],
    ['gemini', 'oauth2.googleapis.com'],
  ] as const)('for %s allows %s', (provider, host) => {
    expect(isAllowed(agentAllowList(provider, {}, [], '/nonexistent', []).allow, host, 443)).toBe(
      true,
    );
  });

  it('allows the model server of a base-URL variable, at its port, and forwards it when on loopback', () => {
    const { allow, loopback } = agentAllowList(
      'claude',
      {
        ANTHROPIC_BASE_URL: 'http://127.0.0.1:4567',
        GOOGLE_GEMINI_BASE_URL: 'https://llm.corp.example',
      },
      [],
      '/nonexistent',
      [],
    );

    expect(isAllowed(allow, '127.0.0.1', 4567)).toBe(true);
    expect(isAllowed(allow, '127.0.0.1', 4568)).toBe(false);
    expect(isAllowed(allow, 'llm.corp.example', 443)).toBe(true);
    expect(loopback).toEqual([{ host: '127.0.0.1', port: 4567 }]);
  });

  it('allows a Codex provider base_url given with -c', () => {
    const { loopback } = agentAllowList(
      'codex',
      {},
      ['app-server', '-c', 'model_providers.local.base_url="http://localhost:11434/v1"'],
      '/nonexistent',
      [],
    );

    expect(loopback).toEqual([{ host: 'localhost', port: 11434 }]);
  });

  it('adds the extra entries, forwarding the loopback ones with a port', () => {
    const { allow, loopback } = agentAllowList(
      'gemini',
      {},
      [],
      '/nonexistent',
      entries('registry.npmjs.org', '127.0.0.1:8000', 'localhost'),
    );

    expect(isAllowed(allow, 'registry.npmjs.org', 443)).toBe(true);
    expect(loopback).toEqual([{ host: '127.0.0.1', port: 8000 }]);
  });
});

describe('the proxy environment', () => {
  const env = proxyEnv({ PATH: '/bin', NO_PROXY: '.corp', ALL_PROXY: 'socks5://x' }, 3128);

  it('sends HTTP and HTTPS through the proxy inside the sandbox', () => {
    for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'])
      expect(env[name]).toBe('http://127.0.0.1:3128');
  });

  it('lets loopback addresses go direct and drops other bypasses', () => {
    expect(env['NO_PROXY']).toBe('localhost,127.0.0.1,::1');
    expect(env['no_proxy']).toBe('localhost,127.0.0.1,::1');
    expect(env['ALL_PROXY']).toBeUndefined();
  });

  it('takes a proxy port inside the sandbox that no forwarded model server uses', () => {
    expect(
      relayProxyPort([
        { host: '127.0.0.1', port: 3128 },
        { host: '::1', port: 3129 },
      ]),
    ).toBe(3130);
  });
});

describe('the proxy request', () => {
  it.each([
    ['example.com:443', { host: 'example.com', port: 443 }],
    ['[::1]:8080', { host: '::1', port: 8080 }],
    ['Example.COM:80', { host: 'example.com', port: 80 }],
    ['example.com', null],
    ['example.com:0', null],
    ['a:b:443', null],
  ])('reads the CONNECT target %s', (text, expected) => {
    expect(parseAuthority(text)).toEqual(expected);
  });

  it('names the blocked destination and the setting in its refusal', () => {
    expect(deniedMessage('example.com', 443)).toBe(
      'network: blocked example.com:443 (not in agents.network.allow)',
    );
    expect(deniedMessage('::1', 80, 'why')).toBe('network: blocked [::1]:80 (why)');
  });
});

const PLAN: ConfinementPlan = {
  cwd: '/home/u/wt/s1',
  writable: ['/home/u/wt/s1', '/tmp/grove-agent-x'],
  protect: [],
  hideDirs: [],
  hideFiles: [],
};

describe('the bubblewrap command line with a filtered network', () => {
  const args = bubblewrapArgs(
    { ...PLAN, network: { socketDir: '/tmp/grove-net-1', proxyPort: null, loopbackPorts: [4567] } },
    '/usr/bin/node',
    ['-e', 'relay'],
  );

  it('gives the agent its own network namespace', () => {
    expect(args).toContain('--unshare-net');
    expect(args.indexOf('--unshare-net')).toBeLessThan(args.indexOf('--'));
  });

  it("binds the proxy's socket folder read-only", () => {
    const at = args.lastIndexOf('/tmp/grove-net-1');
    expect(args.slice(at - 2, at + 1)).toEqual([
      '--ro-bind',
      '/tmp/grove-net-1',
      '/tmp/grove-net-1',
    ]);
  });

  it('keeps the lifetime guarantees', () => {
    expect(args).toContain('--die-with-parent');
    expect(args).toContain('--unshare-pid');
  });

  it('keeps the host network without a network plan', () => {
    expect(bubblewrapArgs(PLAN, '/usr/bin/claude', [])).not.toContain('--unshare-net');
  });
});

describe('the Seatbelt profile with a filtered network', () => {
  const profile = seatbeltProfile({
    ...PLAN,
    network: { socketDir: null, proxyPort: 50123, loopbackPorts: [4567] },
  });

  it('denies the network, then allows the proxy and the loopback model servers', () => {
    const deny = profile.indexOf('(deny network*)');
    expect(deny).toBeGreaterThan(0);
    expect(profile.indexOf('(remote ip "localhost:50123")')).toBeGreaterThan(deny);
    expect(profile).toContain('(remote ip "localhost:4567")');
  });

  it('allows unix sockets only inside the writable paths', () => {
    expect(profile).toContain('(remote unix-socket (subpath "/tmp/grove-agent-x"))');
    expect(profile).not.toMatch(/\(remote unix-socket\)/);
  });

  it('allows no remote host other than localhost', () => {
    expect(profile).not.toMatch(/remote ip "\*/);
  });

  it('leaves the network alone without a network plan', () => {
    expect(seatbeltProfile(PLAN)).not.toContain('network');
  });
});

describe('withAllowEntry (add a held host to the allow list)', () => {
  it.each([
    ['', 'example.org', 443, 'example.org'],
    ['', 'example.org', 80, 'example.org'],
    ['a.test', 'example.org', 8443, 'a.test, example.org:8443'],
    ['a.test, example.org', 'example.org', 443, 'a.test, example.org'],
    ['*.example.org', 'api.example.org', 443, '*.example.org'],
    ['*', 'example.org', 443, '*'],
    ['example.org:8443', 'example.org', 443, 'example.org:8443, example.org'],
  ] as const)('%j with %s:%d is %j', (value, host, port, out) => {
    expect(withAllowEntry(value, host, port)).toBe(out);
  });

  it('refuses a name that is no host name, and changes nothing', () => {
    expect(withAllowEntry('a.test', 'bad name,x', 443)).toMatchObject({
      why: expect.stringContaining('is not a host name') as unknown,
    });
  });
});
