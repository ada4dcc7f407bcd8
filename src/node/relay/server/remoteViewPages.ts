/**
 * The remote view over HTTP: the same renderer build as browser mode (dist/renderer), served per
 * machine at `/m/<machineId>/`. The page finds the machine in its own path and talks to `/ws/ui`
 * (src/browser/relayHubClient.ts). Access rules are ViewerAccess's: the viewer link
 * `/m/<id>/?token=<viewer token>` sets the cookie and redirects to the same address without the
 * token; every file needs that machine's cookie; the Host must name the relay.
 */
import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { contentSecurityPolicy, sendText, setSecurityHeaders } from '../../server/httpKit.ts';
import { cacheControlFor, resolveStaticFile, sendFile } from '../../server/staticFiles.ts';
import { MachineId } from '../relayUrl.ts';
import type { ViewerAccess } from './viewerAccess.ts';

/** URL prefix of the remote view: `/m/<machineId>/`. */
export const REMOTE_VIEW_PREFIX = '/m/';

export interface RemoteViewPagesOptions {
  access: ViewerAccess;
  /** Directory with the built renderer (index.html + assets). */
  rendererDir: string;
}

const unauthorizedText = (machineId: string) =>
  `Switchboard relay: this browser may not view machine ${machineId}.\n` +
  `Open its viewer link: this address with ?token=<viewer token> (switchboard relay add-machine ${machineId} printed the token; --rotate issues a new one).\n`;

export class RemoteViewPages {
  readonly #options: RemoteViewPagesOptions;

  constructor(options: RemoteViewPagesOptions) {
    this.#options = options;
  }

  get rendererBuilt(): boolean {
    return existsSync(join(this.#options.rendererDir, 'index.html'));
  }

  /** Whether a request path belongs to the remote view. */
  static handles(pathname: string): boolean {
    return pathname === '/m' || pathname.startsWith(REMOTE_VIEW_PREFIX);
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    setSecurityHeaders(res);
    const { access } = this.#options;
    const site = access.siteOf(req.headers.host);
    if (!site) {
      sendText(res, 403, `Switchboard relay: ${access.forbiddenHostReason(req.headers.host)}.\n`);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      sendText(res, 405, 'method not allowed\n');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://relay.invalid');
    const match = /^\/m\/([^/]*)(\/.*)?$/.exec(url.pathname);
    const machine = MachineId.safeParse(decodeSafely(match?.[1] ?? ''));
    if (!match || !machine.success) {
      sendText(res, 404, 'not found: the remote view of a machine is at /m/<machine id>/\n');
      return;
    }
    const machineId = machine.data;
    const rest = match[2];
    if (rest === undefined) {
      // `/m/home` → `/m/home/`, so the page's relative asset URLs resolve under the machine.
      res.setHeader('Location', `${url.pathname}/${url.search}`);
      res.writeHead(301);
      res.end();
      return;
    }

    const offered = url.searchParams.get('token');
    if (offered !== null) {
      if (!(await access.verifyViewerToken(machineId, offered))) {
        sendText(res, 401, unauthorizedText(machineId));
        return;
      }
      // Trade the link's token for a cookie and drop it from the address bar and the history.
      url.searchParams.delete('token');
      res.setHeader('Set-Cookie', access.signInCookie(site, machineId, offered));
      res.setHeader('Location', url.pathname + url.search);
      res.setHeader('Cache-Control', 'no-store');
      res.writeHead(303);
      res.end();
      return;
    }
    if (!(await access.hasViewerCookie(req, site, machineId))) {
      sendText(res, 401, unauthorizedText(machineId));
      return;
    }
    if (!this.rendererBuilt) {
      sendText(res, 503, 'Switchboard relay: the UI is not built (dist/renderer is missing). Run npm run build, or set SWITCHBOARD_RENDERER_DIR.\n');
      return;
    }
    const file = await resolveStaticFile(this.#options.rendererDir, rest);
    if (file.kind === 'bad-path') {
      sendText(res, 400, 'bad path\n');
      return;
    }
    if (file.kind === 'not-found') {
      sendText(res, 404, 'not found\n');
      return;
    }
    // The page's sockets go to its own origin: http → ws, https (behind a TLS proxy) → wss.
    if (file.path.endsWith('.html')) res.setHeader('Content-Security-Policy', contentSecurityPolicy(site.origin.replace(/^http/, 'ws')));
    res.setHeader('Cache-Control', cacheControlFor(rest));
    sendFile(res, file, req.method === 'HEAD');
  }
}

function decodeSafely(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}
