/**
 * What every verb that talks to the control socket shares: the `--socket` option, one client per
 * run (closed when the verb returns), terminal references, and the mapping of client errors to
 * one line on stderr and an exit status.
 */
import { type CliCommand, type CliIo, CliUsageError, ExitCode, type CliOption, type ParsedCommandArgs } from './command.ts';
import { ControlClient, ControlClientError, resolveControlSocketPath } from './controlClient.ts';
import { resolveTerminalId } from './terminalRef.ts';
import { withAuthHint } from './authHint.ts';
import { switchboardVersion } from './version.ts';

export const socketOption: Record<string, CliOption> = {
  socket: {
    type: 'string',
    valueName: 'PATH',
    description: 'control socket to use (default: $SWITCHBOARD_SOCKET, else control.sock in the data dir)',
  },
  token: {
    type: 'string',
    valueName: 'TOKEN',
    description: 'control token to authenticate with when token auth is on (default: $SWITCHBOARD_TOKEN)',
  },
};

/** `--token` if given, else `$SWITCHBOARD_TOKEN`; undefined when neither is set (no `auth` is sent). */
export function resolveControlToken(tokenFlag: unknown, env: NodeJS.ProcessEnv): string | undefined {
  if (typeof tokenFlag === 'string' && tokenFlag.length > 0) return tokenFlag;
  const fromEnv = env.SWITCHBOARD_TOKEN;
  return fromEnv !== undefined && fromEnv.length > 0 ? fromEnv : undefined;
}

export interface ControlContext {
  args: ParsedCommandArgs;
  io: CliIo;
  client: ControlClient;
  /** Resolve a TERMINAL argument (id, unique id prefix or name) to a full id. */
  terminalId(ref: string): Promise<string>;
}

export interface ControlCommandSpec extends Omit<CliCommand, 'run' | 'options'> {
  options: Record<string, CliOption>;
  run(context: ControlContext): Promise<number>;
}

export const cliClientName = 'switchboard-cli';

export function defineControlCommand(spec: ControlCommandSpec): CliCommand {
  const { run, options, ...rest } = spec;
  return {
    ...rest,
    options: { ...options, ...socketOption },
    async run(args, io) {
      const socketPath = resolveControlSocketPath({ socketFlag: args.values.socket as string | undefined, env: io.env, cwd: io.cwd });
      const token = resolveControlToken(args.values.token, io.env);
      const client = new ControlClient({ socketPath, clientName: cliClientName, clientVersion: switchboardVersion, token });
      try {
        return await run({ args, io, client, terminalId: (ref) => resolveTerminalId(client, ref) });
      } catch (error) {
        if (error instanceof ControlClientError) return reportControlError(io, spec.name, error);
        throw error;
      } finally {
        client.dispose();
      }
    },
  };
}

export function reportControlError(io: CliIo, verb: string, error: ControlClientError): number {
  // One line, whatever the server put in its message (validation errors can span lines).
  const message = withAuthHint(error.message.replace(/\s*\n\s*/g, '; '));
  // "Not running" is about the app, not the verb, so it reads the same from every verb.
  io.stderr(error.code === 'NOT_RUNNING' ? `switchboard: ${message}\n` : `switchboard ${verb}: ${message}\n`);
  return error.code === 'TIMEOUT' ? ExitCode.timeout : ExitCode.failure;
}

// ---- argument helpers ---------------------------------------------------------------------

export function requirePositionals(args: ParsedCommandArgs, names: readonly string[], options: { rest?: boolean } = {}): string[] {
  const missing = names.slice(args.positionals.length);
  if (missing.length > 0) throw new CliUsageError(`missing ${missing.join(' and ')}`);
  if (!options.rest && args.positionals.length > names.length) {
    throw new CliUsageError(`unexpected argument ${JSON.stringify(args.positionals[names.length])}`);
  }
  return args.positionals;
}

/** A whole number option, checked before anything is sent. */
export function intOption(args: ParsedCommandArgs, name: string, bounds: { min: number; max?: number }): number | undefined {
  const raw = args.values[name];
  if (raw === undefined) return undefined;
  const text = String(raw);
  const max = bounds.max ?? Number.MAX_SAFE_INTEGER;
  if (!/^\d+$/.test(text) || Number(text) < bounds.min || Number(text) > max) {
    const range = bounds.max === undefined ? `${bounds.min} or more` : `from ${bounds.min} to ${bounds.max}`;
    throw new CliUsageError(`--${name} must be a whole number ${range}, got ${JSON.stringify(text)}`);
  }
  return Number(text);
}

export function printJson(io: CliIo, value: unknown): void {
  io.stdout(JSON.stringify(value) + '\n');
}

/** Terminal names and paths come from other programs: never let them send escape sequences to ours. */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}
