import { Writable } from 'node:stream';
import { sanitizeText } from '../domain/sanitize.js';

/**
 * A stream that writes everything to `target` sanitized: headless commands
 * print no colours of their own, so their stdout and stderr carry no escape
 * sequence or control character at all (newlines and tabs aside), whatever
 * an agent, a file name or an old stored row holds. Writes pass through
 * synchronously, in order.
 */
export function sanitizedOutput(target: NodeJS.WritableStream): NodeJS.WritableStream {
  return new Writable({
    decodeStrings: false,
    write(chunk: unknown, _encoding, callback) {
      const text =
        typeof chunk === 'string'
          ? chunk
          : Buffer.isBuffer(chunk)
            ? chunk.toString('utf8')
            : String(chunk);
      target.write(sanitizeText(text));
      callback();
    },
  });
}
