import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DEFAULT_PRICES, PriceFile, defaultPriceFile, type PriceTable } from '../domain/budget.js';

export interface LoadedPrices {
  readonly prices: PriceTable;
  /** Why the file could not be used (the example prices apply then), or null. */
  readonly error: string | null;
}

/**
 * The price table for money budgets, from `path` (GROVE_HOME/prices.json).
 * A missing file is written with the example prices for the person to edit;
 * a file that does not parse is left alone and the example prices apply,
 * with the reason in `error`.
 */
export async function loadPrices(path: string): Promise<LoadedPrices> {
  if (!existsSync(path)) {
    try {
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      await writeFile(path, defaultPriceFile(), { mode: 0o600, flag: 'wx' });
    } catch {
      // Written by another Grove at the same moment, or not writable: the defaults apply.
    }
    return { prices: DEFAULT_PRICES, error: null };
  }
  try {
    const parsed = PriceFile.safeParse(JSON.parse(await readFile(path, 'utf8')));
    if (!parsed.success)
      return {
        prices: DEFAULT_PRICES,
        error: `${path}: ${parsed.error.issues[0]?.message ?? 'not a price table'} (the example prices apply)`,
      };
    return { prices: parsed.data.models, error: null };
  } catch (error) {
    return {
      prices: DEFAULT_PRICES,
      error: `${path}: ${error instanceof Error ? error.message : String(error)} (the example prices apply)`,
    };
  }
}
