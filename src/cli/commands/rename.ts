/** `switchboard rename`: change the name a terminal shows on its tab. */
import { ExitCode } from '../command.ts';
import { defineControlCommand, printJson, requirePositionals } from '../controlCommand.ts';
import { terminalRefHelp } from '../terminalRef.ts';

export const renameCommand = defineControlCommand({
  name: 'rename',
  summary: 'Rename a terminal.',
  usage: 'rename TERMINAL NAME [--json]',
  details: [terminalRefHelp, 'Prints nothing on success; --json prints {id, name}.'].join('\n'),
  allowPositionals: true,
  options: {},
  async run({ args, io, client, terminalId }) {
    const [ref, name] = requirePositionals(args, ['TERMINAL', 'NAME']);
    const id = await terminalId(ref!);
    await client.rename(id, name!);
    if (args.json) printJson(io, { id, name });
    return ExitCode.ok;
  },
});
