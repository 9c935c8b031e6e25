import {
  DEFAULT_REPLY,
  json,
  sse,
  workdirFrom,
  type ApiHandler,
  type ScriptStep,
} from './types.js';

// Anthropic Messages API, streaming (what Claude Code speaks).

interface Tool {
  readonly name: string;
}

function toolNames(body: unknown): string[] {
  const tools = (body as { tools?: Tool[] } | null)?.tools ?? [];
  return tools.map((t) => t.name);
}

function block(
  index: number,
  start: unknown,
  deltas: readonly unknown[],
): { event: string; data: unknown }[] {
  return [
    {
      event: 'content_block_start',
      data: { type: 'content_block_start', index, content_block: start },
    },
    ...deltas.map((delta) => ({
      event: 'content_block_delta',
      data: { type: 'content_block_delta', index, delta },
    })),
    { event: 'content_block_stop', data: { type: 'content_block_stop', index } },
  ];
}

function message(
  model: string,
  blocks: { event: string; data: unknown }[],
  stopReason: string,
): { event: string; data: unknown }[] {
  return [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id: `msg_${Date.now()}`,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 120, output_tokens: 1 },
        },
      },
    },
    ...blocks,
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: 40 },
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ];
}

/** The tool Claude Code offers for structured output (--json-schema), if any. */
function structuredTool(names: readonly string[]): string | undefined {
  return names.find((n) => /structured|output/i.test(n) && !/^(Write|Read|Edit|Bash)$/.test(n));
}

type Usage = { input_tokens?: number; output_tokens?: number } | undefined;

export const anthropicHandler: ApiHandler = {
  api: 'anthropic',
  // message_start carries the input tokens; message_delta the output so far (cumulative).
  billed(payloads) {
    let inputTokens = 0;
    let outputTokens = 0;
    for (const p of payloads) {
      if (p['type'] === 'message_start')
        inputTokens += (p['message'] as { usage?: Usage } | undefined)?.usage?.input_tokens ?? 0;
      if (p['type'] === 'message_delta')
        outputTokens = (p['usage'] as Usage)?.output_tokens ?? outputTokens;
    }
    return { inputTokens, outputTokens };
  },
  matches: ({ path }) => path.startsWith('/v1/messages') || path.startsWith('/api/hello'),
  consumes: ({ method, path }) =>
    method === 'POST' && path.startsWith('/v1/messages') && !path.includes('count_tokens'),
  handle({ req, res, body, step, workdir }) {
    const path = req.url ?? '';
    if (path.startsWith('/api/hello')) return json(res, 200, { ok: true });
    if (path.includes('count_tokens')) return json(res, 200, { input_tokens: 100 });
    const model = (body as { model?: string } | null)?.model ?? 'claude-test';
    const names = toolNames(body);
    const current: ScriptStep = step ?? { text: DEFAULT_REPLY };
    if ('error' in current) {
      return json(
        res,
        current.error.status,
        current.error.body ?? {
          type: 'error',
          error: { type: 'api_error', message: `scripted ${current.error.status}` },
        },
        current.error.headers,
      );
    }
    if ('delayMs' in current) {
      setTimeout(
        () => anthropicHandler.handle({ req, res, body, step: current.then, workdir }),
        current.delayMs,
      );
      return;
    }
    if ('toolCall' in current) {
      const call = current.toolCall;
      if (call.kind === 'tool') {
        // A tool the request does not offer would be refused by the CLI: say so in the test instead.
        if (!names.includes(call.name))
          return json(res, 500, {
            type: 'error',
            error: {
              type: 'api_error',
              message: `${call.name} is not among the tools offered: ${names.join(', ')}`,
            },
          });
        return sse(
          res,
          message(
            model,
            block(0, { type: 'tool_use', id: `toolu_${Date.now()}`, name: call.name, input: {} }, [
              { type: 'input_json_delta', partial_json: JSON.stringify(call.input) },
            ]),
            'tool_use',
          ),
        );
      }
      if (call.kind === 'shell') {
        const input = { command: call.command, description: 'Run a command' };
        return sse(
          res,
          message(
            model,
            [
              ...block(0, { type: 'text', text: '' }, [
                { type: 'text_delta', text: 'I will run a command.' },
              ]),
              ...block(
                1,
                { type: 'tool_use', id: `toolu_${Date.now()}`, name: 'Bash', input: {} },
                [{ type: 'input_json_delta', partial_json: JSON.stringify(input) }],
              ),
            ],
            'tool_use',
          ),
        );
      }
      const file = `${workdirFrom(body, workdir)}/${call.path}`;
      const useWrite = names.includes('Write');
      const input = useWrite
        ? { file_path: file, content: call.content }
        : {
            command: `mkdir -p "$(dirname '${file}')" && printf '%s' '${call.content.replace(/'/g, `'\\''`)}' > '${file}'`,
            description: 'Write a file',
          };
      return sse(
        res,
        message(
          model,
          [
            ...block(0, { type: 'text', text: '' }, [
              { type: 'text_delta', text: 'I will write the file.' },
            ]),
            ...block(
              1,
              {
                type: 'tool_use',
                id: `toolu_${Date.now()}`,
                name: useWrite ? 'Write' : 'Bash',
                input: {},
              },
              [{ type: 'input_json_delta', partial_json: JSON.stringify(input) }],
            ),
          ],
          'tool_use',
        ),
      );
    }
    const structured = structuredTool(names);
    if (structured) {
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(current.text);
      } catch {
        parsed = null;
      }
      if (parsed && typeof parsed === 'object') {
        return sse(
          res,
          message(
            model,
            block(0, { type: 'tool_use', id: `toolu_${Date.now()}`, name: structured, input: {} }, [
              { type: 'input_json_delta', partial_json: JSON.stringify(parsed) },
            ]),
            'tool_use',
          ),
        );
      }
    }
    return sse(
      res,
      message(
        model,
        block(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: current.text }]),
        'end_turn',
      ),
    );
  },
};
