/** The shape of one benchmark case (see bench/run.ts). */
export interface BenchResult {
  label: string;
  value: number;
  unit: string;
  digits?: number;
  /**
   * What the figure should be: at most `max` or at least `min` (docs/benchmarks.md's table says
   * whether it is met). Older cases put it in the label instead ("(target < 5)"), which
   * bench/benchDoc.ts also reads.
   */
  target?: { max?: number; min?: number };
  /**
   * Part of a comparison made by `compare()` (bench/cases/rendererBench.ts): the measure's name
   * and which of its five figures this is, so the table shows the five on one row.
   */
  comparison?: { measure: string; role: ComparisonRole };
}

export type ComparisonRole = 'peer median' | 'peer p95' | 'median' | 'p95' | 'ratio';

export interface BenchCase {
  /** Short name used on the command line. */
  name: string;
  description: string;
  run(options: { quick: boolean; log: (line: string) => void }): Promise<BenchResult[]>;
}
