/** `switchboard close`: end a terminal (its program gets SIGHUP, as when a window closes). */
import { ExitCode } from '../command.ts';
import { defineControlCommand, printJson, requirePositionals } from '../controlCommand.ts';
import { terminalRefHelp } from '../terminalRef.ts';

export const closeCommand = defineControlCommand({
  name: 'close',
  summary: 'Close a terminal and end its program.',
  usage: 'close TERMINAL [--json]',
  details: [terminalRefHelp, 'Prints nothing on success; --json prints {id, alreadyClosed}.'].join('\n'),
  allowPositionals: true,
  options: {},
  async run({ args, io, client, terminalId }) {
    const [ref] = requirePositionals(args, ['TERMINAL']);
    const id = await terminalId(ref!);
    const { alreadyClosed } = await client.close(id);
    if (args.json) printJson(io, { id, alreadyClosed });
    return ExitCode.ok;
  },
});
