/**
 * The command line a shell's line editor echoed between the end of its prompt (OSC 633 B) and the
 * start of the command (C), rebuilt from those bytes: the name of a command the shell could not
 * name itself. bash reports a line through its history, and a line kept out of history
 * (ignoredups, ignorespace) that starts with a subshell, `(cd app && make)` run again with ↑,
 * runs no shell code that could name it (assets/shell-integration/bash).
 *
 * Conservative by design: readline's echo of a line typed or recalled on one row is text plus
 * Backspace and a few cursor/erase sequences, which this replays; anything else (a line that
 * wrapped, continuation lines, an unknown sequence) gives null rather than a wrong name.
 */

/** CSI sequences readline uses on one row, and modes it toggles around reading a line. */
const csiSequence = /^\x1b\[([0-9;?]*)([A-Za-z@])/;
const oscSequence = /^\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/;

export function echoedCommandLine(echo: string): string | null {
  const cells: string[] = [];
  let col = 0;
  for (let index = 0; index < echo.length; index++) {
    const char = echo[index]!;
    if (char === '\n') {
      // More rows after it (continuation lines of a here-doc, a quote left open): one row of them
      // would be a wrong name.
      const rest = echo.slice(index + 1).replace(/\x1b\[[0-9;?]*[A-Za-z@]|\r/g, '');
      if (rest.trim() !== '') return null;
      break;
    }
    if (char === '\r') {
      // Only as part of the line's end (CR LF); a CR within the line is a redraw across rows.
      if (echo[index + 1] !== '\n') return null;
      continue;
    }
    if (char === '\b') {
      col = Math.max(0, col - 1);
      continue;
    }
    if (char === '\x1b') {
      const rest = echo.slice(index);
      const osc = oscSequence.exec(rest);
      if (osc) {
        index += osc[0].length - 1;
        continue;
      }
      const csi = csiSequence.exec(rest);
      if (!csi) return null;
      index += csi[0].length - 1;
      const count = Number(csi[1] || '1');
      switch (csi[2]) {
        case 'C':
          col += count;
          break;
        case 'D':
          col = Math.max(0, col - count);
          break;
        case 'K':
          if (csi[1] === '' || csi[1] === '0') cells.length = Math.min(cells.length, col);
          else return null;
          break;
        case 'P':
          cells.splice(col, count);
          break;
        case '@':
          cells.splice(col, 0, ...Array<string>(count).fill(' '));
          break;
        case 'h':
        case 'l':
        case 'm':
          break; // modes (bracketed paste) and colours: nothing moves
        default:
          return null;
      }
      continue;
    }
    if (char < ' ' || char === '\x7f') return null;
    while (cells.length < col) cells.push(' ');
    cells[col++] = char;
  }
  const line = cells.join('').trim();
  return line === '' ? null : line;
}
