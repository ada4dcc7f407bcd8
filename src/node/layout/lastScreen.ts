/**
 * The last screen of a finished session, rebuilt from the tail of its recorded output: shown above
 * the fresh shell of a restored pane. The bytes are parsed by `@xterm/headless` at the sizes they
 * were written at (resized where the terminal was) and the visible rows (up to the last non-blank
 * one) are serialized with their colours.
 */
import xtermHeadless from '@xterm/headless';
import xtermSerialize from '@xterm/addon-serialize';
import type { RecordedTail } from '../history/historyStore.ts';

const { Terminal } = xtermHeadless;
const { SerializeAddon } = xtermSerialize;

/**
 * Serialized rows of the normal buffer's visible screen, trailing blank rows left out; '' when the
 * screen is blank. A session that ended inside a full-screen program (alternate screen) gives the
 * normal screen underneath, as a shell shows it after the program quits.
 */
export async function renderLastScreen(tail: RecordedTail): Promise<string> {
  if (tail.steps.length === 0 || tail.cols <= 0 || tail.rows <= 0) return '';
  const terminal = new Terminal({ cols: tail.cols, rows: tail.rows, scrollback: 0, allowProposedApi: true });
  try {
    const serializer = new SerializeAddon();
    terminal.loadAddon(serializer);
    for (const step of tail.steps) {
      if (step.kind === 'output') await new Promise<void>((resolve) => terminal.write(step.data, resolve));
      else if (step.cols > 0 && step.rows > 0) terminal.resize(step.cols, step.rows);
    }
    // Leave the alternate screen, if the tail left us there, to read the normal buffer.
    if (terminal.buffer.active.type === 'alternate') await new Promise<void>((resolve) => terminal.write('\x1b[?1049l\x1b[?47l', resolve));
    const buffer = terminal.buffer.active;
    let lastRow = -1;
    for (let row = 0; row < terminal.rows; row++) {
      if (buffer.getLine(buffer.baseY + row)?.translateToString(true).trim()) lastRow = row;
    }
    if (lastRow < 0) return '';
    const serialized = serializer.serialize({
      range: { start: buffer.baseY, end: buffer.baseY + lastRow },
      excludeModes: true,
      excludeAltBuffer: true,
    });
    // Attributes must not leak into what follows.
    return `${serialized}\x1b[0m`;
  } finally {
    terminal.dispose();
  }
}
