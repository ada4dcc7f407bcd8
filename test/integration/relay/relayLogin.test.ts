/**
 * The remote view's sign-in on a real `switchboard relay` (in-process RelayServer, real HTTP and
 * WebSocket): the viewer link's token is traded for an HttpOnly SameSite=Strict cookie and leaves
 * the address; pages need that machine's cookie; Host must name the relay (DNS rebinding); `/ws/ui`
 * takes the cookie only with the relay's own Origin (cross-site WebSocket hijacking); a public https
 * URL makes the cookie Secure and `__Host-`; rotating a machine's tokens signs its browsers out;
 * bearer viewers keep working.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { parseEnvelope } from '../../../src/common/protocol/relay/envelope.ts';
import { parsePublicUrl } from '../../../src/node/relay/server/viewerAccess.ts';
import { runInProcess } from '../cli/cliHarness.ts';
import { startTestRelay, type TestRelay, TestViewer } from './relayTestKit.ts';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP request (fetch cannot forge Host). */
function http(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: { Host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Try a WebSocket upgrade with these headers: the HTTP status it was refused with, or 101 and the first frame. */
function upgrade(port: number, query: string, headers: Record<string, string>): Promise<{ status: number; firstFrame?: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/ws/ui?${query}`, { headers: { Host: `127.0.0.1:${port}`, ...headers } });
    socket.once('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0 });
      res.resume();
      socket.terminate();
    });
    socket.once('message', (data) => {
      resolve({ status: 101, firstFrame: data.toString() });
      socket.close();
    });
    socket.once('error', (error) => {
      if (!/Unexpected server response/.test(error.message)) reject(error);
    });
  });
}

function cookiePair(reply: Reply): string {
  const header = reply.headers['set-cookie'];
  const first = Array.isArray(header) ? header[0] : header;
  assert.ok(first, 'a cookie was set');
  return first.split(';')[0]!;
}

function makeRendererDir(dir: string): string {
  const rendererDir = join(dir, 'renderer');
  mkdirSync(join(rendererDir, 'assets'), { recursive: true });
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>remote view</title><script type="module" src="./assets/app.js"></script>');
  writeFileSync(join(rendererDir, 'assets', 'app.js'), 'console.log("app")');
  writeFileSync(join(dir, 'secret.txt'), 'outside the renderer');
  return rendererDir;
}

describe('relay remote view sign-in (loopback, no public URL)', () => {
  let dir: string;
  let relay: TestRelay;
  let viewerToken: string;
  let cookie: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-relay-login-'));
    relay = await startTestRelay({ machines: ['m1', 'm2'], server: { rendererDir: makeRendererDir(dir) } });
    viewerToken = relay.tokens.get('m1')!.viewerToken;
  });

  after(async () => {
    await relay.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('trades the viewer link for an HttpOnly SameSite=Strict cookie and redirects to the address without the token', async () => {
    const reply = await http(relay.port, `/m/m1/?name=phone&token=${viewerToken}`);
    assert.equal(reply.status, 303);
    assert.equal(reply.headers.location, '/m/m1/?name=phone');
    assert.equal(reply.headers['cache-control'], 'no-store');
    assert.equal(reply.headers['referrer-policy'], 'no-referrer');
    const setCookie = String(reply.headers['set-cookie']);
    assert.match(setCookie, new RegExp(`^sb_viewer_${relay.port}_m1=${viewerToken}; HttpOnly; SameSite=Strict; Path=/; Max-Age=2592000$`));
    assert.doesNotMatch(setCookie, /Secure/, 'plain http on loopback: a Secure cookie would not come back');
    cookie = cookiePair(reply);
  });

  it('serves the renderer to that cookie only, with a CSP that allows its own WebSocket', async () => {
    const page = await http(relay.port, '/m/m1/', { Cookie: cookie });
    assert.equal(page.status, 200);
    assert.match(page.body, /<title>remote view<\/title>/);
    assert.match(String(page.headers['content-security-policy']), new RegExp(`connect-src 'self' ws://127\\.0\\.0\\.1:${relay.port}`));
    assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    const asset = await http(relay.port, '/m/m1/assets/app.js', { Cookie: cookie });
    assert.equal(asset.status, 200);
    assert.match(String(asset.headers['content-type']), /javascript/);
    const head = await http(relay.port, '/m/m1/', { Cookie: cookie }, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
  });

  it('refuses pages without the cookie, with a bad one, or with another machine\'s', async () => {
    const m2Cookie = cookiePair(await http(relay.port, `/m/m2/?token=${relay.tokens.get('m2')!.viewerToken}`));
    for (const [path, headers] of [
      ['/m/m1/', {}],
      ['/m/m1/assets/app.js', {}],
      ['/m/m1/', { Cookie: `sb_viewer_${relay.port}_m1=sbrv_wrong` }],
      ['/m/m1/', { Cookie: m2Cookie }],
      ['/m/m1/', { Cookie: m2Cookie.replace('_m2=', '_m1=') }],
    ] as const) {
      const reply = await http(relay.port, path, headers);
      assert.equal(reply.status, 401, `${path} ${JSON.stringify(headers)}`);
      assert.match(reply.body, /this browser may not view machine m1/);
      assert.equal(reply.headers['set-cookie'], undefined);
    }
    assert.equal((await http(relay.port, '/m/m2/', { Cookie: m2Cookie })).status, 200, 'm2\'s cookie opens m2');
  });

  it('refuses a wrong token, the daemon token and another machine\'s viewer token, and sets no cookie', async () => {
    for (const token of ['sbrv_wrong', relay.tokens.get('m1')!.daemonToken, relay.tokens.get('m2')!.viewerToken, '']) {
      const reply = await http(relay.port, `/m/m1/?token=${encodeURIComponent(token)}`);
      assert.equal(reply.status, 401, token);
      assert.equal(reply.headers['set-cookie'], undefined);
    }
    assert.equal((await http(relay.port, `/m/ghost/?token=${viewerToken}`)).status, 401, 'an unknown machine looks like a wrong token');
  });

  it('refuses a Host that is not the relay (DNS rebinding), even with a valid token or cookie', async () => {
    for (const host of [`evil.example:${relay.port}`, 'evil.example', `127.0.0.1:${relay.port + 1}`, `localhost.evil.example:${relay.port}`]) {
      const withToken = await http(relay.port, `/m/m1/?token=${viewerToken}`, { Host: host });
      assert.equal(withToken.status, 403, host);
      assert.match(withToken.body, /forbidden host .*--public-url/);
      assert.equal(withToken.headers['set-cookie'], undefined);
      assert.equal((await http(relay.port, '/m/m1/', { Host: host, Cookie: cookie })).status, 403, host);
    }
    assert.equal((await http(relay.port, '/m/m1/', { Host: `localhost:${relay.port}`, Cookie: cookie })).status, 200, 'localhost is loopback too');
  });

  it('redirects /m/ID to /m/ID/, answers 404 for other paths, 400 for escapes and 405 for other methods', async () => {
    const bare = await http(relay.port, `/m/m1?token=${viewerToken}`);
    assert.equal(bare.status, 301);
    assert.equal(bare.headers.location, `/m/m1/?token=${viewerToken}`);
    assert.equal((await http(relay.port, '/m/', { Cookie: cookie })).status, 404);
    assert.equal((await http(relay.port, '/m/..%2F..%2Fetc/', { Cookie: cookie })).status, 404);
    assert.equal((await http(relay.port, '/m/m1/assets/%2e%2e%2f%2e%2e%2fsecret.txt', { Cookie: cookie })).status, 400);
    assert.equal((await http(relay.port, '/m/m1/nope.js', { Cookie: cookie })).status, 404);
    assert.equal((await http(relay.port, '/m/m1/', { Cookie: cookie }, 'POST')).status, 405);
    assert.equal((await http(relay.port, '/healthz')).body, 'ok\n');
  });

  it('opens /ws/ui with the cookie from a page of the relay\'s own origin', async () => {
    const opened = await upgrade(relay.port, 'machineId=m1&channelId=page-1', { Cookie: cookie, Origin: `http://127.0.0.1:${relay.port}` });
    assert.equal(opened.status, 101);
    const first = parseEnvelope(opened.firstFrame!);
    assert.ok(first.ok && first.message.type === 'machineStatus' && first.message.channelId === 'page-1');
  });

  it('refuses /ws/ui with the cookie from another origin, without an Origin, with a forged Host, or with a bad cookie', async () => {
    const origin = `http://127.0.0.1:${relay.port}`;
    const cases: [Record<string, string>, number][] = [
      [{ Cookie: cookie, Origin: 'https://evil.example' }, 403],
      [{ Cookie: cookie, Origin: `http://localhost:${relay.port}` }, 403],
      [{ Cookie: cookie, Origin: 'null' }, 403],
      [{ Cookie: cookie }, 403],
      [{ Cookie: cookie, Origin: 'http://evil.example', Host: 'evil.example' }, 403],
      [{ Cookie: `sb_viewer_${relay.port}_m1=sbrv_wrong`, Origin: origin }, 401],
      [{ Cookie: 'unrelated=1', Origin: origin }, 401],
      [{ Origin: origin }, 401],
    ];
    for (const [headers, status] of cases) {
      assert.equal((await upgrade(relay.port, 'machineId=m1', headers)).status, status, JSON.stringify(headers));
    }
    assert.equal((await upgrade(relay.port, 'machineId=m2', { Cookie: cookie, Origin: origin })).status, 401, 'm1\'s cookie does not open m2');
  });

  it('keeps bearer viewers (no cookie, no Origin) working', async () => {
    const viewer = await TestViewer.connect(relay, 'm1', viewerToken, { channelId: 'cli-viewer' });
    try {
      await viewer.waitFor((frame) => frame.type === 'machineStatus', { what: 'machineStatus' });
    } finally {
      await viewer.close();
    }
  });

  it('signs every browser of a machine out when its tokens are rotated', async () => {
    const rotated = await runInProcess(['relay', 'add-machine', 'm1', '--rotate', '--tokens', relay.tokensFile, '--json']);
    assert.equal(rotated.status, 0, rotated.stderr);
    const { viewerToken: fresh, viewerLink } = JSON.parse(rotated.stdout) as { viewerToken: string; viewerLink: string };
    assert.equal(viewerLink, `http://127.0.0.1:7600/m/m1/?token=${fresh}`);
    assert.equal((await http(relay.port, '/m/m1/', { Cookie: cookie })).status, 401);
    assert.equal((await upgrade(relay.port, 'machineId=m1', { Cookie: cookie, Origin: `http://127.0.0.1:${relay.port}` })).status, 401);
    const again = await http(relay.port, `/m/m1/?token=${fresh}`);
    assert.equal(again.status, 303);
    assert.equal((await http(relay.port, '/m/m1/', { Cookie: cookiePair(again) })).status, 200);
  });
});

describe('relay remote view behind a TLS proxy (--public-url https://…)', () => {
  let dir: string;
  let relay: TestRelay;
  let viewerToken: string;
  const publicHost = 'relay.example.com';

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-relay-login-'));
    relay = await startTestRelay({ machines: ['home'], server: { rendererDir: makeRendererDir(dir), publicUrl: parsePublicUrl(`https://${publicHost}`) } });
    viewerToken = relay.tokens.get('home')!.viewerToken;
  });

  after(async () => {
    await relay.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sets a Secure __Host- cookie for the public host and takes it from the https origin only', async () => {
    const reply = await http(relay.port, `/m/home/?token=${viewerToken}`, { Host: publicHost });
    assert.equal(reply.status, 303);
    assert.match(String(reply.headers['set-cookie']), /^__Host-sb_viewer_home=sbrv_[^;]+; HttpOnly; SameSite=Strict; Path=\/; Max-Age=\d+; Secure$/);
    const cookie = cookiePair(reply);
    const page = await http(relay.port, '/m/home/', { Host: publicHost, Cookie: cookie });
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-security-policy']), /connect-src 'self' wss:\/\/relay\.example\.com/);
    assert.equal((await http(relay.port, '/m/home/', { Host: `${publicHost}:443`, Cookie: cookie })).status, 200, 'the default port written out');

    assert.equal((await upgrade(relay.port, 'machineId=home', { Host: publicHost, Cookie: cookie, Origin: `https://${publicHost}` })).status, 101);
    assert.equal((await upgrade(relay.port, 'machineId=home', { Host: publicHost, Cookie: cookie, Origin: `http://${publicHost}` })).status, 403, 'not the https origin');
    assert.equal((await upgrade(relay.port, 'machineId=home', { Host: 'other.example.com', Cookie: cookie, Origin: 'https://other.example.com' })).status, 403);
    // The secure cookie is not the loopback site's cookie.
    assert.equal((await http(relay.port, '/m/home/', { Cookie: cookie })).status, 401);
  });

  it('still serves loopback (an admin on the relay host) with its own http cookie, and refuses other hosts', async () => {
    const local = await http(relay.port, `/m/home/?token=${viewerToken}`);
    assert.equal(local.status, 303);
    assert.match(String(local.headers['set-cookie']), new RegExp(`^sb_viewer_${relay.port}_home=`));
    const refused = await http(relay.port, `/m/home/?token=${viewerToken}`, { Host: 'evil.example' });
    assert.equal(refused.status, 403);
    assert.match(refused.body, /this relay answers to relay\.example\.com/);
  });
});

describe('relay remote view: not built, and the CLI flags', () => {
  it('answers 503 with a hint when the renderer is not built', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-relay-login-'));
    const relay = await startTestRelay({ machines: ['m1'], server: { rendererDir: join(dir, 'missing') } });
    try {
      const cookie = cookiePair(await http(relay.port, `/m/m1/?token=${relay.tokens.get('m1')!.viewerToken}`));
      const reply = await http(relay.port, '/m/m1/', { Cookie: cookie });
      assert.equal(reply.status, 503);
      assert.match(reply.body, /npm run build/);
      assert.equal(relay.server.rendererBuilt, false);
    } finally {
      await relay.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('validates --public-url and prints the viewer link with it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-relay-login-'));
    try {
      const tokensFile = join(dir, 'tokens.json');
      for (const bad of ['https://relay.example.com/sub', 'ftp://relay.example.com', 'not a url', 'https://u:p@relay.example.com']) {
        const result = await runInProcess(['relay', 'add-machine', 'home', '--tokens', tokensFile, '--public-url', bad]);
        assert.equal(result.status, 2, bad);
        assert.match(result.stderr, /--public-url/);
      }
      const added = await runInProcess(['relay', 'add-machine', 'home', '--tokens', tokensFile, '--public-url', 'https://relay.example.com']);
      assert.equal(added.status, 0, added.stderr);
      assert.match(added.stdout, /remote view for a browser:\n {4}https:\/\/relay\.example\.com\/m\/home\/\?token=sbrv_/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
