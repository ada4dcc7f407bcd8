/** `switchboard new`: open a terminal in the running app, optionally running a command in it. */
import { resolve } from 'node:path';
import { ExitCode } from '../command.ts';
import { defineControlCommand, printJson } from '../controlCommand.ts';
import { commandLineFromArgs } from '../shellQuote.ts';

export const newCommand = defineControlCommand({
  name: 'new',
  summary: 'Open a new terminal (prints its id).',
  usage: 'new [--name NAME] [--cwd DIR] [--json] [-- CMD [ARGS...]]',
  details: [
    'The terminal runs your shell and appears in the app. With -- CMD, the command is typed into that',
    'shell (the shell stays when the command ends). One argument is taken as a whole command line;',
    'several are quoted one by one. --cwd defaults to the app\'s first workspace folder.',
    'Prints the new terminal id, or {"id": ...} with --json.',
  ].join('\n'),
  allowPositionals: true,
  options: {
    name: { type: 'string', valueName: 'NAME', description: 'name shown on the tab and usable as TERMINAL' },
    cwd: { type: 'string', valueName: 'DIR', description: 'working directory (relative to this one)' },
  },
  async run({ args, io, client }) {
    const name = args.values.name as string | undefined;
    const cwd = args.values.cwd as string | undefined;
    const id = await client.create({ name, cwd: cwd === undefined ? undefined : resolve(io.cwd, cwd) });
    if (args.positionals.length > 0) await client.send(id, { text: commandLineFromArgs(args.positionals) });
    if (args.json) printJson(io, { id });
    else io.stdout(`${id}\n`);
    return ExitCode.ok;
  },
});
