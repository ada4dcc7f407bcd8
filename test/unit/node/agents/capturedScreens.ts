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
  /** Replays session.bin through a mirror of the captured size and checks each capture point reads as its screen does. */
  assertReplayReadsAlike(): Promise<void>;
}

export function capturedScreens(kind: string, rules: ScreenRules): CapturedScreens {
  const dir = join(import.meta.dirname, '../../../fixtures/agents', kind, rules.capturedFrom);
  const screen = (name: string): string[] => readFileSync(join(dir, `${name}.txt`), 'utf8').replace(/\n$/, '').split('\n');
  return {
    dir,
    screen,
    async assertReplayReadsAlike() {
      const index = JSON.parse(readFileSync(join(dir, 'captures.json'), 'utf8')) as { cols: number; rows: number; captures: Record<string, number> };
      const bytes = readFileSync(join(dir, 'session.bin'));
      const ordered = Object.entries(index.captures).sort((a, b) => a[1] - b[1]);
      assert.ok(ordered.length > 0, 'captures.json names the screens');
      const mirror = new TerminalMirror({ cols: index.cols, rows: index.rows, scrollback: 1000 });
      try {
        let offset = 0;
        for (const [name, end] of ordered) {
          const chunk = bytes.subarray(offset, end);
          mirror.write(chunk, chunk.toString('utf8').length);
          offset = end;
          const lines = (await mirror.readText()).lines;
          assert.deepEqual(readAgentScreen(rules, lines), readAgentScreen(rules, screen(name)), name);
        }
      } finally {
        mirror.dispose();
      }
    },
  };
}
