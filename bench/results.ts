/**
 * bench/results/latest.json: the latest full figure of every case, with the machine it was measured
 * on. A run of some cases updates those and keeps the others (each with its own date), so the file
 * always holds one figure per case that has ever run here.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from './benchCase.ts';
import { machineCores } from './machineCpu.ts';

export interface CaseOutcome {
  description: string;
  results?: BenchResult[];
  error?: string;
  seconds: number;
}

interface LatestFile {
  cases: Record<string, CaseOutcome & { date: string; machine: Machine }>;
}

interface Machine {
  cpu: string;
  cores: number;
  node: string;
  chromium: string | null;
  platform: string;
}

const resultsDir = fileURLToPath(new URL('results/', import.meta.url));
const latestPath = `${resultsDir}latest.json`;

/** Merges this run's outcomes into latest.json; returns its path. */
export function writeLatestResults(outcomes: Record<string, CaseOutcome>): string {
  let latest: LatestFile = { cases: {} };
  try {
    latest = JSON.parse(readFileSync(latestPath, 'utf8')) as LatestFile;
  } catch {
    // First run, or a file broken by hand: start again.
  }
  const machine = describeMachine();
  const date = new Date().toISOString();
  for (const [name, outcome] of Object.entries(outcomes)) latest.cases[name] = { ...outcome, date, machine };
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
