/**
 * History over the control socket (docs/protocol.md, "History"): each command's fields sit at the
 * top level of the request (`{cmd:"history.list", cwd:"/src", exit:"failure"}`) and map onto the
 * Hub's `history.*` API method (src/common/api/historyContract.ts), so the socket, the UI and the
 * CLI share the answers and the validation.
 */
import { z } from 'zod';
import {
  HistoryCommand,
  HistoryFilter,
  historyMethods,
  HistoryReferenceItems,
  HistoryReferenceNotes,
  HistoryReferenceResult,
  HistorySearchHit,
  HistorySession,
  HistorySessionId,
} from '../../api/historyContract.ts';
import { withoutUndefined } from './fields.ts';
import { IdValue } from './wire.ts';

type Method = keyof typeof historyMethods;
type MethodParams<M extends Method> = z.output<(typeof historyMethods)[M]['params']>;

/** The filter fields, at the top level of a socket request. */
const filterShape = HistoryFilter.shape;

function filterOf(fields: { [K in keyof typeof filterShape]?: z.output<(typeof filterShape)[K]> }): HistoryFilter | undefined {
  const filter = withoutUndefined(fields) as HistoryFilter;
  return Object.keys(filter).length > 0 ? filter : undefined;
}

/** The socket's fields, moved onto the method's params (which the Hub validates again, unchanged). */
function toMethod<M extends Method>(_method: M, params: Record<string, unknown>): MethodParams<M> {
  return withoutUndefined(params) as MethodParams<M>;
}

const list = historyMethods['history.list'].params.shape;
const search = historyMethods['history.search'].params.shape;
const commands = historyMethods['history.commands'].params.shape;

export const historyCommandSchemas = {
  'history.list': {
    params: z
      .object({ limit: list.limit, before: list.before, ...filterShape })
      .transform(({ limit, before, ...filter }) => toMethod('history.list', { limit, before, filter: filterOf(filter) })),
    result: z.looseObject({ sessions: z.array(HistorySession) }),
  },
  'history.search': {
    params: z
      .object({ query: search.query, limit: search.limit, ...filterShape })
      .transform(({ query, limit, ...filter }) => toMethod('history.search', { query, limit, filter: filterOf(filter) })),
    result: z.looseObject({ hits: z.array(HistorySearchHit) }),
  },
  'history.get': {
    params: z.object({ sessionId: HistorySessionId }).transform(({ sessionId }) => toMethod('history.get', { id: sessionId })),
    result: z.looseObject({ session: HistorySession }),
  },
  'history.commands': {
    params: z
      .object({ sessionId: commands.sessionId, query: commands.query, limit: commands.limit, before: commands.before, ...filterShape })
      .transform(({ sessionId, query, limit, before, ...filter }) => toMethod('history.commands', { sessionId, query, limit, before, filter: filterOf(filter) })),
    result: z.looseObject({ commands: z.array(HistoryCommand) }),
  },
  'history.export': {
    params: z
      .object({ sessionId: HistorySessionId, format: z.enum(['cast', 'text']).optional() })
      .transform(({ sessionId, format }) => toMethod('history.export', { id: sessionId, format: format ?? 'cast' })),
    result: z.looseObject({ fileName: z.string(), contents: z.string() }),
  },
  'history.read': {
    // As readLog: text (ANSI stripped unless strip:false), at most 512 KiB, cut on characters.
    params: z.object({
      sessionId: HistorySessionId,
      offset: z.number().int().min(0).optional(),
      limit: z.number().int().min(1).optional(),
      strip: z.boolean().optional(),
    }),
    result: z.looseObject({
      sessionId: z.string(),
      bytes: z.string(),
      offset: z.number(),
      nextOffset: z.number(),
      totalSize: z.number(),
      /** More follows, or the start was moved up past output the per-session cap dropped. */
      truncated: z.boolean(),
    }),
  },
  'history.reference': {
    params: z.object({
      items: HistoryReferenceItems,
      notes: HistoryReferenceNotes.optional(),
      /** Type the pointer into this terminal, without Enter. */
      deliverTo: IdValue.optional(),
      /** While a person is typing there: true (default) waits until they pause; false refuses at once. */
      wait: z.boolean().optional(),
    }),
    result: HistoryReferenceResult.loose(),
  },
} as const;
