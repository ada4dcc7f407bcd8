/**
 * The History part of the API contract: recorded terminal sessions, their output, their commands,
 * full-text search, export/import and "reference in agent". Spread into `hubMethods`/`hubEvents`
 * by contract.ts. Output bytes travel base64-encoded: a recorded chunk may end inside a UTF-8
 * sequence, and replay must write exactly the bytes that were recorded.
 */
import { z } from 'zod';
import { utf8ByteLength } from '../protocol/relay/frameLimits.ts';
import { Creator, TerminalId } from './contractTypes.ts';

export const HistorySessionId = z.string().min(1).max(64).regex(/^[A-Za-z0-9_.-]+$/, 'session ids are [A-Za-z0-9_.-]');

export const HistorySession = z.object({
  id: HistorySessionId,
  /** The live terminal this session recorded (it may be closed since); null for imported casts. */
  terminalId: z.string().nullable(),
  name: z.string(),
  cwd: z.string().nullable(),
  /** The shell or program, and its arguments. */
  file: z.string(),
  args: z.array(z.string()),
  createdBy: Creator,
  /** Epoch ms. */
  startedAt: z.number(),
  endedAt: z.number().nullable(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  /** Size at the start; later sizes are resize events. */
  cols: z.number().int(),
  rows: z.number().int(),
  receivedInput: z.boolean(),
  /** Output bytes stored (after the per-session cap). */
  byteCount: z.number().int().min(0),
  /** Older output was dropped by the per-session cap: the stored output starts at `firstOffset`. */
  truncated: z.boolean(),
  firstOffset: z.number().int().min(0),
  commandCount: z.number().int().min(0),
  /** Still being recorded (the terminal is open). */
  live: z.boolean(),
  source: z.enum(['recorded', 'imported']),
  /**
   * Switchboard stopped (crashed, was killed, the machine went down) while this session was
   * recorded: the next start closed it at its last saved batch, so `endedAt` is when recording
   * stopped and the output of the last moment (~16 ms, one batch) before it may be missing.
   */
  interrupted: z.boolean(),
});
export type HistorySession = z.infer<typeof HistorySession>;

export const HistoryCommand = z.object({
  id: z.number().int(),
  sessionId: HistorySessionId,
  sessionName: z.string(),
  commandLine: z.string(),
  cwd: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  startedAt: z.number(),
  endedAt: z.number().nullable(),
  /** Byte offsets into the session's output: where the command's output starts and ends. */
  startOffset: z.number().int().min(0),
  endOffset: z.number().int().min(0).nullable(),
});
export type HistoryCommand = z.infer<typeof HistoryCommand>;

/** One recorded event, in order. `at` is ms since the session started (monotonic). */
export const HistoryEvent = z.discriminatedUnion('kind', [
  /** `data`: base64 of the raw bytes; `offset`: byte offset of the first byte. */
  z.object({ kind: z.literal('output'), seq: z.number().int(), at: z.number(), offset: z.number().int().min(0), data: z.string() }),
  z.object({ kind: z.literal('resize'), seq: z.number().int(), at: z.number(), offset: z.number().int().min(0), cols: z.number().int(), rows: z.number().int() }),
  /**
   * Input arrived here (at most one marker per terminal per ~16 ms). `data` is always '': the
   * content of input is never stored (node-pty cannot tell whether the terminal echoes, so a
   * typed password could not be told apart; whatever was echoed is in the output anyway).
   */
  z.object({ kind: z.literal('input'), seq: z.number().int(), at: z.number(), offset: z.number().int().min(0), data: z.string() }),
]);
export type HistoryEvent = z.infer<typeof HistoryEvent>;

const DayFilter = z.number().min(0).max(8.64e15);

/** Filters shared by list, search and commands. All optional; they combine with AND. */
export const HistoryFilter = z
  .object({
    /** Sessions that started at or after `from` and before `to` (epoch ms). */
    from: DayFilter.optional(),
    to: DayFilter.optional(),
    /** Sessions whose cwd is this folder or inside it. */
    cwd: z.string().min(1).max(4096).optional(),
    /** Creator name ("you", an agent's peer name…) or kind. */
    creator: z.string().min(1).max(200).optional(),
    /** `success`: exit code 0; `failure`: non-zero exit or signal; `running`: still live. */
    exit: z.enum(['success', 'failure', 'running']).optional(),
  })
  .strict();
export type HistoryFilter = z.infer<typeof HistoryFilter>;

/** A snippet of text with the matched words marked, as segments, so no client ever renders HTML from the store. */
export const Snippet = z.array(z.object({ text: z.string(), match: z.boolean() }));
export type Snippet = z.infer<typeof Snippet>;

export const HistorySearchHit = z.object({
  sessionId: HistorySessionId,
  sessionName: z.string(),
  source: z.enum(['output', 'command']),
  snippet: Snippet,
  /** Byte offset in the session output near the match (start of the indexed text block), to jump to. */
  offset: z.number().int().min(0),
  commandId: z.number().int().nullable(),
  /** When that text was printed (epoch ms). */
  at: z.number(),
});
export type HistorySearchHit = z.infer<typeof HistorySearchHit>;

export const HistoryStatus = z.object({
  /** `paused`: recording stopped (disk full, database error); terminals keep working. */
  state: z.enum(['recording', 'paused', 'disabled']),
  /** Why it is paused, for the visible warning. */
  reason: z.string().nullable(),
  /** Total stored bytes and the cap. */
  storedBytes: z.number().int().min(0),
  capBytes: z.number().int().min(0),
  /** Set when a corrupt or foreign database was moved aside at start: where it went. */
  movedAside: z.string().nullable(),
  /**
   * Set when the previous run stopped without closing sessions it was recording (a crash, kill -9,
   * the machine going down) and this start closed them (marked `interrupted`): how many, and the
   * latest time recording of one of them stopped (epoch ms). null after a clean stop.
   */
  interrupted: z.object({ sessions: z.number().int().min(1), lastRecordedAt: z.number() }).nullable(),
  /** Open terminals marked "don't record", so a window that opens later shows their marks. */
  notRecorded: z.array(z.string()),
});
export type HistoryStatus = z.infer<typeof HistoryStatus>;

/** Limits of one `history.reference` (docs/protocol.md): what fits in one message to an agent. */
export const HistoryReferenceLimits = {
  maxItems: 100,
  /** UTF-8 bytes. */
  maxNotesBytes: 16 * 1024,
} as const;

/** A whole session, or one command of it. */
export const HistoryReferenceItem = z.object({ sessionId: HistorySessionId, commandId: z.number().int().min(0).optional() }).strict();
export type HistoryReferenceItem = z.infer<typeof HistoryReferenceItem>;

export const HistoryReferenceItems = z
  .array(HistoryReferenceItem)
  .min(1, 'give at least one session to reference')
  .max(HistoryReferenceLimits.maxItems, {
    error: (issue) => `at most ${HistoryReferenceLimits.maxItems} items in one reference (got ${Array.isArray(issue.input) ? issue.input.length : 'more'})`,
  });

export const HistoryReferenceNotes = z.string().check((context) => {
  const bytes = utf8ByteLength(context.value);
  if (bytes > HistoryReferenceLimits.maxNotesBytes) {
    context.issues.push({ code: 'custom', input: context.value, message: `notes are ${bytes} bytes; at most ${HistoryReferenceLimits.maxNotesBytes} (16 KiB)` });
  }
});

/** One transcript file a reference wrote. */
export const HistoryReferenceFile = z.object({
  path: z.string(),
  sessionId: HistorySessionId,
  /** Set when the item was one command. */
  commandId: z.number().int().optional(),
  commandLine: z.string().optional(),
  /** Of the command, else of the session (null: still running, or ended by a signal). */
  exitCode: z.number().int().nullable(),
  startedAt: z.number(),
  endedAt: z.number().nullable(),
  /** Size of the file. */
  bytes: z.number().int().min(0),
  /** Still being written when referenced: the file holds what was recorded up to then. */
  live: z.boolean(),
});
export type HistoryReferenceFile = z.infer<typeof HistoryReferenceFile>;

export const HistoryReferenceResult = z.object({
  files: z.array(HistoryReferenceFile),
  /** The text for the agent: paths, commands, exit codes, times and the notes; never a transcript. */
  pointer: z.string(),
  /** Things the caller should know (a session still being written, referenced as of now). */
  warnings: z.array(z.string()),
  /** The terminal the pointer was typed into, if one was given. */
  deliveredTo: TerminalId.nullable(),
});
export type HistoryReferenceResult = z.infer<typeof HistoryReferenceResult>;

const SessionIdParams = z.object({ id: HistorySessionId }).strict();
const Ok = z.object({ ok: z.literal(true) });
/** Export/import travel in one message; the per-session cap keeps sessions well under this. */
const maxTransferChars = 256 * 1024 * 1024;

export const historyMethods = {
  'history.status': { params: z.object({}).strict(), result: HistoryStatus },
  /** Sessions, newest first. `before`: a `startedAt` cursor for the next page. */
  'history.list': {
    params: z
      .object({ limit: z.number().int().min(1).max(1000).optional(), before: z.number().optional(), filter: HistoryFilter.optional() })
      .strict(),
    result: z.object({ sessions: z.array(HistorySession) }),
  },
  'history.get': { params: SessionIdParams, result: HistorySession },
  /**
   * Full-text search over ANSI-stripped output and command lines, newest first. The query is words
   * as typed, all of which must occur (quotes for phrases; case and accents ignored; whole words,
   * no prefix matching); FTS syntax is never an error: `foo AND`, `"x`, `*` search those words.
   */
  'history.search': {
    params: z
      .object({ query: z.string().min(1).max(1000), limit: z.number().int().min(1).max(500).optional(), filter: HistoryFilter.optional() })
      .strict(),
    result: z.object({ hits: z.array(HistorySearchHit) }),
  },
  /**
   * Raw output bytes from `offset` (default: the first stored byte), at most `limit` bytes (default
   * 1 MiB). A read stops at a gap in the recording (recording was paused, e.g. disk full); the next
   * read from `nextOffset` continues after the gap (its `offset` says where).
   */
  'history.read': {
    params: z
      .object({ id: HistorySessionId, offset: z.number().int().min(0).optional(), limit: z.number().int().min(1).max(16 * 1024 * 1024).optional() })
      .strict(),
    result: z.object({
      /** base64 */
      data: z.string(),
      offset: z.number().int().min(0),
      nextOffset: z.number().int().min(0),
      /** Offset after the last stored byte. */
      endOffset: z.number().int().min(0),
      /** The requested offset was dropped by the per-session cap; reading started at the first stored byte. */
      truncated: z.boolean(),
    }),
  },
  /**
   * The recorded events in order, for replay: those after the event `afterSeq` (default: from the
   * first), at most `limit` and at most ~4 MiB of output per response. `done`: nothing more is
   * stored after them right now (a live session may record more later).
   */
  'history.events': {
    params: z
      .object({ id: HistorySessionId, afterSeq: z.number().int().min(-1).optional(), limit: z.number().int().min(1).max(100_000).optional() })
      .strict(),
    result: z.object({ events: z.array(HistoryEvent), done: z.boolean() }),
  },
  /** Commands, newest first, across sessions or of one session; `query` matches the command line. */
  'history.commands': {
    params: z
      .object({
        sessionId: HistorySessionId.optional(),
        query: z.string().min(1).max(1000).optional(),
        limit: z.number().int().min(1).max(5000).optional(),
        before: z.number().optional(),
        filter: HistoryFilter.optional(),
      })
      .strict(),
    result: z.object({ commands: z.array(HistoryCommand) }),
  },
  'history.delete': { params: z.object({ ids: z.array(HistorySessionId).min(1).max(10_000) }).strict(), result: z.object({ deleted: z.number().int() }) },
  /** asciicast v2 (`cast`) or plain text with ANSI stripped (`text`). */
  'history.export': {
    params: z.object({ id: HistorySessionId, format: z.enum(['cast', 'text']) }).strict(),
    result: z.object({ fileName: z.string(), contents: z.string() }),
  },
  /** Import an asciicast v2 file as a session. A file that is not valid asciicast is refused with the line at fault. */
  'history.import': {
    params: z.object({ fileName: z.string().min(1).max(1024), contents: z.string().max(maxTransferChars) }).strict(),
    result: HistorySession,
  },
  /**
   * Hand past sessions (or single commands of them) to an agent: each transcript is written to a
   * private file under the data dir, and a pointer (paths, commands, exit codes, times, the notes;
   * never the transcript) is returned and, with `terminalId`, typed into that terminal without
   * Enter. All files are written or none.
   */
  'history.reference': {
    params: z.object({ items: HistoryReferenceItems, notes: HistoryReferenceNotes.optional(), terminalId: TerminalId.optional() }).strict(),
    result: HistoryReferenceResult,
  },
  /** Record this terminal or not ("don't record" drops what was recorded of it so far). */
  'history.setRecording': { params: z.object({ terminalId: TerminalId, record: z.boolean() }).strict(), result: Ok },
} as const;

export const historyEvents = {
  /** Sessions were added, ended, pruned, deleted or imported: lists should refresh. */
  'history.changed': z.object({ sessionIds: z.array(z.string()) }),
  'history.statusChanged': HistoryStatus,
  /** A terminal was marked "don't record" or recorded again. */
  'history.recordingChanged': z.object({ terminalId: TerminalId, record: z.boolean() }),
} as const;
