/**
 * Binding checks of the GSD relay protocol (protocol-go `binding.go` semantics and texts): a
 * response must carry the `requestId` of its request; a session-scoped frame must carry the same
 * non-empty `sessionId`, and the same `channelId` when the expected side named one. Each returns
 * the error text, or undefined when the frame is bound correctly.
 */

export interface Binding {
  requestId?: string | undefined;
  sessionId?: string | undefined;
  channelId?: string | undefined;
  machineId?: string | undefined;
  terminalId?: string | undefined;
}

export function checkRequestBinding(expected: Binding, actual: Binding): string | undefined {
  const want = expected.requestId ?? '';
  const got = actual.requestId ?? '';
  if (want === '') return 'binding: expected requestId is empty';
  if (got === '') return 'binding: actual requestId is empty';
  if (got !== want) return `binding: requestId mismatch: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`;
  return undefined;
}

export function checkSessionBinding(expected: Binding, actual: Binding): string | undefined {
  const want = expected.sessionId ?? '';
  const got = actual.sessionId ?? '';
  if (want === '') return 'binding: expected sessionId is empty';
  if (got === '') return 'binding: actual sessionId is empty';
  if (got !== want) return `binding: sessionId mismatch: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`;
  return checkChannelBinding(expected, actual);
}

/** The channel half of the session check, for frames that carry no sessionId (`terminalInput`, `terminalClose`…). */
export function checkChannelBinding(expected: Binding, actual: Binding): string | undefined {
  const want = expected.channelId ?? '';
  if (want === '') return undefined;
  const got = actual.channelId ?? '';
  if (got === '') return 'binding: actual channelId is empty';
  if (got !== want) return `binding: channelId mismatch: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`;
  return undefined;
}

/** Requests that name a machine (`browseDir`, `readFile`, `mkDir`) must name this one. */
export function checkMachineBinding(expectedMachineId: string, actual: Binding): string | undefined {
  const got = actual.machineId ?? '';
  if (got !== expectedMachineId) return `binding: machineId mismatch: got ${JSON.stringify(got)}, want ${JSON.stringify(expectedMachineId)}`;
  return undefined;
}
