import { describe, expect, it } from 'vitest';
import {
  HOST_LOAD_MAX_BYTES,
  choosePlace,
  hostLoadText,
  hostMaxTurns,
  parseHostLoad,
  parseHostMax,
  parseStoredLoad,
  type PlaceFigures,
} from '../../src/domain/placement.js';
import { hostNameProblem, unknownHostProblem } from '../../src/domain/host.js';
import { headerHostsText } from '../../src/ui/resources-layout.js';

// Placement (issue 24, item 6): the pure rules. The readings come from a
// host's /proc over ssh (infra/hosts/host-load.ts), so they are parsed
// strictly; the choice prefers this machine, then the least loaded host
// with room; nowhere with room is a wait with each place's reason.

const GB = 1024 ** 3;
const MEMINFO = `MemTotal:       16318464 kB
MemFree:         1203300 kB
MemAvailable:    8159232 kB
Buffers:          200000 kB
`;
const reading = `${MEMINFO}\n0.42 0.30 0.25 2/345 6789\ncores 8\n`;

function place(over: Partial<PlaceFigures>): PlaceFigures {
  return {
    host: null,
    running: 0,
    max: 4,
    freeBytes: 8 * GB,
    loadPerCore: 0.1,
    problem: null,
    ...over,
  };
}

describe("a host's reading", () => {
  it('reads MemTotal, MemAvailable, the 1-minute load and the cores', () => {
    expect(parseHostLoad(reading, 5)).toEqual({
      cores: 8,
      totalBytes: 16318464 * 1024,
      availableBytes: 8159232 * 1024,
      load1: 0.42,
      readAt: 5,
    });
  });

  it.each([
    ['no MemAvailable', reading.replace(/^MemAvailable.*$/m, '')],
    ['no load line', reading.replace(/^0\.42.*$/m, '')],
    ['no cores', reading.replace('cores 8', '')],
    ['zero cores', reading.replace('cores 8', 'cores 0')],
    ['a command in place of a figure', reading.replace('8159232', '$(reboot)')],
    ['more available than total', reading.replace('8159232', '99999999')],
    ['a huge answer', reading + 'x'.repeat(HOST_LOAD_MAX_BYTES)],
  ])('refuses %s', (_, text) => {
    expect(parseHostLoad(text, 0)).toBeNull();
  });

  it('checks a stored reading field by field', () => {
    const load = parseHostLoad(reading, 5);
    expect(parseStoredLoad(JSON.stringify(load))).toEqual(load);
    expect(parseStoredLoad('{"cores":"8"}')).toBeNull();
    expect(parseStoredLoad('not json')).toBeNull();
    expect(parseStoredLoad(null)).toBeNull();
  });
});

describe("a host's maximum", () => {
  it('reads N from 0 to 1000 or auto, and defaults auto from its cores and memory', () => {
    expect(parseHostMax('3')).toEqual({ max: 3 });
    expect(parseHostMax('0')).toEqual({ max: 0 });
    expect(parseHostMax('auto')).toEqual({ max: null });
    expect(parseHostMax('1001')).toBeNull();
    expect(parseHostMax('-1')).toBeNull();
    const load = parseHostLoad(reading, 0);
    if (!load) throw new Error('no reading');
    expect(hostMaxTurns(null, load)).toBe(7);
    expect(hostMaxTurns(2, load)).toBe(2);
    expect(hostLoadText(load, 1, null)).toBe('load 0.42  7.8 GB free  1/7');
    expect(hostLoadText(null, 0, 2)).toBe('? 0/2');
  });

  it('keeps auto and local from being host names, and auto is a valid default host', () => {
    expect(hostNameProblem('auto')).toMatch(/choose a place/);
    expect(unknownHostProblem('auto', [])).toBeNull();
  });
});

describe('choosing a place', () => {
  it('prefers this machine when it has room', () => {
    expect(choosePlace([place({}), place({ host: 'build', loadPerCore: 0 })], GB, true)).toEqual({
      kind: 'place',
      host: null,
    });
  });

  it('takes the least loaded host with room when this machine is full', () => {
    const places = [
      place({ running: 4 }),
      place({ host: 'busy', loadPerCore: 0.9 }),
      place({ host: 'idle', loadPerCore: 0.05 }),
      place({ host: 'full', loadPerCore: 0, running: 2, max: 2 }),
      place({ host: 'tight', loadPerCore: 0, freeBytes: 0.5 * GB }),
      place({ host: 'away', max: null, freeBytes: null, loadPerCore: null, problem: 'ssh failed' }),
    ];
    expect(choosePlace(places, GB, true)).toEqual({ kind: 'place', host: 'idle' });
  });

  it('waits, with each place in words, when none has room', () => {
    const places = [
      place({ running: 0, max: 0 }),
      place({ host: 'build', running: 1, max: 1 }),
      place({ host: 'gpu', max: null, problem: 'ssh cannot find gpu' }),
    ];
    expect(choosePlace(places, GB, true)).toEqual({
      kind: 'wait',
      reasons: [
        'this machine: 0 of 0 running',
        'build: 1 of 1 running',
        'gpu: ssh cannot find gpu',
      ],
    });
  });

  it('keeps an agent that cannot run on hosts on this machine', () => {
    const places = [place({ running: 4 }), place({ host: 'build' })];
    expect(choosePlace(places, GB, false)).toEqual({
      kind: 'wait',
      reasons: ['this machine: 4 of 4 running', 'this agent runs on this machine only'],
    });
  });
});

describe("the header's hosts", () => {
  const load = { cores: 4, totalBytes: 16 * GB, availableBytes: 7.8 * GB, load1: 0.42, readAt: 0 };
  const hosts = [
    { name: 'build', load, away: false, running: 1, max: null },
    { name: 'gpu', load: null, away: true, running: 0, max: 2 },
    { name: 'new', load: null, away: false, running: 0, max: null },
  ];

  it('shows each host that fits, then how many more, and nothing on a narrow screen', () => {
    expect(headerHostsText(hosts, 140, 80)).toBe(' build 0.42 7.8G 1/8  gpu away 0/2  new 0/?  ');
    expect(headerHostsText(hosts, 140, 40)).toBe(' build 0.42 7.8G 1/8  gpu away 0/2  +1  ');
    expect(headerHostsText(hosts, 140, 10)).toBe('');
    expect(headerHostsText(hosts, 99, 80)).toBe('');
    expect(headerHostsText([], 140, 80)).toBe('');
  });
});
