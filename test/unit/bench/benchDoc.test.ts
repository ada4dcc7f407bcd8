/**
 * docs/benchmarks.md's generated table (bench/benchDoc.ts): targets read from results or from the
 * labels of older cases, comparisons on one row, met or not, failures and skips, and the page
 * rewritten only between its markers.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { figuresBegin, figuresEnd, renderFigures, targetOf, writeBenchDoc } from '../../../bench/benchDoc.ts';
import type { LatestFile } from '../../../bench/results.ts';

const machine = { cpu: 'Test CPU', cores: 2, node: 'v24.0.0', chromium: 'Chromium 1.2.3 built on Debian GNU/Linux 12 (bookworm)', platform: 'linux/x64' };
const at = (results: LatestFile['cases'][string]['results'], extra: Partial<LatestFile['cases'][string]> = {}) => ({
  description: 'd',
  results,
  seconds: 1,
  date: '2026-12-04T16:46:42.352Z',
  load: [10.25, 11.5] as [number, number],
  machine,
  ...extra,
});

describe('bench doc', () => {
  it('reads a target from the result, else from the label, else none', () => {
    assert.deepEqual(targetOf({ label: 'p95', value: 1, unit: 'ms', target: { max: 16.7 } }), { max: 16.7, text: '≤ 16.7 ms' });
    assert.deepEqual(targetOf({ label: 'ratio', value: 1, unit: '×', target: { min: 1 / 1.2 } }), { min: 1 / 1.2, text: '≥ 0.83×' });
    assert.deepEqual(targetOf({ label: 'added latency p50 (target < 5)', value: 1, unit: 'ms' }), { max: 5, text: '< 5 ms' });
    assert.deepEqual(targetOf({ label: 'ratio (p50; target ≤ 1.2)', value: 1, unit: '×' }), { max: 1.2, text: '≤ 1.2×' });
    assert.deepEqual(targetOf({ label: 'download ratio (target >= 0.5)', value: 1, unit: 'x' }), { min: 0.5, text: '≥ 0.5x' });
    assert.deepEqual(targetOf({ label: 'errors (target 0)', value: 0, unit: '' }), { max: 0, text: '= 0' });
    assert.equal(targetOf({ label: 'throughput', value: 1, unit: 'MB/s' }), null);
  });

  it('puts a comparison on one row and says whether each target is met', () => {
    const latest: LatestFile = {
      cases: {
        keystroke: at([
          { label: 'echo: peer median', value: 20, unit: 'ms', comparison: { measure: 'echo', role: 'peer median' } },
          { label: 'echo: peer p95', value: 30, unit: 'ms', comparison: { measure: 'echo', role: 'peer p95' } },
          { label: 'echo: Switchboard median', value: 25, unit: 'ms', comparison: { measure: 'echo', role: 'median' } },
          { label: 'echo: Switchboard p95', value: 1234.5, unit: 'ms', comparison: { measure: 'echo', role: 'p95' } },
          { label: 'echo: speed vs peer (median)', value: 0.8, unit: '×', digits: 2, comparison: { measure: 'echo', role: 'ratio' }, target: { min: 0.9 } },
          { label: 'echo p99', value: 12, unit: 'ms', target: { max: 16.7 } },
        ]),
        // Written before results named their comparison: read from the labels.
        old: at([
          { label: 'flood: peer median', value: 1, unit: 'ms' },
          { label: 'flood: peer p95', value: 2, unit: 'ms' },
          { label: 'flood: Switchboard median', value: 3, unit: 'ms' },
          { label: 'flood: Switchboard p95', value: 4, unit: 'ms' },
          { label: 'flood: speed vs peer (median)', value: 0.33, unit: '×', digits: 2 },
        ]),
        broken: at(undefined, { error: 'Error: it broke\n    at somewhere' }),
        skipped: at([]),
      },
    };
    const lines = renderFigures(latest, ['keystroke', 'broken']).split('\n');
    assert.equal(lines[0], 'Machine: Test CPU, 2 cores, linux/x64, Node v24.0.0, Chromium 1.2.3 (Debian GNU/Linux 12 (bookworm)).');
    const rows = lines.filter((line) => line.startsWith('| `'));
    // The suite's order first, then the rest by name.
    assert.deepEqual(rows.map((row) => row.split(' | ')[0]), ['| `keystroke`', '| `keystroke`', '| `broken`', '| `old`', '| `skipped`']);
    assert.equal(rows[0], '| `keystroke` | echo | 20.0 / 30.0 ms | 25.0 / 1 235 ms | 0.80× | ≥ 0.9× | **no** | 2026-12-04 16:46 UTC (10.3 → 11.5) |');
    assert.equal(rows[1], '| `keystroke` | echo p99 | — | 12.0 ms | — | ≤ 16.7 ms | yes | 2026-12-04 16:46 UTC (10.3 → 11.5) |');
    assert.match(rows[2]!, /^\| `broken` \| failed: Error: it broke \| — \| — \| — \| — \| — \|/);
    assert.match(rows[3]!, /^\| `old` \| flood \| 1\.0 \/ 2\.0 ms \| 3\.0 \/ 4\.0 ms \| 0\.33× \| — \| — \|/);
    assert.match(rows[4]!, /^\| `skipped` \| skipped \(no figures\) \|/);
  });

  it('rewrites only the text between the markers, and refuses a page without them', (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-bench-doc-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const page = join(dir, 'benchmarks.md');
    const latest: LatestFile = { cases: { spawn: at([{ label: 'first prompt p95', value: 90, unit: 'ms' }]) } };
    writeFileSync(page, `# Hand-written\n\n${figuresBegin}\nold table\n${figuresEnd}\n\nMore by hand.\n`);
    writeBenchDoc(latest, ['spawn'], page);
    const written = readFileSync(page, 'utf8');
    assert.equal(written, `# Hand-written\n\n${figuresBegin}\n${renderFigures(latest, ['spawn'])}\n${figuresEnd}\n\nMore by hand.\n`);
    writeBenchDoc(latest, ['spawn'], page);
    assert.equal(readFileSync(page, 'utf8'), written, 'a second run writes the same page');
    writeFileSync(page, '# No markers\n');
    assert.throws(() => writeBenchDoc(latest, ['spawn'], page), /has lost its markers/);
    assert.equal(readFileSync(page, 'utf8'), '# No markers\n');
  });
});
