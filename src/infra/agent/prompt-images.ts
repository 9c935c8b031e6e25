import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { imageMimeType } from '../../domain/mentions.js';
import { MAX_IMAGE_BYTES } from '../images.js';

/** An attached image read for a prompt: its MIME type and its bytes in base64. */
export interface PromptImage {
  readonly mimeType: string;
  readonly data: string;
}

/** An ACP image content block: base64 data and its MIME type. */
export interface AcpImageBlock extends PromptImage {
  readonly type: 'image';
}

/**
 * Reads the attached images for a prompt, with the checks they had when
 * attached (infra/images.ts): a PNG, JPEG, GIF or WebP file name, a regular
 * file, at most 20 MB. The size is read from the opened file, so a file
 * swapped or grown since it was attached cannot send more. Rejects in words.
 */
export async function readPromptImages(paths: readonly string[]): Promise<PromptImage[]> {
  const images: PromptImage[] = [];
  for (const path of paths) images.push(await readPromptImage(path));
  return images;
}

async function readPromptImage(path: string): Promise<PromptImage> {
  const name = basename(path);
  const mimeType = imageMimeType(path);
  if (!mimeType) throw new Error(`the attached ${name} is not a PNG, JPEG, GIF or WebP image`);
  // Non-blocking: a FIFO put in the image's place is refused below instead of waited on for ever.
  const file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => null);
  if (!file) throw new Error(`the attached image ${name} is gone (${path})`);
  try {
    const info = await file.stat();
    if (!info.isFile()) throw new Error(`the attached image ${name} is not a file (${path})`);
    if (info.size > MAX_IMAGE_BYTES)
      throw new Error(`the attached image ${name} is larger than 20 MB`);
    const bytes = await file.readFile();
    if (bytes.length > MAX_IMAGE_BYTES)
      throw new Error(`the attached image ${name} is larger than 20 MB`);
    return { mimeType, data: bytes.toString('base64') };
  } finally {
    await file.close();
  }
}

/** The attached images as ACP `image` content blocks (Gemini CLI advertises promptCapabilities.image). */
export async function acpImageBlocks(paths: readonly string[]): Promise<AcpImageBlock[]> {
  return (await readPromptImages(paths)).map((image) => ({ type: 'image' as const, ...image }));
}

/** The attached images as `data:` URLs (Codex's `image` input items). */
export async function imageDataUrls(paths: readonly string[]): Promise<string[]> {
  return (await readPromptImages(paths)).map(
    (image) => `data:${image.mimeType};base64,${image.data}`,
  );
}

/** The attached images as Claude Code's stream-json `image` content blocks (the Messages API's base64 source). */
export async function claudeImageBlocks(paths: readonly string[]): Promise<ClaudeImageBlock[]> {
  return (await readPromptImages(paths)).map((image) => ({
    type: 'image' as const,
    source: { type: 'base64' as const, media_type: image.mimeType, data: image.data },
  }));
}

/** An image block of a stream-json `user` message. */
export interface ClaudeImageBlock {
  readonly type: 'image';
  readonly source: { readonly type: 'base64'; readonly media_type: string; readonly data: string };
}
