/**
 * An agent's captured screens (test/fixtures/agents/<kind>/<version>/, written by the capture
 * script there): each screen's lines, and the raw bytes replayed through Switchboard's own mirror.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScreenRules } from '../../../../src/node/agents/agentTable.ts';
import { readAgentScreen } from '../../../../src/node/agents/screenRules.ts';
import { TerminalMirror } from '../../../../src/node/pty/terminalMirror.ts';

export interface CapturedScreens {
  dir: string;
  screen(name: string): string[];
  /** Replays session.bin through a mirror of the captured size (resized where the pane was) and checks each capture point reads as its screen does. */
  assertReplayReadsAlike(): Promise<void>;
}

export function capturedScreens(kind: string, rules: ScreenRules): CapturedScreens {
  const dir = join(import.meta.dirname, '../../../fixtures/agents', kind, rules.capturedFrom);
  const screen = (name: string): string[] => readFileSync(join(dir, `${name}.txt`), 'utf8').replace(/\n$/, '').split('\n');
  return {
    dir,
    screen,
    async assertReplayReadsAlike() {
      const index = JSON.parse(readFileSync(join(dir, 'captures.json'), 'utf8')) as {
        cols: number;
        rows: number;
        captures: Record<string, number>;
        resizes?: Array<{ offset: number; cols: number; rows: number }>;
      };
      const bytes = readFileSync(join(dir, 'session.bin'));
      assert.ok(Object.keys(index.captures).length > 0, 'captures.json names the screens');
      // Captures and resizes in byte order; a resize at the same offset as a capture comes after it.
      const events = [
        ...Object.entries(index.captures).map(([name, offset]) => ({ offset, name, size: null })),
        ...(index.resizes ?? []).map(({ offset, cols, rows }) => ({ offset, name: null, size: { cols, rows } })),
      ].sort((a, b) => a.offset - b.offset || (a.name === null ? 1 : 0) - (b.name === null ? 1 : 0));
      const mirror = new TerminalMirror({ cols: index.cols, rows: index.rows, scrollback: 1000 });
      try {
        let offset = 0;
        for (const event of events) {
          const chunk = bytes.subarray(offset, event.offset);
          mirror.write(chunk, chunk.toString('utf8').length);
          offset = event.offset;
          if (event.size) {
            mirror.resize(event.size.cols, event.size.rows);
            continue;
          }
          const lines = (await mirror.readText()).lines;
          assert.deepEqual(readAgentScreen(rules, lines), readAgentScreen(rules, screen(event.name!)), event.name!);
        }
      } finally {
        mirror.dispose();
      }
    },
  };
}
