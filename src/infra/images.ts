import { copyFile, mkdir, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { imageMimeType } from '../domain/mentions.js';
import { loadExeca } from './exec.js';

/**
 * Images attached to prompts, stored under the session
 * (`$GROVE_HOME/images/<session>/`), so a turn (and a retry) reads a copy
 * that does not change or vanish.
 */
export interface ImageStore {
  /** Copies an image file into the session's folder; returns the stored path. Rejects in words. */
  attachFile(sessionId: string, source: string): Promise<string>;
  /** Saves the clipboard's image (PNG) into the session's folder; rejects in words when there is none or no tool. */
  fromClipboard(sessionId: string, signal: AbortSignal): Promise<string>;
}

/** The largest image Grove attaches (and sends with a prompt). */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/** The command that prints the clipboard's PNG on this system, or null. */
function clipboardCommand(env: NodeJS.ProcessEnv): [string, string[]] | null {
  if (process.platform === 'darwin') return ['pngpaste', ['-']];
  if (env['WAYLAND_DISPLAY']) return ['wl-paste', ['--no-newline', '--type', 'image/png']];
  if (env['DISPLAY']) return ['xclip', ['-selection', 'clipboard', '-t', 'image/png', '-o']];
  return null;
}

export function createImageStore(
  root: string,
  env: NodeJS.ProcessEnv = process.env,
  now: () => number = Date.now,
): ImageStore {
  const folder = async (sessionId: string): Promise<string> => {
    const dir = join(root, sessionId.replace(/[^\w-]/g, '_'));
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return dir;
  };
  return {
    async attachFile(sessionId, source) {
      const path = source.startsWith('~/') ? join(homedir(), source.slice(2)) : source;
      if (!imageMimeType(path))
        throw new Error(`${basename(path)} is not a PNG, JPEG, GIF or WebP image`);
      const info = await stat(path).catch(() => null);
      if (!info?.isFile()) throw new Error(`there is no file ${path}`);
      if (info.size > MAX_IMAGE_BYTES) throw new Error(`${basename(path)} is larger than 20 MB`);
      const target = join(await folder(sessionId), `${now()}-${basename(path)}`);
      await copyFile(path, target);
      return target;
    },
    async fromClipboard(sessionId, signal) {
      const command = clipboardCommand(env);
      if (!command)
        throw new Error(
          'no clipboard can be read here (no display); paste the image file path instead',
        );
      const { execa } = await loadExeca();
      const result = await execa(command[0], command[1], {
        env,
        extendEnv: false,
        encoding: 'buffer',
        reject: false,
        stdin: 'ignore',
        timeout: 5000,
        cancelSignal: signal,
      });
      if (result.failed && result.exitCode === undefined)
        throw new Error(`${command[0]} is not installed`);
      const bytes = result.stdout;
      // A PNG starts with \x89PNG.
      if (result.exitCode !== 0 || bytes.length < 8 || bytes[0] !== 0x89 || bytes[1] !== 0x50)
        throw new Error('the clipboard holds no image');
      if (bytes.length > MAX_IMAGE_BYTES)
        throw new Error('the clipboard image is larger than 20 MB');
      const target = join(await folder(sessionId), `${now()}-clipboard.png`);
      await writeFile(target, bytes, { mode: 0o600 });
      return target;
    },
  };
}
