// Which agent CLIs are installed, for the TUI (the composer's agents, the
// Projects tab). At start-up only PATH is looked at; the CLIs' versions,
// which only the Projects tab prints, are asked when that tab is first shown:
// asking them costs seconds of CPU for a Node-based CLI (Gemini CLI), at
// every start, for a tab most starts never show.
import type { App } from '../app.js';
import type { Agents } from '../ports.js';
import type { Tab } from '../state.js';

export class AgentLookup {
  private versionsAsked = false;

  constructor(
    private readonly app: App,
    private readonly agents: Pick<Agents, 'detect'>,
  ) {}

  /** Finds the CLIs on PATH (and asks their versions when Grove starts on the Projects tab). */
  start(): void {
    this.app.task('Looking for agent CLIs', async () => {
      this.app.emit({ type: 'agentsDetected', agents: await this.agents.detect(false) });
      this.tabShown(this.app.state.tab);
    });
  }

  /** A tab is shown: the Projects tab's versions are asked, once. */
  tabShown(tab: Tab): void {
    if (tab !== 'projects' || this.versionsAsked) return;
    this.versionsAsked = true;
    this.app.task('Asking the agent CLIs their versions', async () => {
      this.app.emit({ type: 'agentsDetected', agents: await this.agents.detect(true) });
    });
  }
}
