/**
 * Shared setup of the renderer benchmarks (pane flood, keystroke, spawn): Switchboard in browser
 * mode (`switchboard serve` on a temp HOME, test/helpers/servedApp.ts) in Debian's headless
 * Chromium at 1280×800 with the DOM renderer, and the peers they are measured against: a page with
 * bare `@xterm/xterm` (bench/peers) served by a tiny HTTP server on loopback, with a `ws` echo
 * server over a bare node-pty for keystrokes. Both pages are timed by the same in-page probe
 * (bench/peers/probe.js) on the page's own clock.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn as spawnPty } from 'node-pty';
import type { Page } from 'playwright-core';
import { WebSocketServer } from 'ws';
import { defaultSettings } from '../../src/common/api/contract.ts';
import { launchBrowser, openApp, startServedApp, type ServedApp, type ServedAppOptions, type TestBrowser } from '../../test/helpers/servedApp.ts';
import { testEnv } from '../../test/helpers/tempHome.ts';
import type { BenchResult } from '../benchCase.ts';
import { median, percentile } from './relayBench.ts';

const peersDir = new URL('../peers/', import.meta.url);
const xtermDir = new URL('../../node_modules/@xterm/xterm/', import.meta.url);
const probeSource = readFileSync(new URL('probe.js', peersDir), 'utf8');

/** What the probe's `waitRows` can wait for (see bench/peers/probe.js). */
export type RowCondition =
  | { kind: 'rowEquals'; text: string }
  | { kind: 'rowEndsWith'; text: string }
  | { kind: 'rowStartsWith'; text: string }
  | { kind: 'noRowContains'; text: string };

export interface PeerServer {
  origin: string;
  /** The bytes `/flood` serves. */
  setFlood(bytes: Uint8Array): void;
  /** ws://…/echo: each connection gets its own `cat` on a bare node-pty, its output sent back as text frames. */
  echoUrl: string;
  close(): Promise<void>;
}

/** The peers' page, xterm.js and the flood's bytes over loopback HTTP, and the keystroke echo server. */
export async function startPeerServer(home: string): Promise<PeerServer> {
  const files: Record<string, { path: URL; type: string }> = {
    '/': { path: new URL('peer.html', peersDir), type: 'text/html' },
    '/peer.js': { path: new URL('peer.js', peersDir), type: 'text/javascript' },
    '/xterm.js': { path: new URL('lib/xterm.js', xtermDir), type: 'text/javascript' },
    '/xterm.css': { path: new URL('css/xterm.css', xtermDir), type: 'text/css' },
  };
  let flood: Uint8Array = new Uint8Array();
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://peer').pathname;
    if (path === '/flood') {
      response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(flood);
      return;
    }
    const file = files[path];
    if (!file) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': file.type }).end(readFileSync(file.path));
  });
  const echo = new WebSocketServer({ server, path: '/echo' });
  echo.on('connection', (socket) => {
    const pty = spawnPty('cat', [], { name: 'xterm-256color', cols: 80, rows: 24, cwd: home, env: testEnv(home) });
    pty.onData((data) => socket.send(data));
    socket.on('message', (data) => pty.write(data.toString()));
    socket.on('close', () => pty.kill());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    echoUrl: `ws://127.0.0.1:${port}/echo`,
    setFlood: (bytes) => (flood = bytes),
    close: async () => {
      for (const client of echo.clients) client.terminate();
      echo.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Switchboard in browser mode and the peer server, each in its own headless Chromium: with both
 * pages in one browser, the app's page was at times held to about one animation frame a second
 * (measured: 10 requestAnimationFrame callbacks took 6–10 s while its timers ran freely), which
 * would time the browser and not the pane.
 */
export interface RendererRig {
  app: ServedApp;
  peers: PeerServer;
  browser: TestBrowser;
  peerBrowser: TestBrowser;
  /** The app's page, opened at its first pane (prompt shown), probe installed. */
  appPage: Page;
  firstPane: string;
  /** The peer's page, probe installed, no terminal opened yet. */
  peerPage: Page;
  close(): Promise<void>;
}

/** `app`: how to start `switchboard serve` (env for a `--cpu-prof`, the dirs of a prepared data dir). */
export async function startRendererRig(options: { app?: ServedAppOptions } = {}): Promise<RendererRig> {
  const app = await startServedApp(options.app);
  const cleanups: Array<() => Promise<unknown>> = [() => app.stop()];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  try {
    const peers = await startPeerServer(app.home);
    cleanups.push(() => peers.close());
    const browser = await launchBrowser();
    cleanups.push(() => browser.close());
    const appPage = browser.page;
    const firstPane = await openApp(appPage, app.url);
    await appPage.evaluate(probeSource);
    if ((await appPage.locator(`[data-terminal-id="${firstPane}"] .xterm-rows`).count()) !== 1) {
      throw new Error('the pane does not use the DOM renderer (no .xterm-rows): the probe cannot see what is drawn');
    }
    const peerBrowser = await launchBrowser();
    cleanups.push(() => peerBrowser.close());
    const peerPage = peerBrowser.page;
    await peerPage.goto(`${peers.origin}/`);
    await peerPage.evaluate(probeSource);
    return { app, peers, browser, peerBrowser, appPage, firstPane, peerPage, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The pane's size in cells, asked of its shell (`stty size`), so the peer's terminal gets the same. */
export async function paneSize(page: Page, terminalId: string): Promise<{ cols: number; rows: number }> {
  await page.locator(`[data-terminal-id="${terminalId}"] .pane-body`).click();
  await page.keyboard.type('stty size | sed "s/^/size:/"');
  await page.keyboard.press('Enter');
  await waitForRows(page, paneSelector(terminalId), { kind: 'rowStartsWith', text: 'size:' }, 10_000);
  const rows = (await page.evaluate((selector) => globalThis.__probe!.rows(selector), paneSelector(terminalId))).flat();
  const line = rows.find((row) => row.startsWith('size:'))!;
  const [rowCount, colCount] = line.slice('size:'.length).trim().split(/\s+/).map(Number);
  if (!rowCount || !colCount) throw new Error(`cannot read the pane's size from ${JSON.stringify(line)}`);
  return { cols: colCount, rows: rowCount };
}

/** Opens the peer page's bare xterm.js at the app's default font and scrollback. */
export async function openPeerTerminal(peerPage: Page, size: { cols: number; rows: number }): Promise<void> {
  await peerPage.evaluate(
    (options) => globalThis.peer!.open(options),
    { ...size, scrollback: defaultSettings.scrollback, fontSize: defaultSettings.fontSize, fontFamily: defaultSettings.fontFamily },
  );
}

export function paneSelector(terminalId: string): string {
  return `[data-terminal-id="${terminalId}"]`;
}

export const peerSelector = '#terminal';

export async function waitForRows(page: Page, selector: string, condition: RowCondition, timeoutMs: number): Promise<number> {
  return page.evaluate(({ selector, condition, timeoutMs }) => globalThis.__probe!.waitRows(selector, condition, timeoutMs), { selector, condition, timeoutMs });
}

/** Starts waiting in the page (before the action that should cause it); `settled` resolves with the time it happened. */
export async function armRows(page: Page, selector: string, condition: RowCondition, timeoutMs: number): Promise<{ settled: () => Promise<number> }> {
  await page.evaluate(({ selector, condition, timeoutMs }) => {
    const probe = globalThis.__probe!;
    probe.pending = probe.waitRows(selector, condition, timeoutMs);
    // Read by `settled`; never an unhandled rejection meanwhile.
    probe.pending.catch(() => {});
  }, { selector, condition, timeoutMs });
  return { settled: () => page.evaluate(() => globalThis.__probe!.pending!) };
}

/** Median and p95 of both paths and their ratio, peer time over Switchboard's (1 = as fast as the peer). */
export function compare(name: string, switchboard: number[], peer: number[], unit = 'ms'): BenchResult[] {
  return [
    { label: `${name}: peer median`, value: median(peer), unit },
    { label: `${name}: peer p95`, value: percentile(peer, 95), unit },
    { label: `${name}: Switchboard median`, value: median(switchboard), unit },
    { label: `${name}: Switchboard p95`, value: percentile(switchboard, 95), unit },
    { label: `${name}: speed vs peer (median)`, value: median(peer) / median(switchboard), unit: '×', digits: 2 },
  ];
}

/** The page-side globals of the probe and the peer page (bench/peers/*.js), seen from the bench (which has no DOM types). */
interface Probe {
  longestTask: number;
  lastKeydown: number;
  lastClick: number;
  pending?: Promise<number>;
  watchLongTasks(): void;
  rows(selector: string): string[][];
  waitRows(selector: string, condition: RowCondition, timeoutMs: number): Promise<number>;
}
interface Peer {
  open(options: { cols: number; rows: number; scrollback: number; fontSize: number; fontFamily: string }): void;
  load(url: string): Promise<void>;
  writeFlood(): void;
  clear(): Promise<void>;
  connect(url: string): Promise<void>;
}
declare global {
  var __probe: Probe | undefined;
  var peer: Peer | undefined;
}
