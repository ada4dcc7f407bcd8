/** `switchboard screen`: the text a terminal shows right now, as a person sees it. */
import { ExitCode } from '../command.ts';
import { defineControlCommand, intOption, printJson, requirePositionals } from '../controlCommand.ts';
import { terminalRefHelp } from '../terminalRef.ts';

export const screenCommand = defineControlCommand({
  name: 'screen',
  summary: 'Print the text on the screen of a terminal (the rendered view, not the raw log).',
  usage: 'screen TERMINAL [--scrollback N] [--json]',
  details: [
    terminalRefHelp,
    'Reads the rendered screen (what a full-screen program such as vim or top shows); trailing blank',
    'lines are left out. --scrollback N adds up to N lines from above the screen.',
    '--json prints {lines, cursor: {x, y}, altScreen, cols, rows}.',
  ].join('\n'),
  allowPositionals: true,
  options: {
    scrollback: { type: 'string', valueName: 'N', description: 'also print up to N lines of scrollback above the screen' },
  },
  async run({ args, io, client, terminalId }) {
    const [ref] = requirePositionals(args, ['TERMINAL']);
    const scrollback = intOption(args, 'scrollback', { min: 0 });
    const id = await terminalId(ref!);
    const screen = await client.readScreen(id, scrollback);
    if (args.json) {
      printJson(io, screen);
      return ExitCode.ok;
    }
    const lines = screen.lines.map((line) => line.trimEnd());
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    io.stdout(lines.map((line) => line + '\n').join(''));
    return ExitCode.ok;
  },
});
