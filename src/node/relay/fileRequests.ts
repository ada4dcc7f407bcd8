/**
 * Answering `browseDir`, `readFile` and `mkDir` from a viewer: the machine binding, a bound on
 * requests in flight per link, the scope rules (fileAccess.ts), and the `…Result` frame. Every
 * request gets exactly one answer, an error included, so a viewer never waits forever.
 */
import { RelayConstants } from '../../common/constants.ts';
import { checkMachineBinding } from '../../common/protocol/relay/binding.ts';
import { utf8ByteLength } from '../../common/protocol/relay/frameLimits.ts';
import { encodeFrame } from '../../common/protocol/relay/frames.ts';
import type { RelayMessage } from '../../common/protocol/relay/messages.ts';
import type { ILogger } from '../logger.ts';
import type { FileAccess } from './fileAccess.ts';
import type { RefusalLog } from './refusalLog.ts';
import type { RelayLink } from './relayLink.ts';

export type FileRequest = Extract<RelayMessage, { type: 'browseDir' | 'readFile' | 'mkDir' }>;

export interface FileRequestContext {
  link: RelayLink;
  files: FileAccess;
  machineId: string;
  refusals: RefusalLog;
  logger: ILogger;
}

export function answerFileRequest(message: FileRequest, context: FileRequestContext): void {
  const { link, files } = context;
  const { requestId, channelId } = message;
  const answer = (result: { ok: true } | { ok: false; error: string }, extra: Record<string, unknown> = {}): void => {
    const type = `${message.type}Result` as const;
    link.send(encodeFrame(type, { requestId, channelId, ...result, ...extra } as never));
  };
  const binding = checkMachineBinding(context.machineId, message);
  if (binding) {
    context.refusals.refuse('binding', `${message.type}: ${binding}`);
    answer({ ok: false, error: binding });
    return;
  }
  if (link.fileRequestsInFlight >= RelayConstants.maxFileRequestsInFlight) {
    answer({ ok: false, error: 'busy: too many file requests in progress; retry' });
    return;
  }
  link.fileRequestsInFlight++;
  const work = async (): Promise<void> => {
    switch (message.type) {
      case 'browseDir': {
        const result = await files.browseDir(message.path, { limit: message.limit, cursor: message.cursor });
        if (!result.ok) return answer(result);
        const { ok, ...listing } = result;
        return answer({ ok }, listing);
      }
      case 'readFile': {
        const result = await files.readFile(message.path, { maxBytes: message.maxBytes });
        if (!result.ok) return answer(result);
        // JSON escapes control chars six-fold: shorten the content until the frame fits the limit.
        let { content, truncated } = result;
        while (utf8ByteLength(encodeFrame('readFileResult', { requestId, channelId, ok: true, content, truncated })) > link.connection.maxFrameBytes) {
          content = content.slice(0, Math.floor(content.length * 0.75));
          truncated = true;
        }
        return answer({ ok: true }, { content, ...(truncated ? { truncated: true } : {}) });
      }
      case 'mkDir':
        return answer(await files.mkDir(message.path));
    }
  };
  work()
    .catch((error: unknown) => {
      context.logger.error('a file request failed', { type: message.type, error });
      answer({ ok: false, error: 'internal error' });
    })
    .finally(() => link.fileRequestsInFlight--);
}
