/** The shape of one benchmark case (see bench/run.ts). */
export interface BenchResult {
  label: string;
  value: number;
  unit: string;
  digits?: number;
}

export interface BenchCase {
  /** Short name used on the command line. */
  name: string;
  description: string;
  run(options: { quick: boolean; log: (line: string) => void }): Promise<BenchResult[]>;
}
