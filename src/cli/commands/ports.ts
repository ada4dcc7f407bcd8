/** `switchboard ports`: the dev servers the panes' processes listen on, as a table or JSON. */
import { ExitCode } from '../command.ts';
import type { ControlTerminal } from '../controlClient.ts';
import { defineControlCommand, printable, printJson } from '../controlCommand.ts';
import { formatDuration } from './agents.ts';

export interface PortRow {
  terminalId: string;
  terminalName: string;
  host: string;
  port: number;
  url: string;
  pid: number | null;
  since: number;
}

export const portsCommand = defineControlCommand({
  name: 'ports',
  summary: 'List the dev servers running in the panes: each listening port with its URL.',
  usage: 'ports [TERMINAL] [--json] [--socket PATH]',
  details: [
    'Columns: PORT, URL (what the program printed for it, else http://localhost:PORT/), ID and NAME of',
    'the pane, PID (the process that listens; - when only its printed URL tied it to the pane) and FOR',
    '(how long it has listened). A port counts when a process of the pane listens on it on 0.0.0.0, ::,',
    '127.0.0.1 or ::1 (README, "Dev servers"). With TERMINAL (id, id prefix or name), only that pane.',
    '--json prints [{terminalId, terminalName, host, port, url, pid, since}].',
    'Wait for one with: switchboard wait TERMINAL --port 5173',
  ].join('\n'),
  allowPositionals: true,
  options: {},
  async run({ args, io, client, terminalId }) {
    const ref = args.positionals[0];
    const only = ref === undefined ? null : await terminalId(ref);
    const rows = portRows((await client.list()).filter((terminal) => only === null || terminal.id === only));
    if (args.json) {
      printJson(io, rows);
      return ExitCode.ok;
    }
    io.stdout(formatPortTable(rows, Date.now()));
    return ExitCode.ok;
  },
});

export function portRows(terminals: readonly ControlTerminal[]): PortRow[] {
  return terminals.flatMap((terminal) =>
    (terminal.servers ?? []).map((server) => ({
      terminalId: terminal.id,
      terminalName: terminal.name,
      host: server.host,
      port: server.port,
      url: server.url,
      pid: server.pid,
      since: server.since,
    })),
  );
}

export function formatPortTable(rows: readonly PortRow[], now: number): string {
  if (rows.length === 0) return 'No dev servers.\n';
  const header = ['PORT', 'URL', 'ID', 'NAME', 'PID', 'FOR'];
  const cells = rows.map((row) => [String(row.port), row.url, row.terminalId, row.terminalName, row.pid === null ? '-' : String(row.pid), formatDuration(now - row.since)].map(printable));
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((row) => row[column]!.length)));
  const format = (row: readonly string[]) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [header, ...cells].map(format).join('\n') + '\n';
}
