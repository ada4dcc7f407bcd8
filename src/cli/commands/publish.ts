/** `switchboard publish`: send one message on the claws/2 bus. */
import { ProtocolV2 } from '../../common/protocol/control/wire.ts';
import { CliUsageError, ExitCode } from '../command.ts';
import { cliClientName, defineControlCommand, printJson, requirePositionals } from '../controlCommand.ts';

export const publishCommand = defineControlCommand({
  name: 'publish',
  summary: 'Publish a message on the claws/2 bus to every subscriber of a matching topic.',
  usage: 'publish TOPIC [PAYLOAD_JSON] [--echo] [--json]',
  details: [
    'TOPIC is dot-separated lowercase segments (no wildcards), e.g. task.build.done. PAYLOAD_JSON is',
    'any JSON value (default null), e.g. \'{"ok":true}\' or \'"text"\'. The message is logged, so',
    '`subscribe --from-cursor` can replay it later. Prints how many subscribers received it;',
    '--json prints {"deliveredTo": N, "sequence": N}.',
  ].join('\n'),
  allowPositionals: true,
  options: {
    echo: { type: 'boolean', description: 'also deliver to this client (only useful on a shared connection)' },
  },
  async run({ args, io, client }) {
    const [topic, payloadText] = requirePositionals(args, ['TOPIC'], { rest: true });
    if (args.positionals.length > 2) throw new CliUsageError(`unexpected argument ${JSON.stringify(args.positionals[2])} (quote PAYLOAD_JSON as one argument)`);
    let payload: unknown = null;
    if (payloadText !== undefined) {
      try {
        payload = JSON.parse(payloadText);
      } catch (error) {
        throw new CliUsageError(`PAYLOAD_JSON is not valid JSON: ${(error as Error).message}`);
      }
    }
    await client.call('hello', { protocol: ProtocolV2, role: 'worker', peerName: cliClientName });
    const result = await client.call('publish', { topic: topic!, payload, echo: args.values.echo === true });
    if (args.json) printJson(io, { deliveredTo: result.deliveredTo, sequence: result.sequence });
    else io.stdout(`delivered to ${result.deliveredTo} subscriber${result.deliveredTo === 1 ? '' : 's'}\n`);
    return ExitCode.ok;
  },
});
