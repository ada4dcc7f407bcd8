/**
 * Everything decided before a PTY is spawned: which program (the default shell), whether it can
 * start at all (checked here because node-pty on Unix forks first and only then fails to exec,
 * which would look like a process that exited at once), the environment, and how shell
 * integration is injected into bash, zsh and fish without replacing the user's own rc files.
 */
import { constants as fsConstants, existsSync } from 'node:fs';
import { access, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, delimiter, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the integration scripts live: assets/shell-integration of the source tree, found from
 * this module (ESM), from a CommonJS bundle's directory (where import.meta is empty), or from
 * the working directory. Hosts that know better pass PtyHostOptions.shellIntegrationDir.
 */
export function defaultShellIntegrationDir(): string {
  const candidates: string[] = [];
  if (typeof import.meta.url === 'string') candidates.push(fileURLToPath(new URL('../../../assets/shell-integration/', import.meta.url)));
  if (typeof __dirname === 'string') candidates.push(join(__dirname, '../../assets/shell-integration'), join(__dirname, '../assets/shell-integration'));
  candidates.push(join(process.cwd(), 'assets/shell-integration'));
  return candidates.find((dir) => existsSync(join(dir, 'bash', 'switchboard.bash'))) ?? candidates[0]!;
}

const interactiveShells = new Set(['bash', 'zsh', 'fish', 'sh', 'dash', 'ksh', 'mksh', 'tcsh', 'csh', 'nu', 'pwsh', 'xonsh', 'elvish']);

/**
 * Options whose value is the next argument (`bash --init-file ~/.bashrc.local -i`, `zsh -o vi`,
 * `fish -C 'set x 1'`): that value is not a script to run. Per shell, because a letter differs:
 * `bash -C` is noclobber and `zsh -d` skips the global rc files, both without a value. `-c`'s next
 * argument is a command, and makes the shell run it instead of reading commands, so it is not
 * among them.
 */
const commonOptionsWithValue = ['-o', '+o'];
const optionsWithValue: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['bash', new Set([...commonOptionsWithValue, '--init-file', '--rcfile', '-O', '+O'])],
  ['fish', new Set(['-C', '--init-command', '-d', '--debug', '-o', '--debug-output', '--features', '--profile', '--profile-startup'])],
]);

/** A shell started to be typed into: a known shell, and no argument other than options (`-c`, a script file: it runs something). */
export function isInteractiveShell(file: string, args: readonly string[]): boolean {
  const name = basename(file).replace(/\.exe$/i, '').replace(/^-/, '');
  if (!interactiveShells.has(name)) return false;
  const withValue = optionsWithValue.get(name) ?? new Set(commonOptionsWithValue);
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (!(arg.startsWith('-') || arg.startsWith('+')) || arg === '-c' || /^-[a-zA-Z]*c[a-zA-Z]*$/.test(arg)) return false;
    if (withValue.has(arg)) index++; // its value
  }
  return true;
}

export type ExecutableCheck = { ok: true; path: string } | { ok: false; reason: string };

/** Resolve `file` like execvp would: a path is checked as is (relative to cwd), a bare name is searched on PATH. */
export async function resolveExecutable(file: string, options: { cwd: string; path: string | undefined }): Promise<ExecutableCheck> {
  if (file.includes('/')) {
    const candidate = isAbsolute(file) ? file : resolve(options.cwd, file);
    const reason = await whyNotExecutable(candidate);
    return reason === null ? { ok: true, path: candidate } : { ok: false, reason };
  }
  const directories = (options.path ?? '').split(delimiter).filter((directory) => directory.length > 0);
  for (const directory of directories) {
    const candidate = join(isAbsolute(directory) ? directory : resolve(options.cwd, directory), file);
    if ((await whyNotExecutable(candidate)) === null) return { ok: true, path: candidate };
  }
  return { ok: false, reason: `not found on PATH (${options.path ?? 'PATH is not set'})` };
}

async function whyNotExecutable(path: string): Promise<string | null> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return 'not a regular file';
    await access(path, fsConstants.X_OK);
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'no such file';
    if (code === 'EACCES') return 'permission denied (not executable)';
    return (error as Error).message;
  }
}

/** The user's shell: $SHELL if it is executable, else bash, else sh. */
export async function resolveDefaultShell(env: Record<string, string | undefined>, cwd: string): Promise<string> {
  const fromEnv = env.SHELL;
  if (fromEnv && isAbsolute(fromEnv)) {
    const check = await resolveExecutable(fromEnv, { cwd, path: env.PATH });
    if (check.ok) return check.path;
  }
  for (const name of ['bash', 'sh']) {
    const check = await resolveExecutable(name, { cwd, path: env.PATH ?? '/usr/bin:/bin' });
    if (check.ok) return check.path;
  }
  return '/bin/sh';
}

export type ShellKind = 'bash' | 'zsh' | 'fish';

export function shellKindOf(file: string): ShellKind | null {
  const name = basename(file).replace(/^-/, '');
  return name === 'bash' || name === 'zsh' || name === 'fish' ? name : null;
}

export interface ShellLaunch {
  /** Our script this launch depends on; if it is missing, launch without integration instead. */
  script: string;
  args: string[];
  /** Variables to add to the PTY environment. */
  env: Record<string, string>;
  kind: ShellKind;
  /**
   * Set when the nonce must not travel in the environment: the arguments to start with instead of
   * `args`, naming a private file that holds the nonce (our script reads and deletes it).
   */
  argsWithNonceFile?: (nonceFile: string) => string[];
}

/**
 * How to start `file args` with our integration script, or null when we should not inject:
 * not a shell we know, or arguments we do not understand (e.g. `bash -c …`, `bash --norc`),
 * where injecting could change what the caller asked for. Same policy as VS Code.
 */
export function shellIntegrationLaunch(params: {
  file: string;
  args: readonly string[];
  env: Record<string, string | undefined>;
  home: string;
  integrationDir: string;
}): ShellLaunch | null {
  const kind = shellKindOf(params.file);
  if (kind === null) return null;
  const args = [...params.args];
  switch (kind) {
    case 'bash': {
      if (!args.every((arg) => arg === '-l' || arg === '--login' || arg === '-i')) return null;
      const login = args.includes('-l') || args.includes('--login');
      // A login bash ignores --init-file; our script sources the profile files itself instead.
      const env: Record<string, string> = login ? { SWITCHBOARD_BASH_LOGIN: '1' } : {};
      const script = join(params.integrationDir, 'bash', 'switchboard.bash');
      return { kind, script, args: ['--init-file', script, '-i'], env };
    }
    case 'zsh': {
      if (!args.every((arg) => /^-[il]+$/.test(arg) || arg === '--login' || arg === '--interactive')) return null;
      const userZdotdir = params.env.ZDOTDIR ?? params.home;
      return {
        kind,
        script: join(params.integrationDir, 'zsh', '.zshrc'),
        args: args.length > 0 ? args : ['-i'],
        env: { ZDOTDIR: join(params.integrationDir, 'zsh'), USER_ZDOTDIR: userZdotdir },
      };
    }
    case 'fish': {
      if (!args.every((arg) => arg === '-l' || arg === '--login' || arg === '-i' || arg === '--interactive')) return null;
      const script = join(params.integrationDir, 'fish', 'switchboard.fish');
      // --init-command runs after the user's config, so a broken config.fish still gets hooks. For
      // the same reason the nonce cannot be in the environment (config.fish, conf.d and every
      // program they start would see it before our script could remove it): it comes in a file.
      return {
        kind,
        script,
        args: [...args, '--init-command', `source ${fishQuote(script)}`],
        env: {},
        argsWithNonceFile: (nonceFile) => [...args, '--init-command', `source ${fishQuote(script)} ${fishQuote(nonceFile)}`],
      };
    }
  }
}

/**
 * The nonce in a file only this user can read (0600 in a fresh 0700 directory), for a shell that
 * takes it from there instead of the environment. Our script deletes the file as it reads it;
 * `dispose()` removes the directory whatever happened (call it when the shell has exited).
 */
export async function writeNonceFile(nonce: string): Promise<{ path: string; dispose(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'sb-nonce-'));
  const path = join(dir, 'nonce');
  try {
    await writeFile(path, nonce + '\n', { mode: 0o600, flag: 'wx' });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return { path, dispose: () => rm(dir, { recursive: true, force: true }) };
}

function fishQuote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** Variables inherited from the Hub's own environment that would mislead a new terminal. */
const inheritedVariablesToDrop = [
  'COLUMNS',
  'LINES',
  'TMUX',
  'TMUX_PANE',
  'STY',
  'WINDOW',
  'WINDOWID',
  'TERMCAP',
  'SWITCHBOARD_NONCE',
  'SWITCHBOARD_BASH_LOGIN',
  'USER_ZDOTDIR',
];

/**
 * A Hub started by npm (`npm start`, `npm run serve`, `npx switchboard serve`) runs in npm's script
 * environment, which is not the person's: every terminal would get the clone's node_modules/.bin
 * first on PATH (its `tsc`, `vite`, `electron` before theirs), `npm_config_prefix` (nvm refuses to
 * load under it: "nvm is not compatible with the npm_config_prefix environment variable"), and
 * `EDITOR=vi` when they had none (zsh then starts in its vi keymap, git opens vi). What npm adds
 * to a script's environment (@npmcli/run-script and @npmcli/config's set-envs) is taken out again.
 */
function undoNpmScriptEnvironment(env: Record<string, string>): void {
  for (const key of Object.keys(env)) if (key.startsWith('npm_')) delete env[key];
  for (const key of ['INIT_CWD', 'NODE', 'COLOR']) delete env[key];
  // npm's EDITOR is the person's EDITOR, else their VISUAL, else "vi": only the first is theirs,
  // and tools read VISUAL before EDITOR anyway. A person's own EDITOR=vi comes back from their rc.
  if (env.EDITOR !== undefined && (env.EDITOR === env.VISUAL || (env.EDITOR === 'vi' && env.VISUAL === undefined))) delete env.EDITOR;
  // The folders npm put before the person's PATH: node_modules/.bin of the package and each
  // folder above it (and npx's package bins), then its node-gyp-bin.
  if (env.PATH !== undefined) {
    const entries = env.PATH.split(delimiter);
    let first = 0;
    while (first < entries.length - 1 && /[\\/](node_modules[\\/]\.bin|node-gyp-bin)$/.test(entries[first]!)) first++;
    env.PATH = entries.slice(first).join(delimiter);
  }
}

/**
 * The PTY environment: the Hub's own, then the terminal variables, then the Hub's `baseEnv`
 * (socket path etc.), then the caller's. The terminal id and the nonce come last: they are
 * identity, and a caller overriding them would break routing and integration.
 */
export function composeEnvironment(params: {
  inherited: NodeJS.ProcessEnv;
  terminalId: string;
  baseEnv: Record<string, string> | undefined;
  callerEnv: Record<string, string> | undefined;
}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(params.inherited)) {
    if (value !== undefined && !inheritedVariablesToDrop.includes(key)) env[key] = value;
  }
  if (params.inherited.npm_execpath !== undefined || params.inherited.npm_lifecycle_event !== undefined) undoNpmScriptEnvironment(env);
  env.TERM = 'xterm-256color';
  env.COLORTERM = 'truecolor';
  env.TERM_PROGRAM = 'Switchboard';
  Object.assign(env, params.baseEnv ?? {}, params.callerEnv ?? {});
  env.SWITCHBOARD_TERMINAL_ID = params.terminalId;
  // claws' shell hooks, `claws_done` and its clients read their own names: the same terminal, a
  // real PTY whose output is captured (claws says "wrapped").
  env.CLAWS_TERMINAL_ID = params.terminalId;
  env.CLAWS_WRAPPED = '1';
  return env;
}
