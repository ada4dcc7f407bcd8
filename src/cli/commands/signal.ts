/** `switchboard signal`: send a signal to the program in a terminal's foreground, as Ctrl-C would. */
import { allowedSignals } from '../../common/protocol/control/terminalCommands.ts';
import { CliUsageError, ExitCode } from '../command.ts';
import { defineControlCommand, printJson, requirePositionals } from '../controlCommand.ts';
import { terminalRefHelp } from '../terminalRef.ts';

export const signalCommand = defineControlCommand({
  name: 'signal',
  summary: "Send a signal to the program in a terminal's foreground (SIGINT is Ctrl-C).",
  usage: 'signal TERMINAL [SIGNAL] [--json]',
  details: [
    terminalRefHelp,
    `SIGNAL is one of ${allowedSignals.join(', ')} (default SIGINT); INT, int and sigint are accepted too.`,
    'It goes to the foreground process group (the running command, not the shell waiting for it), as the',
    'keyboard would send it. Prints nothing on success; --json prints {id, signal, processGroup}.',
  ].join('\n'),
  allowPositionals: true,
  options: {},
  async run({ args, io, client, terminalId }) {
    const [ref, given = 'SIGINT'] = requirePositionals(args, ['TERMINAL'], { rest: true });
    if (args.positionals.length > 2) throw new CliUsageError(`unexpected argument ${JSON.stringify(args.positionals[2])}`);
    const signal = signalName(given);
    const id = await terminalId(ref!);
    const sent = await client.call('signal', { terminalId: id, signal });
    if (args.json) printJson(io, { id, signal: sent.signal, processGroup: sent.processGroup });
    return ExitCode.ok;
  },
});

/** `INT`, `sigint` or `SIGINT` to `SIGINT`; anything else is a usage error listing what is allowed. */
function signalName(given: string): (typeof allowedSignals)[number] {
  const upper = given.toUpperCase();
  const name = upper.startsWith('SIG') ? upper : `SIG${upper}`;
  const allowed = allowedSignals.find((signal) => signal === name);
  if (!allowed) throw new CliUsageError(`unknown signal ${JSON.stringify(given)}: give one of ${allowedSignals.join(', ')}`);
  return allowed;
}
