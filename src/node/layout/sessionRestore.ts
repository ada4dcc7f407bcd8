/**
 * Brings the previous window back at start: every pane of the saved layout gets a fresh shell in
 * its old cwd under its old name, with the last screen of its previous session (from History)
 * shown above the prompt and marked "restored". Processes do not survive a quit; their output
 * does, in History.
 */
import { stat } from 'node:fs/promises';
import type { Layout, LayoutNode, RestoredFrom } from '../../common/api/contract.ts';
import { TerminalConstants } from '../../common/constants.ts';
import type { ILogger } from '../logger.ts';
import type { PtyHost } from '../pty/ptyHost.ts';
import type { RecordedTail } from '../history/historyStore.ts';
import { renderLastScreen } from './lastScreen.ts';
import { layoutTerminalIds, type WindowStateFile } from './windowState.ts';
import type { AgentPaneRestore } from '../workspaces/agentRestore.ts';

/** A pane that ran an agent from a profile, to bring back as that agent (see WorkspaceService.restoreAgentPane). */
export interface AgentPaneRestoreRequest {
  agent: AgentPaneRestore;
  name: string | undefined;
  cols: number | undefined;
  rows: number | undefined;
  /** The previous session's last screen (with its line break), '' when none. */
  lastScreen: string;
  from: RestoredFrom;
  notRecorded: boolean;
  fallbackCwd: string;
}

/** What restore needs from History: the newest recorded session of a terminal id, and its tail. */
export interface RestoreHistorySource {
  latestSessionOfTerminal(terminalId: string): PreviousSession | null;
  get(sessionId: string): PreviousSession | null;
  /** The last `maxBytes` (at most) of the session's recorded output, with the sizes it was written at. */
  tail(sessionId: string, maxBytes: number): RecordedTail;
}

interface PreviousSession {
  id: string;
  endedAt: number | null;
  cols: number;
  rows: number;
}

/** Enough output to rebuild a screen of any sane size, small enough to parse at start in a blink. */
const tailBytesForLastScreen = 256 * 1024;

export interface RestoreOptions {
  state: WindowStateFile;
  ptyHost: PtyHost;
  history: RestoreHistorySource | null;
  /** Where a pane goes whose old cwd no longer exists. */
  fallbackCwd: string;
  /**
   * Marks a restored pane "don't record" (History). Called as soon as its terminal exists, before
   * History writes anything of it: a privacy choice holds from the first byte.
   */
  excludeFromHistory: (terminalId: string) => void;
  /** Brings back a pane started from an agent profile; answers its new terminal id. Absent: such panes come back as shells. */
  restoreAgent?: (request: AgentPaneRestoreRequest) => Promise<string>;
  logger: ILogger;
}

export interface RestoredWindow {
  /** The saved layout with the new terminal ids (panes that could not start are left out). */
  layout: Layout;
  /** Old terminal id → the id of the pane that replaces it. */
  newIds: ReadonlyMap<string, string>;
}

/** Creates the panes and returns the layout with their new ids; null if none could start. */
export async function restoreWindow(options: RestoreOptions): Promise<RestoredWindow | null> {
  const { state, ptyHost, history, logger } = options;
  const newIds = new Map<string, string>();
  for (const oldId of layoutTerminalIds(state.layout)) {
    if (newIds.has(oldId)) continue;
    const saved = state.panes[oldId];
    try {
      const previous = lookUpPrevious(history, oldId, saved?.restoredFromSessionId ?? null, logger);
      const from: RestoredFrom = { sessionId: previous?.id ?? null, endedAt: previous?.endedAt ?? null };
      const screen = previous && history ? await lastScreenOf(history, previous, logger) : '';
      const notRecorded = saved?.notRecorded === true;
      const size = previous ? { cols: clamp(previous.cols, TerminalConstants.minCols, TerminalConstants.maxCols), rows: clamp(previous.rows, TerminalConstants.minRows, TerminalConstants.maxRows) } : null;
      if (saved?.agent && options.restoreAgent) {
        const id = await options.restoreAgent({
          agent: saved.agent,
          name: saved.name,
          cols: size?.cols,
          rows: size?.rows,
          lastScreen: screen,
          from,
          notRecorded,
          fallbackCwd: options.fallbackCwd,
        });
        if (notRecorded) excludeFromHistory(options, id, logger);
        newIds.set(oldId, id);
        continue;
      }
      const cwd = saved && (await isDirectory(saved.cwd)) ? saved.cwd : options.fallbackCwd;
      const info = await ptyHost.create({
        cwd,
        ...(saved ? { name: saved.name } : {}),
        ...(size ?? {}),
        createdBy: { kind: 'person', name: 'you' },
        restore: { preamble: screen + restoredBanner(from, { notRecorded }), from },
      });
      // In the same turn as the create: History writes on a timer, so nothing of the pane is stored yet.
      if (notRecorded) excludeFromHistory(options, info.id, logger);
      newIds.set(oldId, info.id);
    } catch (error) {
      logger.warn('could not restore a pane; leaving it out', { terminalId: oldId, error });
    }
  }
  if (newIds.size === 0) return null;
  const layout = remapLayout(state.layout, newIds);
  return layout ? { layout, newIds } : null;
}

function excludeFromHistory(options: RestoreOptions, terminalId: string, logger: ILogger): void {
  try {
    options.excludeFromHistory(terminalId);
  } catch (error) {
    // The terminal was created this very turn, so this is not expected; losing the pane would be worse.
    logger.warn('cannot mark a restored pane "don\'t record"', { terminalId, error });
  }
}

/** The pane's own last session, else (it was a restored pane nobody used) the one it was showing. */
function lookUpPrevious(history: RestoreHistorySource | null, terminalId: string, shownSessionId: string | null, logger: ILogger): PreviousSession | null {
  if (!history) return null;
  try {
    return history.latestSessionOfTerminal(terminalId) ?? (shownSessionId === null ? null : history.get(shownSessionId));
  } catch (error) {
    logger.warn('cannot look up the previous session of a pane', { terminalId, error });
    return null;
  }
}

async function lastScreenOf(history: RestoreHistorySource, session: { id: string }, logger: ILogger): Promise<string> {
  try {
    const screen = await renderLastScreen(history.tail(session.id, tailBytesForLastScreen));
    return screen ? `${screen}\r\n` : '';
  } catch (error) {
    logger.warn('cannot rebuild the last screen of a session', { sessionId: session.id, error });
    return '';
  }
}

/** The dim rule under the old screen that says what it is. */
export function restoredBanner(from: RestoredFrom, options: { notRecorded?: boolean } = {}): string {
  const when = from.endedAt === null ? '' : ` · ended ${formatLocalTime(from.endedAt)}`;
  // Short enough not to wrap in a narrow split; the pane's "restored" badge explains the rest.
  let what = from.sessionId === null ? 'restored · nothing of the previous session was recorded' : `restored${when}`;
  // The privacy choice is said where the person looks, not only on the tab's record button.
  if (options.notRecorded) what = from.sessionId === null ? 'restored · not recorded in History' : `restored${when} · not recorded in History`;
  return `\x1b[0m\x1b[2m── ${what} ──\x1b[0m\r\n`;
}

function formatLocalTime(epochMs: number): string {
  const date = new Date(epochMs);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** The layout with old terminal ids replaced; panes without a new id are dropped and emptied splits removed. */
export function remapLayout(layout: Layout, newIds: ReadonlyMap<string, string>): Layout | null {
  const remapNode = (node: LayoutNode): LayoutNode | null => {
    if (node.type === 'pane') {
      const id = newIds.get(node.terminalId);
      return id ? { type: 'pane', terminalId: id } : null;
    }
    const kept: Array<{ child: LayoutNode; size: number | undefined }> = [];
    node.children.forEach((child, index) => {
      const remapped = remapNode(child);
      if (remapped) kept.push({ child: remapped, size: node.sizes[index] });
    });
    if (kept.length === 0) return null;
    if (kept.length === 1) return kept[0]!.child;
    const sizes = kept.every((entry) => entry.size !== undefined) && kept.length === node.children.length ? kept.map((entry) => entry.size!) : kept.map(() => 100 / kept.length);
    return { type: 'split', direction: node.direction, sizes, children: kept.map((entry) => entry.child) };
  };
  const tabs: Layout['tabs'] = [];
  for (const tab of layout.tabs) {
    const root = remapNode(tab.root);
    if (root) tabs.push({ ...tab, root });
  }
  if (tabs.length === 0) return null;
  const activeTabId = tabs.some((tab) => tab.id === layout.activeTabId) ? layout.activeTabId : tabs[0]!.id;
  const focusedTerminalId = layout.focusedTerminalId ? (newIds.get(layout.focusedTerminalId) ?? null) : null;
  return { tabs, activeTabId, focusedTerminalId };
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
