import type { ProviderId } from '../../domain/providers.js';
import { assertNever } from '../../domain/session-status.js';
import type { AgentChannel, ChannelOptions } from './channel.js';
import { createClaudeChannel } from './claude.js';
import { createCodexChannel } from './codex.js';
import { createGeminiChannel } from './gemini.js';

/** One strategy per provider; adding a provider adds a case here and a file beside it. */
export function createChannel(provider: ProviderId, options: ChannelOptions): AgentChannel {
  switch (provider) {
    case 'claude':
      return createClaudeChannel(options);
    case 'codex':
      return createCodexChannel(options);
    case 'gemini':
      return createGeminiChannel(options);
    default:
      return assertNever(provider);
  }
}
