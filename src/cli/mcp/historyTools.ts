/**
 * History tools for models: find past terminal sessions and commands (history_list,
 * history_search), hand them over as pointers to private transcript files (history_reference:
 * paths and exit codes, never the content), and read one transcript explicitly, a bounded page
 * at a time (history_read). The content of a transcript reaches the model only through
 * history_read or its own file tools, when it decides it needs it.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { HistoryReferenceLimits } from '../../common/api/historyContract.ts';
import { type ControlClient, ControlClientError } from '../controlClient.ts';
import { formatCommandTable, formatSearchHits, formatSessionTable } from '../historyFormat.ts';
import { guarded, resolveTerminalId, text } from './toolResults.ts';

export const HistoryToolLimits = {
  defaultListed: 20,
  maxListed: 200,
  /** One history_read page: enough for a long test log, small enough for a model's context. */
  defaultReadBytes: 16_384,
  maxReadBytes: 131_072,
} as const;

const sessionParam = z.string().min(1).max(64).describe('A session id (from history_list or history_search).');

export function registerHistoryTools(server: McpServer, client: ControlClient): void {
  server.registerTool(
    'history_list',
    {
      title: 'List past terminal sessions',
      description:
        'List recorded terminal sessions, newest first (id, start, duration, exit status, size, who started it, name, folder). With `session`, list the commands run in that session instead, with their exit codes and CMD ids (use them as `command` in history_reference and history_read). Contents are not included.',
      inputSchema: {
        session: sessionParam.optional(),
        limit: z.number().int().min(1).max(HistoryToolLimits.maxListed).optional().describe(`At most this many rows (default ${HistoryToolLimits.defaultListed}).`),
        status: z.enum(['success', 'failure', 'running']).optional().describe('Only sessions that succeeded, failed, or are still running.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ session, limit, status }) =>
      guarded(async () => {
        const rows = limit ?? HistoryToolLimits.defaultListed;
        if (session) {
          const { commands } = await client.call('history.commands', { sessionId: session, limit: rows });
          return text(formatCommandTable([...commands].reverse(), undefined));
        }
        const { sessions } = await client.call('history.list', { limit: rows, exit: status });
        return text(formatSessionTable(sessions, undefined));
      }),
  );

  server.registerTool(
    'history_search',
    {
      title: 'Search past terminal output',
      description:
        'Full-text search over everything printed in recorded terminal sessions and every command line, newest first. Words as typed must all occur ("quotes" for a phrase). Each hit: session id, time, session name and a short snippet with the match in [brackets]. Follow with history_reference to hand a session on, or history_read to read it.',
      inputSchema: {
        query: z.string().min(1).max(1000).describe('Words to find.'),
        limit: z.number().int().min(1).max(HistoryToolLimits.maxListed).optional().describe(`At most this many hits (default ${HistoryToolLimits.defaultListed}).`),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ query, limit }) =>
      guarded(async () => {
        const { hits } = await client.call('history.search', { query, limit: limit ?? HistoryToolLimits.defaultListed });
        return text(formatSearchHits(hits, { color: false }));
      }),
  );

  server.registerTool(
    'history_reference',
    {
      title: 'Reference past sessions',
      description: `Write the transcripts of past sessions (or single commands of them) to private plain-text files and return a pointer: the file paths, command lines, exit codes and times, plus your notes. It never returns the transcripts themselves: read a file (or use history_read) only when you need it. With deliver_to, the pointer is also typed (without Enter) into that terminal, e.g. to hand the context to another agent. At most ${HistoryReferenceLimits.maxItems} items; notes at most 16 KiB.`,
      inputSchema: {
        items: z
          .array(z.object({ session: sessionParam, command: z.number().int().min(0).optional().describe('A CMD id from history_list {session}: just that command and its output.') }))
          .min(1)
          .max(HistoryReferenceLimits.maxItems),
        notes: z.string().optional().describe('Words to send with the pointer (why these sessions matter).'),
        deliver_to: z.string().min(1).optional().describe('A terminal (id, unique id prefix or name) to type the pointer into, without pressing Enter.'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    ({ items, notes, deliver_to: deliverTo }) =>
      guarded(async () => {
        const target = deliverTo === undefined ? undefined : await resolveTerminalId(client, deliverTo);
        const result = await client.call('history.reference', {
          items: items.map((item) => ({ sessionId: item.session, ...(item.command === undefined ? {} : { commandId: item.command }) })),
          notes,
          deliverTo: target,
        });
        const files = result.files.map((file) => ({
          path: file.path,
          session: file.sessionId,
          ...(file.commandId !== undefined ? { command: file.commandId, commandLine: file.commandLine } : {}),
          exitCode: file.exitCode,
          running: file.live,
          bytes: file.bytes,
        }));
        const lines = [result.pointer, '', JSON.stringify(files, null, 2)];
        for (const warning of result.warnings) lines.push(`Note: ${warning}`);
        if (result.deliveredTo) lines.push(`Typed into terminal ${result.deliveredTo} (not sent).`);
        return text(lines.join('\n'));
      }),
  );

  server.registerTool(
    'history_read',
    {
      title: 'Read a past transcript',
      description: `Read one recorded transcript (a session, or one command of it) as text with escape sequences stripped, one bounded page at a time: at most ${HistoryToolLimits.maxReadBytes} bytes per call (default ${HistoryToolLimits.defaultReadBytes}). The answer starts with the byte range read and the offset to pass for the next page. Read only what you need; for a long log, start near the end (the last page usually holds the error).`,
      inputSchema: {
        session: sessionParam,
        command: z.number().int().min(0).optional().describe('A CMD id from history_list {session}: read only that command\'s output.'),
        offset: z.number().int().min(0).optional().describe('Byte offset to start at (default: the start of the session or command); from a previous call\'s "next offset".'),
        limit: z.number().int().min(1).max(HistoryToolLimits.maxReadBytes).optional().describe(`Bytes to read (default ${HistoryToolLimits.defaultReadBytes}).`),
        from_end: z.boolean().optional().describe('Start `limit` bytes before the end instead (ignores offset).'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ session, command, offset, limit, from_end: fromEnd }) =>
      guarded(async () => {
        const pageBytes = limit ?? HistoryToolLimits.defaultReadBytes;
        let start: number | undefined;
        let end: number | undefined;
        if (command !== undefined) {
          const { commands } = await client.call('history.commands', { sessionId: session, limit: 5000 });
          const found = commands.find((entry) => entry.id === command);
          if (!found) throw new ControlClientError('SERVER_ERROR', `session ${session} has no command ${command} (see history_list with session)`);
          start = found.startOffset;
          end = found.endOffset ?? undefined;
        }
        if (end === undefined) {
          // The end of the session as stored now (a probe read of one byte says where it is).
          const probe = await client.call('history.read', { sessionId: session, limit: 1 });
          end = probe.totalSize;
          start ??= probe.offset;
        }
        const from = fromEnd ? Math.max(start!, end - pageBytes) : Math.max(offset ?? start!, start!);
        if (from >= end) return text(`[bytes ${end}–${end} of ${start}–${end}; this is the end]\n`);
        const read = await client.call('history.read', { sessionId: session, offset: from, limit: Math.min(pageBytes, end - from) });
        const more = read.nextOffset < end ? `; next offset ${read.nextOffset}` : '; this is the end';
        return text(`[bytes ${read.offset}–${read.nextOffset} of ${start}–${end}${more}]\n${read.bytes}`);
      }),
  );
}
