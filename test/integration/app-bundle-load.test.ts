// What loading the built app (dist/grove-app.cjs, built by `npm test` before
// the suite) does before Grove's start-up code runs: every module's top
// level. esbuild writes the Unicode-property expressions of string-width and
// its neighbours as `new RegExp(...)` calls, and V8 builds an expression when
// it is made: `^\p{RGI_Emoji}$` alone is about 18 ms and 2 MB of every
// start-up, so it is made when a cluster first needs it
// (packages/string-width/README.md, change 3; docs/performance.md).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/grove-env.js';

const APP = join(ROOT, 'dist', 'grove-app.cjs');

/** Evaluates the app bundle in a child Node as dist/grove.js does (without running start); the patterns given to `new RegExp`. */
function patternsMadeAtLoad(): string[] {
  const script = `
const fs = require('node:fs'), vm = require('node:vm'), path = require('node:path');
const { createRequire } = require('node:module');
const made = [];
const Real = RegExp;
globalThis.RegExp = new Proxy(Real, {
  construct(target, args, newTarget) { made.push(String(args[0])); return Reflect.construct(target, args, newTarget); },
});
const file = ${JSON.stringify(APP)};
const wrapper = '(function (exports, require, module, __filename, __dirname, __groveUrl, __groveImport) {\\n';
const body = new vm.Script(wrapper + fs.readFileSync(file, 'utf8') + '\\n})', { filename: file }).runInThisContext();
const mod = { exports: {} };
body(mod.exports, createRequire(file), mod, file, path.dirname(file), 'file://' + file, (s) => import(s));
if (typeof mod.exports.start !== 'function') throw new Error('the bundle exports no start');
process.stdout.write(JSON.stringify(made));
`;
  const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 });
  expect(child.stderr).toBe('');
  expect(child.status).toBe(0);
  return JSON.parse(child.stdout) as string[];
}

describe('loading the app bundle', () => {
  it('makes no \\p{RGI_Emoji} expression (string-width makes it for the first cluster that needs it)', () => {
    const made = patternsMadeAtLoad();
    // The check sees the expressions the bundle makes: string-width's others are made at load.
    expect(made.some((pattern) => pattern.includes('\\p{Emoji_Presentation}'))).toBe(true);
    expect(made.filter((pattern) => pattern.includes('RGI_Emoji'))).toEqual([]);
  });
});
