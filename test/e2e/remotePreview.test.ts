/**
 * Previewing a dev server from anywhere (issue 21), end to end: a real `switchboard relay`, a real
 * `switchboard serve --relay … --share-all`, a Node HTTP + WebSocket dev server typed into a real
 * shared pane, and the relay's remote view in Chromium. The `:PORT` chip of the remote view opens the
 * preview in a new tab through the relay's tunnel, on an origin of its own (`http://pv….localhost:<relay
 * port>`, never the relay's): the page with its script (by a root-absolute path, as Vite asks for
 * `/@vite/client`) and its image loads, its hot-reload socket echoes text and binary, a POST arrives
 * intact, a 50 MB download streams through with bounded memory in both processes, and when the server
 * stops the chip goes and the preview says it is over. And what a script in the previewed page can do
 * to the relay (docs/security.md §8): it cannot open the relay's `/ws/ui` nor read the remote view, the
 * browser sends the preview none of the relay's cookies, and a dev server's cookie stays on its host.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { freePort } from '../helpers/freePort.ts';
import { openRemote, slow, startRemoteSetup } from '../helpers/remoteRelay.ts';
import { newPage, openApp, shootEverySize, typeInPane, useSharedBrowser, waitForPaneText } from '../helpers/servedApp.ts';

const browser = useSharedBrowser();

const wsModule = createRequire(import.meta.url).resolve('ws');
/**
 * The dev server: prints its URL as Vite does; `/` is a page whose script is asked for by a
 * root-absolute path and whose image by a relative one; the script opens the hot-reload socket (with a
 * sub-protocol, at a root-absolute path), echoes a text and a binary message through it and writes
 * what came back into the page. `/api/echo` answers a POST with the body's SHA-256 and the headers
 * the server saw; `/big?mb=N` streams N MiB of a repeating pattern.
 */
const devServer = `
const http = require('node:http');
const crypto = require('node:crypto');
const { WebSocketServer } = require(${JSON.stringify(wsModule)});
const port = Number(process.argv[2]);
const page = '<!doctype html><title>preview app</title><h1>served by the dev server</h1>'
  + '<img id="logo" src="logo.svg" alt="logo"><p id="script">script not run</p><p id="hmr">socket not open</p>'
  + '<script type="module" src="/app.js"></script>';
const script = \`
document.getElementById('script').textContent = 'script ran';
const socket = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/hmr', ['vite-hmr']);
socket.binaryType = 'arraybuffer';
const got = [];
socket.onopen = () => { socket.send('ping-text'); socket.send(new Uint8Array([0, 1, 2, 254, 255])); };
socket.onmessage = (event) => {
  got.push(typeof event.data === 'string' ? 'text:' + event.data : 'binary:' + Array.from(new Uint8Array(event.data)).join(','));
  if (got.length === 2) document.getElementById('hmr').textContent = 'protocol ' + socket.protocol + ' | ' + got.join(' | ');
};
\`;
// A script of the dev page (an injected one, a bad dependency) going for the relay it is previewed through:
// the relay's origin comes in the fragment; it reports whether /ws/ui opened and whether the remote view could be read.
const attack = '<!doctype html><title>attack</title><p id="ws">pending</p><p id="read">pending</p><script>'
  + 'const relay = decodeURIComponent(location.hash.slice(1));'
  + 'const ws = new WebSocket(relay.replace(/^http/, "ws") + "/ws/ui?machineId=home");'
  + 'ws.onopen = () => { document.getElementById("ws").textContent = "OPENED"; ws.send("{}"); };'
  + 'ws.onerror = () => { document.getElementById("ws").textContent = "refused"; };'
  + 'fetch(relay + "/m/home/", { credentials: "include" }).then((r) => r.text()).then((t) => { document.getElementById("read").textContent = "READ " + t.length; }, () => { document.getElementById("read").textContent = "blocked"; });'
  + '</script>';
const logo = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="teal"/></svg>';
const server = http.createServer((request, response) => {
  const url = new URL(request.url, 'http://x');
  if (url.pathname === '/') { response.setHeader('content-type', 'text/html'); return response.end(page); }
  if (url.pathname === '/app.js') { response.setHeader('content-type', 'text/javascript'); return response.end(script); }
  if (url.pathname === '/logo.svg') { response.setHeader('content-type', 'image/svg+xml'); return response.end(logo); }
  if (url.pathname === '/attack') { response.setHeader('content-type', 'text/html'); return response.end(attack); }
  if (url.pathname === '/set-cookie') { response.setHeader('set-cookie', 'x=1; Domain=localhost'); return response.end('set'); }
  if (url.pathname === '/api/echo') {
    const hash = crypto.createHash('sha256');
    let bytes = 0;
    request.on('data', (chunk) => { hash.update(chunk); bytes += chunk.length; });
    request.on('end', () => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ method: request.method, bytes, sha256: hash.digest('hex'), host: request.headers.host, origin: request.headers.origin ?? null, cookie: request.headers.cookie ?? null }));
    });
    return;
  }
  if (url.pathname === '/big') {
    let left = Number(url.searchParams.get('mb')) * 1024 * 1024;
    const block = Buffer.alloc(64 * 1024);
    for (let i = 0; i < block.length; i++) block[i] = i % 251;
    response.setHeader('content-type', 'application/octet-stream');
    response.setHeader('content-length', String(left));
    const pump = () => {
      while (left > 0) {
        const piece = left >= block.length ? block : block.subarray(0, left);
        left -= piece.length;
        if (!response.write(piece)) return response.once('drain', pump);
      }
      response.end();
    };
    return pump();
  }
  response.statusCode = 404;
  response.end('not found');
});
new WebSocketServer({ server, handleProtocols: (protocols) => (protocols.has('vite-hmr') ? 'vite-hmr' : false) })
  .on('connection', (socket) => socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary })));
server.listen(port, '127.0.0.1', () => console.log('  ➜  Local:   http://localhost:' + port + '/'));
`;

/** Peak resident memory of a process so far (VmHWM), in MiB. */
function peakMiB(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match![1]) / 1024;
}

/** Reads a download in the page as a stream: its size and an order-sensitive checksum, never the whole body at once. */
async function downloadInPage(page: Page, path: string): Promise<{ bytes: number; sum: number; status: number }> {
  return page.evaluate(async (target) => {
    const response = await fetch(target);
    const reader = response.body!.getReader();
    let bytes = 0;
    let sum = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (let i = 0; i < value.length; i++) sum = (sum * 31 + value[i]!) % 1_000_000_007;
      bytes += value.length;
    }
    return { bytes, sum, status: response.status };
  }, path);
}

/** The same checksum as downloadInPage over what the dev server sends for `/big?mb=N`. */
function expectedDownload(mb: number): { bytes: number; sum: number } {
  const bytes = mb * 1024 * 1024;
  let sum = 0;
  for (let i = 0; i < bytes; i++) sum = (sum * 31 + ((i % (64 * 1024)) % 251)) % 1_000_000_007;
  return { bytes, sum };
}

describe('dev-server preview through the relay', () => {
  it('opens a shared pane’s dev server from the remote view on an origin of its own: page, script, image, hot-reload socket, POST, 50 MB, what its scripts cannot reach, and the end', async (t) => {
    const setup = await startRemoteSetup(t, { 'preview-app.cjs': devServer });
    const local = await newPage(t, browser());
    const pane = await openApp(local, setup.serve.url);
    const port = await freePort();
    await typeInPane(local, pane, `node preview-app.cjs ${port}`);
    await waitForPaneText(local, pane, `http://localhost:${port}/`, slow);
    // The machine's own UI finds the server first (src/node/servers).
    await local.locator(`[data-terminal-item="${pane}"] .server-chip`).waitFor({ timeout: slow });

    const remote = await newPage(t, browser());
    await openRemote(remote, setup.viewerLink);
    const chip = remote.locator(`[data-terminal-item="${pane}"] .server-chip`);
    await chip.waitFor({ timeout: slow });
    assert.equal(await chip.textContent(), `:${port}`);
    await shootEverySize(remote, 'remote-preview-chip');

    // The chip opens the preview in a new tab, through the relay.
    const [preview] = await Promise.all([remote.context().waitForEvent('page'), chip.click()]);
    t.after(() => preview.close().catch(() => {}));
    await preview.waitForLoadState();
    // The preview's own origin: a fresh *.localhost name on the relay's port (Chromium resolves *.localhost to loopback).
    const previewUrl = new URL(preview.url());
    const relayUrl = new URL(setup.relay.viewOrigin);
    assert.notEqual(previewUrl.origin, setup.relay.viewOrigin);
    assert.match(previewUrl.hostname, /^pv[a-z0-9]{26}\.localhost$/);
    assert.equal(previewUrl.port, relayUrl.port);
    assert.equal(previewUrl.pathname, '/', 'entered: the ticket is spent and gone from the address bar');
    assert.equal(await preview.locator('h1').textContent(), 'served by the dev server');
    await preview.getByText('script ran').waitFor({ timeout: slow });
    assert.ok(await preview.locator('#logo').evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth === 40), 'the image loaded');
    await preview.getByText(/^protocol vite-hmr \| /).waitFor({ timeout: slow });
    assert.equal(await preview.locator('#hmr').textContent(), 'protocol vite-hmr | text:ping-text | binary:0,1,2,254,255');

    // A POST from the page arrives intact, as the dev server expects it (its own Host, no relay cookies).
    const body = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let i = 0; i < body.length; i++) body[i] = (i * 7) % 256;
    const echoed = await preview.evaluate(async (bytes) => {
      const response = await fetch('api/echo', { method: 'POST', body: new Uint8Array(bytes), headers: { 'content-type': 'application/octet-stream' } });
      return { status: response.status, json: (await response.json()) as { method: string; bytes: number; sha256: string; host: string; origin: string | null; cookie: string | null } };
    }, [...body]);
    assert.equal(echoed.status, 200);
    assert.equal(echoed.json.method, 'POST');
    assert.equal(echoed.json.bytes, body.length);
    assert.equal(echoed.json.sha256, createHash('sha256').update(body).digest('hex'));
    assert.equal(echoed.json.host, `localhost:${port}`);
    assert.equal(echoed.json.origin, `http://localhost:${port}`);
    assert.equal(echoed.json.cookie, null, 'the relay’s own cookies stay at the relay');

    // The browser holds the viewer cookie for the relay, but sends the preview's origin only that preview's session cookie.
    const context = preview.context();
    assert.ok((await context.cookies(setup.relay.viewOrigin)).some((cookie) => cookie.name.startsWith('sb_viewer_')), 'signed in to the relay');
    assert.deepEqual((await context.cookies(previewUrl.origin)).map((cookie) => cookie.name), ['sb_preview_session']);
    const session = (await context.cookies(previewUrl.origin))[0]!;
    assert.deepEqual([session.domain, session.httpOnly, session.sameSite], [previewUrl.hostname, true, 'Lax']);

    // A dev server's cookie with a Domain reaches the browser without it: it stays on the preview's host.
    assert.equal(await preview.evaluate(async () => (await fetch('set-cookie')).text()), 'set');
    const devCookie = (await context.cookies(previewUrl.origin)).find((cookie) => cookie.name === 'x');
    assert.ok(devCookie, 'stored (a cookie for Domain=localhost would have been rejected)');
    assert.equal(devCookie.domain, previewUrl.hostname, 'host-only');
    assert.ok(!(await context.cookies(setup.relay.viewOrigin)).some((cookie) => cookie.name === 'x'), 'not the relay’s');

    // A script of the previewed page cannot open the relay's /ws/ui (which types into shells) nor read the remote view.
    // In the browser that is signed in to the relay (the remote view's context, its viewer cookie there).
    const attack = await context.newPage();
    await attack.goto(`${previewUrl.origin}/attack#${encodeURIComponent(setup.relay.viewOrigin)}`);
    await attack.locator('#ws').filter({ hasNotText: 'pending' }).waitFor({ timeout: slow });
    await attack.locator('#read').filter({ hasNotText: 'pending' }).waitFor({ timeout: slow });
    assert.equal(await attack.locator('#ws').textContent(), 'refused');
    assert.equal(await attack.locator('#read').textContent(), 'blocked');
    await attack.close();
    // The same two steps from a page of the relay's own origin (where previews were served before) both succeed: the check above is not vacuous.
    const control = await remote.evaluate(async (relay) => {
      const ws = await new Promise<string>((resolve) => {
        const socket = new WebSocket(relay.replace(/^http/, 'ws') + '/ws/ui?machineId=home');
        socket.onopen = () => {
          socket.close();
          resolve('OPENED');
        };
        socket.onerror = () => resolve('refused');
      });
      const read = await fetch(relay + '/m/home/').then((response) => response.text()).then((text) => text.length > 0, () => false);
      return { ws, read };
    }, setup.relay.viewOrigin);
    assert.deepEqual(control, { ws: 'OPENED', read: true });

    // 50 MB through the tunnel, read as a stream: whole and in order. That neither side holds the
    // body is checked where it can be measured soundly — live memory after a full GC and the bytes
    // each side buffers: test/integration/relay/previewTunnelDaemon.test.ts (the daemon) and
    // previewRelay.test.ts (the relay). Peak RSS here cannot tell: bodies travel as buffers outside
    // V8's heap, freed on a later GC, and that garbage alone reached 13–70 MiB across runs.
    const relayPeak = peakMiB(setup.relay.child.pid!);
    const servePeak = peakMiB(setup.serve.child.pid!);
    const download = await downloadInPage(preview, 'big?mb=50');
    assert.equal(download.status, 200);
    assert.deepEqual({ bytes: download.bytes, sum: download.sum }, expectedDownload(50), 'every byte, in order');
    t.diagnostic(`50 MB download: relay peak RSS +${(peakMiB(setup.relay.child.pid!) - relayPeak).toFixed(1)} MiB, serve peak RSS +${(peakMiB(setup.serve.child.pid!) - servePeak).toFixed(1)} MiB`);

    // Ctrl-C ends the dev server: the chip goes from the remote view and the preview says it is over.
    await local.locator(`[data-terminal-id="${pane}"] .pane-body`).click();
    await local.keyboard.press('Control+C');
    await chip.waitFor({ state: 'detached', timeout: slow });
    const after = await preview.goto(previewUrl.href);
    assert.ok(after && after.status() >= 400, `the preview answered ${after?.status()} after its server stopped`);
    assert.match(await preview.locator('body').innerText(), /preview|closed|no longer|over/i);
  });
});
