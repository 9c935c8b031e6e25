// What a grove mcp tool returns: text the client reads, never an escape
// sequence, and a failure as the tool's error rather than the server's.
import { sanitizeText } from '../domain/sanitize.js';

export type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean };

export function text(value: unknown): ToolResult {
  const body = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  // What agents wrote reaches the client without control characters or escape sequences.
  return { content: [{ type: 'text', text: sanitizeText(body) }] };
}

export function failure(error: unknown): ToolResult {
  const message = error instanceof Error ? error.message : String(error);
  return { content: [{ type: 'text', text: sanitizeText(message) }], isError: true };
}

/** Runs a tool's work; a failure becomes the tool's error, never the server's. */
export async function tool(work: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await work();
  } catch (error) {
    return failure(error);
  }
}
