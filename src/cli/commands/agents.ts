/** `switchboard agents`: the panes that run an agent CLI, with its state, as a table or JSON. */
import { ExitCode } from '../command.ts';
import type { ControlTerminal } from '../controlClient.ts';
import { defineControlCommand, printable, printJson } from '../controlCommand.ts';

export const agentsCommand = defineControlCommand({
  name: 'agents',
  summary: 'List the panes that run an agent CLI (Claude Code, Codex, …) and what each is doing.',
  usage: 'agents [--json] [--socket PATH]',
  details: [
    'Columns: ID, NAME, AGENT, STATE (working, needs-input, idle or exited), FOR (how long it has been',
    'in that state) and REASON (what it asks, e.g. "Bash: touch marker.txt"; for exited: its exit code).',
    '--json prints the terminals with their `agent` field, as `list` on the control socket returns them.',
    'Wait for one with: switchboard wait TERMINAL --agent-state idle',
  ].join('\n'),
  allowPositionals: false,
  options: {},
  async run({ args, io, client }) {
    const withAgents = (await client.list()).filter((terminal) => terminal.agent);
    if (args.json) {
      printJson(io, withAgents);
      return ExitCode.ok;
    }
    io.stdout(formatAgentTable(withAgents, Date.now()));
    return ExitCode.ok;
  },
});

export function formatAgentTable(terminals: readonly ControlTerminal[], now: number): string {
  if (terminals.length === 0) return 'No agents.\n';
  const header = ['ID', 'NAME', 'AGENT', 'STATE', 'FOR', 'REASON'];
  const rows = terminals.map((terminal) => {
    const agent = terminal.agent!;
    return [terminal.id, terminal.name, agent.label, agent.state, formatDuration(now - agent.since), agent.reason ?? ''].map(printable);
  });
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const format = (row: readonly string[]) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [header, ...rows].map(format).join('\n') + '\n';
}

/** 42s, 5m, 3h, 2d: enough to tell the oldest waiter at a glance. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}
