import { createInterface } from 'node:readline';

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

type Handler = (params: unknown) => unknown;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** A process's stdio as the peer uses it: a local child's, or a run's on a host (remote-server.ts). */
export interface RpcStreams {
  readonly stdin: NodeJS.WritableStream;
  readonly stdout: NodeJS.ReadableStream;
}

/**
 * A JSON-RPC peer over a process's stdio, one JSON object per line. Works with
 * and without the "jsonrpc":"2.0" field (Codex's app-server omits it).
 */
export class JsonRpcPeer {
  private nextId = 1;
  private readonly pending = new Map<number | string, Pending>();
  private readonly notificationHandlers = new Map<string, (params: unknown) => void>();
  private readonly requestHandlers = new Map<string, Handler>();
  private closedError: Error | null = null;
  private unhandled: (kind: 'notification' | 'request', method: string) => void = () => {};

  constructor(
    private readonly child: RpcStreams,
    private readonly withVersion: boolean,
  ) {
    const reader = createInterface({ input: child.stdout, crlfDelay: Infinity });
    reader.on('line', (line) => this.receive(line));
  }

  /** Whether the process's stdin can take no more (a local child's was destroyed). */
  private stdinGone(): boolean {
    const stdin = this.child.stdin as NodeJS.WritableStream & { destroyed?: boolean };
    return stdin.destroyed === true;
  }

  /** Rejects everything still waiting (the process died). */
  close(error: Error): void {
    if (this.closedError) return;
    this.closedError = error;
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }

  onNotification(method: string, handler: (params: unknown) => void): void {
    this.notificationHandlers.set(method, handler);
  }

  onRequest(method: string, handler: Handler): void {
    this.requestHandlers.set(method, handler);
  }

  /** Told of each notification or request no handler is registered for. */
  onUnhandled(handler: (kind: 'notification' | 'request', method: string) => void): void {
    this.unhandled = handler;
  }

  request(method: string, params: unknown): Promise<unknown> {
    if (this.closedError) return Promise.reject(this.closedError);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.send({ id, method, params });
    });
  }

  notify(method: string, params?: unknown): void {
    this.send(params === undefined ? { method } : { method, params });
  }

  private send(message: Record<string, unknown>): void {
    if (this.closedError || this.stdinGone()) return;
    this.child.stdin.write(
      `${JSON.stringify(this.withVersion ? { jsonrpc: '2.0', ...message } : message)}\n`,
    );
  }

  private receive(line: string): void {
    const trimmed = line.trim();
    if (!trimmed.startsWith('{')) return;
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(trimmed) as Record<string, unknown>;
    } catch {
      return;
    }
    const id = message['id'];
    const method = typeof message['method'] === 'string' ? message['method'] : null;
    if (method && id !== undefined && id !== null) {
      void this.answer(id as number | string, method, message['params']);
      return;
    }
    if (method) {
      const handler = this.notificationHandlers.get(method);
      if (handler) handler(message['params']);
      else this.unhandled('notification', method);
      return;
    }
    if (id === undefined || id === null) return;
    const pending = this.pending.get(id as number | string);
    if (!pending) return;
    this.pending.delete(id as number | string);
    const error = message['error'] as
      { code?: number; message?: string; data?: unknown } | undefined;
    if (error) pending.reject(new RpcError(error.code ?? -1, error.message ?? 'error', error.data));
    else pending.resolve(message['result']);
  }

  private async answer(id: number | string, method: string, params: unknown): Promise<void> {
    const handler = this.requestHandlers.get(method);
    if (!handler) {
      this.unhandled('request', method);
      this.send({ id, error: { code: -32601, message: `Method not found: ${method}` } });
      return;
    }
    try {
      this.send({ id, result: await handler(params) });
    } catch (error) {
      this.send({
        id,
        error: { code: -32603, message: error instanceof Error ? error.message : String(error) },
      });
    }
  }
}
