/** `switchboard send`: type text into a terminal, as if a person typed it. */
import { text as readAll } from 'node:stream/consumers';
import { CliUsageError, ExitCode } from '../command.ts';
import { defineControlCommand, printJson, requirePositionals } from '../controlCommand.ts';
import { terminalRefHelp } from '../terminalRef.ts';

export const sendCommand = defineControlCommand({
  name: 'send',
  summary: 'Type text into a terminal (Enter is pressed after it unless --no-newline).',
  usage: 'send TERMINAL TEXT... [--no-newline] [--paste] [--json]',
  details: [
    terminalRefHelp,
    'TEXT words are joined with spaces. TEXT "-" reads the text from standard input (one trailing',
    'newline dropped). Use send for interactive programs and TUIs, then `screen` or `wait` to see the',
    'effect; to run a shell command and get its output and exit code, use `exec`.',
    '--paste sends the text as a bracketed paste (what a multi-line paste into an editor or REPL needs;',
    'multi-line text goes as a paste anyway when the program asked for bracketed paste).',
    '--json prints {id, offset}: the output offset when the text was written, for `wait --since`.',
  ].join('\n'),
  allowPositionals: true,
  options: {
    'no-newline': { type: 'boolean', short: 'n', description: 'do not press Enter after the text' },
    paste: { type: 'boolean', description: 'send as a bracketed paste (ESC[200~ … ESC[201~)' },
  },
  async run({ args, io, client, terminalId }) {
    const [ref, ...words] = requirePositionals(args, ['TERMINAL', 'TEXT'], { rest: true });
    let text = words.join(' ');
    if (words.length === 1 && words[0] === '-') {
      if (!io.stdin) throw new CliUsageError('TEXT "-" needs standard input, and there is none');
      text = (await readAll(io.stdin)).replace(/\r?\n$/, '');
    }
    const id = await terminalId(ref!);
    const newline = args.values['no-newline'] !== true;
    const sent = await client.send(id, { text, newline, paste: args.values.paste === true ? true : undefined });
    if (args.json) printJson(io, { id, offset: sent.offset ?? null, pasted: sent.pasted ?? false });
    return ExitCode.ok;
  },
});
