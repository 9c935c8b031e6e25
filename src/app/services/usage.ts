import type { SessionUsageRole, Tokens } from '../../domain/usage-roles.js';
import type { Store } from '../ports.js';

// Every model request Grove causes for a session is counted here: the
// session's total (its header figure) and its usage by model and role (what
// `grove show`, the session view and the budgets read).

/** What one call spent, and the part of it a protocol repair round took (already in the totals). */
export interface CallTokens extends Tokens {
  readonly repair?: Tokens | null;
}

/**
 * Counts a call for the session in `role`; its repair round, if any, is
 * counted apart as 'repair' (same model). `store` may be a transaction.
 */
export async function countUsage(
  store: Pick<Store, 'sessions' | 'usage'>,
  sessionId: string,
  model: string,
  role: SessionUsageRole,
  call: CallTokens,
): Promise<void> {
  const repair = call.repair ?? null;
  const own = {
    inputTokens: Math.max(0, call.inputTokens - (repair?.inputTokens ?? 0)),
    outputTokens: Math.max(0, call.outputTokens - (repair?.outputTokens ?? 0)),
  };
  await store.sessions.addTokens(sessionId, call.inputTokens, call.outputTokens);
  await store.usage.add(sessionId, model, role, own.inputTokens, own.outputTokens);
  if (repair)
    await store.usage.add(sessionId, model, 'repair', repair.inputTokens, repair.outputTokens);
}

/**
 * What a failed call still spent, when the error says so (a reply that was
 * unreadable even after its repair round: both requests were billed).
 */
export function spentBy(error: unknown): CallTokens | null {
  if (typeof error !== 'object' || error === null || !('spent' in error)) return null;
  const spent = error.spent as Partial<CallTokens> | null;
  if (typeof spent?.inputTokens !== 'number' || typeof spent.outputTokens !== 'number') return null;
  return {
    inputTokens: spent.inputTokens,
    outputTokens: spent.outputTokens,
    repair: spent.repair ?? null,
  };
}
