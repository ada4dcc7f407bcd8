/**
 * The shape of one CLI verb. Each verb lives in its own module under src/cli/commands/ and
 * declares its options once: the parser, `--help` text and `--json` come from that declaration.
 */
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Standard input, for verbs that read it (`send ID -`, `mcp`); absent in tests that give none. */
  stdin?: Readable;
  /** The raw standard output stream, for verbs that speak a protocol on it (`mcp`). */
  stdoutStream?: Writable;
}

export interface CliOption {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  /** Shown in --help, e.g. `PORT`. */
  valueName?: string;
  description: string;
}

export interface CliCommand {
  name: string;
  /** One line, shown in `switchboard --help`. */
  summary: string;
  /** Usage line without the program name, e.g. `serve [--port N] [DIR...]`. */
  usage: string;
  /** Extra paragraphs for `switchboard VERB --help`. */
  details?: string;
  options: Record<string, CliOption>;
  allowPositionals: boolean;
  run(args: ParsedCommandArgs, io: CliIo): Promise<number>;
}

export interface ParsedCommandArgs {
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  positionals: string[];
  json: boolean;
}

/** Wrong invocation: the message goes to stderr and the exit status is 2. */
export class CliUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}

/** `timeout` is 124 like timeout(1), so scripts can tell "gave up waiting" from "failed". */
export const ExitCode = { ok: 0, failure: 1, usage: 2, timeout: 124 } as const;

/** Options every verb has. */
export const commonOptions: Record<string, CliOption> = {
  help: { type: 'boolean', short: 'h', description: 'show this help' },
  json: { type: 'boolean', description: 'print machine-readable JSON on stdout' },
};

export function parseCommandArgs(command: CliCommand, argv: string[]): ParsedCommandArgs & { help: boolean } {
  const options = { ...commonOptions, ...command.options };
  const config: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {};
  for (const [name, option] of Object.entries(options)) {
    config[name] = { type: option.type, ...(option.short ? { short: option.short } : {}), ...(option.multiple ? { multiple: true } : {}) };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options: config, strict: true, allowPositionals: command.allowPositionals });
  } catch (error) {
    throw new CliUsageError(parseArgsMessage(error));
  }
  const values = parsed.values as ParsedCommandArgs['values'];
  return { values, positionals: parsed.positionals, json: values.json === true, help: values.help === true };
}

/**
 * parseArgs' first line is precise (unknown option, missing value, unexpected argument), except for
 * a value that starts with "-" (`--since -5`): it says only "argument is ambiguous", and the way out
 * is in a later line. Say both at once.
 */
function parseArgsMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const [first = '', ...rest] = error.message.split('\n');
  const joined = rest.map((line) => /use '(-[^=']+)=-XYZ'/.exec(line)?.[1]).find((option) => option !== undefined);
  if (/argument is ambiguous/.test(first) && joined) return `${joined} needs a value; to give one that starts with "-", join them: ${joined}=-VALUE`;
  return first.replace(/ To specify a positional argument.*$/, '');
}

export function formatCommandHelp(programName: string, command: CliCommand): string {
  const options = { ...command.options, ...commonOptions };
  const rows = Object.entries(options).map(([name, option]) => {
    const flag = `${option.short ? `-${option.short}, ` : '    '}--${name}${option.type === 'string' ? ` ${option.valueName ?? 'VALUE'}` : ''}`;
    return [flag, option.description] as const;
  });
  const width = Math.max(...rows.map(([flag]) => flag.length));
  const lines = [`Usage: ${programName} ${command.usage}`, '', command.summary];
  if (command.details) lines.push('', command.details);
  lines.push('', 'Options:', ...rows.map(([flag, description]) => `  ${flag.padEnd(width)}  ${description}`));
  return lines.join('\n') + '\n';
}
