/**
 * Case 2: how fast the OSC/BEL scanner of the hot path (src/common/terminal/oscParser.ts) goes
 * through typical output: plain text, colour-heavy text, and output full of shell marks.
 */
import { OscParser } from '../../src/common/terminal/oscParser.ts';
import { parseTerminalMark } from '../../src/common/terminal/terminalMarks.ts';
import type { BenchCase, BenchResult } from '../benchCase.ts';

const chunkChars = 64 * 1024;

export const oscScanCase: BenchCase = {
  name: 'osc-scan',
  description: 'MB/s of the OSC/BEL scanner (with mark parsing) over 64 KiB chunks of typical output',
  async run({ quick }) {
    const totalChars = quick ? 4 * 1024 * 1024 : 64 * 1024 * 1024;
    const samples: Array<[string, string]> = [
      ['plain text', 'compiling src/package/component.tsx (1234 bytes) and more text here\r\n'],
      ['SGR-heavy (ls --color, compilers)', '\x1b[0m\x1b[01;34mdir\x1b[0m  \x1b[01;32mexec\x1b[0m  \x1b[38;5;208mfile\x1b[0m\r\n'],
      ['shell marks every line', '\x1b]633;C\x07out\r\n\x1b]633;D;0\x07\x1b]633;P;Cwd=/home/me/src\x07\x1b]633;A\x07$ \x1b]633;B\x07\r\n'],
    ];
    const results: BenchResult[] = [];
    for (const [label, line] of samples) {
      const chunk = line.repeat(Math.ceil(chunkChars / line.length)).substring(0, chunkChars);
      let marks = 0;
      const parser = new OscParser({
        onOsc: (payload) => {
          if (parseTerminalMark(payload)) marks++;
        },
        onBell: () => {},
      });
      for (let warm = 0; warm < 20; warm++) parser.feed(chunk);
      const started = performance.now();
      for (let fed = 0; fed < totalChars; fed += chunk.length) parser.feed(chunk);
      const seconds = (performance.now() - started) / 1000;
      results.push({ label, value: totalChars / seconds / 1e6, unit: 'M chars/s' });
      if (label.startsWith('shell') && marks === 0) throw new Error('no marks parsed');
    }
    return results;
  },
};
