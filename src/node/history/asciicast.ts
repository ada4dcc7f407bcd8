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
import { AnsiStripper } from '../../common/terminal/ansiStrip.ts';
import { formatZodIssues } from '../../common/validation.ts';
import { HistoryConstants } from './historyConstants.ts';

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
    timestamp: z.number().min(0).max(HistoryConstants.castMaxTimestampSeconds, { error: `timestamp must be a Unix time in seconds before the year 10000 (at most ${HistoryConstants.castMaxTimestampSeconds})` }).optional(),
    duration: z.number().min(0).max(HistoryConstants.castMaxTimeSeconds, { error: `duration must be at most 100 years (${HistoryConstants.castMaxTimeSeconds} seconds)` }).optional(),
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
    if (time > HistoryConstants.castMaxTimeSeconds) throw invalid(lineNumber, `time ${time} is more than 100 years (${HistoryConstants.castMaxTimeSeconds} seconds) after the start`);
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

/**
 * The line-editing sequences the text export acts on, besides CR and LF: EL (erase in line:
 * `ESC[K`/`ESC[0K` to the end, `ESC[1K` to the start, `ESC[2K` all of it) and CHA (cursor to
 * column n, `ESC[nG`, which Node's readline and many progress bars use instead of CR).
 */
const lineEditSequence = /\x1b\[(\d{0,4})([GK])/g;
/** The end of a chunk that may be the start of one of those, cut off: held for the next chunk. */
const cutLineEditSequence = /\x1b(?:\[\d{0,4})?$/;

/**
 * Plain text of raw output, each line as the terminal showed it last: escape sequences stripped,
 * CR LF → LF, and a CR (or CHA) goes back over the line, so what follows overwrites it, as on the
 * screen. That keeps a shell's redraws (bash rewrites its prompt and the typed line at every
 * window resize: CR, EL, prompt) and progress bars (`10%` CR `100%`) from becoming a line each.
 */
export class PlainTextExporter {
  readonly #decoder = new StringDecoder('utf8');
  readonly #stripper = new AnsiStripper();
  /** A line-editing sequence cut off at the end of the last chunk (decoded), to finish with the next one. */
  #held = '';
  /** The line being written, not ended by LF yet. */
  #line = '';
  /** Where on that line the next character goes. */
  #column = 0;

  /** Text of the lines the chunk ended (the line still being written comes later). */
  push(bytes: Uint8Array): string {
    return this.#feed(this.#decoder.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)));
  }

  end(): string {
    const text = this.#feed(this.#decoder.end());
    // A sequence cut off by the end of the output is no text either.
    this.#held = '';
    // A line the cursor went back over (a progress line ending in CR) was finished; a prompt was not.
    const rest = this.#line + (this.#column < this.#line.length ? '\n' : '');
    this.#line = '';
    this.#column = 0;
    return text + rest;
  }

  #feed(decoded: string): string {
    let text = this.#held + decoded;
    const cut = cutLineEditSequence.exec(text);
    this.#held = cut ? text.slice(cut.index) : '';
    if (cut) text = text.slice(0, cut.index);
    let out = '';
    let from = 0;
    for (const match of text.matchAll(lineEditSequence)) {
      out += this.#write(this.#stripper.push(text.slice(from, match.index)));
      // Its ESC ended any sequence still open before it, as in a terminal.
      this.#stripper.reset();
      const parameter = match[1] ? Number(match[1]) : 0;
      if (match[2] === 'G') this.#column = Math.max(0, parameter - 1);
      else this.#erase(parameter);
      from = match.index + match[0].length;
    }
    return out + this.#write(this.#stripper.push(text.slice(from)));
  }

  /** Stripped text: LF ends the line, CR takes the cursor back to its start. Returns the lines ended. */
  #write(text: string): string {
    let out = '';
    let from = 0;
    const lineControl = /[\r\n]/g;
    for (let match = lineControl.exec(text); match; match = lineControl.exec(text)) {
      this.#put(text.slice(from, match.index));
      if (match[0] === '\n') {
        out += `${this.#line}\n`;
        this.#line = '';
      }
      this.#column = 0;
      from = match.index + 1;
    }
    this.#put(text.slice(from));
    return out;
  }

  /** Text at the cursor, over whatever the line held there. */
  #put(text: string): void {
    if (text.length === 0) return;
    const line = this.#line;
    const column = this.#column;
    if (column === line.length) this.#line = line + text;
    else if (column > line.length) this.#line = line.padEnd(column) + text;
    else this.#line = line.slice(0, column) + text + line.slice(column + text.length);
    this.#column = column + text.length;
  }

  /** EL: 0 from the cursor to the end, 1 from the start to the cursor, 2 the whole line (the cursor stays). */
  #erase(mode: number): void {
    if (mode === 0) this.#line = this.#line.slice(0, this.#column);
    else if (mode === 1) this.#line = ' '.repeat(Math.min(this.#column + 1, this.#line.length)) + this.#line.slice(this.#column + 1);
    else if (mode === 2) this.#line = '';
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
