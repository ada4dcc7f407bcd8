import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { xtermPatchesPlugin } from './xtermPatches.ts';

const rendererRoot = fileURLToPath(new URL('.', import.meta.url));

/**
 * The renderer is one static bundle served two ways: from disk by Electron (hence relative
 * `base`) and over HTTP by browser mode. Electron's CSP is `script-src 'self'`, so the build must
 * not emit inline scripts or rely on eval; Vite's output (module scripts loaded by URL) satisfies that.
 */
export default defineConfig({
  root: rendererRoot,
  base: './',
  plugins: [
    react(),
    xtermPatchesPlugin({
      rowReuseModule: fileURLToPath(new URL('./features/terminals/domRowReuse.ts', import.meta.url)),
      renderPacingModule: fileURLToPath(new URL('./features/terminals/renderPacing.ts', import.meta.url)),
    }),
  ],
  build: {
    outDir: fileURLToPath(new URL('../dist/renderer', import.meta.url)),
    emptyOutDir: true,
    target: 'es2023',
    sourcemap: true,
    // The modulepreload polyfill is injected into the entry chunk (not inline), but no supported
    // host needs it: Electron and current Chromium support modulepreload natively.
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 2000,
  },
});
