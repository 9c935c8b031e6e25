import { Box } from 'ink';
import type { AppState } from '../app/state.js';
import { currentModeName, openSession, sessionById } from '../app/state.js';
import type { ModeName } from '../domain/keymap.js';
import { Footer } from './components/Footer.js';
import { PopupView } from './components/Popup.js';
import { footerBindings } from './popup-layout.js';
import { StatusBar } from './components/StatusBar.js';
import { TabBar } from './components/TabBar.js';
import { DiffPage } from './pages/DiffPage.js';
import { ProjectsPage } from './pages/ProjectsPage.js';
import { SessionsPage } from './pages/SessionsPage.js';
import { SessionView } from './pages/SessionView.js';
import { sessionPageHeight, sessionPanelRows } from './session-layout.js';
import { SettingsPage } from './pages/SettingsPage.js';
import { InboxPage } from './pages/InboxPage.js';
import { DiskPage } from './pages/DiskPage.js';
import type { Theme } from './theme.js';

function Page({ state, theme, height }: { state: AppState; theme: Theme; height: number }) {
  const mode = state.mode;
  if (state.inboxView) return <InboxPage state={state} theme={theme} height={height} />;
  if (state.diskView) return <DiskPage state={state} theme={theme} height={height} />;
  if (mode.kind === 'session') {
    const session = sessionById(state, mode.sessionId);
    if (session)
      return <SessionView state={state} theme={theme} height={height} session={session} />;
  }
  if (mode.kind === 'diff') {
    const session = sessionById(state, mode.sessionId);
    if (session) return <DiffPage state={state} theme={theme} height={height} session={session} />;
  }
  switch (state.tab) {
    case 'projects':
      return <ProjectsPage state={state} theme={theme} height={height} />;
    case 'settings':
      return <SettingsPage state={state} theme={theme} height={height} />;
    case 'sessions':
    default:
      return <SessionsPage state={state} theme={theme} height={height} />;
  }
}

/** The whole screen: exactly as tall as the terminal, never taller. */
export function Root({
  state,
  theme,
  home,
}: {
  state: AppState;
  theme: Theme;
  home: string | undefined;
}) {
  const pageHeight = sessionPageHeight(state);
  const session = openSession(state);
  const modeName: ModeName = currentModeName(state);
  const hints = footerBindings(state, modeName);
  const panelRows =
    session && state.mode.kind === 'session' && !state.inboxView
      ? sessionPanelRows(state, session)
      : 0;
  return (
    <Box flexDirection="column" width={state.columns} height={state.rows}>
      <StatusBar state={state} theme={theme} />
      <TabBar state={state} theme={theme} />
      <Box height={pageHeight} width={state.columns} flexDirection="column">
        <Page state={state} theme={theme} height={pageHeight} />
      </Box>
      <Footer state={state} theme={theme} hints={hints} home={home} />
      {state.popup ? (
        <PopupView state={state} theme={theme} popup={state.popup} panelRows={panelRows} />
      ) : null}
    </Box>
  );
}
