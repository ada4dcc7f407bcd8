/**
 * asciicast v2 (https://docs.asciinema.org/manual/asciicast/v2/), the format `asciinema play`
 * reads: a JSON header line, then one JSON array `[time, code, data]` per event, where `time` is
 * seconds since the start, `code` is "o" (output), "i" (input), "r" (resize, data "COLSxROWS")
 * or "m" (marker). Also the plain-text export (ANSI stripped).
 *
 * Import checks every line with zod and refuses a file with the first line at fault named:
 * `line 3: expected [time, code, data]`.
 */
import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';
import { ApiError } from '../../common/api/errors.ts';
import type { HistorySession } from '../../common/api/historyContract.ts';
import { TerminalConstants } from '../../common/constants.ts';
import { AnsiStripper, normalizeNewlines } from '../control/ansiStrip.ts';
import { formatZodIssues } from '../api/validation.ts';

/** An event as the store yields it for export. */
export type ExportEvent =
  | { kind: 'output'; at: number; bytes?: Uint8Array }
  | { kind: 'resize'; at: number; cols: number; rows: number }
  | { kind: 'input'; at: number };

const CastHeader = z
  .object({
    version: z.literal(2, { error: 'version must be 2 (asciicast v2)' }),
    width: z.number().int().min(TerminalConstants.minCols).max(TerminalConstants.maxCols),
    height: z.number().int().min(TerminalConstants.minRows).max(TerminalConstants.maxRows),
    timestamp: z.number().min(0).optional(),
    duration: z.number().min(0).optional(),
    idle_time_limit: z.number().optional(),
    command: z.string().optional(),
    title: z.string().optional(),
    env: z.record(z.string(), z.string().nullable()).optional(),
  })
  .loose();
export type CastHeader = z.infer<typeof CastHeader>;

const CastEvent = z.tuple([z.number().min(0), z.string(), z.string()]);
const resizePattern = /^(\d{1,5})x(\d{1,5})$/;

export type CastEventParsed =
  | { kind: 'output'; time: number; data: string }
  | { kind: 'input'; time: number }
  | { kind: 'resize'; time: number; cols: number; rows: number };

export interface ParsedCast {
  header: CastHeader;
  events: CastEventParsed[];
}

/** Parse and validate a .cast file; throws ApiError INVALID_PARAMS naming the line at fault. */
export function parseCast(contents: string): ParsedCast {
  const lines = contents.split('\n');
  let lineIndex = 0;
  while (lineIndex < lines.length && lines[lineIndex]!.trim() === '') lineIndex++;
  if (lineIndex >= lines.length) throw invalid(1, 'the file is empty (an asciicast v2 file starts with a JSON header line)');
  const headerJson = parseJsonLine(lines[lineIndex]!, lineIndex + 1);
  if (typeof headerJson !== 'object' || headerJson === null || Array.isArray(headerJson)) {
    throw invalid(lineIndex + 1, 'expected the header, a JSON object like {"version": 2, "width": 80, "height": 24}');
  }
  const header = CastHeader.safeParse(headerJson);
  if (!header.success) throw invalid(lineIndex + 1, `bad header: ${formatZodIssues(header.error)}`);
  const events: CastEventParsed[] = [];
  let previousTime = 0;
  for (lineIndex++; lineIndex < lines.length; lineIndex++) {
    const line = lines[lineIndex]!;
    if (line.trim() === '') continue;
    const lineNumber = lineIndex + 1;
    const parsed = CastEvent.safeParse(parseJsonLine(line, lineNumber));
    if (!parsed.success) throw invalid(lineNumber, 'expected [time, code, data] (a number of seconds, an event code, a string)');
    const [time, code, data] = parsed.data;
    if (time < previousTime) throw invalid(lineNumber, `time ${time} is before the previous event's (${previousTime})`);
    previousTime = time;
    switch (code) {
      case 'o':
        events.push({ kind: 'output', time, data });
        break;
      case 'i':
        events.push({ kind: 'input', time });
        break;
      case 'r': {
        const size = resizePattern.exec(data);
        const cols = Number(size?.[1]);
        const rows = Number(size?.[2]);
        if (!size || cols < TerminalConstants.minCols || cols > TerminalConstants.maxCols || rows < TerminalConstants.minRows || rows > TerminalConstants.maxRows) {
          throw invalid(lineNumber, `resize data must be "COLSxROWS" within ${TerminalConstants.maxCols}x${TerminalConstants.maxRows}, got ${JSON.stringify(data.slice(0, 40))}`);
        }
        events.push({ kind: 'resize', time, cols, rows });
        break;
      }
      case 'm':
        break; // markers (chapters) have no place in a session yet
      default:
        throw invalid(lineNumber, `unknown event code ${JSON.stringify(code.slice(0, 20))} (expected "o", "i", "r" or "m")`);
    }
  }
  return { header: header.data, events };
}

function parseJsonLine(line: string, lineNumber: number): unknown {
  try {
    return JSON.parse(line);
  } catch (error) {
    throw invalid(lineNumber, `not valid JSON (${(error as Error).message})`);
  }
}

function invalid(lineNumber: number, message: string): ApiError {
  return new ApiError('INVALID_PARAMS', `not a valid asciicast v2 file: line ${lineNumber}: ${message}`);
}

/**
 * The session as asciicast v2. Output bytes are decoded as one UTF-8 stream (a character split
 * between two chunks comes out whole in the later event). Input markers carry no content
 * (History never stores typed input), so they are left out.
 */
export function exportCast(session: HistorySession, events: Iterable<ExportEvent>): string {
  const header: Record<string, unknown> = {
    version: 2,
    width: session.cols,
    height: session.rows,
    timestamp: Math.floor(session.startedAt / 1000),
  };
  if (session.endedAt !== null) header.duration = round((session.endedAt - session.startedAt) / 1000);
  if (session.args.length > 0 || session.file) header.command = [session.file, ...session.args].join(' ');
  header.title = session.name;
  header.env = { TERM: 'xterm-256color', SHELL: session.file };
  const lines = [JSON.stringify(header)];
  const decoder = new StringDecoder('utf8');
  let lastTime = 0;
  for (const event of events) {
    const time = Math.max(lastTime, round(event.at / 1000));
    if (event.kind === 'output') {
      const text = event.bytes ? decoder.write(Buffer.from(event.bytes.buffer, event.bytes.byteOffset, event.bytes.byteLength)) : '';
      if (text.length === 0) continue;
      lines.push(JSON.stringify([time, 'o', text]));
    } else if (event.kind === 'resize') {
      lines.push(JSON.stringify([time, 'r', `${event.cols}x${event.rows}`]));
    } else {
      continue;
    }
    lastTime = time;
  }
  const rest = decoder.end();
  if (rest.length > 0) lines.push(JSON.stringify([lastTime, 'o', rest]));
  return lines.join('\n') + '\n';
}

/** Plain text of raw output: ANSI stripped, CR LF → LF, a lone CR (progress lines) → LF unless it starts a line. */
export class PlainTextExporter {
  readonly #decoder = new StringDecoder('utf8');
  readonly #stripper = new AnsiStripper();
  #carryCr = false;
  /** The text so far ends a line (or there is none yet). */
  #atLineStart = true;

  push(bytes: Uint8Array): string {
    return this.#clean(this.#decoder.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)));
  }

  end(): string {
    const rest = this.#clean(this.#decoder.end());
    const cr = this.#carryCr && !this.#atLineStart ? '\n' : '';
    this.#carryCr = false;
    return rest + cr;
  }

  #clean(text: string): string {
    let stripped = (this.#carryCr ? '\r' : '') + this.#stripper.push(text);
    // A CR at the very end may be the first half of a CR LF in the next chunk.
    this.#carryCr = stripped.endsWith('\r');
    if (this.#carryCr) stripped = stripped.slice(0, -1);
    // A CR at the start of a line has nothing to overwrite and adds no line (bash ends the line
    // of each command with CR LF, ESC[?2004l, CR); elsewhere it starts a progress line anew.
    let lines = normalizeNewlines(stripped).replace(/\n\r+/g, '\n');
    if (this.#atLineStart) lines = lines.replace(/^\r+/, '');
    lines = lines.replace(/\r+/g, '\n');
    if (lines.length > 0) this.#atLineStart = lines.endsWith('\n');
    return lines;
  }
}

function round(seconds: number): number {
  return Math.round(seconds * 1e6) / 1e6;
}

/** A file name for an exported session: its name and start time, nothing a file system dislikes. */
export function exportFileName(session: HistorySession, extension: 'cast' | 'txt'): string {
  const stamp = new Date(session.startedAt).toISOString().slice(0, 19).replace(/[:T]/g, '-');
  const name = session.name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'session';
  return `${name}-${stamp}.${extension}`;
}
