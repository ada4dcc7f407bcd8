/**
 * Bundles the Electron main process and the preload script with esbuild (`npm run build:electron`).
 * The renderer is built separately by Vite into dist/renderer.
 *   main/main.ts       → dist/main/main.cjs       (Node, CommonJS; native and heavy modules stay external)
 *   preload/preload.ts → dist/preload/preload.cjs (sandboxed preload: one file, only `electron` required)
 *   src/node/pty/mirrorWorker.ts → dist/main/mirrorWorker.cjs (the headless mirrors' worker thread;
 *     main passes its path to the Hub because a bundle has no source file beside it to start)
 *   src/node/review/reviewDiffWorker.ts → dist/main/reviewDiffWorker.cjs (large review diffs; the Hub
 *     finds it beside mirrorWorker.cjs, or takes `reviewDiffWorkerPath`)
 *   src/node/history/walCheckpointWorker.ts → dist/main/walCheckpointWorker.cjs (History's WAL
 *     checkpoints off the Hub's thread; found beside mirrorWorker.cjs)
 *   src/node/history/recordingWorker.ts → dist/main/recordingWorker.cjs (History's recording
 *     transactions off the Hub's thread; found beside mirrorWorker.cjs)
 */
import { build, type BuildOptions } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

const common: BuildOptions = {
  absWorkingDir: root,
  bundle: true,
  format: 'cjs',
  sourcemap: 'linked',
  logLevel: 'warning',
  target: 'node24',
};

export async function buildElectron(): Promise<void> {
  await Promise.all([
    build({
      ...common,
      entryPoints: ['main/main.ts'],
      outfile: 'dist/main/main.cjs',
      platform: 'node',
      // node-pty is a native addon, @xterm/headless is loaded as-is; ws's optional accelerators
      // are native too. All are resolved from node_modules at run time.
      external: ['electron', 'node-pty', '@xterm/headless', 'bufferutil', 'utf-8-validate'],
      // CommonJS has no import.meta; see main/importMetaShim.ts.
      define: { 'import.meta.url': 'switchboardSourceUrl' },
      inject: ['main/importMetaShim.ts'],
    }),
    build({
      ...common,
      entryPoints: ['src/node/pty/mirrorWorker.ts'],
      outfile: 'dist/main/mirrorWorker.cjs',
      platform: 'node',
      external: ['@xterm/headless', '@xterm/addon-serialize'],
    }),
    build({
      ...common,
      entryPoints: ['src/node/review/reviewDiffWorker.ts'],
      outfile: 'dist/main/reviewDiffWorker.cjs',
      platform: 'node',
    }),
    build({
      ...common,
      entryPoints: ['src/node/history/walCheckpointWorker.ts'],
      outfile: 'dist/main/walCheckpointWorker.cjs',
      platform: 'node',
    }),
    build({
      ...common,
      entryPoints: ['src/node/history/recordingWorker.ts'],
      outfile: 'dist/main/recordingWorker.cjs',
      platform: 'node',
    }),
    build({
      ...common,
      entryPoints: ['preload/preload.ts'],
      outfile: 'dist/preload/preload.cjs',
      // A sandboxed preload cannot require Node modules; bundle everything but electron.
      platform: 'browser',
      target: 'chrome140',
      external: ['electron'],
    }),
  ]);
}

if (import.meta.main) {
  await buildElectron();
  process.stdout.write('built dist/main/main.cjs, dist/main/mirrorWorker.cjs, dist/main/reviewDiffWorker.cjs, dist/main/walCheckpointWorker.cjs, dist/main/recordingWorker.cjs and dist/preload/preload.cjs\n');
}
