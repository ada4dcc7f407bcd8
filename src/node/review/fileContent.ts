/**
 * File contents as the review queue and file tabs handle them: the exact bytes, and the text when
 * the bytes are text. "Binary" means what a text diff cannot show: a NUL byte, or bytes that are
 * not valid UTF-8 (latin-1 files, images). Strings that came from a client (Claude Code's
 * `new_file_contents`) keep the client's exact string so FILE_SAVED hands back what it approved,
 * code unit for code unit.
 */
import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { ApiError } from '../../common/api/errors.ts';
import { ReviewConstants } from '../../common/constants.ts';

/** A UTF-16 surrogate without its partner: UTF-8 cannot encode it (String.prototype.isWellFormed, pre-ES2024). */
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// ignoreBOM: keep a byte order mark as part of the text, so text → bytes round-trips exactly.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export class FileContent {
  readonly bytes: Buffer;
  /** The text, or null when the content is binary. */
  readonly text: string | null;
  /** The string this content was made from (exactly what a client sent), if it came as one. */
  readonly #sourceString: string | null;

  private constructor(bytes: Buffer, text: string | null, sourceString: string | null) {
    this.bytes = bytes;
    this.text = text;
    this.#sourceString = sourceString;
  }

  static fromBytes(bytes: Buffer): FileContent {
    return new FileContent(bytes, decodeText(bytes), null);
  }

  static fromString(value: string): FileContent {
    const bytes = Buffer.from(value, 'utf8');
    // A NUL (or a lone surrogate, which UTF-8 cannot carry) makes it something a text diff cannot show.
    const isText = !value.includes('\0') && !loneSurrogate.test(value);
    return new FileContent(bytes, isText ? value : null, value);
  }

  get size(): number {
    return this.bytes.length;
  }

  get isBinary(): boolean {
    return this.text === null;
  }

  /** The contents as a string for a requester that sent a string: its own string back when it sent one. */
  toResultString(): string {
    return this.#sourceString ?? this.text ?? this.bytes.toString('utf8');
  }
}

/** The text of bytes that are valid UTF-8 without NUL bytes; null otherwise. */
export function decodeText(bytes: Buffer): string | null {
  if (bytes.includes(0)) return null;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/** "20.0 MiB", "512 bytes". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} byte${bytes === 1 ? '' : 's'}`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** Refuse content over the review limit with a message a person or a model can act on. */
export function assertWithinLimit(what: string, bytes: number, limit: number = ReviewConstants.maxFileBytes): void {
  if (bytes > limit) {
    throw new ApiError('INVALID_PARAMS', `${what} is ${formatBytes(bytes)}, over the ${formatBytes(limit)} limit for reviews and file tabs`);
  }
}

function assertRegularFile(info: { isDirectory(): boolean; isFile(): boolean }, path: string, what: string): void {
  if (info.isDirectory()) throw new ApiError('INVALID_PARAMS', `${what} ${path} is a directory`);
  if (!info.isFile()) throw new ApiError('INVALID_PARAMS', `${what} ${path} is not a regular file (a FIFO, socket or device cannot be reviewed or opened in a tab)`);
}

export interface ReadFileResult {
  content: FileContent;
  mtimeMs: number;
  /** The file's permission bits, to keep them on save. */
  mode: number;
}

/** Opening never waits: a FIFO swapped in after the stat would otherwise block a threadpool thread until a writer comes. */
const openReadNonBlocking = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * Read a regular file, refusing one over the limit before reading it (a 2 GB log must not be
 * loaded to find out), and anything that is not a regular file before opening it: opening a FIFO
 * blocks until a writer appears, a device may never end. null when the file does not exist.
 */
export async function readFileLimited(path: string, what: string, limit: number = ReviewConstants.maxFileBytes): Promise<ReadFileResult | null> {
  try {
    assertRegularFile(await stat(path), path, what);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw new ApiError('INVALID_PARAMS', `cannot read ${path}: ${(error as Error).message}`);
  }
  let handle;
  try {
    handle = await open(path, openReadNonBlocking);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    if (code === 'EISDIR') throw new ApiError('INVALID_PARAMS', `${what} ${path} is a directory`);
    throw new ApiError('INVALID_PARAMS', `cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    // Again on what was opened: the path may have been replaced since the stat.
    const info = await handle.stat();
    assertRegularFile(info, path, what);
    assertWithinLimit(`${what} ${path}`, info.size, limit);
    const bytes = await handle.readFile();
    // It may have grown between stat and read.
    assertWithinLimit(`${what} ${path}`, bytes.length, limit);
    return { content: FileContent.fromBytes(bytes), mtimeMs: info.mtimeMs, mode: info.mode & 0o7777 };
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError('INVALID_PARAMS', `cannot read ${path}: ${(error as Error).message}`);
  } finally {
    await handle.close();
  }
}
