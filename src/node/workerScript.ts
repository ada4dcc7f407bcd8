/**
 * Where a worker thread's script is when the Hub runs from its sources: the file `fileName`
 * beside the module whose `import.meta.url` is given. Null when there is none — a CommonJS
 * bundle (Electron main) has no module URL of its own, and its host passes the bundled worker's
 * path instead.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function workerScriptBeside(moduleUrl: unknown, fileName: string): string | null {
  try {
    if (typeof moduleUrl !== 'string') return null;
    const path = fileURLToPath(new URL(`./${fileName}`, moduleUrl));
    return existsSync(path) ? path : null;
  } catch {
    return null;
  }
}
