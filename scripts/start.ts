/**
 * `npm start -- [DIR...]`: build what is missing, then run the Electron app with DIR... as its
 * workspace folders. Where the Electron binary was never downloaded (ELECTRON_SKIP_BINARY_DOWNLOAD,
 * offline machines) it says so in one line and runs browser mode instead.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const builtFiles = ['dist/main/main.cjs', 'dist/preload/preload.cjs', 'dist/renderer/index.html'];

/**
 * The Electron executable, or undefined when it is not installed. Deliberately not
 * `require('electron')`: since Electron 3x that starts a download when the binary is missing,
 * which on an offline machine hangs or prints a stack trace.
 */
export function findElectronBinary(): string | undefined {
  let packageDir: string;
  try {
    packageDir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  } catch {
    return undefined;
  }
  const pathFile = join(packageDir, 'path.txt');
  if (!existsSync(pathFile)) return undefined;
  const relative = readFileSync(pathFile, 'utf8').trim();
  const distDir = process.env.ELECTRON_OVERRIDE_DIST_PATH ?? join(packageDir, 'dist');
  const binary = join(distDir, relative);
  return existsSync(binary) ? binary : undefined;
}

function ensureBuilt(): void {
  const missing = builtFiles.filter((file) => !existsSync(join(root, file)));
  if (missing.length === 0) return;
  process.stdout.write(`Building (missing: ${missing.join(', ')})…\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.status !== 0) {
    process.stderr.write('Build failed; see the output above.\n');
    process.exit(result.status ?? 1);
  }
}

async function main(): Promise<void> {
  const dirs = process.argv.slice(2);
  ensureBuilt();
  const electron = findElectronBinary();
  if (!electron) {
    process.stdout.write('Electron binary not installed (ELECTRON_SKIP_BINARY_DOWNLOAD?) — starting browser mode instead.\n');
    const { runCli } = await import('../src/cli/cli.ts');
    process.exitCode = await runCli(['serve', ...dirs], {
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
      env: process.env,
      cwd: process.cwd(),
    });
    return;
  }
  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE; // would make the binary a plain Node and ignore main.cjs' window
  const child = spawn(electron, [join(root, 'dist/main/main.cjs'), ...dirs], { stdio: 'inherit', env });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 1 : 0);
  });
}

if (import.meta.main) await main();
