/** `switchboard exec`: run a shell command in a terminal; print its output, exit with its code. */
import type { Readable } from 'node:stream';
import { CliUsageError, ExitCode } from '../command.ts';
import { ControlClientConstants, ControlClientError, isTimeoutError } from '../controlClient.ts';
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
    `Exit status: the command's own; 124 when it did not finish within --timeout (default ${ControlClientConstants.serverExecTimeoutMs} ms):`,
    "then the output so far is printed and the message says whether it still runs and the pane's last line",
    '(what it waits for, e.g. "name? "). When the command ends the shell (`exit 4`), the shell\'s exit code.',
    '1 when the terminal is busy with a full-screen program, or a person left a line unsent at its prompt.',
    'stdin is not passed to the command: its stdin is the terminal. Data piped into `switchboard exec` is',
    'refused (exit status 2); put it in the command (`-- "printf \'a\\nb\\n\' | sort"`), in a file, or type it with `send`.',
    '--json prints the whole command event: {commandLine, output, exitCode, startedAt, endedAt, truncated}, with personTyped: true',
    'when a person typed into the terminal while it ran (their echoed keys are in the output);',
    'on an error, the error with what the server said beside it ({error, code, output, lastLine, running, exitCode},',
    '{error, code: "BUSY", unsentInput} for a line a person left at the prompt).',
  ].join('\n'),
  allowPositionals: true,
  options: {
    timeout: { type: 'string', short: 't', valueName: 'MS', description: `give up after MS milliseconds (default ${ControlClientConstants.serverExecTimeoutMs})` },
  },
  async run({ args, io, client, terminalId }) {
    const [ref, ...commandArgs] = requirePositionals(args, ['TERMINAL', 'COMMAND'], { rest: true });
    const timeoutMs = intOption(args, 'timeout', { min: 1 });
    const commandLine = commandLineFromArgs(commandArgs);
    // A usage error like any other (exit 2), not the server's `command: too small` (exit 1).
    if (commandLine.trim() === '') throw new CliUsageError('the command is empty: give it after -- (switchboard exec TERMINAL -- ls -l)');
    if (io.stdin && (await hasPipedData(io.stdin))) {
      io.stderr('switchboard exec: stdin is not passed to the command (its stdin is the terminal); put the data in the command, in a file, or type it with `switchboard send`\n');
      return ExitCode.usage;
    }
    const id = await terminalId(ref!);
    let event;
    try {
      event = await client.exec(id, commandLine, timeoutMs);
    } catch (error) {
      // --json promises the error object on stdout for every refusal (busy, unsent input at the
      // prompt, a full-screen program…), with what the server said beside it (`unsentInput`).
      if (args.json && error instanceof ControlClientError && error.code === 'SERVER_ERROR' && !endedWithoutEvent(error)) {
        printJson(io, { error: error.message, code: error.serverCode ?? null, ...error.details });
        return ExitCode.failure;
      }
      const ended = endedWithoutEvent(error);
      if (!ended) throw error;
      if (args.json) printJson(io, { error: ended.message, code: ended.serverCode ?? null, ...ended.details });
      else {
        const output = ended.details.output;
        if (typeof output === 'string') io.stdout(output);
        io.stderr(`switchboard exec: ${ended.message}\n`);
      }
      if (isTimeoutError(ended)) return ExitCode.timeout;
      const exitCode = ended.details.exitCode;
      return typeof exitCode === 'number' ? exitStatusOf(exitCode) : ExitCode.failure;
    }
    if (args.json) printJson(io, event);
    else {
      io.stdout(event.output);
      if (event.truncated) io.stderr('switchboard exec: output truncated (only its last 256 KiB are shown)\n');
      if (event.personTyped) io.stderr('switchboard exec: someone typed into the terminal while the command ran; their keys, echoed, are in the output\n');
    }
    return exitStatusOf(event.exitCode);
  },
});

/**
 * Whether data was piped into the verb. A terminal or /dev/null gives none; a pipe or a file is
 * looked at briefly: agents' harnesses often leave stdin an open, empty pipe, which must not
 * hold the exec up, so what has not arrived within `stdinLookMs` does not count.
 */
async function hasPipedData(stdin: Readable): Promise<boolean> {
  if ((stdin as Readable & { isTTY?: boolean }).isTTY) return false;
  return new Promise<boolean>((resolve) => {
    const finish = (answer: boolean) => {
      clearTimeout(timer);
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.off('error', onEnd);
      stdin.pause();
      resolve(answer);
    };
    const onData = (chunk: Buffer | string) => {
      if (chunk.length > 0) finish(true);
    };
    const onEnd = () => finish(false);
    const timer = setTimeout(() => finish(false), stdinLookMs);
    stdin.on('data', onData);
    stdin.once('end', onEnd);
    stdin.once('error', onEnd);
  });
}

/** How long exec looks for piped stdin before it goes on without (see hasPipedData). */
const stdinLookMs = 100;

/** An exec that ended with an answer but no command event: a timeout, or the shell exiting under it. */
function endedWithoutEvent(error: unknown): ControlClientError | null {
  if (!(error instanceof ControlClientError)) return null;
  if (isTimeoutError(error) || error.serverCode === 'TERMINAL_EXITED') return error;
  return null;
}

/** A shell exit code fits 0–255; anything else (unknown, or a signal the shell did not map) is 1. */
function exitStatusOf(exitCode: number | null): number {
  return exitCode !== null && exitCode >= 0 && exitCode <= 255 ? exitCode : ExitCode.failure;
}
