/**
 * Enforces the layer rules of DESIGN.md §1 on every source file:
 *   src/common  imports nothing runtime-specific (no node:*, DOM-only packages, React or electron);
 *   src/node    never imports electron, renderer/ or src/browser;
 *   src/browser and renderer/ import no node:* and no src/node; renderer/ only src/common + src/browser;
 *   only main/ and preload/ import electron.
 * The tsconfig `lib`/`types` of each layer catch most of this at compile time; this script catches
 * what the compiler cannot (a relative path that crosses a layer, a bare `electron` import).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const nodeBuiltins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

type Layer = 'common' | 'node' | 'cli' | 'browser' | 'renderer' | 'main' | 'preload';
const layerRoots: Array<[Layer, string]> = [
  ['common', 'src/common'],
  ['node', 'src/node'],
  ['cli', 'src/cli'],
  ['browser', 'src/browser'],
  ['renderer', 'renderer'],
  ['main', 'main'],
  ['preload', 'preload'],
];

/** Which layers each layer may import by relative path. */
const allowedLayers: Record<Layer, Layer[]> = {
  common: ['common'],
  node: ['common', 'node'],
  cli: ['common', 'node', 'cli'],
  browser: ['common', 'browser'],
  renderer: ['common', 'browser', 'renderer'],
  main: ['common', 'node', 'main'],
  preload: ['common', 'preload'],
};

/** npm packages only some layers may use (anything else is allowed where the compiler allows it). */
const restrictedPackages: Array<{ test: (name: string) => boolean; allowed: Layer[]; why: string }> = [
  { test: (n) => n === 'electron' || n.startsWith('electron/'), allowed: ['main', 'preload'], why: 'only main/ and preload/ import electron' },
  { test: (n) => nodeBuiltins.has(n), allowed: ['node', 'cli', 'main', 'preload'], why: 'node built-ins are for src/node, src/cli, main and preload' },
  { test: (n) => n === 'react' || n.startsWith('react/') || n === 'react-dom' || n.startsWith('react-dom/') || n.startsWith('@xterm/xterm') || n.startsWith('@xterm/addon-'), allowed: ['renderer', 'browser', 'node'], why: 'UI packages are for the renderer' },
  { test: (n) => n === 'node-pty' || n === 'ws' || n.startsWith('@xterm/headless'), allowed: ['node', 'cli', 'main'], why: 'Node-only packages are for src/node' },
];

function layerOf(file: string): Layer | undefined {
  const rel = relative(root, file).split(sep).join('/');
  return layerRoots.find(([, prefix]) => rel === prefix || rel.startsWith(prefix + '/'))?.[0];
}

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) yield* sourceFiles(full);
    else if (/\.(ts|tsx|mts|cts)$/.test(entry) && !entry.endsWith('.d.ts')) yield full;
  }
}

const importPattern = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;(])import\s*\(\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s+['"]([^'"]+)['"]/gm;

const violations: string[] = [];
for (const [, prefix] of layerRoots) {
  let dir: string;
  try {
    dir = join(root, prefix);
    statSync(dir);
  } catch {
    continue;
  }
  for (const file of sourceFiles(dir)) {
    const layer = layerOf(file)!;
    if (file.endsWith('vite.config.ts')) continue; // build config, runs in Node by design
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(importPattern)) {
      const specifier = match[1] ?? match[2] ?? match[3];
      if (!specifier) continue;
      const where = `${relative(root, file)}: '${specifier}'`;
      if (specifier.startsWith('.')) {
        const resolved = resolve(dirname(file), specifier);
        // The package manifest is data every layer may read (name, version).
        if (resolved === join(root, 'package.json')) continue;
        const target = layerOf(resolved);
        if (target === undefined) {
          violations.push(`${where} leaves the source layers`);
        } else if (!allowedLayers[layer].includes(target)) {
          violations.push(`${where} — ${layer} may not import ${target}`);
        }
        continue;
      }
      const packageName = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
      for (const rule of restrictedPackages) {
        if ((rule.test(specifier) || rule.test(packageName)) && !rule.allowed.includes(layer)) {
          violations.push(`${where} — ${rule.why}`);
        }
      }
    }
  }
}

if (violations.length > 0) {
  console.error(`Layer rule violations (DESIGN.md §1):\n${violations.map((v) => '  ' + v).join('\n')}`);
  process.exit(1);
}
console.log('import rules: ok');
