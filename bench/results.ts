/**
 * bench/results/latest.json: the latest full figure of every case, with the machine it was measured
 * on and how loaded it was. A run of some cases updates those and keeps the others (each with its
 * own date), so the file always holds one figure per case that has ever run here; a case that
 * skipped (no figures, no error: a missing tool) keeps its earlier figure.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from './benchCase.ts';
import { machineCores } from './machineCpu.ts';

export interface CaseOutcome {
  description: string;
  results?: BenchResult[];
  error?: string;
  seconds: number;
  /** The machine's 1-minute load average when the case started and when it ended. */
  load?: [number, number];
  /** When the case ended (ISO 8601); the run's end when missing. */
  date?: string;
}

export interface LatestFile {
  cases: Record<string, LatestCase>;
}

export type LatestCase = Omit<CaseOutcome, 'date'> & { date: string; machine: Machine };

export interface Machine {
  cpu: string;
  cores: number;
  node: string;
  chromium: string | null;
  platform: string;
}

const resultsDir = fileURLToPath(new URL('results/', import.meta.url));
export const latestPath = `${resultsDir}latest.json`;

/** The machine's 1-minute load average now (other work sharing the cores shows in every figure). */
export function loadNow(): number {
  return loadavg()[0] ?? 0;
}

export function readLatestResults(): LatestFile {
  try {
    return JSON.parse(readFileSync(latestPath, 'utf8')) as LatestFile;
  } catch {
    // First run, or a file broken by hand: start again.
    return { cases: {} };
  }
}

/** Merges this run's outcomes into latest.json; returns its path. */
export function writeLatestResults(outcomes: Record<string, CaseOutcome>): string {
  const latest = readLatestResults();
  const machine = describeMachine();
  const date = new Date().toISOString();
  for (const [name, outcome] of Object.entries(outcomes)) {
    const skipped = !outcome.error && (outcome.results ?? []).length === 0;
    if (skipped && latest.cases[name]) continue;
    latest.cases[name] = { ...outcome, date: outcome.date ?? date, machine };
  }
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(latestPath, `${JSON.stringify(latest, null, 2)}\n`);
  return latestPath;
}

function describeMachine(): Machine {
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: machineCores,
    node: process.version,
    chromium: chromiumVersion(),
    platform: `${process.platform}/${process.arch}`,
  };
}

/** The Chromium the renderer cases drive (Debian's), or null where there is none. */
function chromiumVersion(): string | null {
  if (!existsSync('/usr/bin/chromium')) return null;
  try {
    return execFileSync('/usr/bin/chromium', ['--version'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}
