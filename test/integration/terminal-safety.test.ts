import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { git } from '../helpers/grove-env.js';
import { expectExit, fromSnapshot, reply, type Harness } from './headless-harness.js';
import { ResultSchema, ShowSchema } from './headless-schema.js';

// Nothing from an agent or a repository controls the terminal: the real
// Claude Code, scripted by the fake model server to answer, title, commit
// and name a file with escape sequences, run through the built binary with
// its output piped (as a script or `> file` gets it).

const ESC = '\x1b';
const BEL = '\x07';
/** OSC 52: write "rm -rf ~" (base64) to the clipboard. */
const OSC52 = `${ESC}]52;c;cm0gLXJmIH4=${BEL}`;
/** OSC 0: rename the terminal window. */
const OSC0 = `${ESC}]0;pwned${BEL}`;
/** Cursor up two lines, erase the line. */
const CURSOR = `${ESC}[2A${ESC}[2K`;

const SHOWN_OSC52 = '␛]52;c;cm0gLXJmIH4=␇';
const SHOWN_OSC0 = '␛]0;pwned␇';
const SHOWN_CURSOR = '␛[2A␛[2K';

/** Any C0/C1 control or DEL other than tab and newline. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const HOSTILE_FILE = `evil${OSC0}.txt`;

/** Scripts a turn whose answer, summary, title, commit message, file name and file content all carry escape sequences. */
function hostileTurn(h: Harness, prompt: string): void {
  h.server.script('anthropic', [
    { when: 'Write a title for a coding task', text: reply(`Greeting ${OSC0}title`) },
    {
      when: 'Write the git commit message for the changes',
      text: reply(`Add the greeting ${OSC0}\n\nBody ${OSC52} and\rsecret`),
    },
    {
      when: prompt,
      toolCall: { kind: 'write_file', path: HOSTILE_FILE, content: `line ${OSC52}\nplain\n` },
    },
    {
      when: prompt,
      text: JSON.stringify({
        answer: `Done ${OSC52}${OSC0}\rOVERWRITE${CURSOR} end`,
        questions: [],
        summary: { turn: `turn ${OSC0}`, session: `session ${CURSOR}` },
      }),
    },
  ]);
}

async function runHostile(
  h: Harness,
): Promise<{ stdout: string; sessionId: string; branch: string }> {
  hostileTurn(h, 'Write the evil file');
  const run = await h.grove(['run', '--output', 'json', 'Write the evil file']);
  expectExit(run, 0);
  const result = JSON.parse(run.stdout) as { sessionId: string; branch: string };
  return { stdout: run.stdout, sessionId: result.sessionId, branch: result.branch };
}

// The hostile session is made once (a real Claude Code run takes seconds);
// each test gets the world back as that run left it (fromSnapshot).
const s = fromSnapshot(runHostile);

describe('headless output carries no escape sequence', () => {
  it('grove run prints the answer with visible placeholders and no control byte', async () => {
    hostileTurn(s.h, 'Write the evil file');

    const run = await s.h.grove(['run', 'Write the evil file']);

    expectExit(run, 0);
    expect(run.stdout).not.toContain(ESC);
    expect(run.stdout).not.toMatch(CONTROL);
    expect(run.stdout).toBe(`Done ${SHOWN_OSC52}${SHOWN_OSC0}␍OVERWRITE${SHOWN_CURSOR} end\n`);
    expect(run.stderr).not.toMatch(CONTROL);
  });

  it('grove run --output json holds placeholders, not escaped control characters', () => {
    const { stdout } = s.made;

    expect(stdout).not.toMatch(CONTROL);
    expect(stdout).not.toMatch(/\\u00(1b|07|0d)/i);
    const result = ResultSchema.parse(JSON.parse(stdout));
    expect(result.answer).toContain(SHOWN_OSC52);
    expect(result.summary).toEqual({
      turn: `turn ${SHOWN_OSC0}`,
      session: `session ${SHOWN_CURSOR}`,
    });
    expect(result.files.map((f) => f.path)).toEqual([`evil${SHOWN_OSC0}.txt`]);
  });

  it('grove show prints title, transcript and summary with placeholders', async () => {
    const { sessionId } = s.made;

    const show = await s.h.grove(['show', sessionId]);

    expectExit(show, 0);
    expect(show.stdout).not.toMatch(CONTROL);
    expect(show.stdout.split('\n')[0]).toBe(`Greeting ${SHOWN_OSC0}title`);
    expect(show.stdout).toContain(`Done ${SHOWN_OSC52}${SHOWN_OSC0}␍OVERWRITE${SHOWN_CURSOR} end`);
    expect(show.stdout).toContain(`[Commit] Add the greeting ${SHOWN_OSC0}`);
    expect(show.stdout).toContain(`Summary: session ${SHOWN_CURSOR}`);
  });

  it('grove show --json and grove ls hold no control character', async () => {
    const { sessionId } = s.made;

    const show = await s.h.grove(['show', sessionId, '--json']);
    const ls = await s.h.grove(['ls']);

    expectExit(show, 0);
    expectExit(ls, 0);
    expect(show.stdout).not.toMatch(CONTROL);
    expect(show.stdout).not.toMatch(/\\u00(1b|07|0d)/i);
    expect(ShowSchema.parse(JSON.parse(show.stdout)).title).toBe(`Greeting ${SHOWN_OSC0}title`);
    expect(ls.stdout).not.toMatch(CONTROL);
    expect(ls.stdout).toContain(`Greeting ${SHOWN_OSC0}title`);
  });

  it('grove diff shows the hostile file content with placeholders', async () => {
    const { sessionId } = s.made;

    const diff = await s.h.grove(['diff', sessionId]);

    expectExit(diff, 0);
    expect(diff.stdout).not.toMatch(CONTROL);
    expect(diff.stdout).toContain(`+line ${SHOWN_OSC52}`);
  });

  it('prints rows stored before sanitizing existed with placeholders too', async () => {
    const { sessionId } = s.made;
    // An old row: what an earlier Grove stored raw.
    const db = new Database(join(s.h.world.groveHome, 'db', 'grove.db'));
    try {
      db.prepare('UPDATE session SET title = ? WHERE id = ?').run(`Old ${OSC0}`, sessionId);
      db.prepare(
        "UPDATE session_message SET content = ? WHERE session_id = ? AND kind = 'assistant_answer'",
      ).run(`Old answer ${OSC52}\rmore`, sessionId);
    } finally {
      db.close();
    }

    const show = await s.h.grove(['show', sessionId]);
    const ls = await s.h.grove(['ls']);

    expectExit(show, 0);
    expect(show.stdout).not.toMatch(CONTROL);
    expect(show.stdout).toContain(`Old ${SHOWN_OSC0}`);
    expect(show.stdout).toContain(`Old answer ${SHOWN_OSC52}␍more`);
    expect(ls.stdout).not.toMatch(CONTROL);
  });
});

describe('what Grove writes into git is clean', () => {
  it('the generated commit message has placeholders instead of control bytes', () => {
    const { branch } = s.made;

    const message = git(s.h.repo, 'log', '-1', '--format=%B', branch);

    expect(message).not.toMatch(CONTROL);
    expect(message).toBe(`Add the greeting ${SHOWN_OSC0}\n\nBody ${SHOWN_OSC52} and␍secret`);
    // The file itself is the agent's work and is committed as it is.
    expect(git(s.h.repo, 'ls-tree', '--name-only', '-z', branch).split('\0')).toContain(
      HOSTILE_FILE,
    );
  });
});
