// A second Grove process for worker tests (bundled and run with node): opens
// Grove's infrastructure from the environment like Grove does, sends one
// prompt to an existing session, and keeps running until it is killed.
import { openInfra } from '../../src/compose.js';
import { startGroveApp } from './grove-app.js';

const [repo, sessionId, prompt] = process.argv.slice(2);
if (!repo || !sessionId || !prompt) {
  process.stderr.write('usage: worker-driver REPO SESSION PROMPT\n');
  process.exit(2);
}
const infra = openInfra(process.env);
const { controller } = await startGroveApp(infra, repo);
const refused = await controller.submitPrompt(sessionId, prompt);
process.stdout.write(`${refused ?? 'submitted'}\n`);
setInterval(() => {}, 1 << 30);
