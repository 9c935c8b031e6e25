import type { ProviderId } from '../../domain/providers.js';
import type { AgentChannel, Agents } from '../ports.js';

/** One live channel per session (app-server transports keep their process between turns). */
export class ChannelPool {
  private readonly channels = new Map<string, AgentChannel>();

  constructor(private readonly agents: Agents) {}

  get(sessionId: string, provider: ProviderId): AgentChannel {
    const existing = this.channels.get(sessionId);
    if (existing && existing.provider === provider) return existing;
    if (existing) void existing.shutdown();
    const channel = this.agents.create(provider);
    this.channels.set(sessionId, channel);
    return channel;
  }

  async release(sessionId: string): Promise<void> {
    const channel = this.channels.get(sessionId);
    this.channels.delete(sessionId);
    await channel?.shutdown();
  }

  async shutdownAll(): Promise<void> {
    const all = [...this.channels.values()];
    this.channels.clear();
    await Promise.allSettled(all.map((channel) => channel.shutdown()));
  }
}
