import type { Plugin } from 'esbuild';

export function patch(
  name: string,
  filter: RegExp,
  replacements: readonly (readonly [string, string])[],
): Plugin;
export const dependencyPatches: Plugin[];
