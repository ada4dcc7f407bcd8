/**
 * Claude Code's own hooks as a source of agent state, for the Claude Code panes Switchboard
 * starts itself (agent profiles): it is given `--settings` with hooks (never the user's settings
 * files) whose command drops the hook's JSON into a private folder of that pane; the Hub watches
 * the folder and turns each event into a state: UserPromptSubmit and PostToolUse → working,
 * PermissionRequest → needs-input (with the tool and its command), Stop → idle, and
 * Notification by its type. The screen stays the first source while it is recognisable (it also
 * carries the prompt's options, which answering needs); the hooks keep the state right when the
 * screen is not (a Claude Code release that draws differently).
 *
 * The command is plain sh: no Node start per hook, nothing written to the pane (its output is not
 * the terminal's), and no output at all — a PermissionRequest hook that printed JSON could decide
 * the permission. Each file is written under a dot name and renamed, so the Hub never reads half.
 */
import { randomBytes } from 'node:crypto';
import { type FSWatcher, watch } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { AgentState } from '../../common/api/agentContract.ts';
import { Emitter, type Event } from '../../common/event.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import { PRIVATE_DIR_MODE } from '../paths.ts';

/** What a hook tells about the agent's state. */
export interface AgentHookState {
  state: Exclude<AgentState, 'exited'>;
  reason: string | null;
  /** When the Hub read it (ms since the epoch). */
  at: number;
}

/** The fields of Claude Code's hook input Switchboard reads (the rest is ignored). */
const HookInput = z
  .object({
    hook_event_name: z.string().max(100),
    tool_name: z.string().max(200).optional(),
    tool_input: z.record(z.string(), z.unknown()).optional(),
    message: z.string().max(4000).optional(),
    notification_type: z.string().max(100).optional(),
  })
  .loose();
type HookInput = z.infer<typeof HookInput>;

/** The events asked for: enough to follow a turn, none that runs before every tool (PreToolUse would add a fork to each). */
const hookEvents = ['UserPromptSubmit', 'PermissionRequest', 'PostToolUse', 'Stop', 'Notification'] as const;

/** Larger hook inputs are not state (a huge tool_input): skipped, not read into memory. */
const maxHookFileBytes = 256 * 1024;

/** `'…'` for sh: the path is ours (data dir + hex), but a data dir may hold anything. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The hook command: stdin (the hook's JSON) into a dot file, renamed when complete. Prints nothing. */
export function hookCommand(dir: string): string {
  const quoted = shellQuote(dir);
  return `f=${quoted}/.$$; cat > "$f" && mv "$f" ${quoted}/$$.$(date +%s%N).json`;
}

/** The `--settings` value (a JSON string; Claude Code merges it with the user's own settings). */
export function hookSettings(dir: string): string {
  const command = hookCommand(dir);
  const hooks: Record<string, unknown> = {};
  for (const event of hookEvents) {
    const entry = { hooks: [{ type: 'command', command }] };
    // Tool events take a matcher; '*' is every tool.
    hooks[event] = [event === 'PermissionRequest' || event === 'PostToolUse' ? { matcher: '*', ...entry } : entry];
  }
  return JSON.stringify({ hooks });
}

/** One hook input as a state, or null when it says nothing about the state. */
export function stateOfHook(input: HookInput, at: number): AgentHookState | null {
  switch (input.hook_event_name) {
    case 'UserPromptSubmit':
    case 'PostToolUse':
      return { state: 'working', reason: null, at };
    case 'PermissionRequest':
      return { state: 'needs-input', reason: toolReason(input), at };
    case 'Stop':
      return { state: 'idle', reason: null, at };
    case 'Notification':
      // idle_prompt: "Claude is waiting for your input" — a minute after the turn ended; still idle.
      if (input.notification_type === 'idle_prompt') return { state: 'idle', reason: null, at };
      return { state: 'needs-input', reason: input.message ?? 'Claude Code asks for attention', at };
    default:
      return null;
  }
}

/** `Bash: touch marker.txt`, `Edit src/app.ts`: what the screen rules say for the same prompt. */
function toolReason(input: HookInput): string {
  const tool = input.tool_name ?? 'a tool';
  const toolInput = input.tool_input ?? {};
  const command = typeof toolInput.command === 'string' ? toolInput.command : null;
  const path = typeof toolInput.file_path === 'string' ? toolInput.file_path : null;
  if (command) return `${tool}: ${command.split('\n')[0]!.slice(0, 200)}`;
  if (path) return `${tool} ${path}`;
  return tool;
}

export interface AgentHookEvent {
  terminalId: string;
  hook: AgentHookState;
}

interface Registration {
  key: string;
  dir: string;
  terminalId: string | null;
  watcher: FSWatcher | null;
  reading: boolean;
  again: boolean;
}

/**
 * The hook folders of the panes Switchboard starts Claude Code in (`<dataDir>/agent-hooks/<hex>`,
 * 0700), each watched while its pane lives and removed with it.
 */
export class AgentHookInbox implements IDisposable {
  readonly #root: string;
  readonly #logger: ILogger;
  readonly #registrations = new Map<string, Registration>();
  readonly #onDidReceive = new Emitter<AgentHookEvent>();
  readonly onDidReceive: Event<AgentHookEvent> = this.#onDidReceive.event;
  #disposed = false;

  constructor(options: { dataDir: string; logger: ILogger }) {
    this.#root = join(options.dataDir, 'agent-hooks');
    this.#logger = options.logger;
  }

  /** Folders of an earlier run are stale (their panes are gone): removed at start. */
  async start(): Promise<void> {
    await rm(this.#root, { recursive: true, force: true }).catch((error: unknown) => this.#logger.warn('cannot clear old agent hook folders', { error: String(error) }));
  }

  /** A folder for one pane about to start; `bind` it to the terminal once it exists. */
  async create(): Promise<{ key: string; settings: string }> {
    const key = randomBytes(12).toString('hex');
    const dir = join(this.#root, key);
    await mkdir(this.#root, { recursive: true, mode: PRIVATE_DIR_MODE });
    await mkdir(dir, { mode: PRIVATE_DIR_MODE });
    const registration: Registration = { key, dir, terminalId: null, watcher: null, reading: false, again: false };
    this.#registrations.set(key, registration);
    try {
      registration.watcher = watch(dir, () => void this.#drain(registration));
      registration.watcher.on('error', (error) => this.#logger.warn('agent hook folder watch failed', { dir, error: String(error) }));
    } catch (error) {
      this.#logger.warn('cannot watch an agent hook folder; its hooks are ignored', { dir, error: String(error) });
    }
    return { key, settings: hookSettings(dir) };
  }

  bind(key: string, terminalId: string): void {
    const registration = this.#registrations.get(key);
    if (!registration) return;
    registration.terminalId = terminalId;
    void this.#drain(registration); // a hook that ran before the bind
  }

  /** The pane is gone (or its start failed): stop watching, remove the folder. */
  release(key: string): void {
    const registration = this.#registrations.get(key);
    if (!registration) return;
    this.#registrations.delete(key);
    registration.watcher?.close();
    void rm(registration.dir, { recursive: true, force: true }).catch(() => {});
  }

  /** Release by terminal (the PtyHost removed it). */
  releaseTerminal(terminalId: string): void {
    for (const [key, registration] of this.#registrations) if (registration.terminalId === terminalId) this.release(key);
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const key of [...this.#registrations.keys()]) this.release(key);
    this.#onDidReceive.dispose();
  }

  /** Reads the finished files in order of their names (pid.nanoseconds), one drain at a time. */
  async #drain(registration: Registration): Promise<void> {
    if (registration.reading) {
      registration.again = true;
      return;
    }
    const terminalId = registration.terminalId;
    if (terminalId === null) return;
    registration.reading = true;
    try {
      do {
        registration.again = false;
        const names = (await readdir(registration.dir).catch(() => [] as string[])).filter((name) => name.endsWith('.json') && !name.startsWith('.'));
        names.sort((a, b) => Number(a.split('.')[1] ?? 0) - Number(b.split('.')[1] ?? 0));
        for (const name of names) {
          const path = join(registration.dir, name);
          const size = (await stat(path).catch(() => null))?.size ?? 0;
          const text = size > 0 && size <= maxHookFileBytes ? await readFile(path, 'utf8').catch(() => null) : null;
          await unlink(path).catch(() => {});
          if (text === null) continue;
          const hook = this.#parse(text);
          if (hook && !this.#disposed && this.#registrations.get(registration.key) === registration) {
            this.#onDidReceive.fire({ terminalId, hook });
          }
        }
      } while (registration.again && !this.#disposed);
    } finally {
      registration.reading = false;
    }
  }

  #parse(text: string): AgentHookState | null {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.#logger.warn('an agent hook wrote something that is not JSON; ignored');
      return null;
    }
    const parsed = HookInput.safeParse(json);
    if (!parsed.success) {
      this.#logger.warn('an agent hook input has an unexpected shape; ignored', { issue: parsed.error.issues[0]?.message });
      return null;
    }
    return stateOfHook(parsed.data, Date.now());
  }
}
