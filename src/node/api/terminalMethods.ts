/**
 * The contract's `terminal.*` methods on top of the PtyHost. Params arrive already validated by
 * HubConnection; what is left to check here is state (does the terminal exist, is it running,
 * is this client attached), which the PtyHost and PtySession answer with coded ApiErrors.
 */
import type { HubMethod } from '../../common/api/contract.ts';
import type { PtyHost } from '../pty/ptyHost.ts';
import type { HubMethodHandlers } from './hubConnection.ts';

type TerminalMethod = Extract<HubMethod, `terminal.${string}`>;
export type TerminalMethodHandlers = Pick<HubMethodHandlers, TerminalMethod>;

const ok = { ok: true } as const;

export interface TerminalMethodHooks {
  /** A person (not an agent) wrote to a terminal: agents' `send` waits for them to pause. */
  onPersonInput?: (terminalId: string, data: string) => void;
}

export function createTerminalMethods(ptyHost: PtyHost, hooks: TerminalMethodHooks = {}): TerminalMethodHandlers {
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
      return { info: session.info, snapshot: attachment.snapshot, offset: attachment.offset, cols: attachment.cols, rows: attachment.rows };
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
