/** Runs the `switchboard` CLI in-process (runCli) or as a real child process, capturing its output. */
import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../../src/cli/cli.ts';

export const cliMain = fileURLToPath(new URL('../../../src/cli/main.ts', import.meta.url));

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export async function runInProcess(argv: string[], options: { env?: NodeJS.ProcessEnv; stdin?: string; cwd?: string } = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const status = await runCli(argv, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    ...(options.stdin !== undefined ? { stdin: Readable.from([options.stdin]) } : {}),
  });
  return { status, stdout, stderr };
}

/** The CLI as a user runs it: a child process, with a bounded run time. */
export function runChild(argv: string[], options: { env: Record<string, string>; stdin?: string; timeoutMs?: number }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliMain, ...argv], { env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`switchboard ${argv.join(' ')} did not finish in time; stderr: ${stderr}`));
    }, options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
}
