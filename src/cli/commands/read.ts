/** `switchboard read`: what a terminal printed, from its output log (byte offsets). */
import { ExitCode } from '../command.ts';
import { defineControlCommand, intOption, printJson, requirePositionals } from '../controlCommand.ts';
import { terminalRefHelp } from '../terminalRef.ts';

/** The server's cap on one readLog (claws.md). */
const maxReadBytes = 524_288;

export const readCommand = defineControlCommand({
  name: 'read',
  summary: "Print a terminal's output log (ANSI sequences stripped unless --raw).",
  usage: 'read TERMINAL [--offset N] [--limit N] [--raw] [--json]',
  details: [
    terminalRefHelp,
    'Offsets are absolute byte offsets into everything the terminal has printed. Without --offset you',
    `get the tail (the last --limit bytes; at most ${maxReadBytes}). --json adds {offset, nextOffset,`,
    'totalSize, truncated}: pass nextOffset as --offset next time to read only what is new.',
    'A read never starts or ends inside a character or an escape sequence: a start inside one moves',
    'past it (offset says where the text starts), an end inside one moves back to its start. Only',
    '--raw with --offset starts exactly at that byte.',
  ].join('\n'),
  allowPositionals: true,
  options: {
    offset: { type: 'string', valueName: 'N', description: 'start at this byte offset (older output may be gone: then reading starts at the oldest kept)' },
    limit: { type: 'string', short: 'l', valueName: 'N', description: `read at most N bytes (max ${maxReadBytes})` },
    raw: { type: 'boolean', description: 'keep escape sequences (colours, cursor movement) as the program wrote them' },
  },
  async run({ args, io, client, terminalId }) {
    const [ref] = requirePositionals(args, ['TERMINAL']);
    const offset = intOption(args, 'offset', { min: 0 });
    const limit = intOption(args, 'limit', { min: 1, max: maxReadBytes });
    const id = await terminalId(ref!);
    const result = await client.readLog(id, { offset, limit, strip: args.values.raw !== true });
    if (args.json) printJson(io, result);
    else io.stdout(result.bytes);
    return ExitCode.ok;
  },
});
