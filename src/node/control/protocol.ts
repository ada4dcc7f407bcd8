/**
 * The claws wire format lives with the rest of the control protocol in
 * src/common/protocol/control/wire.ts (clients share it); ControlError is the server's way for a
 * handler to fail with it.
 */
import type { ApiErrorCode } from '../../common/api/errors.ts';
import type { ResponseBody } from '../../common/protocol/control/wire.ts';

export {
  encodeError,
  encodeResponse,
  IdValue,
  ProtocolErrors,
  ProtocolV1,
  ProtocolV2,
  type RequestId,
  RequestEnvelope,
  type ResponseBody,
  supportedProtocols,
} from '../../common/protocol/control/wire.ts';

/** An expected failure: its message goes to the client as `error` (and `code`, for our own clients). */
export class ControlError extends Error {
  readonly code: ApiErrorCode | undefined;
  /**
   * Fields sent beside `error` in the response: what a failed request still has to tell (an exec
   * that timed out: the output so far and what the pane waits for). Never `ok`, `rid` or `error`.
   */
  readonly details: ResponseBody | undefined;
  constructor(message: string, code?: ApiErrorCode, details?: ResponseBody) {
    super(message);
    this.name = 'ControlError';
    this.code = code;
    this.details = details;
  }
}
