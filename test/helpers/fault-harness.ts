// A Grove process without a screen for the fault-injection tests, for work
// that has no headless command: it starts the app core exactly as Grove does
// (src/compose.ts openInfra, recovery first, then App and Controller; see
// grove-app.ts) and runs one action, then exits. Bundled and run by
// faults.ts (bundleHarness, startHarness); the test kills it mid-way.
//   node fault-harness.mjs sync <repo>   presses `s` (sync the main checkout) and waits for the result
import process from 'node:process';
import { openInfra } from '../../src/compose.js';
import { syncFinishedPopup, syncPlanPopup, syncStoppedPopup } from '../../src/app/popups.js';
import type { Popup } from '../../src/app/state.js';
import { startGroveApp } from './grove-app.js';

const [action, repo] = process.argv.slice(2);
if (!repo || action !== 'sync') {
  process.stderr.write('usage: fault-harness sync <repo>\n');
  process.exit(2);
}
const infra = openInfra(process.env);
const grove = await startGroveApp(infra, repo);
const text = (popup: Popup): string =>
  popup.kind === 'info' || popup.kind === 'confirm'
    ? `${popup.title}\n${popup.lines.join('\n')}`
    : '';
const ended = new Promise<string>((resolve) => {
  grove.app.subscribe((event) => {
    // `s` asks first (what would be pushed where): answer yes. The popups are the
    // reducer's wording for the facts the sync reports (src/app/popups.ts).
    if (event.type === 'syncPlanned') {
      const asked = syncPlanPopup(event.plan);
      if (asked.kind === 'confirm')
        grove.controller.confirmSync(event.plan.branch, event.plan.head);
      else resolve(text(asked));
    }
    if (event.type === 'syncFinished') resolve(text(syncFinishedPopup(event.report)));
    if (event.type === 'syncStopped') resolve(text(syncStoppedPopup(event.reason)));
  });
});
grove.controller.syncMain();
process.stdout.write(`${await ended}\n`);
await grove.controller.shutdown();
await infra.db.close();
process.exit(0);
