/**
 * Injected by esbuild into dist/main/main.cjs in place of `import.meta.url`, which CommonJS
 * lacks. The Hub's modules find files beside the sources with `new URL('../../../assets/…',
 * import.meta.url)` and all sit three folders down (src/node/<area>/), so this names a module at
 * that depth under the app root (dist/main → ../..), and the same relative paths land right.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const switchboardSourceUrl = pathToFileURL(join(__dirname, '..', '..', 'src', 'node', 'bundled', 'main.js')).href;
