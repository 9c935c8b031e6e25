import {
  DEFAULT_REPLY,
  json,
  sse,
  workdirFrom,
  type ApiHandler,
  type ScriptStep,
} from './types.js';

// Gemini API: streamGenerateContent (SSE) for turns, generateContent for
// auxiliary JSON calls, countTokens.

const usageMetadata = { promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 };

function candidate(parts: readonly unknown[], model: string): unknown {
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata,
    modelVersion: model,
    responseId: `r${Date.now()}`,
  };
}

export const geminiHandler: ApiHandler = {
  api: 'gemini',
  // Each chunk's usageMetadata is the response's so far: the last one is what it billed.
  billed(payloads) {
    let last: typeof usageMetadata | undefined;
    for (const p of payloads)
      if (p['usageMetadata']) last = p['usageMetadata'] as typeof usageMetadata;
    return {
      inputTokens: last?.promptTokenCount ?? 0,
      outputTokens: last?.candidatesTokenCount ?? 0,
    };
  },
  matches: ({ path }) => path.startsWith('/v1beta/models/'),
  consumes: ({ path }) => path.includes(':streamGenerateContent'),
  handle({ req, res, body, step, workdir }) {
    const path = req.url ?? '';
    const model = /models\/([^:]+):/.exec(path)?.[1] ?? 'gemini-test';
    if (path.includes(':countTokens')) return json(res, 200, { totalTokens: 100 });
    if (path.includes(':generateContent')) {
      // Auxiliary JSON calls (router, next-speaker checks): a schema-shaped default.
      const schema = JSON.stringify(
        (body as { generationConfig?: unknown } | null)?.generationConfig ?? {},
      );
      const text = schema.includes('complexity')
        ? '{"complexity_reasoning":"simple","complexity_score":1}'
        : schema.includes('next_speaker')
          ? '{"reasoning":"done","next_speaker":"user"}'
          : '{}';
      return json(res, 200, candidate([{ text }], model));
    }
    const current: ScriptStep = step ?? { text: DEFAULT_REPLY };
    if ('error' in current)
      return json(
        res,
        current.error.status,
        current.error.body ?? {
          error: {
            code: current.error.status,
            message: `scripted ${current.error.status}`,
            status: 'UNAVAILABLE',
          },
        },
        current.error.headers,
      );
    if ('delayMs' in current) {
      setTimeout(
        () => geminiHandler.handle({ req, res, body, step: current.then, workdir }),
        current.delayMs,
      );
      return;
    }
    if ('toolCall' in current) {
      const call = current.toolCall;
      if (call.kind === 'tool') throw new Error('the fake Gemini API scripts no named tool calls');
      if (call.kind === 'shell') {
        return sse(
          res,
          [
            {
              data: candidate(
                [
                  { text: 'I will run a command.' },
                  {
                    functionCall: {
                      name: 'run_shell_command',
                      args: { command: call.command, description: 'Run a command' },
                    },
                  },
                ],
                model,
              ),
            },
          ],
          '\r\n\r\n',
        );
      }
      const file = `${workdirFrom(body, workdir)}/${call.path}`;
      return sse(
        res,
        [
          {
            data: candidate(
              [
                { text: 'I will write the file.' },
                {
                  functionCall: {
                    name: 'write_file',
                    args: { file_path: file, content: call.content },
                  },
                },
              ],
              model,
            ),
          },
        ],
        '\r\n\r\n',
      );
    }
    return sse(res, [{ data: candidate([{ text: current.text }], model) }], '\r\n\r\n');
  },
};
