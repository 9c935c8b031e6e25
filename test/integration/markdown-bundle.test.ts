// The shipped markdown renderer (dist/grove-markdown.cjs, built by `npm test`
// before the suite) carries only the common highlight.js languages.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/grove-env.js';

function render(markdown: string): { lines: string[]; stderr: string; stdout: string } {
  const script = `const { renderMarkdown } = require(${JSON.stringify(join(ROOT, 'dist', 'grove-markdown.cjs'))});
const lines = renderMarkdown(${JSON.stringify(markdown)}, 60);
require('node:fs').writeFileSync(3, JSON.stringify(lines));`;
  const run = spawnSync(process.execPath, ['-e', script], {
    encoding: 'utf8',
    env: { ...process.env, FORCE_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  expect(run.status).toBe(0);
  return {
    lines: JSON.parse(String(run.output[3])) as string[],
    stderr: run.stderr,
    stdout: run.stdout,
  };
}

describe('the bundled markdown renderer', () => {
  it('highlights a common language', () => {
    const { lines } = render('```ts\nconst x: number = 1;\n```\n');
    const code = lines.find((l) => l.includes('const'));
    expect(code).toContain('\u001b[34mconst\u001b[39m');
  });

  it('shows a block in a language it does not carry plainly, printing nothing', () => {
    const { lines, stderr, stdout } = render(
      '```elixir\ndefmodule Greeter do end\n```\n\n```no-such-language\nx\n```\n',
    );
    expect(lines.join('\n')).toContain('defmodule Greeter do end');
    expect(stderr).toBe('');
    expect(stdout).toBe('');
  });
});
