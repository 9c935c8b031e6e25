import type { AppEvent } from '../app/events.js';
import type { OutputFormat } from './args.js';
import type { HeadlessContext } from './headless.js';

// What a headless turn shows while it runs: progress lines on stderr, or
// stream-json lines on stdout (`--output stream-json`).

/** Turns app events into stderr progress lines or stream-json lines. */
export function eventPrinter(
  ctx: HeadlessContext,
  sessionId: string,
  output: OutputFormat,
): (event: AppEvent) => void {
  let lastProgress = '';
  return (event) => {
    if (output === 'stream-json') {
      const line = streamEvent(event, sessionId);
      if (line) ctx.io.stdout.write(`${JSON.stringify(line)}\n`);
      return;
    }
    if (
      event.type === 'progress' &&
      event.sessionId === sessionId &&
      event.text &&
      event.text !== lastProgress
    ) {
      lastProgress = event.text;
      ctx.progress(`… ${event.text}`);
    } else if (event.type === 'transcriptAppended' && event.sessionId === sessionId) {
      for (const entry of event.entries) {
        if (entry.kind === 'notice' || entry.kind === 'output') ctx.progress(entry.content);
        // A tool call, folded to its summary line.
        else if (entry.kind === 'tool') ctx.progress(`  ${entry.content.split('\n')[0] ?? ''}`);
      }
    }
  };
}

function streamEvent(event: AppEvent, sessionId: string): Record<string, unknown> | null {
  switch (event.type) {
    case 'progress':
      return event.sessionId === sessionId && event.text
        ? { type: 'progress', text: event.text }
        : null;
    case 'transcriptAppended':
      return event.sessionId === sessionId
        ? {
            type: 'transcript',
            entries: event.entries.map((e) => ({ kind: e.kind, content: e.content })),
          }
        : null;
    case 'sessionUpdated':
      return event.session.id === sessionId
        ? { type: 'status', status: event.session.status, title: event.session.title }
        : null;
    default:
      return null;
  }
}
