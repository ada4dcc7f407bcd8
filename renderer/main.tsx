import '@xterm/xterm/css/xterm.css';
import './styles/app.css';
import { createRoot } from 'react-dom/client';
import { config as configureZod } from 'zod';
import { createHubClient } from '../src/browser/createHubClient.ts';
import { App } from './app/App.tsx';
import { ErrorList } from './app/errorList.ts';
import { HubConnection } from './app/hubConnection.ts';
import { TypeAheadStore } from './features/terminals/typeAhead.ts';
import { UnsavedLayout } from './app/unsavedLayout.ts';
import { applyInitialColorScheme } from './app/theme.ts';

// Electron's CSP forbids eval; without this zod probes for it with `new Function` and the
// refused probe is reported as a CSP violation on every start.
configureZod({ jitless: true });

applyInitialColorScheme();

// A file dropped anywhere the UI does not handle it would make the page navigate to it (and, in
// Electron, be refused, leaving a page that lost its place). Drops are for the views that take them.
for (const type of ['dragover', 'drop'] as const) {
  document.addEventListener(type, (event) => {
    if (!event.defaultPrevented) event.preventDefault();
  });
}

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

const connection = new HubConnection(createHubClient);
const errors = new ErrorList();
// Outlives each connection's Workbench: keys typed while the window reconnects go to the next one's panes.
const typeAhead = new TypeAheadStore();
const unsavedLayout = new UnsavedLayout();
createRoot(container).render(<App connection={connection} errors={errors} typeAhead={typeAhead} unsavedLayout={unsavedLayout} />);
connection.start();
