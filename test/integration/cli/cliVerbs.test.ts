/**
 * The `switchboard` verbs as a user runs them (child processes), against the REAL control socket
 * of a running `switchboard serve` with real bash terminals.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pollUntil } from '../../helpers/poll.ts';
import { testEnv } from '../../helpers/tempHome.ts';
import { cliMain, runChild } from './cliHarness.ts';
import { startRealSwitchboard, type RealSwitchboard } from './realServer.ts';

describe('switchboard verbs against the real control socket', () => {
  let app: RealSwitchboard;
  const cli = (argv: string[], stdin?: string) => runChild(argv, { env: app.cliEnv, stdin, timeoutMs: 30_000 });
  let alpha = '';

  before(async () => {
    app = await startRealSwitchboard();
  });
  after(async () => {
    await app?.stop();
  });

  it('new prints the id of a terminal that ls then lists, as a table and as JSON', async () => {
    const created = await cli(['new', '--name', 'alpha', '--cwd', app.workspace]);
    assert.equal(created.stderr, '');
    assert.equal(created.status, 0);
    alpha = created.stdout.trim();
    assert.match(alpha, /^[A-Za-z0-9_.-]+$/);

    const table = await cli(['ls']);
    assert.equal(table.status, 0);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    assert.match(header!, /^ID +NAME +STATUS +CWD +COMMAND\/EXIT$/);
    const row = rows.find((line) => line.startsWith(alpha + ' '));
    assert.ok(row, `ls shows ${alpha}:\n${table.stdout}`);
    assert.match(row!, / alpha +running /);
    // Columns line up: NAME starts at the same place in the header and in every row.
    assert.equal(row!.indexOf('alpha'), header!.indexOf('NAME'));

    const json = await cli(['ls', '--json']);
    const terminals = JSON.parse(json.stdout) as { id: string; name: string; cwd: string }[];
    const listed = terminals.find((terminal) => terminal.id === alpha);
    assert.equal(listed?.name, 'alpha');
  });

  it('send types into the terminal and screen shows the result', async () => {
    const sent = await cli(['send', 'alpha', 'echo', 'sum=$((40+2))']);
    assert.equal(sent.status, 0, sent.stderr);
    assert.equal(sent.stdout, '');
    const screen = await pollUntil(async () => {
      const result = await cli(['screen', alpha]);
      return /^sum=42$/m.test(result.stdout) ? result : undefined;
    }, { what: 'sum=42 on the screen' });
    assert.equal(screen.status, 0);
    assert.match(screen.stdout, /echo sum=\$\(\(40\+2\)\)/);

    const screenJson = JSON.parse((await cli(['screen', alpha, '--json'])).stdout);
    assert.equal(screenJson.cols > 0 && screenJson.rows > 0, true);
    assert.equal(screenJson.altScreen, false);
  });

  it('wait --pattern --since exits 0 and prints the match, even for output that came before the wait', async () => {
    const sent = await cli(['send', alpha, '--json', 'echo "tick-$((3*3))-done"']);
    assert.equal(sent.status, 0, sent.stderr);
    const { offset } = JSON.parse(sent.stdout) as { offset: number };
    assert.equal(typeof offset, 'number');
    // Make sure the output is already there: the wait must find it through --since.
    await pollUntil(async () => /^tick-9-done$/m.test((await cli(['screen', alpha])).stdout), { what: 'tick-9-done' });
    const waited = await cli(['wait', 'alpha', '--pattern', 'TICK-[0-9]-done', '-i', '--since', String(offset), '--timeout', '10000']);
    assert.equal(waited.status, 0, waited.stderr);
    assert.equal(waited.stdout, 'tick-9-done\n');
    const json = JSON.parse((await cli(['wait', alpha, '--json', '--pattern', 'tick-9', '--since', String(offset)])).stdout);
    assert.equal(json.matched, 'pattern');
    assert.equal(json.text, 'tick-9');
  });

  it('send - reads the text from standard input', async () => {
    const sent = await cli(['send', alpha, '-'], 'echo from-stdin-$((1+1))\n');
    assert.equal(sent.status, 0, sent.stderr);
    await pollUntil(async () => /^from-stdin-2$/m.test((await cli(['screen', alpha])).stdout), { what: 'the stdin text to run' });
  });

  it('read prints the output log, stripped of escape sequences unless --raw', async () => {
    const read = await cli(['read', alpha]);
    assert.equal(read.status, 0);
    assert.match(read.stdout, /sum=42/);
    assert.doesNotMatch(read.stdout, /\u001b\[/);
    const json = JSON.parse((await cli(['read', alpha, '--json', '--limit', '10'])).stdout);
    assert.equal(json.bytes.length <= 10, true);
    assert.equal(json.nextOffset, json.totalSize);
  });

  it('exec prints the output and exits with the command exit code', async () => {
    const hi = await cli(['exec', alpha, '--', 'echo', 'hi there']);
    assert.equal(hi.status, 0, hi.stderr);
    assert.match(hi.stdout, /^hi there\r?\n?$/);
    const seven = await cli(['exec', alpha, '--', 'sh', '-c', 'exit 7']);
    assert.equal(seven.status, 7, seven.stderr);
    const line = await cli(['exec', alpha, '--', 'printf "%s\\n" a b | wc -l']);
    assert.equal(line.status, 0);
    assert.equal(line.stdout.trim(), '2');
    const json = JSON.parse((await cli(['exec', alpha, '--json', '--', 'false'])).stdout);
    assert.equal(json.exitCode, 1);
  });

  it('exec exits 124 when the command outlives --timeout', async () => {
    const slow = (await cli(['new', '--name', 'slow'])).stdout.trim();
    const result = await cli(['exec', slow, '--timeout', '400', '--', 'sleep 30']);
    assert.equal(result.status, 124);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^switchboard exec: exec timeout after 400ms: .*\n$/);
    assert.equal((await cli(['close', slow])).status, 0);
  });

  it('exec stopped with Ctrl-C while it waits for the running command is never typed', async () => {
    const busy = (await cli(['new', '--name', 'busy'])).stdout.trim();
    assert.equal((await cli(['send', busy, 'sleep 3'])).status, 0);
    // As a person runs it in a shell: a child process, stopped with Ctrl-C (SIGINT) while it waits.
    const child = spawn(process.execPath, [cliMain, 'exec', busy, '--', 'echo typed-for-nobody'], { env: app.cliEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.end();
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // Long enough for the CLI to start and send its request, well inside `sleep 3`.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    child.kill('SIGINT');
    await exited;
    // Once sleep is over the prompt is back: an exec still queued would type now.
    assert.equal((await cli(['exec', busy, '--', 'echo after-sleep'])).stdout, 'after-sleep\n');
    const read = await cli(['read', busy]);
    assert.doesNotMatch(read.stdout, /typed-for-nobody/);
    assert.equal((await cli(['close', busy])).status, 0);
  });

  it('exec past --timeout prints the output so far and the line the pane waits on', async () => {
    const result = await cli(['exec', alpha, '--timeout', '3000', '--', 'echo asking; read -p "name? " x']);
    assert.equal(result.status, 124);
    assert.equal(result.stdout, 'asking\nname? ');
    assert.match(result.stderr, /^switchboard exec: exec timeout after 3000ms: the command is still running in terminal .*; the pane's last line: "name\?"\n$/);
    const json = JSON.parse((await cli(['exec', alpha, '--json', '--timeout', '1000', '--', 'true'])).stdout);
    assert.equal(json.code, 'TIMEOUT', 'the earlier read still holds the shell');
    assert.equal(json.typed, false);
    assert.equal((await cli(['send', alpha, 'bob'])).status, 0);
    assert.equal((await cli(['exec', alpha, '--', 'echo "x=$x"'])).stdout, 'x=bob\n');
  });

  it('exec refuses piped stdin (its stdin is the terminal) and types nothing', async () => {
    const result = await cli(['exec', alpha, '--', 'cat'], 'data\n');
    assert.equal(result.status, 2);
    assert.equal(result.stderr, 'switchboard exec: stdin is not passed to the command (its stdin is the terminal); put the data in the command, in a file, or type it with `switchboard send`\n');
    assert.equal((await cli(['exec', alpha, '--', 'echo not-waiting-in-cat'])).stdout, 'not-waiting-in-cat\n');
  });

  it('exec of a command that ends the shell exits with the shell exit code and says so', async () => {
    const doomed = (await cli(['new', '--name', 'doomed'])).stdout.trim();
    const result = await cli(['exec', doomed, '--', 'exit 4']);
    assert.equal(result.status, 4);
    assert.match(result.stderr, /^switchboard exec: terminal .* exited while running the command \(its shell exited with code 4\)\n$/);
    await cli(['close', doomed]);
  });

  it('screen --scrollback N adds lines from above the screen', async () => {
    assert.equal((await cli(['exec', alpha, '--', 'seq 1 80'])).status, 0);
    const visible = await cli(['screen', alpha]);
    assert.doesNotMatch(visible.stdout, /^5$/m);
    assert.match(visible.stdout, /^80$/m);
    const more = await cli(['screen', alpha, '--scrollback', '200']);
    assert.match(more.stdout, /^5$/m);
    const json = JSON.parse((await cli(['screen', alpha, '--json', '--scrollback', '10'])).stdout) as { lines: string[]; rows: number };
    assert.equal(json.lines.length, json.rows + 10);
  });

  it('wait exits 124 when nothing matches in time', async () => {
    const waited = await cli(['wait', alpha, '--pattern', 'never-printed-xyz', '--timeout', '300']);
    assert.equal(waited.status, 124);
    assert.equal(waited.stdout, '');
    assert.match(waited.stderr, /^switchboard wait: timed out after 300 ms\n$/);
  });

  it('new -- CMD types the command into the new shell', async () => {
    // One argument is a whole command line: the shell expands it.
    const created = await cli(['new', '--name', 'beta', '--', 'echo started $((2*21))']);
    assert.equal(created.status, 0, created.stderr);
    const beta = created.stdout.trim();
    await pollUntil(async () => /^started 42$/m.test((await cli(['screen', beta])).stdout), { what: 'the command to run in the new terminal' });
  });

  it('rename and close change what ls shows', async () => {
    const taken = await cli(['rename', 'beta', 'alpha']);
    assert.equal(taken.status, 1);
    assert.match(taken.stderr, /^switchboard rename: the name "alpha" is taken by terminal \S+; names point at one terminal — pick another or rename that one first\n$/);
    const renamed = await cli(['rename', 'beta', 'gamma']);
    assert.equal(renamed.status, 0, renamed.stderr);
    const listed = JSON.parse((await cli(['ls', '--json'])).stdout) as { id: string; name: string }[];
    const gamma = listed.find((terminal) => terminal.name === 'gamma');
    assert.ok(gamma, 'renamed terminal is listed as gamma');
    assert.equal(listed.some((terminal) => terminal.name === 'beta'), false);

    const closed = await cli(['close', 'gamma', '--json']);
    assert.equal(closed.status, 0, closed.stderr);
    assert.deepEqual(JSON.parse(closed.stdout), { id: gamma!.id, alreadyClosed: false });
    await pollUntil(async () => {
      const after = JSON.parse((await cli(['ls', '--json'])).stdout) as { id: string; status?: string }[];
      const left = after.find((terminal) => terminal.id === gamma!.id);
      return left === undefined || left.status !== 'running';
    }, { what: 'the closed terminal to leave the list' });
  });

  it('an unknown terminal is a one-line error with status 1', async () => {
    const result = await cli(['exec', 'no-such-terminal', '--', 'true']);
    assert.equal(result.status, 1);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr, 'switchboard exec: unknown terminal "no-such-terminal" (see `switchboard ls`)\n');
  });
});

describe('switchboard verbs when the app is not running', () => {
  it('every verb says so in one line and exits 1', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-cli-down-'));
    try {
      const env = { ...testEnv(dataDir), SWITCHBOARD_HOME: dataDir };
      for (const argv of [['ls'], ['exec', 'x', '--', 'true'], ['new', '--json']]) {
        const result = await runChild(argv, { env });
        assert.equal(result.status, 1, argv.join(' '));
        assert.equal(result.stdout, '');
        assert.equal(
          result.stderr,
          `switchboard: Switchboard is not running (no control socket at ${join(dataDir, 'control.sock')}). Start it with \`npm start\` or \`switchboard serve\`.\n`,
        );
      }
      const flag = await runChild(['ls', '--socket', join(dataDir, 'other.sock')], { env });
      assert.match(flag.stderr, /no control socket at .*other\.sock\)/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
