/**
 * Shared setup of the renderer benchmarks (pane flood, keystroke, spawn, isolation, interrupt,
 * forty agents, reattach): Switchboard in browser
 * mode (`switchboard serve` on a temp HOME, test/helpers/servedApp.ts) in Debian's headless
 * Chromium at 1280×800 with the DOM renderer, and the peers they are measured against: a page with
 * bare `@xterm/xterm` (bench/peers) served by a tiny HTTP server on loopback, with a `ws` echo
 * server over a bare node-pty for keystrokes. Both pages are timed by the same in-page probe
 * (bench/peers/probe.js) on the page's own clock.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type IPty, spawn as spawnPty } from 'node-pty';
import type { Page } from 'playwright-core';
import { type WebSocket, WebSocketServer } from 'ws';
import { defaultSettings, type Layout, type LayoutNode, type TerminalInfo } from '../../src/common/api/contract.ts';
import { launchBrowser, openApp, startServedApp, type ServedApp, type ServedAppOptions, type TestBrowser } from '../../test/helpers/servedApp.ts';
import { testEnv } from '../../test/helpers/tempHome.ts';
import type { BenchResult } from '../benchCase.ts';
import { median, percentile } from './relayBench.ts';

const peersDir = new URL('../peers/', import.meta.url);
const xtermDir = new URL('../../node_modules/@xterm/xterm/', import.meta.url);
export const probeSource = readFileSync(new URL('probe.js', peersDir), 'utf8');
const appApiSource = readFileSync(new URL('appApi.js', peersDir), 'utf8');

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
  /** ws://…/shell: each connection gets its own bash (the app's HOME, in `shellCwd`) on a bare node-pty, the same way. */
  shellUrl: string;
  close(): Promise<void>;
}

/** The peers' page, xterm.js and the flood's bytes over loopback HTTP, and the keystroke echo server. */
export async function startPeerServer(home: string, shellCwd: string = home): Promise<PeerServer> {
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
  const echo = new WebSocketServer({ noServer: true });
  const shell = new WebSocketServer({ noServer: true });
  const bridge = (socket: WebSocket, pty: IPty) => {
    pty.onData((data) => socket.send(data));
    socket.on('message', (data) => pty.write(data.toString()));
    socket.on('close', () => pty.kill());
  };
  echo.on('connection', (socket) => bridge(socket, spawnPty('cat', [], { name: 'xterm-256color', cols: 80, rows: 24, cwd: home, env: testEnv(home) })));
  shell.on('connection', (socket, request) => {
    const size = new URL(request.url ?? '/', 'http://peer').searchParams;
    const cols = Number(size.get('cols')) || 80;
    const rows = Number(size.get('rows')) || 24;
    bridge(socket, spawnPty('/bin/bash', [], { name: 'xterm-256color', cols, rows, cwd: shellCwd, env: testEnv(home) }));
  });
  server.on('upgrade', (request, socket, head) => {
    const path = new URL(request.url ?? '/', 'http://peer').pathname;
    const target = path === '/echo' ? echo : path === '/shell' ? shell : null;
    if (!target) {
      socket.destroy();
      return;
    }
    target.handleUpgrade(request, socket, head, (client) => target.emit('connection', client, request));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    echoUrl: `ws://127.0.0.1:${port}/echo`,
    shellUrl: `ws://127.0.0.1:${port}/shell`,
    setFlood: (bytes) => (flood = bytes),
    close: async () => {
      for (const client of [...echo.clients, ...shell.clients]) client.terminate();
      echo.close();
      shell.close();
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
export interface RendererRig extends AppRig {
  peers: PeerServer;
  peerBrowser: TestBrowser;
  /** The peer's page, probe installed, no terminal opened yet. */
  peerPage: Page;
}

/** Switchboard in browser mode in one headless Chromium, for the cases with no peer page. */
export interface AppRig {
  app: ServedApp;
  browser: TestBrowser;
  /** The app's page, opened at its first pane (prompt shown), probe installed. */
  appPage: Page;
  firstPane: string;
  close(): Promise<void>;
}

/** `app`: how to start `switchboard serve` (env for a `--cpu-prof`, the dirs of a prepared data dir). */
export async function startAppRig(options: { app?: ServedAppOptions } = {}): Promise<AppRig> {
  const app = await startServedApp(options.app);
  const cleanups: Array<() => Promise<unknown>> = [() => app.stop()];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  try {
    const browser = await launchBrowser();
    cleanups.push(() => browser.close());
    const appPage = browser.page;
    const firstPane = await openApp(appPage, app.url);
    await appPage.evaluate(probeSource);
    if ((await appPage.locator(`[data-terminal-id="${firstPane}"] .xterm-rows`).count()) !== 1) {
      throw new Error('the pane does not use the DOM renderer (no .xterm-rows): the probe cannot see what is drawn');
    }
    return { app, browser, appPage, firstPane, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The app's rig and the peer's page in a second browser. */
export async function startRendererRig(options: { app?: ServedAppOptions } = {}): Promise<RendererRig> {
  const appRig = await startAppRig(options);
  const cleanups: Array<() => Promise<unknown>> = [() => appRig.close()];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  try {
    const peers = await startPeerServer(appRig.app.home, appRig.app.workspace);
    cleanups.push(() => peers.close());
    const peerBrowser = await launchBrowser();
    cleanups.push(() => peerBrowser.close());
    const peerPage = peerBrowser.page;
    await peerPage.goto(`${peers.origin}/`);
    await peerPage.evaluate(probeSource);
    return { ...appRig, peers, peerBrowser, peerPage, close };
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

/**
 * Median and p95 of both paths and their ratio, peer time over Switchboard's (1 = as fast as the
 * peer); `ratioTarget` is what that ratio should be (≥ 0.8: at least 0.8× the peer's speed).
 */
export function compare(name: string, switchboard: number[], peer: number[], options: { unit?: string; ratioTarget?: BenchResult['target'] } = {}): BenchResult[] {
  const unit = options.unit ?? 'ms';
  const of = (role: NonNullable<BenchResult['comparison']>['role']) => ({ comparison: { measure: name, role } });
  return [
    { label: `${name}: peer median`, value: median(peer), unit, ...of('peer median') },
    { label: `${name}: peer p95`, value: percentile(peer, 95), unit, ...of('peer p95') },
    { label: `${name}: Switchboard median`, value: median(switchboard), unit, ...of('median') },
    { label: `${name}: Switchboard p95`, value: percentile(switchboard, 95), unit, ...of('p95') },
    { label: `${name}: speed vs peer (median)`, value: median(peer) / median(switchboard), unit: '×', digits: 2, ...of('ratio'), ...(options.ratioTarget ? { target: options.ratioTarget } : {}) },
  ];
}

/**
 * Clears the focused pane with `clear` and waits for the fresh prompt, so the next keys go to the
 * shell's new line (not echoed by the tty while `clear` still runs). `gone`: text on the screen
 * now that only the clearing removes.
 */
export async function clearPane(page: Page, terminalId: string, gone: string): Promise<void> {
  const pane = paneSelector(terminalId);
  await page.keyboard.type('clear');
  await page.keyboard.press('Enter');
  await waitForRows(page, pane, { kind: 'noRowContains', text: gone }, 10_000);
  await waitForRows(page, pane, { kind: 'rowEquals', text: '$' }, 10_000);
}

/** Letters that are not in a `$ cat` line, so "no row contains the first" means the line was erased. */
const echoKeys = 'bdefghijklmnopqrsuvwxyz';
export const keyGapMs = 20;

/**
 * One line of keys typed into a terminal running `cat` (focused), each timed from its keydown to
 * its echo drawn, then erased with ^U. Keys are `keyGapMs` apart: the Hub batches output that
 * follows a flush by less than 8 ms, which is the pane's own behaviour.
 */
export async function typeLine(page: Page, selector: string): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < echoKeys.length; index++) {
    await new Promise((resolve) => setTimeout(resolve, keyGapMs));
    const drawn = await armRows(page, selector, { kind: 'rowEndsWith', text: echoKeys.slice(0, index + 1) }, 10_000);
    await page.keyboard.press(echoKeys[index]!);
    const at = await drawn.settled();
    times.push(at - (await page.evaluate(() => globalThis.__probe!.lastKeydown)));
  }
  await page.keyboard.press('Control+U');
  await waitForRows(page, selector, { kind: 'noRowContains', text: echoKeys[0]! }, 10_000);
  return times;
}

/** A call on the app's API from its page, over a second WebSocket (bench/peers/appApi.js); after a reload too. */
export async function hubCall<T = unknown>(page: Page, method: string, params: unknown): Promise<T> {
  await page.evaluate(appApiSource);
  return (await page.evaluate(({ method, params }) => globalThis.__appApi!.call(method, params), { method, params })) as T;
}

/** Starts `count` terminals (80×24 until a pane shows them) and returns their ids. */
export async function createTerminals(page: Page, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) ids.push((await hubCall<TerminalInfo>(page, 'terminal.create', {})).id);
  return ids;
}

/** Types a line into a terminal through the API, as an agent's `send` does (the pane need not be focused). */
export async function writeLine(page: Page, terminalId: string, line: string): Promise<void> {
  await hubCall(page, 'terminal.write', { id: terminalId, data: `${line}\r` });
}

/** A split of `ids` into `rows` rows of equal panes (a grid), as one layout node. */
export function gridNode(ids: string[], rows: number): LayoutNode {
  const perRow = Math.ceil(ids.length / rows);
  const rowNodes: LayoutNode[] = [];
  for (let start = 0; start < ids.length; start += perRow) {
    const panes = ids.slice(start, start + perRow).map((terminalId): LayoutNode => ({ type: 'pane', terminalId }));
    rowNodes.push(panes.length === 1 ? panes[0]! : { type: 'split', direction: 'row', sizes: panes.map(() => 100 / panes.length), children: panes });
  }
  return rowNodes.length === 1 ? rowNodes[0]! : { type: 'split', direction: 'column', sizes: rowNodes.map(() => 100 / rowNodes.length), children: rowNodes };
}

/** Saves `tabs` as the window's layout (first tab active) and reloads the page, which restores it. */
export async function showLayout(page: Page, tabs: LayoutNode[]): Promise<void> {
  const layout: Layout = { tabs: tabs.map((root, index) => ({ id: `bench-tab-${index + 1}`, root })), activeTabId: 'bench-tab-1', focusedTerminalId: null };
  await hubCall(page, 'layout.set', layout);
  await page.reload();
  await page.evaluate(probeSource);
}

/** The pid of the `switchboard serve` process (the Hub) of a served app: the one whose command line names its workspace. */
export function servedAppPid(app: ServedApp): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (argv.includes('serve') && argv.includes(app.workspace)) return Number(entry);
  }
  throw new Error(`no switchboard serve process for ${app.workspace} in /proc`);
}

/** Resident set size of a process in bytes (VmRSS), worker threads included. */
export function residentBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) * 1024;
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
  waitEveryRow(selector: string, conditions: RowCondition[], timeoutMs: number): Promise<number>;
  watchFrames(): void;
  stopFrames(): { intervals: number[]; longFrames: Array<{ duration: number; blocking: number }>; longFramesUnsupported: boolean };
}
interface Peer {
  open(options: { cols: number; rows: number; scrollback: number; fontSize: number; fontFamily: string }): void;
  load(url: string): Promise<void>;
  writeFlood(): void;
  clear(): Promise<void>;
  connect(url: string): Promise<void>;
  armSpawn(url: string, options: { cols: number; rows: number; scrollback: number; fontSize: number; fontFamily: string }): void;
  closeSpawned(): void;
}
interface AppApi {
  call(method: string, params: unknown): Promise<unknown>;
}
declare global {
  var __probe: Probe | undefined;
  var peer: Peer | undefined;
  var __appApi: AppApi | undefined;
}
