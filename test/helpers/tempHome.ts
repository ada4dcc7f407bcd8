import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A throwaway HOME and SWITCHBOARD_HOME for one test, so real user files are never touched.
 * Remove it with `dispose()` (use in an `after`/`t.after` hook).
 */
export function createTempHome(prefix = 'sb-test-'): { home: string; dataDir: string; workspace: string; dispose(): void } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const home = join(root, 'home');
  const dataDir = join(root, 'data');
  const workspace = join(root, 'workspace');
  for (const dir of [home, workspace]) mkdirSync(dir, { recursive: true });
  return {
    home,
    dataDir,
    workspace,
    dispose: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** Environment for a child shell in tests: plain bash, no user rc files, temp HOME. */
export function testEnv(home: string): Record<string, string> {
  return { HOME: home, PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', SHELL: '/bin/bash' };
}
