/**
 * A real Hub for the boundaries that are live sockets (the control socket, the IDE bridge): temp
 * HOME, data dir, workspace and CLAUDE_CONFIG_DIR, so fuzzing never touches the user's files. The raw
 * NDJSON client that writes whatever it is given is the control tests' own (controlTestKit's
 * NdjsonClient, with `keepGarbage`): one home for the wire.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hub } from '../src/node/hub.ts';
import { createLogger } from '../src/node/logger.ts';
import { NdjsonClient } from '../test/integration/control/controlTestKit.ts';

export interface FuzzHub {
  hub: Hub;
  socketPath: string;
  workspace: string;
  /** HOME for the shells a boundary starts. */
  home: string;
  ide: { port: number; token: string };
  /** Throws when the Hub logged an error since the last call (an exception it caught but did not expect). */
  checkErrors(after: string): void;
  dispose(): Promise<void>;
}

export async function startFuzzHub(): Promise<FuzzHub> {
  const root = mkdtempSync(join(tmpdir(), 'sb-fuzz-'));
  const workspace = join(root, 'workspace');
  const claudeConfigDir = join(root, 'claude-config');
  mkdirSync(workspace, { recursive: true });
  mkdirSync(join(root, 'home'), { recursive: true });
  const errors: string[] = [];
  const hub = new Hub({
    dataDir: join(root, 'data'),
    workspaceFolders: [workspace],
    host: 'test',
    // Errors only: an error in the log is a bug the Hub caught (e.g. `control command failed`); warnings are refusals.
    logger: createLogger({ level: 'error', sink: (line) => errors.push(line) }),
    version: '9.9.9-fuzz',
    env: { HOME: join(root, 'home'), CLAUDE_CONFIG_DIR: claudeConfigDir, PATH: process.env.PATH ?? '/usr/bin:/bin' },
    clawsCompatSockets: false,
  });
  await hub.start();
  const port = hub.ideBridge.port!;
  const lock = JSON.parse(readFileSync(join(claudeConfigDir, 'ide', `${port}.lock`), 'utf8')) as { authToken: string };
  return {
    hub,
    socketPath: hub.controlSocketPath,
    workspace,
    home: join(root, 'home'),
    ide: { port, token: lock.authToken },
    checkErrors(after) {
      if (errors.length === 0) return;
      const logged = errors.splice(0);
      throw new Error(`after ${after}: the Hub logged ${logged.length} error(s): ${logged.join('\n').slice(0, 2000)}`);
    },
    async dispose() {
      await hub.shutdown();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export type Frame = Record<string, unknown>;

/**
 * How long a fuzz input waits for one frame (NdjsonClient.waitFor): longer than any input's own
 * time limit (withinTimeLimitAsync), which is what bounds the wait.
 */
export const frameWaitMs = 20_000;

/** A raw NDJSON connection to the control socket that keeps the lines that are not JSON objects in `garbage`. */
export function connectRaw(path: string): Promise<NdjsonClient> {
  return NdjsonClient.connect(path, { keepGarbage: true });
}
