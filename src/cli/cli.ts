/**
 * Dispatch of the `switchboard` command line: global flags, then one verb from commands/.
 * Returns the exit status instead of exiting, so tests can run it in-process.
 */
import { type CliCommand, type CliIo, CliUsageError, ExitCode, formatCommandHelp, parseCommandArgs } from './command.ts';
import { commands } from './commands/index.ts';
import { switchboardVersion } from './version.ts';

export const programName = 'switchboard';

export function formatGlobalHelp(available: readonly CliCommand[] = commands): string {
  const width = Math.max(...available.map((command) => command.name.length));
  return [
    `Usage: ${programName} <command> [options]`,
    '',
    'Switchboard: real terminals shared by people and AI agents.',
    '',
    'Commands:',
    ...available.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    '',
    'Options:',
    '  -h, --help     show this help (also: switchboard <command> --help)',
    '  -v, --version  print the version',
    '',
  ].join('\n');
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    const topic = first === 'help' ? commands.find((command) => command.name === rest[0]) : undefined;
    io.stdout(topic ? formatCommandHelp(programName, topic) : formatGlobalHelp());
    return ExitCode.ok;
  }
  if (first === '--version' || first === '-v') {
    io.stdout(rest.includes('--json') ? JSON.stringify({ version: switchboardVersion }) + '\n' : `${switchboardVersion}\n`);
    return ExitCode.ok;
  }
  if (first.startsWith('-')) return usageError(io, `unknown option ${first}`);
  const command = commands.find((candidate) => candidate.name === first);
  if (!command) return usageError(io, `unknown command ${JSON.stringify(first)}`);
  try {
    const parsed = parseCommandArgs(command, rest);
    if (parsed.help) {
      io.stdout(formatCommandHelp(programName, command));
      return ExitCode.ok;
    }
    return await command.run(parsed, io);
  } catch (error) {
    if (error instanceof CliUsageError) {
      io.stderr(`${programName} ${command.name}: ${error.message}\nTry '${programName} ${command.name} --help'.\n`);
      return ExitCode.usage;
    }
    io.stderr(`${programName} ${command.name}: ${error instanceof Error ? error.message : String(error)}\n`);
    return ExitCode.failure;
  }
}

function usageError(io: CliIo, message: string): number {
  io.stderr(`${programName}: ${message}\nTry '${programName} --help'.\n`);
  return ExitCode.usage;
}
