// The load bench's agent (xtask/bench-load.mjs): a fake `claude` on PATH.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A fake `claude` (Node, stream-json on stdout like `claude -p`; its prompt all of stdin, or
 * the first stream-json line with stdin left open until the result) that records
 * each start (kind and times) in its runtime folder, writable in the sandbox.
 * Title, commit-message and review prompts answer at once; a prompt with
 * `Stream task` streams a tool use every STREAM_EVERY_MS for STREAM_EVENTS
 * events (each writes a file), then answers; a prompt with `Hold task` answers
 * after HOLD_MS, printing nothing meanwhile; any other prompt changes a file
 * and answers at once.
 */
const STREAM_EVENTS = 300;
const STREAM_EVERY_MS = 100;
const HOLD_MS = 120_000;
export function installFakeClaude(w) {
  // In one of Claude Code's runtime folders: the agent's sandbox keeps ~/.claude itself read-only.
  const log = join(w.home, '.claude', 'debug', 'bench-calls.log');
  const script = `#!${process.execPath}
const { appendFileSync, mkdirSync, writeFileSync } = require('node:fs');
const start = Date.now();
if (process.argv.includes('--version')) {
  process.stdout.write('2.1.330 (Claude Code)\\n');
  process.exit(0);
}
// The prompt: with --input-format stream-json the text of its first line (a user message), stdin
// staying open until the result; otherwise all of stdin.
const streamJson = process.argv.includes('stream-json') && process.argv[process.argv.indexOf('--input-format') + 1] === 'stream-json';
let input = '';
let started = false;
const promptText = (line) => {
  try {
    const content = JSON.parse(line).message.content;
    return typeof content === 'string' ? content : content.filter((b) => b.type === 'text').map((b) => b.text).join('\\n');
  } catch {
    return line;
  }
};
process.stdin.on('data', (d) => {
  input += d;
  if (streamJson && !started && input.includes('\\n')) {
    started = true;
    input = promptText(input.slice(0, input.indexOf('\\n')));
    run();
  }
});
process.stdin.on('end', () => {
  if (started) return;
  started = true;
  if (streamJson) input = promptText(input);
  run();
});
function run() {
  const kind = input.includes('Write a title for a coding task') ? 'title' : input.includes('Write the git commit message') ? 'commit' : input.includes('You are reviewing the work of a coding agent') ? 'review' : input.includes('Stream task') ? 'stream' : input.includes('Hold task') ? 'hold' : 'turn';
  const id = '00000000-0000-4000-8000-00000000beef';
  const out = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
  const finish = () => {
    out({ type: 'result', subtype: 'success', is_error: false, result: 'done', structured_output: { answer: kind === 'title' ? 'Bench session' : 'Bench change', questions: [], summary: null }, session_id: id, usage: { input_tokens: 10, output_tokens: 5 } });
    appendFileSync(${JSON.stringify(log)}, kind + ' ' + start + ' ' + Date.now() + '\\n');
  };
  out({ type: 'system', subtype: 'init', session_id: id });
  if (kind === 'turn') writeFileSync('bench-change.txt', 'change ' + start + '\\n');
  if (kind === 'hold') return setTimeout(finish, ${HOLD_MS});
  if (kind !== 'stream') return finish();
  let n = 0;
  const dir = 'stream-' + process.pid;
  mkdirSync(dir, { recursive: true });
  const timer = setInterval(() => {
    const path = process.cwd() + '/' + dir + '/f' + n + '.txt';
    writeFileSync(path, 'file ' + n + '\\n');
    out({ type: 'assistant', message: { content: [{ type: 'tool_use', id: 'toolu_' + n, name: 'Write', input: { file_path: path, content: 'x' } }] }, session_id: id });
    if (++n >= ${STREAM_EVENTS}) {
      clearInterval(timer);
      finish();
    }
  }, ${STREAM_EVERY_MS});
}
`;
  const file = join(w.fakeBin, 'claude');
  writeFileSync(file, script);
  chmodSync(file, 0o755);
  return log;
}
