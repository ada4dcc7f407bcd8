/**
 * The contract's `history.*` methods on top of the HistoryService. Params arrive validated by
 * HubConnection; what is left here is existence (NOT_FOUND) and turning bytes into base64.
 */
import type { HubMethod, MethodResult, ParsedParams } from '../../common/api/contract.ts';
import { ApiError } from '../../common/api/errors.ts';
import type { CallContext } from './hubConnection.ts';
import type { HistoryService } from '../history/historyService.ts';

type HistoryMethod = Extract<HubMethod, `history.${string}`>;
/** The caller is optional (only import uses it), so the control socket's history.* commands run these too. */
export type HistoryMethodHandlers = {
  readonly [M in HistoryMethod]: (params: ParsedParams<M>, context?: CallContext) => MethodResult<M> | Promise<MethodResult<M>>;
};

function notFound(id: string): ApiError {
  return new ApiError('NOT_FOUND', `no history session ${id}`);
}

export function createHistoryMethods(history: HistoryService): HistoryMethodHandlers {
  return {
    'history.status': () => history.status(),

    'history.list': ({ limit, before, filter }) =>
      history.whenCaughtUp(() => ({
        sessions: history.list({ ...(limit !== undefined ? { limit } : {}), ...(before !== undefined ? { before } : {}), ...(filter ? { filter } : {}) }),
      })),

    'history.get': ({ id }) =>
      history.whenCaughtUp(() => {
        const session = history.get(id);
        if (!session) throw notFound(id);
        return session;
      }),

    'history.search': ({ query, limit, filter }) => ({
      hits: history.search(query, { ...(limit !== undefined ? { limit } : {}), ...(filter ? { filter } : {}) }),
    }),

    'history.read': ({ id, offset, limit }) =>
      history.whenCaughtUp(() => {
        const result = history.read(id, offset, limit);
        if (!result) throw notFound(id);
        return { ...result, data: result.data.toString('base64') };
      }),

    'history.events': ({ id, afterSeq, limit }) =>
      history.whenCaughtUp(() => {
        const result = history.events(id, afterSeq, limit);
        if (!result) throw notFound(id);
        return result;
      }),

    'history.commands': ({ sessionId, query, limit, before, filter }) =>
      history.whenCaughtUp(() => {
        if (sessionId !== undefined && !history.get(sessionId)) throw notFound(sessionId);
        return {
          commands: history.commands({
            ...(sessionId !== undefined ? { sessionId } : {}),
            ...(query !== undefined ? { query } : {}),
            ...(limit !== undefined ? { limit } : {}),
            ...(before !== undefined ? { before } : {}),
            ...(filter ? { filter } : {}),
          }),
        };
      }),

    'history.delete': ({ ids }) => ({ deleted: history.delete(ids) }),

    'history.export': ({ id, format }) => history.whenCaughtUp(() => history.exportSession(id, format)),

    'history.import': ({ fileName, contents }, context) =>
      history.importCast(fileName, contents, context?.connection.peer ?? { kind: 'agent', name: 'socket client' }),

    'history.reference': ({ items, notes, terminalId }) => history.reference(items, notes, terminalId),

    'history.setRecording': ({ terminalId, record }) => {
      history.setRecording(terminalId, record);
      return { ok: true };
    },
  };
}
