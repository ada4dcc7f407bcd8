/**
 * Browser mode's token (docs/security.md §4, "Secrets"): where it may appear (the ready line,
 * serve.json, the cookie) and where it must never (the log at trace level, the files of the data
 * dir, a Referer). A real `switchboard serve` child process, raw HTTP and WebSocket clients.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import WebSocket from 'ws';
import { startServedApp, type ServedApp } from '../../helpers/servedApp.ts';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A raw request: the path goes out exactly as given (no URL normalisation). */
function send(app: ServedApp, method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: app.port, method, path, agent: false, headers: { host: `127.0.0.1:${app.port}`, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Every file under `dir` whose bytes hold `needle`. */
function filesHolding(dir: string, needle: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((name) => {
    const path = join(dir, name);
    return statSync(path).isFile() && readFileSync(path).includes(needle);
  });
}

describe('browser mode: the token', () => {
  it('sets Referrer-Policy: no-referrer and no-store on the 302 that trades the URL token, and drops the token from the address', async (t) => {
    const app = await startServedApp();
    t.after(() => app.stop());
    const traded = await send(app, 'GET', `/?token=${app.token}&view=history`);
    assert.equal(traded.status, 302);
    assert.equal(traded.headers['referrer-policy'], 'no-referrer');
    assert.equal(traded.headers['cache-control'], 'no-store');
    assert.equal(traded.headers.location, '/?view=history');
    assert.ok(!String(traded.headers.location).includes(app.token));
    assert.match(String(traded.headers['set-cookie']), /HttpOnly; SameSite=Strict/);
    // A refused token's answer says no-referrer too.
    const wrong = await send(app, 'GET', '/?token=wrong');
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers['referrer-policy'], 'no-referrer');
  });

  it('answers 405 with Allow: GET, HEAD to every other method, token or not, and sets no cookie', async (t) => {
    const app = await startServedApp();
    t.after(() => app.stop());
    const cookie = `${String((await send(app, 'GET', `/?token=${app.token}`)).headers['set-cookie']).split(';')[0]}`;
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND']) {
      for (const [what, path, headers] of [
        ['no token', '/', {}],
        ['the URL token', `/?token=${app.token}`, {}],
        ['the cookie', '/index.html', { cookie }],
        ['the API path', '/api', { cookie }],
      ] as const) {
        const answer = await send(app, method, path, headers);
        assert.equal(answer.status, 405, `${method} with ${what}`);
        assert.equal(answer.headers.allow, 'GET, HEAD', `${method} with ${what}`);
        assert.equal(answer.headers['set-cookie'], undefined, `${method} with ${what}: no cookie for a refused method`);
      }
    }
    assert.equal((await send(app, 'HEAD', '/', { cookie })).status, 200);
  });

  it('refuses a WebSocket upgrade whose path is no URL with 400, and keeps serving (it ended the server, printing the token)', async (t) => {
    const app = await startServedApp();
    t.after(() => app.stop());
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = createConnection({ host: '127.0.0.1', port: app.port }, () => {
        socket.write(`GET //?token=${app.token} HTTP/1.1\r\nHost: 127.0.0.1:${app.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`);
      });
      let text = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    assert.match(answer, /^HTTP\/1\.1 400/);
    assert.equal((await send(app, 'GET', `/?token=${app.token}`)).status, 302, 'still serving');
    assert.ok(!app.stderr().includes(app.token), app.stderr());
  });

  it('never writes the token to its log (at trace level) nor to a file of the data dir but serve.json, whatever the requests', async (t) => {
    const app = await startServedApp({ env: { SWITCHBOARD_LOG_LEVEL: 'trace' } });
    let stopped = false;
    t.after(async () => {
      if (!stopped) await app.stop();
    });
    const { token } = app;
    // The URL token, right and wrong, in odd shapes; the cookie; the bearer header.
    const traded = await send(app, 'GET', `/?token=${token}`);
    const cookie = String(traded.headers['set-cookie']).split(';')[0]!;
    const odd = await send(app, 'GET', `//?token=${token}`);
    assert.ok(odd.status >= 300 && odd.status < 500, `a path that is no URL is answered, not a 500: ${odd.status} ${odd.body}`);
    await send(app, 'GET', `/missing?token=${token}`);
    await send(app, 'GET', `/%zz?token=${token}`);
    await send(app, 'POST', `/?token=${token}`);
    await send(app, 'GET', '/', { cookie: `${cookie}x` });
    await send(app, 'GET', '/', { cookie, host: 'evil.example' });
    await send(app, 'GET', '/', { authorization: `Bearer ${token}` });
    // WebSockets: refused with the token (a foreign Origin), then a working one that calls the Hub.
    const refused = new WebSocket(`ws://127.0.0.1:${app.port}/api?token=${token}`, { headers: { cookie, origin: 'https://evil.example' } });
    await new Promise<void>((resolve) => refused.once('error', () => resolve()));
    const socket = new WebSocket(`ws://127.0.0.1:${app.port}/api`, { headers: { authorization: `Bearer ${token}` } });
    await new Promise<void>((resolve, reject) => socket.once('open', () => resolve()).once('error', reject));
    const answered = new Promise<string>((resolve) => socket.on('message', (data, isBinary) => !isBinary && resolve(String(data))));
    socket.send(JSON.stringify({ type: 'request', id: 1, method: 'app.getState', params: {} }));
    assert.match(await answered, /"ok":true/);
    socket.send(`{"bad json ${token}`);
    socket.close();

    const inFiles = filesHolding(app.dataDir, token);
    assert.deepEqual(inFiles, ['serve.json'], 'only serve.json holds the token while the server runs');
    await app.stop({ keepFiles: true });
    stopped = true;
    t.after(() => app.dirs.dispose());
    assert.ok(app.stderr().length > 0, 'the log was written');
    assert.ok(!app.stderr().includes(token), `the token is in the log:\n${app.stderr().split('\n').filter((line) => line.includes(token)).join('\n')}`);
    assert.equal(app.stdout().split(token).length - 1, 1, 'stdout has it once: the ready line');
    assert.deepEqual(filesHolding(app.dataDir, token), [], 'no file of the data dir keeps it after the stop');
  });
});
