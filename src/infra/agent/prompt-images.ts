import { readFile } from 'node:fs/promises';
import { imageMimeType } from '../../domain/mentions.js';

/** An ACP image content block: base64 data and its MIME type. */
export interface AcpImageBlock {
  readonly type: 'image';
  readonly mimeType: string;
  readonly data: string;
}

/** The attached images as ACP `image` content blocks (Gemini CLI advertises promptCapabilities.image). */
export async function acpImageBlocks(paths: readonly string[]): Promise<AcpImageBlock[]> {
  return Promise.all(
    paths.map(async (path) => ({
      type: 'image' as const,
      mimeType: imageMimeType(path) ?? 'image/png',
      data: (await readFile(path)).toString('base64'),
    })),
  );
}

/** The attached images as `data:` URLs (Codex's `image` input items). */
export async function imageDataUrls(paths: readonly string[]): Promise<string[]> {
  return (await acpImageBlocks(paths)).map(
    (block) => `data:${block.mimeType};base64,${block.data}`,
  );
}
