/**
 * The claws/1 commands: list, create, show, send, exec, readLog, poll, close, introspect, ping.
 * Field names, defaults, limits and error strings follow claws (docs/protocol.md); where we do
 * more (exec without shell integration, automatic bracketed paste) the wire format stays the same.
 */
import { createRequire } from 'node:module';
import { basename, isAbsolute, resolve } from 'node:path';
import { ControlConstants } from '../../../common/constants.ts';
import type { ControlParsedParams, ControlResultBody } from '../../../common/protocol/control/commands.ts';
import { type CommandContext, type ControlCommand, defineCommand } from '../commandRegistry.ts';
import { stripAnsi } from '../../../common/terminal/ansiStrip.ts';
import { readLogText } from '../terminalOutput.ts';
import { nameTakenError } from '../../pty/ptyHost.ts';
import { ControlError, ProtocolErrors, ProtocolV1 } from '../protocol.ts';
import type { ClawsWorkers } from './clawsWorkers.ts';
import { audit, commandEventBody, type ControlServices, describeTerminal, requireRunning, requireTerminal, targetTerminalRef, terminalRefMistake } from './services.ts';

/** What the claws commands share with the rest of the control server besides the services. */
export interface ClawsCommandsContext {
  /** claws' worker bookkeeping: `create {correlation_id}` registers the new terminal's worker. */
  workers: ClawsWorkers;
  /** Publish a server topic on the claws/2 bus (`system.terminal.paste_complete`). */
  publish(topic: string, payload: unknown): void;
}

/**
 * Where node-pty's native module was loaded from (introspect's `nodePty.loadedFrom`): the one a
 * packaged app or a rebuilt checkout actually runs. node-pty loads it with `require`, so it is in
 * the CommonJS module cache.
 */
function nodePtyNativePath(): string | null {
  const cache = createRequire(import.meta.url).cache;
  return Object.keys(cache).find((path) => path.includes('node-pty') && /^(pty|conpty)\.node$/.test(basename(path))) ?? null;
}

export function clawsCommands(services: ControlServices, claws: ClawsCommandsContext): ControlCommand[] {
  const { ptyHost } = services;
  /** Names of terminals being started: two `create`s with one name in flight must not both pass. */
  const namesStarting = new Set<string>();
  return [
    defineCommand('list', () => {
      const focused = services.focusedTerminalId();
      return { terminals: ptyHost.list().map((info) => describeTerminal(info, focused)) };
    }),

    defineCommand('create', async (params, context) => {
      const workspace = services.workspaceFolders[0]!;
      // The rule `rename` follows: a name points at one terminal, or `exec NAME` becomes ambiguous.
      const name = params.name?.trim();
      if (name) {
        const holder = ptyHost.list().find((info) => info.name === name);
        if (holder) throw nameTakenError(name, holder.id);
        if (namesStarting.has(name)) {
          throw new ControlError(`the name "${name}" is taken by a terminal another request is creating right now; names point at one terminal — pick another`, 'INVALID_PARAMS');
        }
        namesStarting.add(name);
      }
      try {
        return await createTerminal(params, context, workspace);
      } finally {
        if (name) namesStarting.delete(name);
      }
    }),

    defineCommand('show', (params, context) => {
      const session = requireTerminal(services, params.terminalId, context);
      services.reveal(session.id, params.preserveFocus ?? false);
      return {};
    }),

    defineCommand('send', async (params, context) => {
      const session = requireTerminal(services, params.terminalId, context);
      requireRunning(session);
      const text = params.text ?? '';
      const newline = params.newline ?? true;
      const result = await services.input.send(session, text, {
        newline,
        paste: params.paste,
        guard: services.typingGuard.guardFor(session.id, { wait: params.wait ?? true, isConnected: () => context.peer.connected, session }),
        onTyped: () => audit(services, context, session.id, text + (newline ? '\r' : '')),
      });
      // claws' signal that a paste (and its Enter) has been written: a TUI may now process it.
      if (result.pasted) {
        claws.publish('system.terminal.paste_complete', { terminalId: session.id, totalSize: Buffer.byteLength(text, 'utf8'), ts: new Date().toISOString() });
      }
      return { mode: 'wrapped', pasted: result.pasted, offset: result.offset };
    }),

    defineCommand('exec', async (params, context) => {
      const session = requireTerminal(services, params.terminalId, context);
      requireRunning(session);
      const entry = await services.exec.run(session, params.command, {
        timeoutMs: params.timeoutMs ?? ControlConstants.execDefaultTimeoutMs,
        // A client gone before its command was typed (Ctrl-C on `switchboard exec`): never type it.
        signal: context.peer.closedSignal,
        onTyped: () => audit(services, context, session.id, params.command),
      });
      // Only when it happened: claws' own answer has no such field.
      return { event: commandEventBody(entry), truncated: entry.truncated, ...(entry.personTyped ? { personTyped: true } : {}) };
    }),

    defineCommand('readLog', (params, context) => {
      const session = requireTerminal(services, params.terminalId, context);
      const totalSize = session.offset;
      const limit = Math.min(params.limit ?? ControlConstants.readLogMaxBytes, ControlConstants.readLogMaxBytes);
      const requested = Math.min(params.offset ?? Math.max(0, totalSize - limit), totalSize);
      // Only raw bytes from an offset the client chose may start inside a character or escape
      // sequence: anything else starts and ends on their boundaries (a stripped read that began
      // inside a prompt mark would print its nonce).
      const slice = readLogText(session, requested, limit, { exactStart: params.offset !== undefined && params.strip === false });
      const nextOffset = slice.endOffset;
      return {
        bytes: params.strip === false ? slice.text : stripAnsi(slice.text),
        offset: slice.startOffset,
        nextOffset,
        totalSize,
        // claws: more bytes follow; ours also: the start was clamped up past bytes the ring no longer holds.
        truncated: slice.truncated || nextOffset < totalSize,
        logPath: null,
      };
    }),

    defineCommand('poll', (params) => {
      const limit = Math.min(params.limit ?? ControlConstants.pollMaxEvents, ControlConstants.pollMaxEvents);
      const page = services.commandLog.since(params.since ?? 0, limit);
      return { events: page.events.map(commandEventBody), cursor: page.cursor, limit, truncated: page.truncated };
    }),

    defineCommand('close', async (params, context) => {
      const ref = targetTerminalRef(params.terminalId, context);
      const session = ptyHost.get(String(ref));
      if (!session) {
        // Closing is idempotent for a terminal that is gone, not for a request that named none
        // (a numeric request id): say so rather than answer "already closed".
        const mistake = terminalRefMistake(params.terminalId, context);
        if (mistake !== undefined) throw new ControlError(ProtocolErrors.unknownTerminal(ref) + mistake, 'INVALID_PARAMS');
        return { alreadyClosed: true };
      }
      audit(services, context, session.id, `closed ${session.info.name}`);
      try {
        await ptyHost.close(session.id);
      } catch (error) {
        // Closed by someone else in the meantime: still closed, which is what was asked.
        if (ptyHost.get(session.id)) throw error;
      }
      return { alreadyClosed: false };
    }),

    defineCommand('introspect', () => ({
      protocol: ProtocolV1,
      extensionVersion: services.version,
      nodeVersion: process.version,
      platform: `${process.platform}-${process.arch}`,
      // The Node ABI (NODE_MODULE_VERSION) of the Electron this runs in: what native modules must be built for.
      electronAbi: process.versions.electron ? process.versions.modules : null,
      // node-pty is a static import of the Hub: if it had failed to load, nothing would run.
      nodePty: { loaded: true, error: null, loadedFrom: nodePtyNativePath() },
      servers: services.servers(),
      terminals: ptyHost.list().length,
      uptime_ms: Date.now() - services.startedAt,
      commands: services.commandNames(),
    })),

    defineCommand('ping', () => ({ serverTime: Date.now() })),
  ];

  /** Start the terminal `create` asked for, once its name is known to be free. */
  async function createTerminal(params: ControlParsedParams<'create'>, context: CommandContext, workspace: string): Promise<ControlResultBody<'create'>> {
    const session = await ptyHost.create({
      // Trimmed, as rename keeps names: " b1" and "b1" must not be two terminals.
      ...(params.name !== undefined ? { name: params.name.trim() || params.name } : {}),
      // claws clients pass paths relative to the workspace they found the socket in.
      ...(params.cwd !== undefined ? { cwd: isAbsolute(params.cwd) ? params.cwd : resolve(workspace, params.cwd) } : {}),
      ...(params.shellPath !== undefined ? { file: params.shellPath } : {}),
      ...(params.shellArgs !== undefined ? { args: params.shellArgs } : {}),
      ...(params.env !== undefined ? { env: params.env } : {}),
      ...(params.cols !== undefined ? { cols: params.cols } : {}),
      ...(params.rows !== undefined ? { rows: params.rows } : {}),
      ...(params.shellIntegration !== undefined ? { shellIntegration: params.shellIntegration } : {}),
      createdBy: { kind: 'agent', name: context.peer.name },
    });
    const info = session.info;
    audit(services, context, info.id, `created ${info.name} (${[info.file, ...info.args].join(' ')}) in ${info.cwd}`);
    if (params.correlation_id !== undefined) claws.workers.registerSpawn(info.id, params.correlation_id, info.name);
    // As in claws, a new terminal is shown unless the client says show:false; it never takes
    // the keyboard from a person typing elsewhere unless asked to (preserveFocus:false).
    if (params.show ?? true) services.reveal(info.id, params.preserveFocus ?? true);
    return { id: info.id, wrapped: true, logPath: null, terminal: describeTerminal(info, services.focusedTerminalId()) };
    }
}
