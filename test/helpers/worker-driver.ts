// A second Grove process for worker tests (bundled and run with node): opens
// Grove's infrastructure from the environment like Grove does, sends one
// prompt (or several: the later ones queue behind the first) to an existing
// session, and keeps running until it is killed.
import { openInfra } from '../../src/compose.js';
import { startGroveApp } from './grove-app.js';

const [repo, sessionId, ...prompts] = process.argv.slice(2);
if (!repo || !sessionId || prompts.length === 0) {
  process.stderr.write('usage: worker-driver REPO SESSION PROMPT [PROMPT...]\n');
  process.exit(2);
}
const infra = openInfra(process.env);
const { controller } = await startGroveApp(infra, repo);
let refused: string | null = null;
for (const prompt of prompts) refused ??= await controller.submitPrompt(sessionId, prompt);
process.stdout.write(`${refused ?? 'submitted'}\n`);
setInterval(() => {}, 1 << 30);
