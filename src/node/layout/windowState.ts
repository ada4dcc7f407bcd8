/**
 * The window's tabs, splits and each pane's name and cwd, kept on disk
 * (`$SWITCHBOARD_HOME/window-state.json`, 0600, written atomically) so the next start can bring
 * them back. Writes are debounced; `freeze()` at shutdown writes the last state and stops
 * recording, because ending the terminals empties the layout and that must not be what is saved.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { Layout, TerminalId, type TerminalInfo } from '../../common/api/contract.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import { writePrivateFileAtomic } from '../paths.ts';
import { AgentPaneRestore } from '../workspaces/agentRestore.ts';

export const WindowStateFile = z
  .object({
    version: z.literal(1),
    savedAt: z.number(),
    layout: Layout,
    /** Every pane of the layout: what to bring back for it. */
    panes: z.record(
      TerminalId,
      z
        .object({
          name: z.string().max(200),
          cwd: z.string().max(4096),
          /**
           * The session a restored pane showed: if the pane is left untouched its own session leaves
           * no trace (History's no-input rule), and the next restore shows this one again.
           */
          restoredFromSessionId: z.string().max(64).nullable().optional(),
          /**
           * "Don't record this terminal" was chosen for the pane: a privacy choice, so the restored
           * pane is not recorded either. Absent (files written before it existed): recorded.
           */
          notRecorded: z.boolean().optional(),
          /** A pane started from an agent profile: restored as that agent (resumed when it can be). Absent: a plain pane. */
          agent: AgentPaneRestore.optional(),
        })
        .strict(),
    ),
  })
  .strict();
export type WindowStateFile = z.infer<typeof WindowStateFile>;

/** Long enough to fold a burst of layout edits (dragging a split) into one write. */
const saveDelayMs = 300;

export function windowStateFilePath(dataDir: string): string {
  return join(dataDir, 'window-state.json');
}

/** The terminal ids of a layout's panes, in tab order, depth first. */
export function layoutTerminalIds(layout: Layout): string[] {
  const ids: string[] = [];
  const walk = (node: Layout['tabs'][number]['root']): void => {
    if (node.type === 'pane') ids.push(node.terminalId);
    else for (const child of node.children) walk(child);
  };
  for (const tab of layout.tabs) walk(tab.root);
  return ids;
}

/** Reads the saved state; null when there is none or it cannot be used (logged). */
export async function loadWindowState(filePath: string, logger: ILogger): Promise<WindowStateFile | null> {
  let text: string;
  try {
    text = await readFile(filePath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') logger.warn('cannot read the saved window state', { filePath, error });
    return null;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    logger.warn('the saved window state is not JSON; starting with a new window', { filePath });
    return null;
  }
  const parsed = WindowStateFile.safeParse(json);
  if (!parsed.success) {
    logger.warn('the saved window state is not valid; starting with a new window', { filePath, issues: parsed.error.issues.slice(0, 3) });
    return null;
  }
  return parsed.data;
}

export interface WindowStateRecorderOptions {
  filePath: string;
  logger: ILogger;
  /** The current info of a terminal, for its name and cwd. */
  terminalInfo: (id: string) => TerminalInfo | undefined;
  /** Whether "don't record" was chosen for a terminal (History). */
  notRecorded: (id: string) => boolean;
  /** The agent profile a pane was started from, if it was (agent workspaces). */
  agentOf?: (id: string) => AgentPaneRestore | undefined;
}

export class WindowStateRecorder implements IDisposable {
  readonly #options: WindowStateRecorderOptions;
  #layout: Layout | null = null;
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  #frozen = false;

  constructor(options: WindowStateRecorderOptions) {
    this.#options = options;
  }

  /** The layout changed (a client's `layout.set`, or a restore). */
  noteLayout(layout: Layout): void {
    if (this.#frozen) return;
    this.#layout = layout;
    this.#schedule();
  }

  /** A pane's name or cwd may have changed. */
  noteTerminalChanged(info: TerminalInfo): void {
    this.notePaneChanged(info.id);
  }

  /** Something saved for a pane changed (its name, cwd, or whether it is recorded). */
  notePaneChanged(terminalId: string): void {
    if (this.#frozen || !this.#layout || !layoutTerminalIds(this.#layout).includes(terminalId)) return;
    this.#schedule();
  }

  /** Write the state now instead of after the debounce; resolves once it is on disk (or the write failed, logged). */
  async saveNow(): Promise<void> {
    if (this.#frozen) return this.#writing;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#save();
    return this.#writing;
  }

  /** Write what is pending now and record nothing after (shutdown). */
  async freeze(): Promise<void> {
    if (this.#frozen) return this.#writing;
    const pending = this.#timer !== undefined;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (pending) this.#save();
    this.#frozen = true;
    return this.#writing;
  }

  dispose(): void {
    // A hard stop still saves what the debounce held back; the write finishes on its own.
    void this.freeze();
  }

  #schedule(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#save();
    }, saveDelayMs);
    this.#timer.unref();
  }

  #save(): void {
    const layout = this.#layout;
    if (!layout) return;
    const panes: WindowStateFile['panes'] = {};
    for (const id of layoutTerminalIds(layout)) {
      const info = this.#options.terminalInfo(id);
      if (!info) continue;
      panes[id] = { name: info.name, cwd: info.cwd, restoredFromSessionId: info.restoredFrom?.sessionId ?? null };
      if (this.#options.notRecorded(id)) panes[id].notRecorded = true;
      const agent = this.#options.agentOf?.(id);
      if (agent) panes[id].agent = agent;
    }
    const state: WindowStateFile = { version: 1, savedAt: Date.now(), layout, panes };
    const { filePath, logger } = this.#options;
    // Writes stay in order: a slow earlier write must not land after a newer one.
    this.#writing = this.#writing.then(() =>
      writePrivateFileAtomic(filePath, `${JSON.stringify(state)}\n`).catch((error: unknown) =>
        logger.warn('cannot save the window state', { filePath, error }),
      ),
    );
  }
}
