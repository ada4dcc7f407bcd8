/** `switchboard new`: open a terminal in the running app, optionally running a command in it. */
import { resolve } from 'node:path';
import { CliUsageError, ExitCode } from '../command.ts';
import { defineControlCommand, printJson } from '../controlCommand.ts';
import { commandLineFromArgs } from '../shellQuote.ts';

export const newCommand = defineControlCommand({
  name: 'new',
  summary: 'Open a new terminal (prints its id).',
  usage: 'new [--name NAME] [--cwd DIR] [--shell PATH] [--json] [-- CMD [ARGS...]]',
  details: [
    'The terminal runs your shell and appears in the app. With -- CMD, the command is typed into that',
    'shell (the shell stays when the command ends). One argument is taken as a whole command line;',
    'several are quoted one by one. --cwd defaults to the app\'s first workspace folder; --shell to your',
    '$SHELL. A name another terminal has is refused (names point at one terminal).',
    'Prints the new terminal id, or {"id": ...} with --json.',
  ].join('\n'),
  allowPositionals: true,
  options: {
    name: { type: 'string', valueName: 'NAME', description: 'name shown on the tab and usable as TERMINAL' },
    cwd: { type: 'string', valueName: 'DIR', description: 'working directory (relative to this one)' },
    shell: { type: 'string', valueName: 'PATH', description: 'the shell (or other program) to run instead of $SHELL, e.g. /bin/zsh' },
  },
  async run({ args, io, client }) {
    const name = args.values.name as string | undefined;
    const cwd = args.values.cwd as string | undefined;
    const shell = args.values.shell as string | undefined;
    if (shell === '') throw new CliUsageError('--shell needs a path, e.g. --shell /bin/zsh');
    const id = await client.create({ name, cwd: cwd === undefined ? undefined : resolve(io.cwd, cwd), shellPath: shell });
    if (args.positionals.length > 0) await client.send(id, { text: commandLineFromArgs(args.positionals) });
    if (args.json) printJson(io, { id });
    else io.stdout(`${id}\n`);
    return ExitCode.ok;
  },
});
