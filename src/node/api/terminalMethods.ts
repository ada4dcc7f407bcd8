/**
 * The contract's `terminal.*` methods on top of the PtyHost. Params arrive already validated by
 * HubConnection; what is left to check here is state (does the terminal exist, is it running,
 * is this client attached), which the PtyHost and PtySession answer with coded ApiErrors.
 */
import type { HubMethod } from '../../common/api/contract.ts';
import { ApiError, ApiErrorCodes, type ApiErrorCode } from '../../common/api/errors.ts';
import { ControlConstants } from '../../common/constants.ts';
import type { ExecRunner } from '../control/execRunner.ts';
import { ControlError } from '../control/protocol.ts';
import type { PtyHost } from '../pty/ptyHost.ts';
import type { HubMethodHandlers } from './hubConnection.ts';

type TerminalMethod = Extract<HubMethod, `terminal.${string}`>;
export type TerminalMethodHandlers = Pick<HubMethodHandlers, TerminalMethod>;

const ok = { ok: true } as const;

export interface TerminalMethodHooks {
  /** A person (not an agent) wrote to a terminal: agents' `send` waits for them to pause. */
  onPersonInput?: (terminalId: string, data: string) => void;
  /** The control socket's exec runner: `terminal.run` takes turns with agents' execs through it. */
  exec?: ExecRunner;
}

export function createTerminalMethods(ptyHost: PtyHost, hooks: TerminalMethodHooks = {}): TerminalMethodHandlers {
  /** `terminal.run`s not typed yet, by connection and terminal: what `terminal.cancelRun` stops. */
  const pendingRuns = new Map<string, Set<AbortController>>();
  return {
    'terminal.list': () => ptyHost.list(),

    'terminal.create': async (params, { connection }) => {
      const session = await ptyHost.create({ ...params, createdBy: connection.peer });
      return session.info;
    },

    'terminal.write': ({ id, data }, { connection }) => {
      const session = ptyHost.require(id);
      // Renderer windows and relay viewers are people at a keyboard; only agents go unguarded.
      if (connection.peer.kind !== 'agent') hooks.onPersonInput?.(id, data);
      session.write(data);
      return ok;
    },

    'terminal.run': async ({ id, command }, { connection }) => {
      const session = ptyHost.require(id);
      if (!hooks.exec) throw new ApiError('INTERNAL', 'terminal.run: this Hub has no exec runner');
      if (session.exitStatus) throw new ApiError('TERMINAL_EXITED', `${session.info.name} has exited`);
      let onTyped!: () => void;
      const typed = new Promise<void>((resolve) => (onTyped = resolve));
      // The exec's timeout bounds only the wait for its turn: once typed, the command runs as long
      // as it runs (History records its end); an exec that times out before typing never types.
      // Until typed, the person may change their mind (`terminal.cancelRun`): nothing is typed then.
      const cancel = new AbortController();
      const key = `${connection.id}\0${id}`;
      pendingRuns.set(key, (pendingRuns.get(key) ?? new Set()).add(cancel));
      const run = hooks.exec.run(session, command, { timeoutMs: ControlConstants.personRunTypeWithinMs, onTyped, signal: cancel.signal });
      run.catch(() => {}); // after the line was typed its end is History's to tell
      try {
        await Promise.race([typed, run]);
      } catch (error) {
        throw asApiError(error, session.info.name);
      } finally {
        const runs = pendingRuns.get(key);
        runs?.delete(cancel);
        if (runs?.size === 0) pendingRuns.delete(key);
      }
      return ok;
    },

    'terminal.cancelRun': ({ id }, { connection }) => {
      ptyHost.require(id);
      const runs = pendingRuns.get(`${connection.id}\0${id}`);
      for (const cancel of runs ?? []) cancel.abort(new ApiError('BUSY', 'cancelled before it was typed; nothing was typed'));
      return { cancelled: runs?.size ?? 0 };
    },

    'terminal.resize': ({ id, cols, rows }) => {
      ptyHost.require(id).resize(cols, rows);
      return ok;
    },

    'terminal.rename': ({ id, name }) => ptyHost.rename(id, name).info,

    'terminal.close': async ({ id }) => {
      await ptyHost.close(id);
      return ok;
    },

    'terminal.attach': async ({ id }, { connection }) => {
      const session = ptyHost.require(id);
      // Lossless: the PTY waits for this client's acks rather than dropping its output.
      const attachment = await session.attach({
        lossless: true,
        onOutput: (data, endOffset) => connection.sendEvent('terminal.output', { id, data, offset: endOffset }),
      });
      // Replaces (and releases) an earlier attachment of this client; throws if the client left meanwhile.
      connection.setAttachment(id, attachment);
      return { info: session.info, snapshot: attachment.snapshot, offset: attachment.offset, startingUp: attachment.startingUp, cols: attachment.cols, rows: attachment.rows };
    },

    'terminal.detach': ({ id }, { connection }) => {
      if (!connection.releaseAttachment(id)) ptyHost.require(id); // detaching twice is fine; an unknown id is not
      return ok;
    },

    'terminal.ack': ({ id, chars }, { connection }) => {
      const attachment = connection.getAttachment(id);
      if (attachment) attachment.ack(chars);
      // A late ack after a detach is harmless and expected (acks trail the output); only an unknown id is an error.
      else ptyHost.require(id);
      return ok;
    },

    'terminal.markSeen': ({ id }) => {
      ptyHost.require(id).markSeen();
      return ok;
    },
  };
}

/** An exec's refusal, said to a person: the control socket's wording names terminals by id. */
function asApiError(error: unknown, name: string): unknown {
  if (!(error instanceof ControlError)) return error;
  const unsent = error.details?.unsentInput;
  if (typeof unsent === 'string') {
    return new ApiError('BUSY', `${name} has a line left half typed at its prompt: ${JSON.stringify(unsent)}. Send or clear it there, then try again; nothing was typed.`);
  }
  const code: ApiErrorCode = error.code !== undefined && (ApiErrorCodes as readonly string[]).includes(error.code) ? error.code : 'BUSY';
  const message = error.message.replace(/^(exec timeout after \d+ms: )?terminal \S+ /, (_, timeout: string | undefined) => (timeout ? `${name} did not get its turn: it ` : `${name} `));
  return new ApiError(code, message);
}
