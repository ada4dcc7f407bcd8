/**
 * A terminal's dev servers as small `:5173` chips (TerminalInfo.servers, found by the Hub in
 * src/node/servers): a click opens the server's URL the way links in terminal output open — the
 * system browser in the desktop app, a new tab in browser mode (app/links.ts).
 */
import type { DevServer } from '../../../src/common/api/devServerContract.ts';
import { openExternalLink } from '../../app/links.ts';
import './servers.css';

export function ServerChips({ servers, where }: { servers: readonly DevServer[] | undefined; where: 'sidebar' | 'pane' }) {
  if (!servers || servers.length === 0) return null;
  return (
    <span className="server-chips" data-where={where}>
      {servers.map((server) => (
        <a
          key={server.port}
          className="server-chip"
          href={server.url}
          data-server-port={server.port}
          aria-label={`Open ${server.url}`}
          title={`${server.url}\nListening on ${server.host.includes(':') ? `[${server.host}]` : server.host}:${server.port}${server.pid === null ? '' : `, pid ${server.pid}`} — click to open`}
          // The pane under a header focuses on mouse-down; opening a server is not a reason to move focus.
          onMouseDown={(event) => event.stopPropagation()}
          onClick={(event) => {
            event.preventDefault();
            event.stopPropagation();
            openExternalLink(server.url);
          }}
        >
          :{server.port}
        </a>
      ))}
    </span>
  );
}
