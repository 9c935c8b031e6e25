import { describe, expect, it } from 'vitest';
import type { SessionStatus } from '../../src/domain/session-status.js';
import { toolProgress } from '../../src/infra/agent/claude/claude.js';
import { appState, renderFrame } from '../helpers/render.js';
import { makeSession } from '../helpers/session-factory.js';

// The progress line of a working session, in words a person understands:
// never a status's enum name or the name of a CLI's internal tool.

function progressLine(status: SessionStatus, progress?: string): string {
  const session = makeSession(status, { id: 's-w', title: 'Add rate limiting' });
  const frame = renderFrame(
    appState({
      sessions: [session],
      selectedSessionId: 's-w',
      transcripts: { 's-w': [] },
      progress: progress === undefined ? {} : { 's-w': progress },
      mode: { kind: 'session', sessionId: 's-w', scrollBack: 0, composer: null, question: null },
    }),
  );
  // The progress line is the last line of the transcript window: spinner, words, timer.
  return (
    frame.lines.find((line) => /^\s*\S \S.*\s{2}\d+[smh]/.test(line) && !line.includes('[')) ?? ''
  );
}

describe('the progress line of a working session', () => {
  it.each([
    ['InProgress', 'Working…'],
    ['AgentReview', 'Reviewing…'],
    ['Rebasing', 'Rebasing…'],
    ['Merging', 'Merging…'],
  ] as const)('says %s as "%s" before the agent reports anything', (status, words) => {
    const line = progressLine(status);

    expect(line).toContain(`${words}  `);
    expect(line).not.toMatch(/InProgress|AgentReview/);
  });

  it("shows the agent's own progress when there is some", () => {
    expect(progressLine('InProgress', 'Running: npm test')).toContain('Running: npm test');
  });
});

describe("Claude Code's tool calls as progress", () => {
  it('says the structured answer is being written, not "Using StructuredOutput"', () => {
    expect(toolProgress('StructuredOutput', { answer: 'done', questions: [] })).toBe(
      'Writing the answer',
    );
  });

  it('names an MCP tool by its server and tool', () => {
    expect(toolProgress('mcp__github__get_issue', {})).toBe('Using github/get_issue');
  });

  it('keeps the words for the tools it knows', () => {
    expect(toolProgress('Edit', { file_path: '/w/src/app.ts' }, '/w')).toBe('Editing src/app.ts');
    expect(toolProgress('Bash', { command: 'npm test' })).toBe('Running a command');
  });
});
