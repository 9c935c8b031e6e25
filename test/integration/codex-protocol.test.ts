import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CODEX_PROTOCOL_DIR, generateCodexProtocol } from '../../xtask/gen-codex-protocol.mjs';
import { realCliPath } from '../helpers/real-clis.js';

// The Codex protocol files checked in under src/infra/agent/codex/protocol/ are
// exactly what the pinned Codex generates (`npm run gen:codex-types`).

let out: string | null = null;

afterEach(() => {
  if (out) rmSync(out, { recursive: true, force: true });
  out = null;
});

describe('the checked-in Codex protocol', () => {
  it('is what the pinned Codex CLI generates', () => {
    out = mkdtempSync(join(tmpdir(), 'grove-codex-protocol-'));

    const written = generateCodexProtocol({ codex: realCliPath('codex'), out });

    expect(readdirSync(CODEX_PROTOCOL_DIR).sort()).toEqual(written);
    const stale = written.filter(
      (name) =>
        readFileSync(join(out ?? '', name), 'utf8') !==
        readFileSync(join(CODEX_PROTOCOL_DIR, name), 'utf8'),
    );
    expect(stale, 'run npm run gen:codex-types and commit the result').toEqual([]);
  });
});
