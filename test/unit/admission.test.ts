import { describe, expect, it } from 'vitest';
import {
  admissionText,
  admissionWait,
  defaultMaxTurns,
  maxTurns,
  memoryFloor,
  parseSize,
  validateMaxTurns,
  validateMemoryFloor,
} from '../../src/domain/admission.js';
import { memAvailable } from '../../src/infra/machine-figures.js';

const GB = 1024 ** 3;

describe('the default most turns at once', () => {
  it.each([
    [2, 24, 4],
    [16, 16, 8],
    [1, 2, 2],
    [8, 64, 16],
    [64, 8, 4],
  ])('%i cores and %i GB give %i', (cores, gb, want) => {
    expect(defaultMaxTurns({ cores, totalBytes: gb * GB })).toBe(want);
  });

  it('reads the setting, and auto or a mistake as the default', () => {
    const machine = { cores: 2, totalBytes: 24 * GB, availableBytes: 0 };
    expect(maxTurns('3', machine)).toBe(3);
    expect(maxTurns('auto', machine)).toBe(4);
    expect(maxTurns(undefined, machine)).toBe(4);
    expect(maxTurns('0', machine)).toBe(0);
    expect(maxTurns('many', machine)).toBe(4);
    expect(validateMaxTurns('0')).toBeNull();
    expect(validateMaxTurns('1001')).toMatch(/0 \(none on this machine.*to 1000/);
    expect(validateMaxTurns('two')).toMatch(/auto/);
    expect(validateMaxTurns('auto')).toBeNull();
  });
});

describe('the memory floor', () => {
  it.each([
    ['2G', 2 * GB],
    ['1.5GB', 1.5 * GB],
    ['512M', 512 * 1024 ** 2],
    ['512 mb', 512 * 1024 ** 2],
  ])('reads %s', (text, bytes) => {
    expect(parseSize(text)).toBe(bytes);
    expect(memoryFloor(text)).toBe(bytes);
  });

  it('is 1 GB by default, 0 when off, and refuses what is not a size', () => {
    expect(memoryFloor(undefined)).toBe(GB);
    expect(memoryFloor('off')).toBe(0);
    expect(validateMemoryFloor('lots')).toMatch(/2G/);
    expect(validateMemoryFloor('-1G')).not.toBeNull();
    expect(validateMemoryFloor('off')).toBeNull();
  });

  it('reads MemAvailable of /proc/meminfo, and nothing where it is missing', () => {
    expect(memAvailable('MemTotal: 100 kB\nMemAvailable:    2048 kB\n')).toBe(2048 * 1024);
    expect(memAvailable('MemTotal: 100 kB\n')).toBeNull();
  });
});

describe('whether a turn may start', () => {
  it('waits for a slot first, then for memory, and says so in words', () => {
    const full = admissionWait({ running: 4, max: 4, freeBytes: 0, floorBytes: 2 * GB });
    expect(full && admissionText(full)).toBe('waiting for a turn slot: 4 of 4 running');
    const short = admissionWait({ running: 1, max: 4, freeBytes: 1.2 * GB, floorBytes: 2 * GB });
    expect(short && admissionText(short)).toBe('waiting for memory: 1.2 GB free, needs 2.0 GB');
    expect(admissionWait({ running: 1, max: 4, freeBytes: 3 * GB, floorBytes: 2 * GB })).toBeNull();
    expect(admissionWait({ running: 0, max: 1, freeBytes: 0, floorBytes: 0 })).toBeNull();
  });
});
