/** `switchboard subscribe` and `switchboard publish` against a real Hub's control socket. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runChild, runInProcess } from '../cli/cliHarness.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { createTerminal, startTestHub, type TestHub } from './controlTestKit.ts';

describe('switchboard subscribe / publish', () => {
  let app: TestHub;
  before(async () => {
    app = await startTestHub({ clawsCompatSockets: false });
  });
  after(async () => {
    await app?.dispose();
  });

  it('publish prints the delivery count; subscribe prints one JSON line per message and stops after --count', async () => {
    const subscriber = runChild(['subscribe', 'cli.*', '--count', '2', '--socket', app.socketPath], { env: app.env, timeoutMs: 20_000 });
    await pollUntil(() => app.hub.controlServer.bus.peers.some((peer) => peer.peerName === 'switchboard-cli' && peer.role === 'observer'), {
      timeoutMs: 15_000,
      what: 'the subscriber to say hello',
    });
    // hello and subscribe are sent back to back; give the subscribe a moment by publishing until it lands.
    let delivered = 0;
    await pollUntil(
      async () => {
        const published = await runInProcess(['publish', 'cli.ping', '{"n":1}', '--json', '--socket', app.socketPath]);
        assert.equal(published.status, 0, published.stderr);
        delivered = JSON.parse(published.stdout).deliveredTo;
        return delivered === 1;
      },
      { timeoutMs: 10_000, what: 'the subscription' },
    );
    const second = await runInProcess(['publish', 'cli.pong', '"two"', '--socket', app.socketPath]);
    assert.equal(second.status, 0, second.stderr);
    assert.equal(second.stdout, 'delivered to 1 subscriber\n');
    const result = await subscriber;
    assert.equal(result.status, 0, result.stderr);
    const frames = result.stdout.trim().split('\n').map((line) => JSON.parse(line));
    assert.equal(frames.length, 2);
    assert.equal(frames[1].topic, 'cli.pong');
    assert.equal(frames[1].payload, 'two');
    assert.equal(frames[1].push, 'message');
  });

  it("subscribe to a terminal's output stream names the terminal like every verb", async () => {
    const client = await app.connect();
    const id = await createTerminal(client, app.env, { name: 'streamer' });
    const subscriber = runChild(['subscribe', 'terminal.streamer.output', '--count', '1', '--socket', app.socketPath], { env: app.env, timeoutMs: 20_000 });
    await pollUntil(() => app.hub.controlServer.bus.peers.some((peer) => peer.peerName === 'switchboard-cli' && peer.role === 'observer'), {
      timeoutMs: 15_000,
      what: 'the subscriber',
    });
    // Output until the stream is followed (the subscribe lands just after the hello).
    // (A send still waiting when the client closes below is refused with the connection: expected.)
    const typing = setInterval(() => void client.request({ cmd: 'send', terminalId: id, text: 'echo streamed' }).catch(() => undefined), 200);
    try {
      const result = await subscriber;
      assert.equal(result.status, 0, result.stderr);
      assert.equal(JSON.parse(result.stdout.trim().split('\n')[0]!).topic, `terminal.${id}.output`);
    } finally {
      clearInterval(typing);
      await client.request({ cmd: 'close', terminalId: id });
      client.close();
    }
    const unknown = await runInProcess(['subscribe', 'terminal.nobody.output', '--socket', app.socketPath]);
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /nobody/);
  });

  it('subscribe --from-cursor replays logged messages, marked replayed', async () => {
    const published = await runInProcess(['publish', 'replaycli.one', '[1,2]', '--json', '--socket', app.socketPath]);
    const { sequence } = JSON.parse(published.stdout);
    const result = await runChild(['subscribe', 'replaycli.**', '--from-cursor', String(sequence - 1), '--count', '1', '--socket', app.socketPath], {
      env: app.env,
      timeoutMs: 20_000,
    });
    assert.equal(result.status, 0, result.stderr);
    const frame = JSON.parse(result.stdout.trim().split('\n')[0]!);
    assert.deepEqual([frame.topic, frame.payload, frame.replayed, frame.sequence], ['replaycli.one', [1, 2], true, sequence]);
  });

  it('refuses bad input with one clear line and a non-zero status', async () => {
    const badJson = await runInProcess(['publish', 'cli.x', '{nope', '--socket', app.socketPath]);
    assert.equal(badJson.status, 2);
    assert.match(badJson.stderr, /PAYLOAD_JSON is not valid JSON/);
    const badTopic = await runInProcess(['publish', 'Cli.X', '1', '--socket', app.socketPath]);
    assert.equal(badTopic.status, 1);
    assert.match(badTopic.stderr, /^switchboard publish: invalid topic "Cli\.X"/);
    const badPattern = await runInProcess(['subscribe', 'cli.*x', '--socket', app.socketPath]);
    assert.equal(badPattern.status, 1);
    assert.match(badPattern.stderr, /^switchboard subscribe: invalid topic pattern/);
    const help = await runInProcess(['subscribe', '--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /Usage: switchboard subscribe TOPIC/);
    const notRunning = await runInProcess(['publish', 'a.b', '--socket', '/nonexistent/sb.sock']);
    assert.equal(notRunning.status, 1);
    assert.match(notRunning.stderr, /Switchboard is not running/);
  });
});
