/**
 * A `terminalSnapshot` payload from the headless mirror, bounded (spec: 256 KiB) and pinned to the
 * exact byte offset it describes, so live output can continue from there without a gap or a repeat.
 *
 * Bounding: the mirror is serialized with fewer and fewer scrollback lines until it fits; if even
 * the bare screen does not (a 300×100 screen of heavily coloured cells can), the screen's plain
 * text is sent instead: the viewer loses colours for one screen, never the frame limit.
 */
import { RelayConstants } from '../../common/constants.ts';
import type { PtySession } from '../pty/ptySession.ts';

export interface BoundedSnapshot {
  data: Buffer;
  /** Byte offset of the terminal's output this snapshot includes everything up to. */
  offset: number;
}

export async function takeBoundedSnapshot(
  session: PtySession,
  options: { maxBytes?: number; scrollbackSteps?: readonly number[] } = {},
): Promise<BoundedSnapshot> {
  const maxBytes = options.maxBytes ?? RelayConstants.snapshotMaxBytes;
  for (const scrollback of options.scrollbackSteps ?? RelayConstants.snapshotScrollbackSteps) {
    // serializeScreen() flushes the output batcher and queues the mirror's marker synchronously,
    // before its first await: `session.offset` read right after the call is exactly the offset
    // the serialization describes, and output batches end at that offset (the flush ended one).
    const pending = session.serializeScreen({ scrollback });
    const offset = session.offset;
    const data = Buffer.from(await pending, 'utf8');
    if (data.length <= maxBytes) return { data, offset };
  }
  const pending = session.readScreen();
  const offset = session.offset;
  const screen = await pending;
  // Home, clear, then the text; the cursor goes where it was.
  let text = `\x1b[0m\x1b[H\x1b[2J${screen.lines.join('\r\n')}\x1b[${screen.cursorY + 1};${screen.cursorX + 1}H`;
  let data = Buffer.from(text, 'utf8');
  if (data.length > maxBytes) {
    text = text.slice(0, maxBytes / 4);
    data = Buffer.from(text, 'utf8');
  }
  return { data, offset };
}
