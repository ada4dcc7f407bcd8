/**
 * Running one boundary's property: fast-check with a seed, the boundary's per-input timeout, and
 * the unhandled-rejection watch. Used by `npm test` (test/fuzz/*.test.ts) and `npm run fuzz`.
 */
import fc from 'fast-check';
import { type FuzzBoundary, RejectionWatch } from './boundary.ts';

export interface BoundaryOutcome {
  name: string;
  runs: number;
  seconds: number;
  failed: boolean;
  seed: number;
  /** fast-check's report: the counterexample, its path and the seed to replay it. */
  report: string | null;
  /** `--path` that replays the counterexample (with the seed). */
  path: string | null;
}

export interface CheckOptions {
  runs: number;
  seed: number;
  /** fast-check's replay path (with the seed of the run that found it). */
  path?: string;
  /** Called now and then with the inputs done so far. */
  onProgress?: (runs: number) => void;
}

export async function checkBoundary(boundary: FuzzBoundary, options: CheckOptions): Promise<BoundaryOutcome> {
  const watch = new RejectionWatch();
  const session = await boundary.open();
  const started = performance.now();
  let runs = 0;
  let details: fc.RunDetails<unknown>;
  try {
    const parameters: fc.Parameters<unknown> = {
      numRuns: options.runs,
      seed: options.seed,
      endOnFailure: false,
      reporter: undefined,
      ...(options.path !== undefined ? { path: options.path } : {}),
      ...(boundary.asyncTimeoutMs !== undefined ? { timeout: boundary.asyncTimeoutMs } : {}),
    };
    const property = session.property;
    // Count runs as fast-check reports them, and fail a run during which a rejection went unhandled.
    const counted = new Proxy(property, {
      get(target, key, receiver) {
        if (key === 'run') {
          return (value: unknown) => {
            runs++;
            if (options.onProgress && runs % 1000 === 0) options.onProgress(runs);
            const outcome = target.run(value as never);
            if (outcome instanceof Promise) {
              return outcome.then((result) => {
                watch.check();
                return result;
              });
            }
            watch.check();
            return outcome;
          };
        }
        const field = Reflect.get(target, key, receiver);
        return typeof field === 'function' ? field.bind(target) : field;
      },
    });
    details = await fc.check(counted as fc.IRawProperty<unknown>, parameters);
  } finally {
    await session.dispose();
    watch.dispose();
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    name: boundary.name,
    runs: details.failed ? details.numRuns : runs > 0 ? Math.min(runs, details.numRuns || runs) : details.numRuns,
    seconds,
    failed: details.failed,
    seed: details.seed,
    report: details.failed ? `${fc.defaultReportMessage(details) ?? 'failed'}\n${describeError(details.errorInstance)}` : null,
    path: details.failed ? details.counterexamplePath : null,
  };
}

function describeError(error: unknown): string {
  if (error instanceof Error) return `Error: ${error.stack ?? error.message}`;
  return `Error: ${String(error)}`;
}
