import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { judgePrompt } from '../../../src/domain/best-of.js';
import { commitMessagePrompt, titlePrompt } from '../../../src/app/services/prompts.js';
import { reviewPrompt } from '../../../src/app/services/review/focused-review.js';
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

/**
 * A step, optionally only for requests whose body contains `when`. A step
 * for one of Grove's own prompts (a title, a commit message, a focused
 * review, a best-of judge) names that prompt's opening in `when`: see
 * `groveOwnPrompt`.
 */
export type Scripted = (ScriptStep | HeldStep) & {
  readonly when?: string;
  /** For a request of Grove's own whose `when` is not a prompt's opening (a repair round of one). */
  readonly groveOwn?: boolean;
};

/** The first line of each prompt Grove writes itself (utility requests beside a session's turns). */
const GROVE_OWN_PROMPTS: readonly string[] = [
  titlePrompt(''),
  commitMessagePrompt('', null, ''),
  reviewPrompt('', '', ''),
  judgePrompt('', [], ''),
].map((prompt) => prompt.split('\n')[0] ?? prompt);

/** The opening of Grove's own prompt that `text` contains (its first 40 characters), if any. */
export function groveOwnPrompt(text: string): string | undefined {
  return GROVE_OWN_PROMPTS.find((opening) => text.includes(opening.slice(0, 40)));
}

/**
 * Whether a request (its body as JSON text) may take `step`. Grove's own
 * prompts quote the task, the diff and the summary, so a step matched on
 * that text would fit them too and, when one came first, a side request
 * would take the tool call scripted for the turn. So the two never mix: a
 * request of Grove's own takes only a step whose `when` names a prompt of
 * Grove's own (else it gets the default reply), and a turn never does.
 */
function fits(step: Scripted, text: string, own: boolean): boolean {
  if (step.when === undefined) return (step.groveOwn ?? false) === own;
  return text.includes(step.when) && (step.groveOwn ?? namesGroveOwnPrompt(step.when)) === own;
}

/** Whether a step's `when` is (a long enough part of) the opening of one of Grove's own prompts. */
function namesGroveOwnPrompt(when: string): boolean {
  return GROVE_OWN_PROMPTS.some(
    (opening) => when.includes(opening) || (when.length >= 10 && opening.startsWith(when)),
  );
}

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
   * without `when` fits any request but Grove's own prompts: see `fits`).
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
    const own = groveOwnPrompt(text) !== undefined;
    const index = queue.findIndex((step) => fits(step, text, own));
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
