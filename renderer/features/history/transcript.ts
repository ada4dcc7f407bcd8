/**
 * A recorded session's transcript as the viewer plays it: the output bytes (decoded once from
 * base64, kept as bytes so a UTF-8 sequence split between two chunks is joined by the terminal's
 * own decoder, exactly as it was live) and the resizes, in recorded order. Typed input is left
 * out: the terminal's echo of it is already in the output.
 */
import type { HistoryEvent } from '../../../src/common/api/historyContract.ts';
import type { IHubClient } from '../../../src/common/api/hubClient.ts';
import { HistoryUiConstants } from './historyConstants.ts';

export type TranscriptEvent =
  | { kind: 'output'; at: number; offset: number; bytes: Uint8Array }
  | { kind: 'resize'; at: number; offset: number; cols: number; rows: number };

/** Base64 → bytes, without going through a string that would mangle non-UTF-8 output. */
export function decodeBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

export function toTranscriptEvents(events: readonly HistoryEvent[]): TranscriptEvent[] {
  const transcript: TranscriptEvent[] = [];
  for (const event of events) {
    if (event.kind === 'output') transcript.push({ kind: 'output', at: event.at, offset: event.offset, bytes: decodeBase64(event.data) });
    else if (event.kind === 'resize') transcript.push({ kind: 'resize', at: event.at, offset: event.offset, cols: event.cols, rows: event.rows });
  }
  return transcript;
}

/** Output lines in the transcript (line feeds), to size the viewer's scrollback to hold all of it. */
export function countLineFeeds(events: readonly TranscriptEvent[]): number {
  let count = 0;
  for (const event of events) {
    if (event.kind !== 'output') continue;
    const bytes = event.bytes;
    for (let index = 0; index < bytes.length; index++) if (bytes[index] === 0x0a) count++;
  }
  return count;
}

export function totalOutputBytes(events: readonly TranscriptEvent[]): number {
  let total = 0;
  for (const event of events) if (event.kind === 'output') total += event.bytes.length;
  return total;
}

/**
 * How many leading events end at or before byte `offset`: applying exactly those puts the
 * terminal's cursor on (or just before) the line where the text at `offset` is printed.
 */
export function eventsBeforeOffset(events: readonly TranscriptEvent[], offset: number): number {
  let count = 0;
  for (const event of events) {
    const end = event.kind === 'output' ? event.offset + event.bytes.length : event.offset;
    if (end > offset) break;
    count++;
  }
  return count;
}

/** Every recorded event of a session, page by page. `isCancelled` stops early (the viewer closed). */
export async function loadTranscript(
  client: IHubClient,
  sessionId: string,
  options: { isCancelled(): boolean; onProgress?(loadedEvents: number): void },
): Promise<TranscriptEvent[] | null> {
  const transcript: TranscriptEvent[] = [];
  let afterSeq = -1;
  let loaded = 0;
  for (;;) {
    const page = await client.call('history.events', { id: sessionId, afterSeq, limit: HistoryUiConstants.eventsPageSize });
    if (options.isCancelled()) return null;
    for (const event of toTranscriptEvents(page.events)) transcript.push(event);
    loaded += page.events.length;
    options.onProgress?.(loaded);
    const last = page.events[page.events.length - 1];
    if (page.done || !last) return transcript;
    afterSeq = last.seq;
  }
}
