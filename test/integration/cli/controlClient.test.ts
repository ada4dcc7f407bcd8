/**
 * The CLI's control-socket client and argument handling, against a STAND-IN server (a real Unix
 * socket speaking claws/1; see standInServer.ts). What real terminals do is tested against the real
 * server in cliVerbs.test.ts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControlClient, ControlClientError, resolveControlSocketPath } from '../../../src/cli/controlClient.ts';
import { formatTerminalTable } from '../../../src/cli/commands/ls.ts';
import { commandLineFromArgs } from '../../../src/cli/shellQuote.ts';
import { resolveTerminalRef } from '../../../src/cli/terminalRef.ts';
import { builtInProfiles } from '../../../src/node/workspaces/profiles.ts';
import { runInProcess } from './cliHarness.ts';
import { startStandInServer, standInCommandEvent, standInTerminal, type StandInServer } from './standInServer.ts';

describe('control client against a stand-in socket server', () => {
  let server: StandInServer;
  let releaseSlowExec: () => void = () => {};
  before(async () => {
    server = await startStandInServer({
      list: () => ({ terminals: [standInTerminal('t1abc', 'build'), standInTerminal('t2xyz', 'server'), standInTerminal('t2xzz', 'other')] }),
      // Answers only once released, so a later `list` overtakes it: answers are matched by rid.
      exec: (request) =>
        new Promise((resolve) => {
          releaseSlowExec = () => resolve({ event: standInCommandEvent({ commandLine: request.command, output: `ran ${String(request.command)}\n`, exitCode: 7 }), truncated: false });
        }),
      readLog: () => ({ bytes: 42 }), // wrong type: the client must refuse it
      close: () => ({ error: 'unknown terminal id nope' }),
      rename: (request) => ({ name: request.name }),
      ping: () => 'silent',
    });
  });
  after(() => server.close());

  it('matches answers to requests by rid, even out of order', async () => {
    const client = new ControlClient({ socketPath: server.socketPath, clientName: 'test' });
    try {
      const exec = client.exec('t1abc', 'true');
      const terminals = await client.list();
      assert.deepEqual(terminals.map((terminal) => terminal.id), ['t1abc', 't2xyz', 't2xzz']);
      releaseSlowExec();
      const event = await exec;
      assert.equal(event.exitCode, 7);
      const sent = server.requests.find((request) => request.cmd === 'exec')!;
      assert.equal(sent.terminalId, 't1abc');
      assert.equal(sent.protocol, 'claws/1');
      assert.equal(sent.clientName, 'test');
      assert.notEqual(sent.id, 't1abc', 'the request id is free, the terminal travels in terminalId');
    } finally {
      client.dispose();
    }
  });

  it('passes server errors through, refuses malformed answers, and times out a silent server', async () => {
    const client = new ControlClient({ socketPath: server.socketPath, clientName: 'test', requestTimeoutMs: 200 });
    try {
      await assert.rejects(client.close('nope'), (error: ControlClientError) => error.code === 'SERVER_ERROR' && error.message === 'unknown terminal id nope');
      await assert.rejects(client.readLog('t1abc'), (error: ControlClientError) => error.code === 'BAD_RESPONSE' && /readLog.*bytes/.test(error.message));
      await assert.rejects(client.request('ping'), (error: ControlClientError) => error.code === 'TIMEOUT' && /ping within 200 ms/.test(error.message));
    } finally {
      client.dispose();
    }
  });

  it("reads answers with the protocol table: keeps fields a newer server adds, refuses one that renamed a field", async () => {
    const other = await startStandInServer({
      list: () => ({ terminals: [standInTerminal('t1', 'build', { addedLater: { x: 1 } })], alsoAddedLater: true }),
      // An older or broken server that calls nextOffset something else.
      readLog: () => ({ bytes: 'hi', offset: 0, next: 2, totalSize: 2, truncated: false, logPath: null }),
      send: () => ({ mode: 'wrapped', pasted: false, offset: 12 }),
    });
    const client = new ControlClient({ socketPath: other.socketPath, clientName: 'test' });
    try {
      const [terminal] = await client.list();
      assert.deepEqual(terminal?.addedLater, { x: 1 });
      assert.deepEqual(await client.call('list', {}).then((answer) => answer.alsoAddedLater), true);
      await assert.rejects(client.readLog('t1'), (error: ControlClientError) => error.code === 'BAD_RESPONSE' && error.message === 'unexpected answer to readLog from the control socket at nextOffset: Invalid input: expected number, received undefined');
      // Fields left undefined are not sent.
      assert.equal((await client.send('t1', { text: 'ls', paste: undefined })).offset, 12);
      const sent = other.requests.find((request) => request.cmd === 'send')!;
      assert.equal('paste' in sent, false);
    } finally {
      client.dispose();
      await other.close();
    }
  });

  it('says the app is not running for a missing socket and for a stale socket file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-cli-stale-'));
    try {
      const missing = new ControlClient({ socketPath: join(dir, 'control.sock'), clientName: 'test' });
      await assert.rejects(missing.list(), (error: ControlClientError) => error.code === 'NOT_RUNNING' && error.message.includes(join(dir, 'control.sock')));
      missing.dispose();
      // A socket file left behind by a crashed app: it exists, nobody listens (ECONNREFUSED).
      const stalePath = join(dir, 'stale.sock');
      await leaveStaleSocket(stalePath);
      assert.ok(existsSync(stalePath));
      const stale = new ControlClient({ socketPath: stalePath, clientName: 'test' });
      await assert.rejects(stale.list(), (error: ControlClientError) => error.code === 'NOT_RUNNING');
      stale.dispose();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('resolves TERMINAL by id, unique prefix or name, and refuses ambiguous or unknown ones', async () => {
    const env = { SWITCHBOARD_SOCKET: server.socketPath };
    const byName = await runInProcess(['rename', 'server', 'web', '--json'], { env });
    assert.equal(byName.stderr, '');
    assert.equal(byName.status, 0);
    assert.deepEqual(JSON.parse(byName.stdout), { id: 't2xyz', name: 'web' });
    const renameRequest = server.requests.findLast((request) => request.cmd === 'rename')!;
    assert.equal(renameRequest.terminalId, 't2xyz');

    const ambiguous = await runInProcess(['close', 't2x'], { env });
    assert.equal(ambiguous.status, 1);
    assert.match(ambiguous.stderr, /^switchboard close: "t2x" matches 2 terminals by id prefix: t2xyz \(server\), t2xzz \(other\); use the full id\n$/);

    const unknown = await runInProcess(['screen', 'zzz'], { env });
    assert.equal(unknown.status, 1);
    assert.equal(unknown.stderr, 'switchboard screen: unknown terminal "zzz" (see `switchboard ls`)\n');
  });

  it('exec quotes several arguments, prints the output and exits with the exit code', async () => {
    const env = { SWITCHBOARD_SOCKET: server.socketPath };
    const pending = runInProcess(['exec', 't1', '--', 'sh', '-c', "exit 7; echo it's"], { env });
    // The stand-in holds exec until released; release it once the request arrived.
    while (!server.requests.some((request) => request.cmd === 'exec' && String(request.command).startsWith('sh '))) await new Promise((resolve) => setImmediate(resolve));
    releaseSlowExec();
    const result = await pending;
    assert.equal(result.stdout, `ran sh -c 'exit 7; echo it'\\''s'\n`);
    assert.equal(result.status, 7);
  });
});

describe('CLI verbs say what the server refused, in their own words', () => {
  let server: StandInServer;
  before(async () => {
    server = await startStandInServer({
      list: () => ({ terminals: [standInTerminal('t1abc', 'build')] }),
      exec: () => ({ error: 'terminal t1abc has unsent input at the prompt: "ls -" (the person has not pressed Enter; nothing was typed)', code: 'BUSY', unsentInput: 'ls -' }),
      signal: (request) => ({ signal: request.signal, processGroup: 4242 }),
      'worktree.finish': () => ({ error: 'discarding agent/x would lose 2 unmerged commits. Send confirm: true to discard anyway', code: 'UNMERGED_WORK' }),
      'agent.start': () => ({
        error: '.switchboard/setup failed (exit 3); the agent was not started and the worktree removed.\nLast output:\n[switchboard] running .switchboard/setup\ninstalling deps...\nnpm ERR! boom',
        code: 'SETUP_FAILED',
      }),
      'agent.profiles': () => ({
        profiles: [{ profile: builtInProfiles[0], installed: false, command: 'claude', resolvedPath: null, reason: `not found on PATH (${'/a/very/long/bin:'.repeat(20)}/bin)` }],
      }),
    });
  });
  after(() => server.close());
  const env = () => ({ SWITCHBOARD_SOCKET: server.socketPath });

  it('exec --json prints a refusal as an object on stdout, with its code and the unsent line', async () => {
    const result = await runInProcess(['exec', 'build', '--json', '--', 'ls'], { env: env() });
    assert.equal(result.status, 1);
    assert.deepEqual(JSON.parse(result.stdout), {
      error: 'terminal t1abc has unsent input at the prompt: "ls -" (the person has not pressed Enter; nothing was typed)',
      code: 'BUSY',
      unsentInput: 'ls -',
    });
  });

  it('exec of an empty command is a usage error (exit 2) and sends nothing', async () => {
    const before = server.requests.length;
    const result = await runInProcess(['exec', 'build', '--', ''], { env: env() });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /the command is empty/);
    assert.equal(server.requests.slice(before).some((request) => request.cmd === 'exec'), false);
  });

  it('signal sends a checked signal name (INT, sigint, SIGINT) and refuses others before connecting', async () => {
    const sent = await runInProcess(['signal', 'build', 'int', '--json'], { env: env() });
    assert.equal(sent.status, 0, sent.stderr);
    assert.deepEqual(JSON.parse(sent.stdout), { id: 't1abc', signal: 'SIGINT', processGroup: 4242 });
    assert.deepEqual(server.requests.at(-1), { ...server.requests.at(-1), cmd: 'signal', terminalId: 't1abc', signal: 'SIGINT' });
    const byDefault = await runInProcess(['signal', 'build'], { env: env() });
    assert.equal(byDefault.status, 0);
    assert.equal(server.requests.at(-1)?.signal, 'SIGINT');
    const bad = await runInProcess(['signal', 'build', 'SIGFOO'], { env: { SWITCHBOARD_SOCKET: '/nonexistent/control.sock' } });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /unknown signal "SIGFOO": give one of SIGINT, SIGTERM/);
  });

  it('worktree finish says --confirm where the Hub says confirm: true', async () => {
    const result = await runInProcess(['worktree', 'finish', 'discard', '/tmp/x-worktrees/x'], { env: env() });
    assert.equal(result.status, 1);
    assert.equal(result.stderr, 'switchboard worktree: discarding agent/x would lose 2 unmerged commits. Run it again with --confirm to discard anyway\n');
  });

  it('agent start prints a failed setup\'s last output one line each', async () => {
    const result = await runInProcess(['agent', 'start', '--profile', 'claude', '/tmp'], { env: env() });
    assert.equal(result.status, 1);
    assert.equal(
      result.stderr,
      'switchboard agent: .switchboard/setup failed (exit 3); the agent was not started and the worktree removed.\n  Last output:\n  [switchboard] running .switchboard/setup\n  installing deps...\n  npm ERR! boom\n',
    );
  });

  it('agent profiles says "not found on PATH" without listing the PATH (--json keeps it)', async () => {
    const table = await runInProcess(['agent', 'profiles'], { env: env() });
    assert.equal(table.status, 0, table.stderr);
    assert.match(table.stdout, /no: not found on PATH\n$/);
    assert.doesNotMatch(table.stdout, /very\/long/);
    const json = await runInProcess(['agent', 'profiles', '--json'], { env: env() });
    assert.match(json.stdout, /very\/long/);
  });

  it('--socket at a regular file says it is not a socket', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-notsock-'));
    try {
      writeFileSync(join(dir, 'file'), '');
      const result = await runInProcess(['ls', '--socket', join(dir, 'file')]);
      assert.equal(result.status, 1);
      assert.equal(result.stderr, `switchboard: ${join(dir, 'file')} is a regular file, not a control socket: check --socket or $SWITCHBOARD_SOCKET (Switchboard's is control.sock in its data directory)\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('CLI argument handling', () => {
  it('gives every socket verb --help with --json and --socket, and lists them in the global help', async () => {
    const global = await runInProcess(['--help']);
    for (const verb of ['ls', 'new', 'send', 'exec', 'read', 'screen', 'wait', 'signal', 'close', 'rename', 'mcp']) {
      assert.match(global.stdout, new RegExp(`\\n  ${verb} +[A-Z]`), verb);
      const help = await runInProcess([verb, '--help']);
      assert.equal(help.status, 0);
      assert.match(help.stdout, new RegExp(`^Usage: switchboard ${verb}`));
      assert.match(help.stdout, /--json/);
      assert.match(help.stdout, /--socket PATH/);
    }
    assert.match((await runInProcess(['exec', '--help'])).stdout, /unique prefix/);
  });

  it('refuses bad numbers and missing arguments before connecting (exit 2)', async () => {
    const env = { SWITCHBOARD_SOCKET: '/nonexistent/control.sock' };
    const limit = await runInProcess(['read', 'x', '--limit', '-5'], { env });
    assert.equal(limit.status, 2);
    const wait = await runInProcess(['wait', 'x'], { env });
    assert.equal(wait.status, 2);
    assert.match(wait.stderr, /give at least one of --pattern, --exit, --idle, --prompt, --agent-state or --port/);
    const pattern = await runInProcess(['wait', 'x', '--pattern', '(unclosed'], { env });
    assert.equal(pattern.status, 2);
    assert.match(pattern.stderr, /--pattern is not a valid regular expression/);
    const send = await runInProcess(['send', 'x'], { env });
    assert.equal(send.status, 2);
    assert.match(send.stderr, /missing TEXT/);
  });

  it('finds the socket from --socket, then SWITCHBOARD_SOCKET, then the data dir', () => {
    assert.equal(resolveControlSocketPath({ socketFlag: 'rel.sock', env: { SWITCHBOARD_SOCKET: '/env.sock' }, cwd: '/work' }), '/work/rel.sock');
    assert.equal(resolveControlSocketPath({ env: { SWITCHBOARD_SOCKET: '/env.sock', SWITCHBOARD_HOME: '/home' }, cwd: '/' }), '/env.sock');
    assert.equal(resolveControlSocketPath({ env: { SWITCHBOARD_HOME: '/data' }, cwd: '/' }), '/data/control.sock');
  });

  it('turns argv into a command line: one argument verbatim, several quoted', () => {
    assert.equal(commandLineFromArgs(['ls | wc -l']), 'ls | wc -l');
    assert.equal(commandLineFromArgs(['echo', 'a b', "it's", '$HOME', 'plain-word']), `echo 'a b' 'it'\\''s' '$HOME' plain-word`);
  });

  it('prefers an exact id, then an exact name, over an id prefix', () => {
    const terminals = [standInTerminal('abc', 'x'), standInTerminal('abd', 'ab')].map((terminal) => terminal as { id: string; name: string });
    assert.equal(resolveTerminalRef(terminals, 'ab').id, 'abd');
    assert.equal(resolveTerminalRef(terminals, 'abc').id, 'abc');
    assert.throws(() => resolveTerminalRef(terminals, 'a'), /matches 2 terminals/);
  });

  it('suggests the name a person meant when the shell split it or they left out its space', () => {
    const terminals = [standInTerminal('t1', 'bash'), standInTerminal('t2', 'bash 2'), standInTerminal('t3', "it's-me")].map((terminal) => terminal as { id: string; name: string });
    assert.throws(() => resolveTerminalRef(terminals, 'bash2'), { message: `unknown terminal "bash2"; did you mean 'bash 2'?` });
    assert.throws(() => resolveTerminalRef(terminals, 'Bash-2'), { message: `unknown terminal "Bash-2"; did you mean 'bash 2'?` });
    assert.throws(() => resolveTerminalRef(terminals, 'its me'), { message: `unknown terminal "its me" (see \`switchboard ls\`)` });
    assert.throws(() => resolveTerminalRef(terminals, "It's_me"), { message: `unknown terminal "It's_me"; did you mean 'it'\\''s-me'?` });
    assert.throws(() => resolveTerminalRef(terminals, 'zsh'), { message: 'unknown terminal "zsh" (see `switchboard ls`)' });
  });

  it('ls aligns columns, shortens the home dir and neutralises control characters', () => {
    const table = formatTerminalTable(
      [
        { ...standInTerminal('t1', 'build', { cwd: '/home/me/proj', runningCommand: 'npm test' }) } as never,
        { ...standInTerminal('t22', 'evil\u001b]0;x\u0007', { cwd: '/srv', status: 'exited', exitCode: 3 }) } as never,
      ],
      '/home/me',
    );
    assert.equal(
      table,
      ['ID   NAME        STATUS   CWD     COMMAND/EXIT', 't1   build       running  ~/proj  npm test', 't22  evil?]0;x?  exited   /srv    exit 3', ''].join('\n'),
    );
  });
});

/** A process listens on the path and is SIGKILLed, so the socket file stays with nobody behind it. */
async function leaveStaleSocket(path: string): Promise<void> {
  const child = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(path)}, () => console.log('ready'))`], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`listener exited early with ${code}`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}
