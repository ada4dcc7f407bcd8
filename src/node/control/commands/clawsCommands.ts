/**
 * The claws/1 commands: list, create, show, send, exec, readLog, poll, close, introspect, ping.
 * Field names, defaults, limits and error strings follow claws (docs/protocol.md); where we do
 * more (exec without shell integration, automatic bracketed paste) the wire format stays the same.
 */
import { createRequire } from 'node:module';
import { basename, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { ControlConstants, TerminalConstants } from '../../../common/constants.ts';
import { type ControlCommand, defineCommand } from '../commandRegistry.ts';
import { stripAnsi } from '../../../common/terminal/ansiStrip.ts';
import { readLogSlice } from '../terminalOutput.ts';
import { IdValue, ProtocolV1 } from '../protocol.ts';
import type { ClawsWorkers } from './clawsWorkers.ts';
import { audit, commandEventBody, type ControlServices, describeTerminal, requireRunning, requireTerminal, targetTerminalRef } from './services.ts';

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

const TerminalRef = IdValue.optional();
const Cols = z.number().int().min(TerminalConstants.minCols).max(TerminalConstants.maxCols);
const Rows = z.number().int().min(TerminalConstants.minRows).max(TerminalConstants.maxRows);
export const TimeoutMs = z.number().int().min(1).max(ControlConstants.maxTimeoutMs);

/**
 * The params of a claws command. claws' clients send `null` for an optional field they leave
 * unset (its Python client puts `"cwd": null` in every `create`), so for claws' own commands a
 * null field is an absent one. (Not for our own commands: `review.request` takes null as a value.)
 */
function clawsParams<T extends z.ZodRawShape>(shape: T) {
  return z.preprocess((value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== null));
  }, z.object(shape));
}

export function clawsCommands(services: ControlServices, claws: ClawsCommandsContext): ControlCommand[] {
  const { ptyHost } = services;
  return [
    defineCommand({
      name: 'list',
      params: clawsParams({}),
      run: () => {
        const focused = services.focusedTerminalId();
        return { terminals: ptyHost.list().map((info) => describeTerminal(info, focused)) };
      },
    }),

    defineCommand({
      name: 'create',
      params: clawsParams({
        name: z.string().max(200).optional(),
        cwd: z.string().min(1).max(4096).optional(),
        /** Accepted for claws clients; every terminal is captured. */
        wrapped: z.boolean().optional(),
        show: z.boolean().optional(),
        preserveFocus: z.boolean().optional(),
        shellPath: z.string().min(1).max(4096).optional(),
        shellArgs: z.array(z.string().max(64 * 1024)).max(1024).optional(),
        env: z.record(z.string(), z.string().max(64 * 1024)).optional(),
        cols: Cols.optional(),
        rows: Rows.optional(),
        shellIntegration: z.boolean().optional(),
        /** claws v0.8: the worker's correlation id, stamped on the events about this terminal. */
        correlation_id: z.string().min(1).max(200).optional(),
      }),
      run: async (params, context) => {
        const workspace = services.workspaceFolders[0]!;
        const session = await ptyHost.create({
          ...(params.name !== undefined ? { name: params.name } : {}),
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
      },
    }),

    defineCommand({
      name: 'show',
      params: clawsParams({ terminalId: TerminalRef, preserveFocus: z.boolean().optional() }),
      run: (params, context) => {
        const session = requireTerminal(services, params.terminalId, context);
        services.reveal(session.id, params.preserveFocus ?? false);
        return {};
      },
    }),

    defineCommand({
      name: 'send',
      params: clawsParams({
        terminalId: TerminalRef,
        text: z.string().max(TerminalConstants.maxWriteChars).optional(),
        newline: z.boolean().optional(),
        paste: z.boolean().optional(),
        show: z.boolean().optional(),
        /** While a person is typing in the pane: true (default) waits until they pause; false refuses at once. */
        wait: z.boolean().optional(),
      }),
      run: async (params, context) => {
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
      },
    }),

    defineCommand({
      name: 'exec',
      params: clawsParams({
        terminalId: TerminalRef,
        command: z.string().min(1).max(TerminalConstants.maxWriteChars),
        timeoutMs: TimeoutMs.optional(),
        show: z.boolean().optional(),
      }),
      run: async (params, context) => {
        const session = requireTerminal(services, params.terminalId, context);
        requireRunning(session);
        const entry = await services.exec.run(session, params.command, {
          timeoutMs: params.timeoutMs ?? ControlConstants.execDefaultTimeoutMs,
          onTyped: () => audit(services, context, session.id, params.command),
        });
        return { event: commandEventBody(entry), truncated: entry.truncated };
      },
    }),

    defineCommand({
      name: 'readLog',
      params: clawsParams({
        terminalId: TerminalRef,
        offset: z.number().int().min(0).optional(),
        /** Clamped to 524288 as in claws, not refused. */
        limit: z.number().int().min(1).optional(),
        strip: z.boolean().optional(),
      }),
      run: (params, context) => {
        const session = requireTerminal(services, params.terminalId, context);
        const totalSize = session.offset;
        const limit = Math.min(params.limit ?? ControlConstants.readLogMaxBytes, ControlConstants.readLogMaxBytes);
        const requested = Math.min(params.offset ?? Math.max(0, totalSize - limit), totalSize);
        // Only raw bytes from an offset the client chose may start inside a character or escape
        // sequence: anything else starts and ends on their boundaries (a stripped read that began
        // inside a prompt mark would print its nonce).
        const slice = readLogSlice(session, requested, limit, { exactStart: params.offset !== undefined && params.strip === false });
        const nextOffset = slice.endOffset;
        const text = slice.data.toString('utf8');
        return {
          bytes: params.strip === false ? text : stripAnsi(text),
          offset: slice.startOffset,
          nextOffset,
          totalSize,
          // claws: more bytes follow; ours also: the start was clamped up past bytes the ring no longer holds.
          truncated: slice.truncated || nextOffset < totalSize,
          logPath: null,
        };
      },
    }),

    defineCommand({
      name: 'poll',
      params: clawsParams({ since: z.number().int().min(0).optional(), limit: z.number().int().min(1).optional() }),
      run: (params) => {
        const limit = Math.min(params.limit ?? ControlConstants.pollMaxEvents, ControlConstants.pollMaxEvents);
        const page = services.commandLog.since(params.since ?? 0, limit);
        return { events: page.events.map(commandEventBody), cursor: page.cursor, limit, truncated: page.truncated };
      },
    }),

    defineCommand({
      name: 'close',
      params: clawsParams({ terminalId: TerminalRef }),
      run: async (params, context) => {
        const ref = targetTerminalRef(params.terminalId, context);
        const session = ptyHost.get(String(ref));
        if (!session) return { alreadyClosed: true };
        audit(services, context, session.id, `closed ${session.info.name}`);
        try {
          await ptyHost.close(session.id);
        } catch (error) {
          // Closed by someone else in the meantime: still closed, which is what was asked.
          if (ptyHost.get(session.id)) throw error;
        }
        return { alreadyClosed: false };
      },
    }),

    defineCommand({
      name: 'introspect',
      params: clawsParams({}),
      run: () => ({
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
      }),
    }),

    defineCommand({
      name: 'ping',
      params: clawsParams({}),
      run: () => ({ serverTime: Date.now() }),
    }),
  ];
}
