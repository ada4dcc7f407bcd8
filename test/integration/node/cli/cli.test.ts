import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTempHome, testEnv } from '../../../helpers/tempHome.ts';
import { httpGet, startServe } from '../server/serveProcess.ts';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const bin = join(root, 'bin', 'switchboard.js');
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version as string;

function run(args: string[], options: { node?: string; env?: Record<string, string> } = {}) {
  const temp = createTempHome();
  try {
    const result = spawnSync(options.node ?? process.execPath, [bin, ...args], {
      env: { ...testEnv(temp.home), SWITCHBOARD_HOME: temp.dataDir, ...options.env },
      encoding: 'utf8',
      timeout: 20_000,
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  } finally {
    temp.dispose();
  }
}

describe('switchboard CLI', () => {
  it('prints help listing the verbs, and the version', () => {
    const help = run(['--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^Usage: switchboard <command>/);
    assert.match(help.stdout, /\n  serve  /);
    const shown = run(['--version']);
    assert.equal(shown.status, 0);
    assert.equal(shown.stdout, `${version}\n`);
  });

  it('gives every verb --help with --json listed', () => {
    const help = run(['serve', '--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^Usage: switchboard serve \[--host 127\.0\.0\.1\] \[--port N\]/);
    assert.match(help.stdout, /--json/);
    assert.match(help.stdout, /--allow-remote/);
    assert.equal(help.stderr, '');
  });

  it('exits 2 with a message on stderr for unknown verbs and flags', () => {
    const verb = run(['teleport']);
    assert.equal(verb.status, 2);
    assert.match(verb.stderr, /unknown command "teleport"/);
    assert.equal(verb.stdout, '');
    const flag = run(['serve', '--colour']);
    assert.equal(flag.status, 2);
    assert.match(flag.stderr, /^switchboard serve: Unknown option '--colour'\./);
    const global = run(['--colour']);
    assert.equal(global.status, 2);
    // A value that starts with "-" reads as an option to parseArgs: say how to give it.
    const dashed = run(['history', 'list', '--since', '-5']);
    assert.equal(dashed.status, 2);
    assert.match(dashed.stderr, /^switchboard history: --since needs a value; to give one that starts with "-", join them: --since=-VALUE/);
  });

  it('serve: exits 2 for a missing DIR, a bad port and a non-loopback host without --allow-remote', () => {
    const dir = run(['serve', '/definitely/not/here']);
    assert.equal(dir.status, 2);
    assert.match(dir.stderr, /no such directory: \/definitely\/not\/here/);
    const port = run(['serve', '--port', 'eighty']);
    assert.equal(port.status, 2);
    assert.match(port.stderr, /--port must be a number/);
    const host = run(['serve', '--host', '0.0.0.0']);
    assert.equal(host.status, 2);
    assert.match(host.stderr, /refusing to listen on non-loopback host 0\.0\.0\.0; add --allow-remote/);
  });

  it('refuses to start on Node older than 24 with one clear line', { skip: !existsSync('/usr/bin/node') ? 'no /usr/bin/node here' : false }, (t) => {
    const old = spawnSync('/usr/bin/node', ['-p', 'process.versions.node'], { encoding: 'utf8' });
    const major = Number(old.stdout.split('.')[0]);
    if (!(major < 24)) {
      t.skip(`/usr/bin/node is ${old.stdout.trim()}, not older than 24`);
      return;
    }
    const result = run(['--version'], { node: '/usr/bin/node' });
    assert.equal(result.status, 1);
    assert.equal(result.stderr, `switchboard needs Node.js 24 or newer; this is Node.js ${old.stdout.trim()}.\n`);
  });

  it('serve --json prints the ready info as one JSON line; a missing UI build is explained', async (t) => {
    const temp = createTempHome();
    const emptyRenderer = join(temp.home, 'no-renderer');
    mkdirSync(emptyRenderer);
    const serve = await startServe({ args: ['--json', '--port', '0'], home: temp.home, dataDir: temp.dataDir, env: { SWITCHBOARD_RENDERER_DIR: emptyRenderer } });
    t.after(async () => {
      if (serve.child.exitCode === null) serve.child.kill('SIGKILL');
      await serve.exited;
      temp.dispose();
    });
    const lines = serve.stdout().trim().split('\n');
    assert.equal(lines.length, 1);
    const info = JSON.parse(lines[0]!);
    assert.equal(info.url, `http://127.0.0.1:${serve.port}/?token=${serve.token}`);
    assert.equal(info.pid, serve.child.pid);
    assert.equal(info.controlSocket, join(temp.dataDir, 'control.sock'));
    assert.match(serve.stderr(), /run npm run build first/);
    const page = await httpGet(serve.port, '/', { Cookie: `switchboard_token_${serve.port}=${serve.token}` });
    assert.equal(page.status, 503);
    assert.match(page.body, /npm run build/);
    serve.child.kill('SIGTERM');
    assert.equal((await serve.exited).code, 0);
  });
});
