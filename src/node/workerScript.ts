/**
 * Worker threads of the Hub: where a worker's script is, and stopping one.
 *
 * Where a worker thread's script is when the Hub runs from its sources: the file `fileName`
 * beside the module whose `import.meta.url` is given. Null when there is none — a CommonJS
 * bundle (Electron main) has no module URL of its own, and its host passes the bundled worker's
 * path instead.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';

export function workerScriptBeside(moduleUrl: unknown, fileName: string): string | null {
  try {
    if (typeof moduleUrl !== 'string') return null;
    const path = fileURLToPath(new URL(`./${fileName}`, moduleUrl));
    return existsSync(path) ? path : null;
  } catch {
    return null;
  }
}

/**
 * The script a worker is started from: `configured` when given (a bundle's path; null: no worker;
 * a path that does not exist: none either), else the source file `fileName` beside the module.
 */
export function workerScriptPath(configured: string | null | undefined, moduleUrl: unknown, fileName: string): string | null {
  if (configured === undefined) return workerScriptBeside(moduleUrl, fileName);
  return configured !== null && existsSync(configured) ? configured : null;
}

/**
 * Stop a worker nobody listens to any more. It may still report an error on its way out (a
 * script that fails while loading, say): an 'error' event without a listener would be thrown as
 * an uncaught exception and take the Hub down, so one that ignores it stays attached.
 */
export function stopWorker(worker: Worker): void {
  worker.removeAllListeners();
  worker.on('error', () => {});
  worker.unref();
  void worker.terminate();
}
