// Runs a command on a Node.js that Grove supports: the running one when it is
// new enough, otherwise the pinned primary version (installed into a cache by
// xtask/node.mjs), put first on PATH for the command and everything it starts.
// This keeps `npm start` and `npm test` working on a machine whose own Node is
// older than Grove needs.
//   node xtask/with-node.mjs <command> [args...]
import { execFileSync, spawn } from 'node:child_process';
import { delimiter, dirname, join } from 'node:path';

const MINIMUM = [22, 19];
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const supported = major > MINIMUM[0] || (major === MINIMUM[0] && minor >= MINIMUM[1]);

const env = { ...process.env };
if (!supported) {
  const bin = execFileSync(
    process.execPath,
    [join(import.meta.dirname, 'node.mjs'), 'bin', 'primary'],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  ).trim();
  process.stderr.write(
    `Node.js ${process.versions.node} is older than Grove supports; using the pinned Node.js in ${bin}\n`,
  );
  env.PATH = `${bin}${delimiter}${env.PATH ?? ''}`;
  // Native modules that must compile build against that Node's headers.
  env.npm_config_nodedir = dirname(bin);
  // `npm start`: the line above goes behind Grove's full screen at once, so
  // Grove says it again on its first screen (start.ts, node-version.ts).
  if (process.env.npm_lifecycle_event === 'start') env.GROVE_MACHINE_NODE = process.versions.node;
}

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write('usage: node xtask/with-node.mjs <command> [args...]\n');
  process.exit(2);
}
const child = spawn(command, args, { stdio: 'inherit', env });
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('error', (error) => {
  process.stderr.write(`${command}: ${error.message}\n`);
  process.exit(1);
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
