/** `switchboard exec`: run a shell command in a terminal; print its output, exit with its code. */
import { ExitCode } from '../command.ts';
import { ControlClientConstants, isTimeoutError } from '../controlClient.ts';
import { defineControlCommand, intOption, printJson, requirePositionals } from '../controlCommand.ts';
import { commandLineFromArgs } from '../shellQuote.ts';
import { terminalRefHelp } from '../terminalRef.ts';

export const execCommand = defineControlCommand({
  name: 'exec',
  summary: "Run a command in a terminal's shell; print its output and exit with its exit code.",
  usage: 'exec TERMINAL [--timeout MS] [--json] -- COMMAND [ARGS...]',
  details: [
    terminalRefHelp,
    'The command is typed into the terminal (people watching the pane see it run) and the verb returns',
    'when it finishes. One argument after -- is taken as a whole command line (`-- "ls | wc -l"`);',
    'several are quoted one by one (`-- sh -c "exit 7"`). Output is the tail, at most 256 KiB.',
    `Exit status: the command's own; 124 when it did not finish within --timeout (default ${ControlClientConstants.serverExecTimeoutMs} ms);`,
    '1 when the terminal is busy with a full-screen program or another error occurred.',
    '--json prints the whole command event: {commandLine, output, exitCode, startedAt, endedAt, truncated}.',
  ].join('\n'),
  allowPositionals: true,
  options: {
    timeout: { type: 'string', short: 't', valueName: 'MS', description: `give up after MS milliseconds (default ${ControlClientConstants.serverExecTimeoutMs})` },
  },
  async run({ args, io, client, terminalId }) {
    const [ref, ...commandArgs] = requirePositionals(args, ['TERMINAL', 'COMMAND'], { rest: true });
    const timeoutMs = intOption(args, 'timeout', { min: 1 });
    const id = await terminalId(ref!);
    let event;
    try {
      event = await client.exec(id, commandLineFromArgs(commandArgs), timeoutMs);
    } catch (error) {
      if (!isTimeoutError(error)) throw error;
      io.stderr(`switchboard exec: ${(error as Error).message}\n`);
      return ExitCode.timeout;
    }
    if (args.json) printJson(io, event);
    else {
      io.stdout(event.output);
      if (event.truncated) io.stderr('switchboard exec: output truncated (only its last 256 KiB are shown)\n');
    }
    return exitStatusOf(event.exitCode);
  },
});

/** A shell exit code fits 0–255; anything else (unknown, or a signal the shell did not map) is 1. */
function exitStatusOf(exitCode: number | null): number {
  return exitCode !== null && exitCode >= 0 && exitCode <= 255 ? exitCode : ExitCode.failure;
}
