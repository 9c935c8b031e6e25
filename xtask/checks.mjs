// Runs `npm test`'s checks before the Vitest suite side by side: the
// typecheck, ESLint, Prettier, the migration check and the build do not
// depend on each other, and each one alone leaves a core idle most of the
// time (ESLint's type-aware rules take the longest). Each check's output is
// held and printed whole once it ends, so the logs do not interleave. Exits
// with 1 when any check failed, after all of them ended.
//   node xtask/checks.mjs
import { spawn } from 'node:child_process';

const CHECKS = ['typecheck', 'lint', 'format:check', 'check-migrations', 'build'];
const npm = process.env.npm_execpath;

function run(script) {
  const started = Date.now();
  // Through the npm that started us when there is one (npm test), else the one on PATH.
  const [command, args] = npm
    ? [process.execPath, [npm, 'run', '--silent', script]]
    : ['npm', ['run', '--silent', script]];
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => output.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code, signal) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const ok = code === 0;
      process.stdout.write(
        `${ok ? '✓' : '✗'} ${script} (${seconds} s)${ok ? '' : `: exit ${code ?? signal}`}\n`,
      );
      const text = Buffer.concat(output).toString('utf8').trim();
      if (text) process.stdout.write(`${text}\n`);
      resolve(ok);
    });
  });
}

const results = await Promise.all(CHECKS.map(run));
process.exit(results.every(Boolean) ? 0 : 1);
