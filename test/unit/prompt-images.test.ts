import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeImageBlocks, readPromptImages } from '../../src/infra/agent/prompt-images.js';

// Attached images are read for a prompt with the checks they were attached
// with (infra/images.ts): what reaches an agent, here or on a host, is an
// image file of at most 20 MB, and anything else is refused in words.

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'grove-prompt-images-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('readPromptImages', () => {
  it("gives each image's MIME type and bytes, in order", async () => {
    writeFileSync(join(dir, 'a.png'), 'png bytes');
    writeFileSync(join(dir, 'b.JPG'), 'jpeg bytes');

    const images = await readPromptImages([join(dir, 'a.png'), join(dir, 'b.JPG')]);

    expect(images).toEqual([
      { mimeType: 'image/png', data: Buffer.from('png bytes').toString('base64') },
      { mimeType: 'image/jpeg', data: Buffer.from('jpeg bytes').toString('base64') },
    ]);
  });

  it('refuses a name that is no image, a missing file, a folder and a file over 20 MB', async () => {
    writeFileSync(join(dir, 'notes.txt'), 'text');
    mkdirSync(join(dir, 'folder.png'));
    writeFileSync(join(dir, 'big.png'), '');
    truncateSync(join(dir, 'big.png'), 20 * 1024 * 1024 + 1);

    await expect(readPromptImages([join(dir, 'notes.txt')])).rejects.toThrow(
      'the attached notes.txt is not a PNG, JPEG, GIF or WebP image',
    );
    await expect(readPromptImages([join(dir, 'gone.png')])).rejects.toThrow(
      'the attached image gone.png is gone',
    );
    await expect(readPromptImages([join(dir, 'folder.png')])).rejects.toThrow(
      'the attached image folder.png is not a file',
    );
    await expect(readPromptImages([join(dir, 'big.png')])).rejects.toThrow(
      'the attached image big.png is larger than 20 MB',
    );
  });

  it('refuses a FIFO in place of an image at once instead of waiting for a writer', async () => {
    execFileSync('mkfifo', [join(dir, 'pipe.png')]);

    await expect(readPromptImages([join(dir, 'pipe.png')])).rejects.toThrow(
      'the attached image pipe.png is not a file',
    );
  });
});

describe('claudeImageBlocks', () => {
  it("is the Messages API's base64 image block", async () => {
    writeFileSync(join(dir, 'shot.webp'), 'webp bytes');

    expect(await claudeImageBlocks([join(dir, 'shot.webp')])).toEqual([
      {
        type: 'image',
        source: {
          type: 'base64',
          media_type: 'image/webp',
          data: Buffer.from('webp bytes').toString('base64'),
        },
      },
    ]);
  });
});
