// The packages the build puts in files of their own (dist/vendor/, built by
// `npm test` before the suite): the app requires each one it names, and each
// does, from its file, what Grove uses it for.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/grove-env.js';

const VENDOR = join(ROOT, 'dist', 'vendor');

/** Runs `script` (CommonJS, `vendor` = the folder) in a child Node; its stdout. */
function run(script: string): string {
  const child = spawnSync(
    process.execPath,
    ['-e', `const vendor = ${JSON.stringify(VENDOR)};\n${script}`],
    { encoding: 'utf8', timeout: 20_000 },
  );
  expect(child.stderr).toBe('');
  expect(child.status).toBe(0);
  return child.stdout;
}

describe('the vendor bundles', () => {
  it('are the files the app requires', () => {
    const app = readFileSync(join(ROOT, 'dist', 'grove-app.cjs'), 'utf8');
    const named = [...app.matchAll(/require\("\.\/vendor\/([\w-]+\.cjs)"\)/g)].map((m) => m[1]);

    expect(new Set(named)).toEqual(
      new Set(['execa.cjs', 'acp-sdk.cjs', 'octokit-rest.cjs', 'mcp-sdk.cjs']),
    );
    for (const file of named) expect(existsSync(join(VENDOR, file ?? ''))).toBe(true);
    // None of their code is also inside the app (the ACP schema, JSON, is).
    const inside = [
      'node_modules/execa/',
      'node_modules/@octokit/',
      'node_modules/@agentclientprotocol/sdk/dist/',
      'node_modules/@modelcontextprotocol/sdk/',
    ].filter((path) => app.includes(path));
    expect(inside).toEqual([]);
  });

  it('the MCP library answers an MCP initialize on stdio', () => {
    const out = run(`
const { McpServer, StdioServerTransport } = require(vendor + '/mcp-sdk.cjs');
const server = new McpServer({ name: 't', version: '1' });
const { PassThrough } = require('node:stream');
const input = new PassThrough();
const output = new PassThrough();
let text = '';
output.on('data', (d) => (text += d));
server.connect(new StdioServerTransport(input, output)).then(() => {
  input.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }) + '\\n');
  setTimeout(() => { process.stdout.write(JSON.parse(text).result.serverInfo.name); process.exit(0); }, 200);
});
`);
    expect(out).toBe('t');
  });

  it('execa runs a command', () => {
    const out = run(`
const { execa } = require(vendor + '/execa.cjs');
execa(process.execPath, ['-e', 'process.stdout.write("ran")']).then((r) => process.stdout.write(r.stdout));
`);
    expect(out).toBe('ran');
  });

  it("Octokit asks GitHub's API (here a local server) with the token", async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ full_name: 'o/r', default_branch: 'main' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const script = `const vendor = ${JSON.stringify(VENDOR)};
const { Octokit } = require(vendor + '/octokit-rest.cjs');
new Octokit({ auth: 't0k', baseUrl: 'http://127.0.0.1:${port}' }).rest.repos
  .get({ owner: 'o', repo: 'r' })
  .then((r) => process.stdout.write(r.data.default_branch));`;
      // Asynchronous: the server answers from this process.
      const { stdout: child } = await promisify(execFile)(process.execPath, ['-e', script], {
        timeout: 20_000,
      });
      expect(child).toBe('main');
      expect(seen).toEqual(['GET /repos/o/r token t0k']);
    } finally {
      server.close();
    }
  });

  it('the ACP library builds a client and frames JSON lines', () => {
    const out = run(`
const acp = require(vendor + '/acp-sdk.cjs');
const app = acp.client({ name: 'grove' }).onNotification('*', () => {}).onRequest('*', () => {});
const error = acp.RequestError.methodNotFound('fs/read_text_file');
const stream = acp.ndJsonStream(new WritableStream(), new ReadableStream());
process.stdout.write([typeof app.connect, error instanceof Error, error.code, typeof stream.readable].join(' '));
`);
    expect(out).toBe('function true -32601 object');
  });
});
