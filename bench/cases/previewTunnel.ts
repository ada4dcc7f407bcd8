/**
 * The dev-server preview tunnel (issue 21) against a bare HTTP reverse proxy, in the same run: a
 * Node dev server runs in a real pane of an in-process PtyHost (the app's side, RelayClient, in this
 * process, as in the app), shared through a real `switchboard relay` in a process of its own (as it
 * is deployed). The same client, in this process, fetches from it
 *   - directly (the floor),
 *   - through a bare reverse proxy in a process of its own (node:http piping request and response,
 *     nothing else: the peer),
 *   - through the preview (HTTP → relay → binary body frames, windows and acks → daemon → dev server),
 * 1 000 small requests one after another (p50 and p95 latency; added latency = preview p50 − proxy p50,
 * target < 5 ms) and a 50 MB download (MB/s; target preview ≥ 0.5× the proxy). The preview is
 * opened the way a person's browser does: the remote view's open link, its redirects and cookies.
 *
 * The download's client runs in a process of its own, like the browser it stands for: in this
 * process it would share one event loop with the daemon's side (the app's) on the tunnel's path
 * only — the proxy's path has no daemon — and the figure would time that sharing, not the tunnel.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { Agent, request, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { nullLogger } from '../../src/node/logger.ts';
import { PtyHost } from '../../src/node/pty/ptyHost.ts';
import { RelayClient } from '../../src/node/relay/relayClient.ts';
import { RelayTokenStore } from '../../src/node/relay/server/relayTokens.ts';
import { freePort } from '../../test/helpers/freePort.ts';
import { startRelayProcess, stop } from '../../test/helpers/remoteRelay.ts';
import { createTempHome } from '../../test/helpers/tempHome.ts';
import type { BenchCase } from '../benchCase.ts';
import { percentile } from './relayBench.ts';

const devServerScript = `
const http = require('node:http');
const block = Buffer.alloc(64 * 1024, 120);
http.createServer((request, response) => {
  const url = new URL(request.url, 'http://x');
  if (url.pathname === '/big') {
    let left = Number(url.searchParams.get('mb')) * 1024 * 1024;
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
  response.setHeader('content-type', 'text/plain');
  response.end('ok ' + url.pathname);
}).listen(Number(process.argv[2]), '127.0.0.1', () => console.log('listening on http://localhost:' + process.argv[2] + '/'));
`;

/** Where to send requests: a TCP port on 127.0.0.1, the Host to name, and cookies to carry. */
interface Target {
  port: number;
  host: string;
  cookie: string | undefined;
  /** The viewer token as a bearer: only ever sent to the relay's own host. */
  authorization?: string | undefined;
}

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

function get(target: Target, path: string, onData?: (chunk: Buffer) => void): Promise<{ status: number; headers: IncomingMessage['headers']; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: target.port, path, agent, headers: { host: target.host, ...(target.cookie ? { cookie: target.cookie } : {}), ...(target.authorization ? { authorization: target.authorization } : {}) } },
      (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          onData?.(chunk);
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, bytes }));
        response.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Follows the open link's redirects by hand (any host is this machine's loopback), keeping cookies per host. */
async function openPreview(relayPort: number, openPath: string, viewerToken: string): Promise<{ target: Target; path: string }> {
  const cookies = new Map<string, string[]>();
  const relayHost = `127.0.0.1:${relayPort}`;
  const authorization = `Bearer ${viewerToken}`;
  let target: Target = { port: relayPort, host: relayHost, cookie: undefined, authorization };
  let path = openPath;
  for (let hop = 0; hop < 6; hop++) {
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: target.port, path, agent, headers: { host: target.host, ...(target.authorization ? { authorization: target.authorization } : {}), ...(target.cookie ? { cookie: target.cookie } : {}) } }, resolve);
      req.on('error', reject);
      req.end();
    });
    response.resume();
    const set = response.headers['set-cookie'] ?? [];
    if (set.length > 0) cookies.set(target.host, [...(cookies.get(target.host) ?? []), ...set.map((line) => line.split(';')[0]!)]);
    if (response.statusCode === 200) return { target, path };
    const location = response.headers.location;
    if (!(response.statusCode && response.statusCode >= 300 && response.statusCode < 400 && location)) throw new Error(`opening the preview answered ${response.statusCode}`);
    const next = new URL(location, `http://${target.host}`);
    target = { port: Number(next.port || 80), host: next.host, cookie: cookies.get(next.host)?.join('; '), authorization: next.host === relayHost ? authorization : undefined };
    path = `${next.pathname}${next.search}`;
  }
  throw new Error('too many redirects opening the preview');
}

/** The peer: a bare reverse proxy (pipe in, pipe out) in a process of its own; prints its port. */
const bareProxyScript = `
const http = require('node:http');
const devPort = Number(process.argv[2]);
const upstream = new http.Agent({ keepAlive: true, maxSockets: 4 });
const server = http.createServer((req, res) => {
  const forward = http.request({ host: '127.0.0.1', port: devPort, path: req.url, method: req.method, headers: { ...req.headers, host: 'localhost:' + devPort }, agent: upstream }, (answer) => {
    res.writeHead(answer.statusCode || 502, answer.headers);
    answer.pipe(res);
  });
  forward.on('error', () => res.destroy());
  req.pipe(forward);
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

async function startBareProxy(dir: string, devPort: number): Promise<{ child: ChildProcess; port: number }> {
  writeFileSync(join(dir, 'bare-proxy.cjs'), bareProxyScript);
  const child = spawn(process.execPath, [join(dir, 'bare-proxy.cjs'), String(devPort)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout!.setEncoding('utf8'), 'data')) as [string];
  return { child, port: Number(line.trim()) };
}

async function latencies(target: Target, prefix: string, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const answer = await get(target, `${prefix}/small-${i}`);
    times.push(performance.now() - started);
    if (answer.status !== 200) throw new Error(`a small request answered ${answer.status}`);
  }
  return times;
}

/** The download's client (see the header): one GET, timed from the request to the last byte; prints `<bytes> <ms>`. */
const downloadClientScript = `
const http = require('node:http');
const [port, host, path, cookie, authorization] = process.argv.slice(2);
const started = performance.now();
const headers = { host };
if (cookie) headers.cookie = cookie;
if (authorization) headers.authorization = authorization;
http.get({ host: '127.0.0.1', port: Number(port), path, headers, agent: false }, (response) => {
  let bytes = 0;
  response.on('data', (chunk) => (bytes += chunk.length));
  response.on('end', () => console.log(bytes + ' ' + (performance.now() - started)));
}).on('error', (error) => { console.error(error.message); process.exit(1); });
`;

async function download(dir: string, target: Target, prefix: string, mb: number): Promise<number> {
  const script = join(dir, 'download-client.cjs');
  writeFileSync(script, downloadClientScript);
  const child = spawn(process.execPath, [script, String(target.port), target.host, `${prefix}/big?mb=${mb}`, target.cookie ?? '', target.authorization ?? ''], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => (output += text));
  const [code] = (await once(child, 'exit')) as [number | null];
  const [bytes, ms] = output.trim().split(' ').map(Number);
  if (code !== 0 || bytes !== mb * 1024 * 1024) throw new Error(`the download brought ${bytes} bytes, not ${mb} MiB (exit ${code})`);
  return bytes / (ms! / 1000) / 1e6;
}

export const previewTunnelCase: BenchCase = {
  name: 'preview-tunnel',
  description: 'dev-server preview through the relay vs a bare HTTP reverse proxy: 1 000 small requests (added p50 latency) and a 50 MB download (throughput)',
  async run({ quick, log }) {
    const requests = quick ? 200 : 1_000;
    const mb = quick ? 10 : 50;
    const rounds = quick ? 1 : 5;
    const dirs = createTempHome('sb-bench-preview-');
    const dir = dirs.workspace;
    writeFileSync(join(dir, 'dev.cjs'), devServerScript);
    const host = new PtyHost({ logger: nullLogger, defaultCwd: dir });
    const tokensFile = join(dirs.home, 'relay-tokens.json');
    const tokens = await new RelayTokenStore({ filePath: tokensFile }).addMachine('bench');
    const relay = await startRelayProcess(tokensFile, dirs.home);
    const relayPort = Number(new URL(relay.url).port);
    const client = new RelayClient({ url: relay.url, machineId: 'bench', token: tokens.daemonToken, ptyHost: host, sharedFolders: [dir], logger: nullLogger, version: 'bench', shareAll: true });
    let proxy: { child: ChildProcess; port: number } | undefined;
    try {
      client.start();
      const devPort = await freePort();
      const session = await host.create({ file: 'bash', args: ['--norc', '--noprofile', '-c', `exec node dev.cjs ${devPort}`], cwd: dir, shellIntegration: false, cols: 120, rows: 30, createdBy: { kind: 'person', name: 'bench' } });
      const openPath = `/m/bench/preview/open?terminalId=${session.id}&port=${devPort}`;
      // Until the pane's server is found and announced, the open link answers 404.
      let opened: { target: Target; path: string } | undefined;
      for (let attempt = 0; !opened; attempt++) {
        opened = await openPreview(relayPort, openPath, tokens.viewerToken).catch((error: unknown) => {
          if (attempt > 200) throw error;
          return undefined;
        });
        if (!opened) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const preview = opened.target;
      // The preview's own paths: at the root of its origin, or under a prefix on the relay's.
      const prefix = opened.path.replace(/\/$/, '');
      proxy = await startBareProxy(dirs.home, devPort);
      const proxyTarget: Target = { port: proxy.port, host: '127.0.0.1', cookie: undefined };
      const direct: Target = { port: devPort, host: `localhost:${devPort}`, cookie: undefined };
      log(`${requests} small requests and a ${mb} MiB download per path, ${rounds} round(s), alternating, after a warm-up`);

      await latencies(direct, '', 20);
      await latencies(proxyTarget, '', 20);
      await latencies(preview, prefix, 20);
      // The warm-up takes a download through each path too: the tunnel's first ran its body path
      // cold (160–230 MB/s in 15-download runs, the rest 250–330), which the proxy's small requests
      // had already warmed for its own (one pipe carries every body there).
      await download(dirs.home, proxyTarget, '', mb);
      await download(dirs.home, preview, prefix, mb);
      const directP50: number[] = [];
      const proxyTimes: number[] = [];
      const previewTimes: number[] = [];
      const proxyRates: number[] = [];
      const previewRates: number[] = [];
      for (let round = 0; round < rounds; round++) {
        directP50.push(percentile(await latencies(direct, '', requests), 50));
        proxyTimes.push(...(await latencies(proxyTarget, '', requests)));
        previewTimes.push(...(await latencies(preview, prefix, requests)));
        const viaProxy = await download(dirs.home, proxyTarget, '', mb);
        const viaPreview = await download(dirs.home, preview, prefix, mb);
        proxyRates.push(viaProxy);
        previewRates.push(viaPreview);
        log(`round ${round + 1}: download proxy ${viaProxy.toFixed(0)} MB/s, preview ${viaPreview.toFixed(0)} MB/s`);
      }
      const proxyP50 = percentile(proxyTimes, 50);
      const previewP50 = percentile(previewTimes, 50);
      return [
        { label: 'small request p50: direct to the dev server', value: percentile(directP50, 50), unit: 'ms', digits: 2 },
        { label: 'small request p50: bare reverse proxy', value: proxyP50, unit: 'ms', digits: 2 },
        { label: 'small request p50: preview tunnel', value: previewP50, unit: 'ms', digits: 2 },
        { label: 'small request p95: preview tunnel', value: percentile(previewTimes, 95), unit: 'ms', digits: 2 },
        { label: 'added latency p50, preview − proxy (target < 5)', value: previewP50 - proxyP50, unit: 'ms', digits: 2 },
        { label: `${mb} MiB download: bare reverse proxy (median)`, value: percentile(proxyRates, 50), unit: 'MB/s', digits: 0 },
        { label: `${mb} MiB download: preview tunnel (median)`, value: percentile(previewRates, 50), unit: 'MB/s', digits: 0 },
        { label: 'download ratio preview / proxy (target >= 0.5)', value: percentile(previewRates, 50) / percentile(proxyRates, 50), unit: 'x', digits: 2 },
      ];
    } finally {
      agent.destroy();
      proxy?.child.kill();
      await client.stop();
      client.dispose();
      await stop(relay.child, relay.exited);
      host.dispose();
      dirs.dispose();
    }
  },
};
