/**
 * `npm run soak`: hostile load and a long mixed load against a real Hub in its own process, on a
 * temp HOME (issue 23). Prints the figures, rewrites the soak section of docs/reliability.md, and
 * exits 1 when a target is missed (saying which).
 *
 *   npm run soak                       the full run: a 15 s hostile burst (16 connections, ~47 000
 *                                      frames) + 10 s after, then 200 clients and 20 floods for 60 s
 *   npm run soak -- --duration 20      the soak phase shortened to 20 s
 *   npm run soak -- --clients 50 --floods 5
 *                                      the soak phase with fewer clients and flooding terminals
 *                                      (the doc is not rewritten)
 *   npm run soak -- --quick            a few seconds each, small counts (checks that it runs; the
 *                                      doc is not rewritten)
 *   npm run soak -- --only burst|load  one phase
 *   npm run soak -- --seed N           the burst's frames (default 23)
 *   npm run soak -- --cpu-prof DIR     profile the Hub (--cpu-prof) of each phase
 *   npm run soak -- --no-doc           do not rewrite docs/reliability.md
 */
import { parseArgs } from 'node:util';
import { runHostilePhase, type HostileOptions } from './hostilePhase.ts';
import { runLoadPhase, type LoadOptions } from './loadPhase.ts';
import { currentLoad, formatReport, writeReliabilitySection, type SoakRun } from './report.ts';

export interface SoakSizes {
  hostile: Omit<HostileOptions, 'log' | 'cpuProf'>;
  load: Omit<LoadOptions, 'log' | 'cpuProf'>;
}

export function soakSizes(options: { quick: boolean; duration?: number | undefined; seed?: number | undefined; clients?: number | undefined; floods?: number | undefined }): SoakSizes {
  const seed = options.seed ?? 23;
  if (options.quick) {
    return {
      hostile: { connections: 4, seconds: 2, frames: 1500, afterSeconds: 1, seed },
      load: { clients: 16, floods: 3, seconds: options.duration ?? 3, execTerminals: 2, sendTerminals: 2 },
    };
  }
  return {
    hostile: { connections: 16, seconds: 15, frames: 47_000, afterSeconds: 10, seed },
    load: { clients: options.clients ?? 200, floods: options.floods ?? 20, seconds: options.duration ?? 60, execTerminals: 10, sendTerminals: 5 },
  };
}

/** Runs the phases; returns the run and every target missed. */
export async function runSoak(options: { sizes: SoakSizes; only?: 'burst' | 'load' | undefined; quick: boolean; cpuProf?: string | undefined; log: (line: string) => void }): Promise<{ run: SoakRun; failures: string[] }> {
  const run: SoakRun = { date: new Date().toISOString(), mode: options.quick ? 'quick' : 'full', loadBefore: currentLoad(), loadAfter: [] };
  const failures: string[] = [];
  // A phase that cannot run at all (its Hub did not start, its terminals never got ready) is a failure to report, not a crash.
  if (options.only !== 'load') {
    run.hostile = await runHostilePhase({ ...options.sizes.hostile, cpuProf: options.cpuProf, log: options.log }).catch((error: unknown) => {
      failures.push(`burst: could not run: ${(error as Error).message}`);
      return undefined;
    });
  }
  if (options.only !== 'burst') {
    run.load = await runLoadPhase({ ...options.sizes.load, cpuProf: options.cpuProf, log: options.log }).catch((error: unknown) => {
      failures.push(`soak: could not run: ${(error as Error).message}`);
      return undefined;
    });
  }
  run.loadAfter = currentLoad();
  failures.push(...(run.hostile?.failures ?? []).map((f) => `burst: ${f}`), ...(run.load?.failures ?? []).map((f) => `soak: ${f}`));
  return { run, failures };
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      duration: { type: 'string' },
      clients: { type: 'string' },
      floods: { type: 'string' },
      only: { type: 'string' },
      seed: { type: 'string' },
      'cpu-prof': { type: 'string' },
      'no-doc': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log('usage: npm run soak -- [--quick] [--duration SECONDS] [--clients N] [--floods N] [--only burst|load] [--seed N] [--cpu-prof DIR] [--no-doc]');
    return 0;
  }
  const only = values.only;
  if (only !== undefined && only !== 'burst' && only !== 'load') {
    console.error(`--only: expected burst or load, got ${only}`);
    return 2;
  }
  const duration = values.duration === undefined ? undefined : Number(values.duration);
  if (duration !== undefined && !(duration > 0)) {
    console.error(`--duration: expected seconds > 0, got ${values.duration}`);
    return 2;
  }
  const seed = values.seed === undefined ? undefined : Number(values.seed);
  const counts: { clients?: number; floods?: number } = {};
  for (const name of ['clients', 'floods'] as const) {
    const text = values[name];
    if (text === undefined) continue;
    const count = Number(text);
    if (!Number.isInteger(count) || count < 1) {
      console.error(`--${name}: expected a whole number > 0, got ${text}`);
      return 2;
    }
    counts[name] = count;
  }
  const sizes = soakSizes({ quick: values.quick, duration, seed, ...counts });
  console.log(`Switchboard soak (${values.quick ? 'quick' : 'full'}) — node ${process.version}; load average ${currentLoad().join(' / ')}`);
  const { run, failures } = await runSoak({ sizes, only, quick: values.quick, cpuProf: values['cpu-prof'], log: (line) => console.log(`  ${line}`) });
  const report = formatReport(run);
  console.log(`\n${report}\n`);
  // Quick runs check that it runs; only full runs (of both phases) are figures worth keeping.
  if (!values.quick && !values['no-doc'] && only === undefined && counts.clients === undefined && counts.floods === undefined && run.hostile && run.load) {
    writeReliabilitySection(report);
    console.log('wrote the soak section of docs/reliability.md');
  }
  if (failures.length > 0) {
    console.error(`targets missed:\n${failures.map((failure) => `  - ${failure}`).join('\n')}`);
    return 1;
  }
  console.log('all targets met');
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = await main(process.argv.slice(2));
