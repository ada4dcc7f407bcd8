/**
 * The `git` command line, run without a shell (execFile): the one way agent workspaces touch a
 * repository. Using the real CLI, not a library, means the user's own git (its config, hooks,
 * credential helpers, worktree format) does the work, exactly as if they typed it.
 */
import { execFile, type ExecFileException } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ApiError } from '../../common/api/errors.ts';

export interface GitResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface GitOptions {
  cwd: string;
  /** Extra environment (GIT_AUTHOR_NAME in tests, GIT_INDEX_FILE…). */
  env?: Record<string, string>;
  /** Text for stdin (`git apply`). */
  input?: string;
  /** A non-zero exit is an answer, not an error (`git diff --no-index`, `merge-base --is-ancestor`). */
  allowFailure?: boolean;
  timeoutMs?: number;
}

/** Bound on a git command's output: a diff of a generated file can be big; past this it is an error, not a hang. */
const maxBufferBytes = 256 * 1024 * 1024;
/** No git command of ours should take long; a hung credential prompt or lock must not hang a request forever. */
const defaultTimeoutMs = 120_000;

/** Deterministic, non-interactive git: English messages we can show, no pager, no prompts, no optional index locks the agent could trip over. */
function gitEnvironment(extra: Record<string, string> | undefined): NodeJS.ProcessEnv {
  return {
    ...process.env,
    LC_ALL: 'C',
    LANGUAGE: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_EDITOR: 'true',
    ...extra,
  };
}

/** Run `git args…` in `cwd`. A non-zero exit throws GIT_FAILED with git's message unless `allowFailure`; git missing throws GIT_MISSING. */
export function git(args: readonly string[], options: GitOptions): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      args,
      { cwd: options.cwd, env: gitEnvironment(options.env), maxBuffer: maxBufferBytes, timeout: options.timeoutMs ?? defaultTimeoutMs, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (!error) {
          resolve({ stdout, stderr, exitCode: 0 });
          return;
        }
        const failure = error as ExecFileException;
        if (failure.code === 'ENOENT') {
          // spawn says ENOENT both for a missing program and a missing cwd.
          reject(
            existsSync(options.cwd)
              ? new ApiError('GIT_MISSING', 'git is not installed (or not on PATH): agent worktrees need the git command line')
              : new ApiError('NOT_FOUND', `folder not found: ${options.cwd}`),
          );
          return;
        }
        if (failure.killed) {
          reject(new ApiError('TIMEOUT', `git ${args[0]} did not finish within ${Math.round((options.timeoutMs ?? defaultTimeoutMs) / 1000)} s`));
          return;
        }
        if (typeof failure.code !== 'number') {
          reject(new ApiError('GIT_FAILED', `git ${args[0]} failed: ${failure.message}`));
          return;
        }
        if (options.allowFailure) {
          resolve({ stdout, stderr, exitCode: failure.code });
          return;
        }
        reject(new ApiError('GIT_FAILED', `git ${args.join(' ')} failed: ${firstLines(stderr || stdout) || `exit ${failure.code}`}`));
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
    else child.stdin?.end();
  });
}

/** git's message without its noise: the first few non-empty lines. */
export function firstLines(text: string, count = 6): string {
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.length > 0 && !line.startsWith('hint:'))
    .slice(0, count)
    .join('\n');
}

/** Split NUL-terminated output (`-z`) into its entries. */
export function splitNul(text: string): string[] {
  return text.split('\0').filter((entry) => entry.length > 0);
}
