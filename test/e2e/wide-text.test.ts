import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { agentWorldEnv, makeRepo, newSession, startGrove } from '../helpers/grove-env.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { replyWith, sameSummary } from '../helpers/fake-model/reply.js';

// A person writes the task in Chinese: the built Grove in a real terminal
// (tmux measures a CJK character as two cells, as every terminal does)
// keeps the list's columns in place, and shows the prompt and the markdown
// answer whole, wrapped to the screen.

const TITLE = '修复登录页面的错误提示并锁定账户以后发送邮件通知';
const PROMPT =
  '请把登录页面的错误提示改成中文，并且在密码错误三次以后锁定账户十五分钟，同时给用户发送一封邮件通知他们账户已被锁定';
const ANSWER =
  '已经完成：登录页面的错误提示现在是中文的，密码错误三次以后账户会被锁定十五分钟，并且会给用户发送一封邮件通知。';

const reply = replyWith(sameSummary);

/** Where `word` starts on `line`, in cells. */
const cellOf = (line: string, word: string): number =>
  stringWidth(line.slice(0, line.indexOf(word)));

const compact = (text: string): string => text.replace(/\s+/g, '');

const e2e = setUpE2eWorld();

describe('text in Chinese', () => {
  it('keeps the list in columns and shows the prompt and the answer whole at 80 columns', async () => {
    e2e.server.script('anthropic', [
      { when: 'Write a title for a coding task', text: reply(TITLE) },
      { when: 'Write the git commit message for the changes', text: reply('Lock accounts') },
      { when: '请把登录页面', text: reply(`## 完成\n\n${ANSWER}`) },
    ]);
    const repo = makeRepo(e2e.world);
    e2e.term = await startGrove(e2e.world, repo, {
      env: agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home)),
      columns: 80,
      rows: 24,
    });
    const t = e2e.term;
    await t.waitFor('No sessions yet.');

    await newSession(t, PROMPT);
    await t.waitFor(ANSWER.slice(0, 8), 30_000);
    await t.keys('Escape');
    const list = await t.waitFor(/修复登录.*Review/, 15_000);
    const lines = list.split('\n');
    const header = lines.find((line) => line.includes('Status')) ?? '';
    const row = lines.find((line) => line.includes('修复登录')) ?? '';
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(80);
    expect(cellOf(row, 'Review')).toBe(cellOf(header, 'Status'));
    expect(row).toMatch(/Review\s+\d+s/);

    // Tall enough for the whole transcript: the view opens at its end.
    await t.resize(80, 40);
    await t.keys('Enter');
    const view = await t.waitFor(ANSWER.slice(-8), 10_000);
    for (const line of view.split('\n')) expect(stringWidth(line)).toBeLessThanOrEqual(80);
    expect(compact(view)).toContain(compact(PROMPT));
    expect(compact(view)).toContain(compact(ANSWER));
  });
});
