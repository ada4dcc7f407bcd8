/** Messages between the Hub and the mirror worker thread (see mirrorHost.ts and mirrorWorker.ts). */
import type { MirrorSnapshot, ScreenText } from './terminalMirror.ts';

/** The worker collects its garbage this long after it last let go of memory (one collection for terminals closed together). */
export const collectAfterReleaseMs = 1_000;

export type MirrorRequest =
  | { type: 'create'; mirrorId: number; cols: number; rows: number; scrollback: number }
  /** UTF-8 output at [start, start + length) of the shared ring (mirrorChannel.ts); `chars` is its length as a string, reported back in 'parsed'. */
  | { type: 'write'; mirrorId: number; start: number; length: number; chars: number }
  /** The same, as a transferred copy, when the ring had no room. */
  | { type: 'writeCopy'; mirrorId: number; bytes: Uint8Array; chars: number }
  | { type: 'resize'; mirrorId: number; cols: number; rows: number }
  | { type: 'snapshot'; mirrorId: number; requestId: number; scrollback?: number }
  | { type: 'readText'; mirrorId: number; requestId: number; scrollback: boolean }
  | { type: 'dispose'; mirrorId: number };

export type MirrorResponse =
  /** `chars` of the output written were parsed, or skipped as a flood (see lazyMirror.ts). */
  | { type: 'parsed'; mirrorId: number; chars: number }
  | { type: 'snapshot'; requestId: number; snapshot: MirrorSnapshot }
  | { type: 'text'; requestId: number; text: ScreenText }
  | { type: 'failed'; requestId: number; message: string };
