/**
 * Benchmarks: `npm run bench` runs every case at full size, merges the figures into
 * bench/results/latest.json and regenerates docs/benchmarks.md's table from it.
 * `npm run bench -- --quick` runs tiny sizes to check that every case still runs (CI, .ci/run): it
 * asserts nothing about speed and writes neither file. `npm run bench -- <case>...` runs only the
 * named cases; `npm run bench -- --doc` only regenerates the page from latest.json.
 *
 * A case is a module in bench/cases that exports a `BenchCase`; add it to `cases` below.
 */
import { controlSocketCase } from './cases/controlSocket.ts';
import { oscScanCase } from './cases/oscScan.ts';
import { ptyFloodCase } from './cases/ptyFlood.ts';
import { relayLatencyCase } from './cases/relayLatency.ts';
import { relayThroughputCase } from './cases/relayThroughput.ts';
import { historyIngestCase } from './cases/historyIngest.ts';
import { historyRecordingCase } from './cases/historyRecording.ts';
import { historyManyFloodsCase } from './cases/historyManyFloods.ts';
import { historySearchCase } from './cases/historySearch.ts';
import { ideReviewCase } from './cases/ideReview.ts';
import { agentStateCase } from './cases/agentState.ts';
import { agentWorkspacesCase } from './cases/agentWorkspaces.ts';
import { devServersCase } from './cases/devServers.ts';
import { previewTunnelCase } from './cases/previewTunnel.ts';
import { rendererFloodCase } from './cases/rendererFlood.ts';
import { rendererKeystrokeCase } from './cases/rendererKeystroke.ts';
import { rendererSpawnCase } from './cases/rendererSpawn.ts';
import { rendererIsolationCase } from './cases/rendererIsolation.ts';
import { rendererInterruptCase } from './cases/rendererInterrupt.ts';
import { rendererFortyAgentsCase } from './cases/rendererFortyAgents.ts';
import { rendererReattachCase } from './cases/rendererReattach.ts';
import { busyMachineCase } from './cases/busyMachine.ts';
import { loadNow, readLatestResults, writeLatestResults, type CaseOutcome } from './results.ts';
import { writeBenchDoc } from './benchDoc.ts';
import type { BenchCase } from './benchCase.ts';

const cases: BenchCase[] = [ptyFloodCase, oscScanCase, controlSocketCase, historyRecordingCase, historyManyFloodsCase, historyIngestCase, historySearchCase, ideReviewCase, relayThroughputCase, relayLatencyCase, agentStateCase, busyMachineCase, agentWorkspacesCase, devServersCase, previewTunnelCase, rendererFloodCase, rendererKeystrokeCase, rendererSpawnCase, rendererIsolationCase, rendererInterruptCase, rendererFortyAgentsCase, rendererReattachCase];

async function main(argv: string[]): Promise<number> {
  const flags = argv.filter((arg) => arg.startsWith('--'));
  const unknownFlags = flags.filter((flag) => !['--quick', '--doc', '--help'].includes(flag));
  if (unknownFlags.length > 0) {
    // A mistyped --quick must not become a full run that rewrites the figures.
    console.error(`unknown option: ${unknownFlags.join(', ')} (known: --quick, --doc, --help)`);
    return 2;
  }
  const quick = argv.includes('--quick');
  const names = argv.filter((arg) => !arg.startsWith('--'));
  if (argv.includes('--help')) {
    console.log(`usage: npm run bench -- [--quick | --doc] [case...]\ncases:\n${cases.map((c) => `  ${c.name}  ${c.description}`).join('\n')}`);
    return 0;
  }
  if (argv.includes('--doc')) {
    console.log(`wrote ${writeBenchDoc(readLatestResults(), cases.map((c) => c.name))}`);
    return 0;
  }
  const unknown = names.filter((name) => !cases.some((c) => c.name === name));
  if (unknown.length > 0) {
    console.error(`unknown bench case: ${unknown.join(', ')} (known: ${cases.map((c) => c.name).join(', ')})`);
    return 2;
  }
  const selected = names.length > 0 ? cases.filter((c) => names.includes(c.name)) : cases;
  console.log(`Switchboard benchmarks (${quick ? 'quick' : 'full'}) — node ${process.version}, ${process.platform}/${process.arch}`);
  let failed = false;
  const outcomes: Record<string, CaseOutcome> = {};
  for (const benchCase of selected) {
    console.log(`\n## ${benchCase.name}: ${benchCase.description}`);
    const started = performance.now();
    const loadAtStart = loadNow();
    try {
      const results = await benchCase.run({ quick, log: (line) => console.log(`   ${line}`) });
      for (const result of results) console.log(`   ${result.label.padEnd(44)} ${result.value.toFixed(result.digits ?? 1).padStart(10)} ${result.unit}`);
      outcomes[benchCase.name] = { description: benchCase.description, results, seconds: (performance.now() - started) / 1000, load: [loadAtStart, loadNow()], date: new Date().toISOString() };
    } catch (error) {
      failed = true;
      console.error(`   FAILED: ${(error as Error).stack ?? String(error)}`);
      outcomes[benchCase.name] = { description: benchCase.description, error: String(error), seconds: (performance.now() - started) / 1000, load: [loadAtStart, loadNow()], date: new Date().toISOString() };
    }
    console.log(`   (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  }
  // Quick runs check that cases run; only full runs are figures worth keeping.
  if (!quick) {
    console.log(`\nwrote ${writeLatestResults(outcomes)}`);
    console.log(`wrote ${writeBenchDoc(readLatestResults(), cases.map((c) => c.name))}`);
  }
  return failed ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
// Every case closes what it opened, so the process ends here by itself. If something is still
// open (a case's leak), say what and end anyway with the cases' outcome: a run that never exits
// holds up whoever waits on it (CI), which costs more than the leak.
setTimeout(() => {
  console.error(`bench: still open 10 s after every case finished: ${process.getActiveResourcesInfo().join(', ') || 'nothing Node reports (a worker thread?)'}; exiting`);
  process.exit();
}, 10_000).unref();
