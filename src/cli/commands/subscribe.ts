/** `switchboard subscribe`: follow claws/2 bus messages on a topic pattern, one JSON line each. */
import { ProtocolV2 } from '../../common/protocol/control/wire.ts';
import { CliUsageError, ExitCode } from '../command.ts';
import { ControlClientError } from '../controlClient.ts';
import { cliClientName, defineControlCommand, intOption, printJson, reportControlError, requirePositionals } from '../controlCommand.ts';

export const subscribeCommand = defineControlCommand({
  name: 'subscribe',
  summary: 'Print claws/2 bus messages on a topic pattern as JSON lines, until Ctrl-C.',
  usage: 'subscribe TOPIC [--from-cursor N] [--count N] [--json]',
  details: [
    'TOPIC is dot-separated lowercase segments; * stands for exactly one segment and ** for one or',
    'more (task.** matches task.a and task.a.b, not task). Server topics include system.peer.connected,',
    'system.terminal.created|closed, command.<terminal id>.start|end, terminal.<terminal id>.exit,',
    'system.heartbeat, and terminal.TERMINAL.output (live output, base64 chunks with offsets; TERMINAL: id, unique prefix or name).',
    'Each push frame is printed as one JSON line: {"push":"message","topic",...,"payload",...,"sequence"}.',
    '--from-cursor N first replays the logged messages after sequence N (marked "replayed":true), then',
    'prints {"push":"caught-up",...}. --count N exits after N messages.',
  ].join('\n'),
  allowPositionals: true,
  options: {
    'from-cursor': { type: 'string', valueName: 'N', description: 'replay logged messages with a sequence after N first' },
    count: { type: 'string', short: 'c', valueName: 'N', description: 'exit after N messages' },
  },
  async run({ args, io, client, terminalId }) {
    const [pattern] = requirePositionals(args, ['TOPIC']);
    const fromCursor = intOption(args, 'from-cursor', { min: 0 });
    const count = intOption(args, 'count', { min: 1 });
    if (pattern!.length === 0) throw new CliUsageError('TOPIC is empty');
    // A terminal's output stream takes a TERMINAL like every verb: id, unique prefix or name.
    const stream = /^terminal\.([^.*]+)\.output$/.exec(pattern!);
    const topic = stream ? `terminal.${await terminalId(stream[1]!)}.output` : pattern!;

    let received = 0;
    let finish!: (status: number) => void;
    const finished = new Promise<number>((resolve) => (finish = resolve));
    const pushes = client.onPush((frame) => {
      printJson(io, frame);
      if (frame.push === 'message' && count !== undefined && ++received >= count) finish(ExitCode.ok);
    });
    const closed = client.onConnectionClosed((reason) => {
      io.stderr(`switchboard subscribe: ${reason}\n`);
      finish(ExitCode.failure);
    });
    const interrupted = () => finish(ExitCode.ok);
    process.once('SIGINT', interrupted);
    process.once('SIGTERM', interrupted);
    try {
      await client.call('hello', { protocol: ProtocolV2, role: 'observer', peerName: cliClientName });
      const subscribed = await client.call('subscribe', { topic: topic!, fromCursor });
      if (args.json) io.stderr(`${JSON.stringify({ subscribed: topic, ...subscribed })}\n`);
      return await finished;
    } catch (error) {
      if (error instanceof ControlClientError) return reportControlError(io, 'subscribe', error);
      throw error;
    } finally {
      process.off('SIGINT', interrupted);
      process.off('SIGTERM', interrupted);
      pushes.dispose();
      closed.dispose();
    }
  },
});
