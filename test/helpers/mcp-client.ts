// The MCP SDK's own client on the built `grove mcp` (test/integration/mcp*.test.ts),
// and what the tests read back: a tool's text, an item of `grove inbox --json`.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach } from 'vitest';
import { InboxSchema } from '../integration/headless-schema.js';
import { GROVE_BIN } from './grove-env.js';
import { waitUntil } from './wait.js';

export type ToolResult = Awaited<ReturnType<Client['callTool']>>;

export interface McpClients {
  /** Starts `grove mcp -C repo` with `env` and connects a client named `name`. */
  connect(env: Record<string, string>, repo: string, name?: string): Promise<Client>;
  /** Closes the client now (the server ends with it). */
  close(): Promise<void>;
}

/** Registers the file's afterEach that closes the test's client. */
export function setUpMcpClients(): McpClients {
  let client: Client | null = null;
  const close = async (): Promise<void> => {
    await client?.close();
    client = null;
  };
  afterEach(close);
  return {
    async connect(env, repo, name = 'grove-test') {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [GROVE_BIN, 'mcp', '-C', repo],
        env,
        stderr: 'pipe',
      });
      client = new Client({ name, version: '1.0.0' });
      await client.connect(transport);
      return client;
    },
    close,
  };
}

/** The first text of a tool's answer. */
export function textOf(result: ToolResult): string {
  const [first] = result.content as { type: string; text: string }[];
  return first?.text ?? '';
}

export type InboxJson = ReturnType<typeof InboxSchema.parse>[number];

/** Runs `grove ARGS` in another process. */
export type GroveRunner = (args: readonly string[]) => Promise<{ readonly stdout: string }>;

/** What `grove inbox --json` (another process) lists. */
export async function inboxJson(grove: GroveRunner): Promise<InboxJson[]> {
  return InboxSchema.parse(JSON.parse((await grove(['inbox', '--json'])).stdout));
}

/** The first item of `kind` `grove inbox --json` lists, once it is there. */
export function waitingItem(
  grove: GroveRunner,
  kind: InboxJson['kind'],
  timeoutMs = 60_000,
): Promise<InboxJson> {
  return waitUntil(
    `the ${kind} item in the inbox`,
    async () => (await inboxJson(grove)).find((i) => i.kind === kind),
    timeoutMs,
  );
}
