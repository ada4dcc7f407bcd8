/**
 * `npm run fuzz`: every boundary's property (fuzz/boundaries/) with a million inputs, seeded and
 * resumable, then the table in docs/reliability.md (between `<!-- fuzz:begin -->` and
 * `<!-- fuzz:end -->`).
 *
 *   npm run fuzz                       a million inputs per boundary (a boundary may set fewer: fullRuns)
 *   npm run fuzz -- --runs 10000       this many per boundary
 *   npm run fuzz -- --only bus         one boundary (repeatable, or comma-separated)
 *   npm run fuzz -- --seed 42          repeat a run (the seed is printed at the start)
 *   npm run fuzz -- --only bus --seed 42 --path 17:3   replay one counterexample
 *   npm run fuzz -- --fresh            forget an interrupted run and start over
 *   npm run fuzz -- --no-docs          leave docs/reliability.md alone
 *   npm run fuzz -- --docs-only        rewrite the table from the last run's record, running nothing
 *
 * Progress is kept in fuzz/.state/run.json (gitignored): the seed and each finished boundary's
 * outcome, so an interrupted run goes on with the boundaries not yet done; the table is made from
 * it after each boundary. Once every boundary has run, the next `npm run fuzz` starts over, while
 * `--only` runs its boundaries again and replaces their rows. A failure prints the counterexample
 * and the command that replays it, and the run exits 1.
 *
 * A watchdog thread reports a hang: an input during which the main thread stopped counting for
 * `hangSeconds` (a sync loop that never ends cannot be interrupted from inside).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { machineCores } from '../bench/machineCpu.ts';
import { setRunHook } from './boundary.ts';
import { boundaries } from './boundaries/index.ts';
import { type BoundaryOutcome, checkBoundary } from './check.ts';
import { findings } from './findings.ts';

const defaultRuns = 1_000_000;
const hangSeconds = 60;
const stateDir = new URL('.state/', import.meta.url);
const statePath = new URL('run.json', stateDir);
const docsPath = new URL('../docs/reliability.md', import.meta.url);

interface RunState {
  seed: number;
  /** `--runs` of the run, null when each boundary ran its own default. */
  runs: number | null;
  startedAt: string;
  done: Record<string, BoundaryOutcome & { date: string }>;
  /** Every boundary has a row. */
  complete?: boolean;
}

const { values } = parseArgs({
  options: {
    runs: { type: 'string' },
    only: { type: 'string', multiple: true },
    seed: { type: 'string' },
    path: { type: 'string' },
    fresh: { type: 'boolean', default: false },
    'no-docs': { type: 'boolean', default: false },
    'docs-only': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

if (values.help) {
  console.log(readFileSync(new URL(import.meta.url), 'utf8').split('*/')[0]);
  process.exit(0);
}

if (values['docs-only']) {
  if (!existsSync(statePath)) {
    console.error('no run is recorded in fuzz/.state/run.json: run npm run fuzz first');
    process.exit(2);
  }
  writeDocs(JSON.parse(readFileSync(statePath, 'utf8')) as RunState);
  console.log('wrote the fuzz section of docs/reliability.md from fuzz/.state/run.json');
  process.exit(0);
}

const only = (values.only ?? []).flatMap((name) => name.split(',')).filter((name) => name.length > 0);
for (const name of only) {
  if (!boundaries.some((boundary) => boundary.name === name)) {
    console.error(`unknown boundary ${name}; the boundaries are: ${boundaries.map((boundary) => boundary.name).join(', ')}`);
    process.exit(2);
  }
}
const runsOption = values.runs === undefined ? null : Number(values.runs);
if (runsOption !== null && (!Number.isSafeInteger(runsOption) || runsOption < 1)) {
  console.error(`--runs must be a positive integer, got ${values.runs}`);
  process.exit(2);
}
const seedOption = values.seed === undefined ? null : Number(values.seed);
if (seedOption !== null && !Number.isSafeInteger(seedOption)) {
  console.error(`--seed must be an integer, got ${values.seed}`);
  process.exit(2);
}
if (values.path !== undefined && (only.length !== 1 || seedOption === null)) {
  console.error('--path replays one counterexample: give it with --only <boundary> and the --seed it was found with');
  process.exit(2);
}

// A replay or a chosen subset is its own run: it neither resumes nor records the full run's state.
const recording = values.path === undefined;
let state: RunState | null = null;
if (recording && !values.fresh && existsSync(statePath)) {
  try {
    state = JSON.parse(readFileSync(statePath, 'utf8')) as RunState;
  } catch {
    state = null;
  }
  if (state && ((seedOption !== null && state.seed !== seedOption) || state.runs !== runsOption)) state = null;
  // A finished run is kept (the table is made from it); a new full run starts over, `--only` re-runs rows of it.
  if (state?.complete && only.length === 0) state = null;
}
if (state) {
  const finished = Object.keys(state.done);
  console.log(`resuming the run of ${state.startedAt} (seed ${state.seed}); done: ${finished.join(', ') || 'none'} (--fresh starts over)`);
} else {
  // fast-check seeds are 32-bit signed integers: one made so prints as it replays.
  state = { seed: seedOption ?? (Date.now() ^ (Math.random() * 0x100000000)) | 0, runs: runsOption, startedAt: new Date().toISOString(), done: {} };
}
const seed = state.seed;
console.log(`seed ${seed} (repeat with --seed ${seed})`);

function saveState(): void {
  if (!recording) return;
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(statePath, `${JSON.stringify(state, null, 2)}\n`);
}

// The watchdog: the main thread bumps a counter for every input; if it stops moving, an input hangs.
const beat = new Int32Array(new SharedArrayBuffer(8));
setRunHook(() => Atomics.add(beat, 0, 1));
const watchdog = new Worker(
  `const { workerData } = require('node:worker_threads');
   const beat = new Int32Array(workerData.buffer);
   let last = -1, still = 0;
   setInterval(() => {
     const now = Atomics.load(beat, 0);
     const active = Atomics.load(beat, 1);
     if (!active || now !== last) { last = now; still = 0; return; }
     if (++still >= workerData.hangSeconds) {
       process.stderr.write('\\nHANG: no input finished for ' + workerData.hangSeconds + ' s in the boundary that was running; replay it with the seed above and --runs at the count printed last\\n');
       process.exit(1);
     }
   }, 1000);`,
  { eval: true, workerData: { buffer: beat.buffer, hangSeconds } },
);
watchdog.unref();

const selected = boundaries.filter((boundary) => only.length === 0 || only.includes(boundary.name));
let failed = false;
for (const boundary of selected) {
  if (recording && only.length === 0 && state.done[boundary.name] && !state.done[boundary.name]!.failed) {
    console.log(`${boundary.name}: done before (${state.done[boundary.name]!.runs} inputs)`);
    continue;
  }
  const runs = runsOption ?? boundary.fullRuns ?? defaultRuns;
  console.log(`\n${boundary.name}: ${boundary.title}\n  ${runs} inputs…`);
  Atomics.store(beat, 1, 1);
  const started = performance.now();
  const outcome = await checkBoundary(boundary, {
    runs,
    seed,
    ...(values.path !== undefined ? { path: values.path } : {}),
    onProgress: (done) => {
      if (done % 50_000 === 0) {
        const seconds = (performance.now() - started) / 1000;
        process.stdout.write(`  ${done} inputs, ${Math.round(done / seconds)}/s\n`);
      }
    },
  });
  Atomics.store(beat, 1, 0);
  const rate = outcome.runs / outcome.seconds;
  console.log(`  ${outcome.runs} inputs in ${outcome.seconds.toFixed(1)} s: ${Math.round(rate)} inputs/s, ${outcome.failed ? 'FAILED' : 'no failure'}`);
  if (outcome.failed) {
    failed = true;
    console.error(`\n${outcome.report}\n\nReplay: npm run fuzz -- --only ${boundary.name} --seed ${outcome.seed} --path ${outcome.path}\n`);
  }
  if (recording) {
    state.done[boundary.name] = { ...outcome, date: new Date().toISOString() };
    saveState();
    // After each boundary, so an interrupted run's figures are not lost.
    if (!values['no-docs']) writeDocs(state);
  }
}

const complete = boundaries.every((boundary) => state.done[boundary.name] !== undefined);
if (recording) {
  state.complete = complete;
  saveState();
  if (!values['no-docs']) console.log(`\nwrote the fuzz section of docs/reliability.md${complete ? '' : ' (partial: the boundaries not yet run say so)'}`);
}
process.exit(failed ? 1 : 0);


function writeDocs(run: RunState): void {
  const text = readFileSync(docsPath, 'utf8');
  const begin = '<!-- fuzz:begin -->';
  const end = '<!-- fuzz:end -->';
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from === -1 || to === -1 || to < from) throw new Error('docs/reliability.md has no <!-- fuzz:begin --> … <!-- fuzz:end --> section');
  const machine = `${cpus()[0]?.model ?? 'unknown CPU'} × ${machineCores}, Node ${process.version}, ${process.platform}/${process.arch}`;
  const rows = boundaries.map((boundary) => {
    const outcome = run.done[boundary.name];
    if (!outcome) return `| ${boundary.name} | ${boundary.title} | not run | | | | |`;
    return `| ${boundary.name} | ${boundary.title} | ${outcome.runs.toLocaleString('en-US')} | ${Math.round(outcome.runs / outcome.seconds).toLocaleString('en-US')} | ${outcome.failed ? 1 : 0} | ${outcome.seed} | ${outcome.date.slice(0, 10)} |`;
  });
  const section = [
    begin,
    `Written by \`npm run fuzz\` (fuzz/run.ts) on ${new Date().toISOString().slice(0, 10)}.`,
    `Machine: ${machine}.`,
    '',
    "Every boundary's property is in `fuzz/boundaries/`; `npm test` runs the same properties with a",
    'few thousand inputs (`test/fuzz/`). Replay a row with',
    '`npm run fuzz -- --only <boundary> --seed <seed>`. Rates are inputs per second on this machine',
    'while other work ran on it (a 2-core VM shared with other jobs: take them as lower bounds); one',
    'input of the bus is a sequence of up to 16 commands, one of the socket boundaries a round trip to',
    'a real Hub plus a `ping`, one of the asciicast importer an import into a real SQLite History.',
    '',
    '| boundary | what | inputs | inputs/s | failures | seed | date |',
    '| --- | --- | ---: | ---: | ---: | ---: | --- |',
    ...rows,
    '',
    'Found by fuzzing and fixed, each with a regression test:',
    '',
    ...findings.map((finding) => `- ${finding}`),
    end,
  ].join('\n');
  writeFileSync(docsPath, text.slice(0, from) + section + text.slice(to + end.length));
}
