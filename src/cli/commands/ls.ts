/** `switchboard ls`: the terminals of the running app, as an aligned table or JSON. */
import { ExitCode } from '../command.ts';
import type { ControlTerminal } from '../controlClient.ts';
import { defineControlCommand, printable, printJson } from '../controlCommand.ts';

export const lsCommand = defineControlCommand({
  name: 'ls',
  summary: 'List the terminals of the running app.',
  usage: 'ls [--json] [--socket PATH]',
  details: [
    'Columns: ID, NAME, STATUS (running or exited), CWD, and COMMAND/EXIT: the command running now',
    '(known when the shell has shell integration), or how the program of an exited terminal ended.',
    'Any unique prefix of an ID works wherever a verb takes a TERMINAL.',
    '--json prints the list exactly as the control socket returns it.',
  ].join('\n'),
  allowPositionals: false,
  options: {},
  async run({ args, io, client }) {
    const terminals = await client.list();
    if (args.json) {
      printJson(io, terminals);
      return ExitCode.ok;
    }
    io.stdout(formatTerminalTable(terminals, io.env.HOME));
    return ExitCode.ok;
  },
});

export function formatTerminalTable(terminals: readonly ControlTerminal[], home: string | undefined): string {
  if (terminals.length === 0) return 'No terminals.\n';
  const header = ['ID', 'NAME', 'STATUS', 'CWD', 'COMMAND/EXIT'];
  const rows = terminals.map((terminal) => [terminal.id, terminal.name, statusOf(terminal), shortenHome(terminal.cwd ?? '', home), commandOrExit(terminal)].map(printable));
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const format = (row: readonly string[]) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [header, ...rows].map(format).join('\n') + '\n';
}

function statusOf(terminal: ControlTerminal): string {
  if (terminal.status) return terminal.status;
  return terminal.exitCode === null || terminal.exitCode === undefined ? 'running' : 'exited';
}

function commandOrExit(terminal: ControlTerminal): string {
  if (statusOf(terminal) === 'running') return terminal.runningCommand ?? '';
  if (terminal.exitCode !== null && terminal.exitCode !== undefined) return `exit ${terminal.exitCode}`;
  return terminal.signal ? `killed by ${terminal.signal}` : '';
}

function shortenHome(path: string, home: string | undefined): string {
  if (!home || home === '/') return path;
  if (path === home) return '~';
  return path.startsWith(home + '/') ? '~' + path.slice(home.length) : path;
}
