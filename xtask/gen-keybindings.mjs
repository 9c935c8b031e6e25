// Regenerates docs/usage/keybindings.md from the key-binding tables.
import { build } from 'esbuild';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = await mkdtemp(join(tmpdir(), 'grove-keys-'));
const out = join(dir, 'keymap-doc.mjs');
await build({
  entryPoints: ['src/domain/keymap-doc.ts'],
  outfile: out,
  bundle: true,
  format: 'esm',
  platform: 'node',
  logLevel: 'warning',
});
const { keymapMarkdown } = await import(pathToFileURL(out).href);
await writeFile('docs/usage/keybindings.md', keymapMarkdown());
await rm(dir, { recursive: true, force: true });
console.log('docs/usage/keybindings.md updated');
