/**
 * The REAL Switchboard for CLI and MCP tests: `switchboard serve` as a child process on a temp HOME
 * and SWITCHBOARD_HOME, whose Hub runs the control socket. Resolves once the socket accepts
 * connections.
 */
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { pollUntil } from '../../helpers/poll.ts';
import { createTempHome, testEnv } from '../../helpers/tempHome.ts';
import { startServe, type ServeProcess } from '../node/server/serveProcess.ts';

export interface RealSwitchboard {
  serve: ServeProcess;
  home: string;
  dataDir: string;
  workspace: string;
  socketPath: string;
  /** The environment a CLI child needs to find this app (HOME, PATH, SWITCHBOARD_HOME). */
  cliEnv: Record<string, string>;
  stop(): Promise<void>;
}

export async function startRealSwitchboard(): Promise<RealSwitchboard> {
  const temp = createTempHome('sb-cli-');
  // A predictable prompt in every terminal.
  writeFileSync(join(temp.home, '.bashrc'), "PS1='$ '\n");
  const serve = await startServe({ args: ['--port', '0', temp.workspace], home: temp.home, dataDir: temp.dataDir });
  const stop = async () => {
    if (serve.child.exitCode === null && serve.child.signalCode === null) serve.child.kill('SIGTERM');
    await serve.exited;
    temp.dispose();
  };
  const socketPath = join(temp.dataDir, 'control.sock');
  try {
    await pollUntil(() => canConnect(socketPath), { timeoutMs: 15_000, intervalMs: 50, what: `the control socket at ${socketPath}` });
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}; serve stderr: ${serve.stderr()}`);
  }
  return {
    serve,
    home: temp.home,
    dataDir: temp.dataDir,
    workspace: temp.workspace,
    socketPath,
    cliEnv: { ...testEnv(temp.home), SWITCHBOARD_HOME: temp.dataDir },
    stop,
  };
}

function canConnect(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
