import * as acp from '@agentclientprotocol/sdk';
import acpSchema from '@agentclientprotocol/sdk/schema/v1/schema.json' with { type: 'json' };
import * as z from 'zod';
import type { ProviderId } from '../../../domain/providers.js';
import { createInterface } from 'node:readline';
import { issueText, type WireWatch } from '../wire-check.js';

// The client side of the Agent Client Protocol over an agent's stdio, with the
// ACP project's own library (@agentclientprotocol/sdk): its connection, its
// types, and its published JSON Schema for checking what the agent sends.
// Loaded on demand when the first ACP agent process starts (Gemini CLI's or
// one named in GROVE_HOME/agents.json).

export type Checked<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly issue: string };

type SchemaName =
  | 'SessionNotification'
  | 'RequestPermissionRequest'
  | 'NewSessionResponse'
  | 'LoadSessionResponse'
  | 'PromptResponse'
  | 'SetSessionModeResponse';
interface SchemaTypes {
  SessionNotification: acp.SessionNotification;
  RequestPermissionRequest: acp.RequestPermissionRequest;
  NewSessionResponse: acp.NewSessionResponse;
  LoadSessionResponse: acp.LoadSessionResponse;
  PromptResponse: acp.PromptResponse;
  SetSessionModeResponse: acp.SetSessionModeResponse;
}

const built = new Map<SchemaName, z.ZodType>();

/** Checks a value against one definition of the ACP v1 schema (each validator built on first use). */
export function checkAcp<N extends SchemaName>(name: N, value: unknown): Checked<SchemaTypes[N]> {
  let schema = built.get(name);
  if (!schema) {
    schema = z.fromJSONSchema({
      $schema: acpSchema.$schema,
      $defs: acpSchema.$defs,
      $ref: `#/$defs/${name}`,
    } as unknown as Parameters<typeof z.fromJSONSchema>[0]);
    built.set(name, schema);
  }
  const result = schema.safeParse(value);
  return result.success
    ? { ok: true, value: result.data as SchemaTypes[N] }
    : { ok: false, issue: issueText(result.error.issues) };
}

export interface AcpClientHandlers {
  /** A session/update that matched the schema. */
  update(notification: acp.SessionNotification): void;
  /** A permission request that matched the schema; one that did not is cancelled (fail-closed). */
  permission(
    request: acp.RequestPermissionRequest,
  ): acp.RequestPermissionResponse | Promise<acp.RequestPermissionResponse>;
}

/** An ACP connection to one agent process. */
export interface AcpClient {
  readonly agent: acp.ClientContext;
  /** Sends a request and checks the response against `schema` (an invalid one is told to the watch and passed on). */
  request<
    M extends 'session/new' | 'session/load' | 'session/prompt' | 'session/set_mode' | 'initialize',
  >(
    method: M,
    params: acp.AgentRequestParamsByMethod[M],
  ): Promise<acp.AgentRequestResponsesByMethod[M]>;
  cancel(sessionId: string): void;
  /** Ends the connection; pending requests reject with `error`. */
  close(error: Error): void;
}

const RESPONSE_SCHEMA: Partial<Record<string, SchemaName>> = {
  'session/new': 'NewSessionResponse',
  'session/load': 'LoadSessionResponse',
  'session/prompt': 'PromptResponse',
  'session/set_mode': 'SetSessionModeResponse',
};

/**
 * The agent's stdout as a stream of JSON lines (anything else it prints there
 * is dropped). It never ends by itself: the channel closes the connection
 * when the process exits, with an error that says so.
 */
function jsonLines(proc: AcpStreams): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const reader = createInterface({ input: proc.stdout, crlfDelay: Infinity });
      reader.on('line', (line) => {
        if (!line.trim().startsWith('{')) return;
        try {
          controller.enqueue(encoder.encode(`${line}\n`));
        } catch {
          // The connection is closed: nobody reads any more.
        }
      });
    },
  });
}

function toAgent(proc: AcpStreams): WritableStream<Uint8Array> {
  const stdin = proc.stdin as NodeJS.WritableStream & { destroyed?: boolean };
  return new WritableStream<Uint8Array>({
    write(chunk) {
      // The agent may be gone: what it can no longer read is dropped.
      if (stdin.destroyed !== true) stdin.write(chunk);
    },
  });
}

/** The agent's stdio: a local child's, or a run's on a host (infra/hosts/remote-server.ts). */
export interface AcpStreams {
  readonly stdin: NodeJS.WritableStream;
  readonly stdout: NodeJS.ReadableStream;
}

/**
 * Connects to an agent process as an ACP client. Every message the agent
 * sends is judged against the ACP schema and told to `watch`.
 */
export function connectAcp(
  proc: AcpStreams,
  handlers: AcpClientHandlers,
  watch: WireWatch,
  provider: ProviderId = 'gemini',
): AcpClient {
  const app = acp
    .client({ name: 'grove' })
    .onNotification(
      'session/update',
      (params) => checkAcp('SessionNotification', params),
      ({ params }) => {
        watch.record(
          provider,
          params.ok ? `session/update ${params.value.update.sessionUpdate}` : 'session/update',
          params.ok ? 'valid' : 'invalid',
          params.ok ? undefined : params.issue,
        );
        if (params.ok) handlers.update(params.value);
      },
    )
    .onRequest(
      'session/request_permission',
      (params) => checkAcp('RequestPermissionRequest', params),
      async ({ params }): Promise<acp.RequestPermissionResponse> => {
        watch.record(
          provider,
          'session/request_permission',
          params.ok ? 'valid' : 'invalid',
          params.ok ? undefined : params.issue,
        );
        return params.ok
          ? await handlers.permission(params.value)
          : { outcome: { outcome: 'cancelled' } };
      },
    )
    // Anything else: not part of what Grove offered (no file system, no terminal).
    .onNotification('*', ({ method }) => {
      watch.record(provider, method, 'unknown');
    })
    .onRequest('*', ({ method }) => {
      watch.record(provider, method, 'unknown');
      throw acp.RequestError.methodNotFound(method);
    });
  const connection = app.connect(acp.ndJsonStream(toAgent(proc), jsonLines(proc)));
  const agent = connection.agent;
  return {
    agent,
    async request(method, params) {
      const response = await agent.request(method, params);
      const schema = RESPONSE_SCHEMA[method];
      if (schema) {
        // session/load and session/set_mode may answer with nothing at all.
        const checked = checkAcp(schema, response ?? {});
        watch.record(
          provider,
          `${method} response`,
          checked.ok ? 'valid' : 'invalid',
          checked.ok ? undefined : checked.issue,
        );
      }
      return response;
    },
    cancel(sessionId) {
      void agent.notify('session/cancel', { sessionId }).catch(() => {});
    },
    close(error) {
      connection.close(error);
    },
  };
}
