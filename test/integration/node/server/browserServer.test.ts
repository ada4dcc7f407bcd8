import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { pollUntil } from '../../../helpers/poll.ts';
import { createTempHome } from '../../../helpers/tempHome.ts';
import { httpGet, openApi, processAlive, startServe, type ServeProcess } from './serveProcess.ts';

describe('switchboard serve (a real server on a real socket)', () => {
  let temp: ReturnType<typeof createTempHome>;
  let serve: ServeProcess;
  let cookie: string;

  before(async () => {
    temp = createTempHome();
    const rendererDir = join(temp.home, 'renderer');
    mkdirSync(join(rendererDir, 'assets'), { recursive: true });
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>sb</title><script type="module" src="./assets/app.js"></script>');
    writeFileSync(join(rendererDir, 'assets', 'app.js'), 'console.log(1)');
    writeFileSync(join(rendererDir, 'assets', 'app.css'), 'body{}');
    writeFileSync(join(rendererDir, 'assets', 'index-Ci7S_kLE.js'), 'console.log(2)');
    writeFileSync(join(temp.home, 'outside.txt'), 'secret');
    serve = await startServe({ args: ['--port', '0', temp.workspace], home: temp.home, dataDir: temp.dataDir, env: { SWITCHBOARD_RENDERER_DIR: rendererDir } });
    cookie = `switchboard_token_${serve.port}=${serve.token}`;
  });

  after(async () => {
    if (serve.child.exitCode === null) {
      serve.child.kill('SIGKILL');
      await serve.exited;
    }
    temp.dispose();
  });

  it('prints exactly one ready line with a 127.0.0.1 URL and a 32-byte token', () => {
    assert.match(serve.stdout(), /^Switchboard ready: http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}\n$/);
    assert.ok(serve.port > 0);
  });

  it('writes serve.json 0600 in a 0700 data dir', () => {
    const file = join(temp.dataDir, 'serve.json');
    assert.equal(statSync(temp.dataDir).mode & 0o777, 0o700);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const info = JSON.parse(readFileSync(file, 'utf8'));
    assert.deepEqual(info, { url: serve.url, port: serve.port, token: serve.token, pid: serve.child.pid, controlSocket: join(temp.dataDir, 'control.sock') });
  });

  it('answers 401 with a hint without a token, with a wrong token and with a wrong cookie', async () => {
    for (const [path, headers] of [
      ['/', {}],
      ['/?token=wrong', {}],
      // The real token with its last character changed (to another one whatever it was).
      [`/?token=${serve.token.slice(0, -1)}${serve.token.endsWith('A') ? 'B' : 'A'}`, {}],
      ['/', { Cookie: `switchboard_token_${serve.port}=nope` }],
      ['/assets/app.js', {}],
    ] as const) {
      const response = await httpGet(serve.port, path, headers);
      assert.equal(response.status, 401, `${path} ${JSON.stringify(headers)}`);
      assert.match(response.body, /switchboard serve/);
    }
  });

  it('trades the URL token for an HttpOnly SameSite=Strict cookie and redirects to /', async () => {
    const response = await httpGet(serve.port, `/?token=${serve.token}`);
    assert.equal(response.status, 302);
    assert.equal(response.headers.location, '/');
    const setCookie = String(response.headers['set-cookie']);
    assert.match(setCookie, new RegExp(`^switchboard_token_${serve.port}=${serve.token};`));
    assert.match(setCookie, /HttpOnly/);
    assert.match(setCookie, /SameSite=Strict/);
  });

  it('serves the renderer with the cookie, with CSP and nosniff', async () => {
    const page = await httpGet(serve.port, '/', { Cookie: cookie });
    assert.equal(page.status, 200);
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(page.body, /<title>sb<\/title>/);
    const csp = String(page.headers['content-security-policy']);
    for (const part of ["default-src 'self'", `connect-src 'self' ws://127.0.0.1:${serve.port}`, "script-src 'self'", "frame-ancestors 'none'", "img-src 'self' data:"]) {
      assert.ok(csp.includes(part), `CSP lacks ${part}: ${csp}`);
    }
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
    const script = await httpGet(serve.port, '/assets/app.js', { Cookie: cookie });
    assert.equal(script.status, 200);
    assert.equal(script.headers['content-type'], 'text/javascript; charset=utf-8');
    const css = await httpGet(serve.port, '/assets/app.css', { Cookie: cookie });
    assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
  });

  it('lets the browser keep a content-hashed asset for good, never the page that names them', async () => {
    const hashed = await httpGet(serve.port, '/assets/index-Ci7S_kLE.js', { Cookie: cookie });
    assert.equal(hashed.status, 200);
    assert.equal(hashed.headers['cache-control'], 'private, max-age=31536000, immutable');
    assert.equal((await httpGet(serve.port, '/', { Cookie: cookie })).headers['cache-control'], 'no-cache');
    assert.equal((await httpGet(serve.port, '/assets/app.js', { Cookie: cookie })).headers['cache-control'], 'no-cache');
    // Without the cookie: refused, and nothing said about caching the refusal for good.
    const refused = await httpGet(serve.port, '/assets/index-Ci7S_kLE.js', {});
    assert.equal(refused.status, 401);
    assert.notEqual(refused.headers['cache-control'], 'private, max-age=31536000, immutable');
  });

  it('never serves a file outside the renderer dir', async () => {
    for (const path of ['/../outside.txt', '/%2e%2e/outside.txt', '/assets/..%2f..%2foutside.txt', '/missing.js']) {
      const response = await httpGet(serve.port, path, { Cookie: cookie });
      assert.ok([400, 404].includes(response.status), `${path} → ${response.status}`);
      assert.doesNotMatch(response.body, /secret/);
    }
  });

  it('answers 403 to a foreign Host header even with a valid cookie (DNS rebinding)', async () => {
    for (const host of ['evil.example', `evil.example:${serve.port}`, `127.0.0.1:${serve.port + 1}`]) {
      const response = await httpGet(serve.port, '/', { Cookie: cookie, Host: host });
      assert.equal(response.status, 403, host);
    }
    const localhost = await httpGet(serve.port, '/', { Cookie: cookie, Host: `localhost:${serve.port}` });
    assert.equal(localhost.status, 200);
  });

  it('refuses WebSocket upgrades from another Origin, a foreign Host or without the cookie', async () => {
    const refused = async (headers: Record<string, string>) => {
      const error = await openApi(serve.port, headers).then(
        (api) => {
          api.close();
          return undefined;
        },
        (reason: { status?: number }) => reason,
      );
      return error?.status;
    };
    assert.equal(await refused({ Cookie: cookie, Origin: 'http://evil.example' }), 403);
    assert.equal(await refused({ Cookie: cookie, Origin: `http://localhost:${serve.port + 1}` }), 403);
    assert.equal(await refused({ Cookie: cookie, Host: 'evil.example' }), 403);
    assert.equal(await refused({}), 401);
    assert.equal(await refused({ Cookie: `switchboard_token_${serve.port}=wrong` }), 401);
  });

  it('speaks the contract over a WebSocket with the cookie and survives malformed frames', async () => {
    const api = await openApi(serve.port, { Cookie: cookie, Origin: `http://127.0.0.1:${serve.port}` });
    try {
      const state = await api.call('app.getState', {});
      assert.equal(state.ok, true);
      assert.equal(state.result.host, 'browser');
      assert.deepEqual(state.result.workspaceFolders, [temp.workspace]);
      assert.equal(state.result.dataDir, temp.dataDir);
      assert.equal(state.result.homeDir, temp.home);

      api.sendRaw('not json at all');
      api.sendRaw(Buffer.from([1, 2, 3]));
      api.sendRaw(JSON.stringify({ type: 'request', id: 'x', method: 'terminal.list' }));
      api.sendRaw(JSON.stringify({ type: 'request', id: 77, method: '', params: {} }));
      const bad = await pollUntil(() => api.frames.find((frame) => frame.id === 77), { what: 'error response to id 77' });
      assert.equal(bad.ok, false);
      assert.equal(bad.error.code, 'INVALID_PARAMS');

      const unknown = await api.call('terminal.explode', {});
      assert.deepEqual(unknown.error?.code, 'UNKNOWN_METHOD');
      const invalid = await api.call('terminal.resize', { id: 't1', cols: 0, rows: 0 });
      assert.equal(invalid.error?.code, 'INVALID_PARAMS');
      assert.match(invalid.error!.message, /cols: Too small: expected number to be >=2/);

      const settings = await api.call('settings.update', { fontSize: 15 });
      assert.equal(settings.ok, true);
      assert.equal(settings.result.fontSize, 15);
      assert.equal(statSync(join(temp.dataDir, 'settings.json')).mode & 0o777, 0o600);
    } finally {
      api.close();
    }
  });

  it('sends layout changes to the other clients and gives the layout back after a reconnect', async () => {
    const headers = { Cookie: cookie };
    const first = await openApi(serve.port, headers);
    const second = await openApi(serve.port, headers);
    try {
      const layout = { tabs: [{ id: 'tab1', root: { type: 'pane', terminalId: 'none' } }], activeTabId: 'tab1', focusedTerminalId: null };
      assert.equal((await first.call('layout.set', layout)).ok, true);
      const changed = await pollUntil(() => second.events.find((event) => event.event === 'layout.changed'), { what: 'layout.changed' });
      assert.deepEqual(changed.payload, layout);
      assert.equal(first.events.some((event) => event.event === 'layout.changed'), false);
      first.close();
      const third = await openApi(serve.port, headers);
      assert.deepEqual((await third.call('app.getState', {})).result.layout, layout);
      third.close();
    } finally {
      second.close();
    }
  });

  let terminalPid = 0;

  it('runs a terminal end to end over the WebSocket: create, attach, write, output', async () => {
    const api = await openApi(serve.port, { Cookie: cookie, Origin: `http://localhost:${serve.port}`, Host: `localhost:${serve.port}` });
    try {
      const created = await api.call('terminal.create', { file: 'bash', args: ['--norc', '--noprofile'], shellIntegration: false });
      assert.equal(created.ok, true, JSON.stringify(created.error));
      const id = created.result.id as string;
      terminalPid = created.result.pid;
      assert.equal(created.result.cwd, temp.workspace);
      assert.ok(api.events.some((event) => event.event === 'terminal.added' && event.payload.id === id));
      const attached = await api.call('terminal.attach', { id });
      assert.equal(attached.ok, true);
      assert.equal(typeof attached.result.snapshot, 'string');
      assert.equal((await api.call('terminal.write', { id, data: 'echo hi\r' })).ok, true);
      const output = () =>
        api.events
          .filter((event) => event.event === 'terminal.output' && event.payload.id === id)
          .map((event) => event.payload.data)
          .join('');
      await pollUntil(() => /[\r\n]hi\r\n/.test(output()), { what: 'the echo output' }).catch((error: Error) => {
        throw new Error(`${error.message}; got ${JSON.stringify(output())}; frames ${JSON.stringify(api.frames.slice(-5))}`);
      });
      const chars = output().length;
      assert.equal((await api.call('terminal.ack', { id, chars })).ok, true);
      assert.equal((await api.call('terminal.write', { id, data: 'x'.repeat(10) })).ok, true);
    } finally {
      api.close();
    }
  });

  it('stops cleanly on SIGINT: exit 0, serve.json removed, PTY processes gone', async () => {
    assert.ok(terminalPid > 0 && processAlive(terminalPid), 'the terminal from the previous test should still run');
    serve.child.kill('SIGINT');
    const { code } = await serve.exited;
    assert.equal(code, 0, serve.stderr());
    assert.equal(existsSync(join(temp.dataDir, 'serve.json')), false);
    await pollUntil(() => !processAlive(terminalPid), { what: 'the PTY process to be gone' });
  });
});
