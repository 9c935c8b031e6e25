import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicHandler } from './anthropic.js';
import { geminiHandler } from './gemini.js';
import { openaiHandler } from './openai.js';
import {
  json,
  payloadsOf,
  type ApiHandler,
  type ApiName,
  type Billed,
  type ScriptStep,
} from './types.js';

export type { ApiName, ScriptStep } from './types.js';

/** A step held until `until` settles (see `gate()`), then answered with `then`. */
export interface HeldStep {
  readonly until: Promise<unknown>;
  readonly then: ScriptStep;
}

/** A step, optionally only for requests whose body contains `when`. */
export type Scripted = (ScriptStep | HeldStep) & { readonly when?: string };

/** Lets a test decide when a held step answers: `{ until: g.opened, then }`, then `g.open()`. */
export interface Gate {
  readonly opened: Promise<void>;
  open(): void;
}

export function gate(): Gate {
  let open = (): void => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

export interface RecordedRequest {
  readonly api: ApiName | null;
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: unknown;
}

export interface FakeModelServer {
  readonly url: string;
  readonly port: number;
  readonly requests: RecordedRequest[];
  /**
   * Appends steps to an API's queue. Each model request takes the first
   * queued step whose `when` text occurs in the request body (a step
   * without `when` fits any request).
   */
  script(api: ApiName, steps: readonly Scripted[]): void;
  /** Absolute folder that tool-call paths are relative to. */
  setWorkdir(dir: string): void;
  /** Model requests of one API (side calls excluded). */
  modelRequests(api: ApiName): RecordedRequest[];
  /**
   * What the API billed so far: the usage every successful response reported
   * in the API's own wire format (the CLIs' side calls included), and how
   * many responses billed anything.
   */
  billed(api: ApiName): Billed & { readonly responses: number };
  close(): Promise<void>;
}

const HANDLERS: readonly ApiHandler[] = [anthropicHandler, openaiHandler, geminiHandler];

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text ? JSON.parse(text) : null);
      } catch {
        resolve(text);
      }
    });
  });
}

/**
 * A scripted stand-in for the model services behind the agent CLIs, on
 * 127.0.0.1, speaking the Anthropic Messages, OpenAI Responses and Gemini
 * streaming wire formats the real CLIs accept.
 */
export async function startFakeModelServer(): Promise<FakeModelServer> {
  const queues = new Map<ApiName, Scripted[]>();
  const take = (api: ApiName, body: unknown): Scripted | undefined => {
    const queue = queues.get(api) ?? [];
    const text = JSON.stringify(body);
    const index = queue.findIndex((step) => step.when === undefined || text.includes(step.when));
    if (index === -1) return undefined;
    return queue.splice(index, 1)[0];
  };
  const requests: RecordedRequest[] = [];
  const consumed: RecordedRequest[] = [];
  let workdir: string | undefined;
  const bills = new Map<
    ApiName,
    { inputTokens: number; outputTokens: number; responses: number }
  >();
  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const method = req.method ?? 'GET';
      const path = req.url ?? '/';
      const handler = HANDLERS.find((h) => h.matches({ method, path }));
      const record: RecordedRequest = {
        api: handler?.api ?? null,
        method,
        path,
        headers: req.headers,
        body,
      };
      requests.push(record);
      if (handler) {
        // The bytes sent, read back when the response ends: what it billed.
        const sent: string[] = [];
        const write = res.write.bind(res) as (...a: unknown[]) => boolean;
        const end = res.end.bind(res) as (...a: unknown[]) => typeof res;
        res.write = ((chunk: unknown, ...rest: unknown[]) => {
          if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) sent.push(chunk.toString());
          return write(chunk, ...rest);
        }) as typeof res.write;
        res.end = ((chunk?: unknown, ...rest: unknown[]) => {
          if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) sent.push(chunk.toString());
          return end(chunk, ...rest);
        }) as typeof res.end;
        res.on('finish', () => {
          if (res.statusCode >= 400) return;
          const one = handler.billed(payloadsOf(sent.join('')));
          if (one.inputTokens + one.outputTokens === 0) return;
          const sum = bills.get(handler.api) ?? { inputTokens: 0, outputTokens: 0, responses: 0 };
          sum.inputTokens += one.inputTokens;
          sum.outputTokens += one.outputTokens;
          sum.responses += 1;
          bills.set(handler.api, sum);
        });
      }
      if (!handler)
        return json(res, 404, {
          error: { message: `fake model server: no handler for ${method} ${path}` },
        });
      const takes = handler.consumes ? handler.consumes({ method, path }, body) : true;
      const step = takes ? take(handler.api, body) : undefined;
      if (takes) consumed.push(record);
      if (step && 'until' in step)
        void step.until.then(() => handler.handle({ req, res, body, step: step.then, workdir }));
      else handler.handle({ req, res, body, step, workdir });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    script(api, steps) {
      queues.set(api, [...(queues.get(api) ?? []), ...steps]);
    },
    setWorkdir(dir) {
      workdir = dir;
    },
    modelRequests: (api) => consumed.filter((r) => r.api === api),
    billed: (api) => ({ ...(bills.get(api) ?? { inputTokens: 0, outputTokens: 0, responses: 0 }) }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
