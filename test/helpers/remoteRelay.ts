/**
 * The remote view's end-to-end setup (test/e2e/remote*.test.ts): a real `switchboard relay` and a
 * real `switchboard serve --relay … [--share-all]` as child processes on a temp HOME, a fresh
 * Chromium page that must not throw or trip its CSP, and the viewer link opened in it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { RelayTokenStore } from '../../src/node/relay/server/relayTokens.ts';
import { startServe, type ServeProcess } from '../integration/node/server/serveProcess.ts';
import { pollUntil } from './poll.ts';
import { createTempHome, testEnv } from './tempHome.ts';

const cliMain = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
export const machineId = 'home';
/** Waits through two processes and the relay on a loaded 2-core machine: generous. */
export const slow = 30_000;

export interface RelayProcess {
  child: ChildProcess;
  url: string;
  port: number;
  viewOrigin: string;
  stdout(): string;
  stderr(): string;
  exited: Promise<void>;
}

/**
 * `switchboard relay --port 0 --json` as a child process, once its ready line (the first JSON line
 * on stdout) is printed; `logLevel` is SWITCHBOARD_LOG_LEVEL (warn unless a test reads the log).
 */
export async function startRelayProcess(tokensFile: string, home: string, options: { logLevel?: string } = {}): Promise<RelayProcess> {
  const child = spawn(process.execPath, [cliMain, 'relay', '--port', '0', '--tokens', tokensFile, '--json'], {
    // A renderer built elsewhere (a run that must not rebuild dist/) is served when named.
    env: {
      ...testEnv(home),
      SWITCHBOARD_LOG_LEVEL: options.logLevel ?? 'warn',
      ...(process.env.SWITCHBOARD_RENDERER_DIR ? { SWITCHBOARD_RENDERER_DIR: process.env.SWITCHBOARD_RENDERER_DIR } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const ready = await pollUntil(
      () => {
        const line = stdout.split('\n').find((candidate) => candidate.startsWith('{'));
        if (!line && child.exitCode !== null) throw new Error(`switchboard relay exited: ${stderr}`);
        return line ? (JSON.parse(line) as { url: string; port: number; viewOrigin: string }) : undefined;
      },
      { timeoutMs: 20_000, what: 'the relay ready line' },
    );
    return { child, url: ready.url, port: ready.port, viewOrigin: ready.viewOrigin, stdout: () => stdout, stderr: () => stderr, exited };
  } catch (error) {
    // Not ready: the caller never gets the child to stop, so it is stopped here.
    await stop(child, exited);
    throw error;
  }
}

export async function stop(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGINT');
  const graceful = await Promise.race([exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 8_000).unref())]);
  if (!graceful) {
    child.kill('SIGKILL');
    await exited;
  }
}

export interface RemoteSetup {
  relay: RelayProcess;
  tokensFile: string;
  serve: ServeProcess;
  dirs: ReturnType<typeof createTempHome>;
  daemonToken: string;
  /** The viewer link, as `add-machine` prints it (with a viewer name). */
  viewerLink: string;
  startServe(): Promise<ServeProcess>;
}

/** A relay with machine "home", and `switchboard serve` on a temp HOME dialling it and sharing every pane (unless `shareAll: false`). */
export async function startRemoteSetup(t: TestContext, workspaceFiles: Record<string, string> = {}, options: { shareAll?: boolean } = {}): Promise<RemoteSetup> {
  const dirs = createTempHome('sb-e2e-remote-');
  t.after(() => dirs.dispose());
  writeFileSync(join(dirs.home, '.bashrc'), "PS1='$ '\n");
  for (const [name, content] of Object.entries(workspaceFiles)) writeFileSync(join(dirs.workspace, name), content);
  const tokensFile = join(dirs.home, 'relay-tokens.json');
  const tokens = await new RelayTokenStore({ filePath: tokensFile }).addMachine(machineId);
  const relay = await startRelayProcess(tokensFile, dirs.home);
  t.after(() => stop(relay.child, relay.exited));
  const setup: RemoteSetup = {
    relay,
    tokensFile,
    serve: undefined as unknown as ServeProcess,
    dirs,
    daemonToken: tokens.daemonToken,
    viewerLink: `${relay.viewOrigin}/m/${machineId}/?token=${tokens.viewerToken}&name=phone`,
    startServe: async () => {
      const serve = await startServe({
        args: ['--port', '0', '--relay', relay.url, '--machine-id', machineId, ...(options.shareAll === false ? [] : ['--share-all']), dirs.workspace],
        home: dirs.home,
        dataDir: dirs.dataDir,
        env: { SWITCHBOARD_RELAY_TOKEN: tokens.daemonToken },
      });
      setup.serve = serve;
      return serve;
    },
  };
  await setup.startServe();
  t.after(() => stop(setup.serve.child, setup.serve.exited));
  return setup;
}


/** Opens the viewer link and waits for the remote view of the machine. */
export async function openRemote(page: Page, link: string): Promise<void> {
  await page.goto(link);
  await page.locator(`.remote-machine[data-machine-id="${machineId}"]`).waitFor({ timeout: 20_000 });
}
