import type { Plugin } from 'esbuild';

export interface DependencyPatch {
  readonly name: string;
  readonly filter: RegExp;
  readonly replacements: readonly (readonly [string, string])[];
}
export function patch(
  name: string,
  filter: RegExp,
  replacements: readonly (readonly [string, string])[],
): DependencyPatch;
export const dependencyPatches: Plugin[];
export const dependencyPatchesAllUsed: Plugin[];
export function patchPlugin(
  patches: readonly DependencyPatch[],
  options: { readonly everyPatchUsed: boolean },
): Plugin;
