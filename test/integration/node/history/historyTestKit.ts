/**
 * Plumbing for the History tests: a temp data dir, a real PtyHost, and a HistoryService over a
 * real SQLite file, with settings the test chooses.
 */
import { defaultSettings, type Settings } from '../../../../src/common/api/contract.ts';
import type { HistoryService } from '../../../../src/node/history/historyService.ts';
import { HistoryService as Service } from '../../../../src/node/history/historyService.ts';
import { type NewSession, newSessionId, type SessionWrites } from '../../../../src/node/history/historyStore.ts';
import { nullLogger, type ILogger } from '../../../../src/node/logger.ts';
import { PtyHost } from '../../../../src/node/pty/ptyHost.ts';
import type { PtySession } from '../../../../src/node/pty/ptySession.ts';
import { createTempHome, testEnv } from '../../../helpers/tempHome.ts';
import { mkdirSync } from 'node:fs';

export interface HistoryKit {
  temp: ReturnType<typeof createTempHome>;
  host: PtyHost;
  history: HistoryService;
  settings: Settings;
  env: Record<string, string>;
  /** A plain bash (no rc files, no shell integration) that is recorded. */
  bash(extra?: { name?: string; args?: string[]; cols?: number; rows?: number }): Promise<PtySession>;
  dispose(): void;
}

export function createHistoryKit(options: { settings?: Partial<Settings>; logger?: ILogger; now?: () => number; start?: boolean; checkpointWorkerPath?: string | null; recordingWorkerPath?: string | null } = {}): HistoryKit {
  const temp = createTempHome('sb-history-');
  mkdirSync(temp.dataDir, { recursive: true, mode: 0o700 });
  const settings: Settings = { ...defaultSettings, ...options.settings };
  const host = new PtyHost({ logger: nullLogger, defaultCwd: temp.workspace, mirrorMode: 'inline' });
  const history = new Service({
    dataDir: temp.dataDir,
    ptyHost: host,
    settings: () => settings,
    logger: options.logger ?? nullLogger,
    ...(options.now ? { now: options.now } : {}),
    ...(options.checkpointWorkerPath !== undefined ? { checkpointWorkerPath: options.checkpointWorkerPath } : {}),
    ...(options.recordingWorkerPath !== undefined ? { recordingWorkerPath: options.recordingWorkerPath } : {}),
  });
  if (options.start !== false) history.start();
  const env = testEnv(temp.home);
  return {
    temp,
    host,
    history,
    settings,
    env,
    bash: (extra = {}) =>
      host.create({ file: 'bash', args: extra.args ?? ['--norc', '--noprofile'], env, shellIntegration: false, createdBy: { kind: 'person', name: 'you' }, ...(extra.name ? { name: extra.name } : {}), ...(extra.cols ? { cols: extra.cols } : {}), ...(extra.rows ? { rows: extra.rows } : {}) }),
    dispose() {
      host.dispose();
      history.dispose();
      temp.dispose();
    },
  };
}

/** A finished session written straight into the store: `chunks` output chunks of `chunkBytes` each. */
export function syntheticSession(options: { startedAt: number; endedAt?: number; chunks?: number; chunkBytes?: number; text?: string; name?: string }): SessionWrites {
  const id = newSessionId(options.startedAt);
  const create: NewSession = {
    id,
    terminalId: null,
    name: options.name ?? 'synthetic',
    cwd: '/tmp',
    file: 'bash',
    args: [],
    createdBy: { kind: 'agent', name: 'generator' },
    startedAt: options.startedAt,
    cols: 80,
    rows: 24,
    firstOffset: 0,
    source: 'recorded',
    idleShell: false,
    live: false,
  };
  const chunkBytes = options.chunkBytes ?? 1024;
  const events: SessionWrites['events'] = [];
  let offset = 0;
  for (let index = 0; index < (options.chunks ?? 1); index++) {
    const data = Buffer.alloc(chunkBytes, options.text ?? `chunk ${index} of ${id}\r\n`);
    events.push({ kind: 'output', at: index * 20, offset, data });
    offset += data.length;
  }
  return { id, create, events, commands: [], patch: { endedAt: options.endedAt ?? options.startedAt + 1000, exitCode: 0 }, writtenAt: options.startedAt };
}
