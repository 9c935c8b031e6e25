import {
  DEFAULT_REPLY,
  json,
  sse,
  workdirFrom,
  type ApiHandler,
  type ScriptStep,
} from './types.js';

// OpenAI Responses API, streaming (what Codex speaks with wire_api="responses").

function toolNames(body: unknown): string[] {
  const tools = (body as { tools?: { name?: string; type?: string }[] } | null)?.tools ?? [];
  return tools.map((t) => t.name ?? t.type ?? '');
}

const usage = {
  input_tokens: 100,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 20,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 120,
};

function respond(
  res: Parameters<ApiHandler['handle']>[0]['res'],
  item: Record<string, unknown>,
  deltas: readonly string[] = [],
): void {
  const id = `resp_${Date.now()}`;
  const events: { event: string; data: unknown }[] = [
    {
      event: 'response.created',
      data: {
        type: 'response.created',
        response: { id, object: 'response', status: 'in_progress', output: [] },
      },
    },
    {
      event: 'response.output_item.added',
      data: {
        type: 'response.output_item.added',
        output_index: 0,
        item: { ...item, status: 'in_progress' },
      },
    },
    ...deltas.map((delta) => ({
      event: 'response.output_text.delta',
      data: {
        type: 'response.output_text.delta',
        output_index: 0,
        content_index: 0,
        item_id: item['id'],
        delta,
      },
    })),
    {
      event: 'response.output_item.done',
      data: {
        type: 'response.output_item.done',
        output_index: 0,
        item: { ...item, status: 'completed' },
      },
    },
    {
      event: 'response.completed',
      data: {
        type: 'response.completed',
        response: { id, object: 'response', status: 'completed', output: [item], usage },
      },
    },
  ];
  sse(res, events);
}

export const openaiHandler: ApiHandler = {
  api: 'openai',
  // response.completed carries the response's usage.
  billed(payloads) {
    let inputTokens = 0;
    let outputTokens = 0;
    for (const p of payloads) {
      if (p['type'] !== 'response.completed') continue;
      const u = (p['response'] as { usage?: typeof usage } | undefined)?.usage;
      inputTokens += u?.input_tokens ?? 0;
      outputTokens += u?.output_tokens ?? 0;
    }
    return { inputTokens, outputTokens };
  },
  matches: ({ path }) => path.startsWith('/v1/responses') || path.startsWith('/v1/models'),
  consumes: ({ method, path }) => method === 'POST' && path.startsWith('/v1/responses'),
  handle({ req, res, body, step, workdir }) {
    if ((req.url ?? '').startsWith('/v1/models'))
      return json(res, 200, { object: 'list', data: [] });
    const current: ScriptStep = step ?? { text: DEFAULT_REPLY };
    if ('error' in current)
      return json(
        res,
        current.error.status,
        current.error.body ?? {
          error: { message: `scripted ${current.error.status}`, type: 'api_error' },
        },
        current.error.headers,
      );
    if ('delayMs' in current) {
      setTimeout(
        () => openaiHandler.handle({ req, res, body, step: current.then, workdir }),
        current.delayMs,
      );
      return;
    }
    if ('toolCall' in current) {
      if (current.toolCall.kind === 'tool')
        throw new Error('the fake OpenAI API scripts no named tool calls');
      const names = toolNames(body);
      const id = `call_${Date.now()}`;
      if (current.toolCall.kind === 'shell') {
        return respond(res, {
          type: 'function_call',
          id: `fc_${Date.now()}`,
          call_id: id,
          name: 'exec_command',
          arguments: JSON.stringify({
            cmd: current.toolCall.command,
            workdir: workdirFrom(body, workdir),
            // As a model asks for a short command: wait for its end (Codex's default
            // is 10 s, which a loaded CI machine can pass while the nested sandbox starts).
            yield_time_ms: 30_000,
            ...(current.toolCall.escalate
              ? {
                  sandbox_permissions: 'require_escalated',
                  justification: 'Write outside the workspace?',
                }
              : {}),
          }),
        });
      }
      if (names.includes('apply_patch')) {
        const patch = `*** Begin Patch\n*** Add File: ${current.toolCall.path}\n${current.toolCall.content
          .replace(/\n$/, '')
          .split('\n')
          .map((l) => `+${l}`)
          .join('\n')}\n*** End Patch`;
        return respond(res, {
          type: 'custom_tool_call',
          id: `ctc_${Date.now()}`,
          call_id: id,
          name: 'apply_patch',
          input: patch,
        });
      }
      const file = `${workdirFrom(body, workdir)}/${current.toolCall.path}`;
      const cmd = `printf '%s' '${current.toolCall.content.replace(/'/g, `'\\''`)}' > '${file}'`;
      return respond(res, {
        type: 'function_call',
        id: `fc_${Date.now()}`,
        call_id: id,
        name: 'exec_command',
        arguments: JSON.stringify({ cmd, workdir: workdirFrom(body, workdir) }),
      });
    }
    const text = current.text;
    return respond(
      res,
      {
        type: 'message',
        id: `msg_${Date.now()}`,
        role: 'assistant',
        content: [{ type: 'output_text', text, annotations: [] }],
      },
      [text],
    );
  },
};
