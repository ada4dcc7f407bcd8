import type { Settings, TerminalInfo } from '../../../src/common/api/contract.ts';
import type { IHubClient } from '../../../src/common/api/hubClient.ts';
import { Disposable, toDisposable } from '../../../src/common/lifecycle.ts';
import type { ObservableValue } from '../../app/observable.ts';
import type { ColorScheme } from '../../app/theme.ts';
import { TerminalSession } from './terminalSession.ts';
import { OutputScheduler } from './outputScheduler.ts';
import { xtermTheme } from './xtermThemes.ts';
import { webglWanted } from './webglSupport.ts';
import type { TypeAheadStore } from './typeAhead.ts';

/**
 * Chromium allows 16 live WebGL contexts per page and drops the oldest beyond that; staying
 * under it keeps the last panes from silently losing their renderer. Only panes that can be seen
 * hold one (a hidden pane gives its context back, see TerminalSession.setVisible); a pane shown
 * when all are taken takes one from a hidden pane, else it uses xterm's DOM renderer.
 */
const webglContextBudget = 12;

export interface SessionRegistryOptions {
  client: IHubClient;
  settings: ObservableValue<Settings>;
  colorScheme: ObservableValue<ColorScheme>;
  terminals: ObservableValue<ReadonlyMap<string, TerminalInfo>>;
  isAppShortcut(event: KeyboardEvent): boolean;
  reportError(title: string, error: unknown): void;
  /** A pane's terminal took keyboard focus. */
  onDidFocusTerminal(terminalId: string): void;
  /** The window's held input; it outlives this registry, so a reconnect's panes send what was typed into the old ones. */
  typeAhead: TypeAheadStore;
}

/** Owns every pane session of the window and routes the Hub's output events to them. */
export class SessionRegistry extends Disposable {
  readonly #options: SessionRegistryOptions;
  readonly #sessions = new Map<string, TerminalSession>();
  readonly #output = this.register(new OutputScheduler());

  constructor(options: SessionRegistryOptions) {
    super();
    this.#options = options;
    this.register(toDisposable(() => this.#disposeAll()));
  }

  start(): void {
    const { client, settings, colorScheme } = this.#options;
    this.register(client.on('terminal.output', (event) => this.#sessions.get(event.id)?.handleOutput(event)));
    this.register(settings.onDidChange((value) => this.#sessions.forEach((session) => session.applySettings(value))));
    this.register(
      colorScheme.onDidChange((scheme) => {
        const theme = xtermTheme(scheme);
        this.#sessions.forEach((session) => session.applyTheme(theme));
      }),
    );
  }

  get(terminalId: string): TerminalSession | undefined {
    return this.#sessions.get(terminalId);
  }

  get terminalIds(): string[] {
    return [...this.#sessions.keys()];
  }

  /** The session of a terminal, created and attached on first use. */
  acquire(terminalId: string): TerminalSession {
    const existing = this.#sessions.get(terminalId);
    if (existing) return existing;
    const { client, settings, colorScheme, terminals, isAppShortcut, reportError } = this.#options;
    const info = terminals.value.get(terminalId);
    const session = new TerminalSession({
      client,
      terminalId,
      size: info && { cols: info.cols, rows: info.rows },
      settings: settings.value,
      theme: xtermTheme(colorScheme.value),
      isRunning: () => terminals.value.get(terminalId)?.state === 'running',
      isAppShortcut,
      webglWanted: () => webglWanted(settings.value.gpuAcceleration),
      mayTakeWebglContext: () => this.#freeWebglContext(),
      onDidReleaseWebgl: () => queueMicrotask(() => this.#offerWebglContext()),
      reportError,
      typeAhead: this.#options.typeAhead.for(terminalId),
      output: this.#output,
    });
    session.onDidFocus(() => this.#options.onDidFocusTerminal(terminalId));
    this.#sessions.set(terminalId, session);
    void session.start();
    return session;
  }

  /** Detaches and drops every session whose terminal is not in `keep`, and the input held for them. */
  retainOnly(keep: ReadonlySet<string>): void {
    for (const [terminalId, session] of this.#sessions) {
      if (keep.has(terminalId)) continue;
      this.#sessions.delete(terminalId);
      session.dispose();
    }
    this.#options.typeAhead.retainOnly(keep);
  }

  /** Whether one more pane may take a WebGL context: under the budget, or after a hidden pane gave its one back. */
  #freeWebglContext(): boolean {
    const holders = [...this.#sessions.values()].filter((candidate) => candidate.usesWebgl);
    if (holders.length < webglContextBudget) return true;
    const hidden = holders.find((candidate) => !candidate.visible);
    hidden?.releaseWebgl();
    return hidden !== undefined;
  }

  /** A context came free: the first pane in view without one takes it. */
  #offerWebglContext(): void {
    for (const session of this.#sessions.values()) {
      if (session.visible && !session.usesWebgl) {
        session.updateWebgl();
        if (session.usesWebgl) return;
      }
    }
  }

  #disposeAll(): void {
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    for (const session of sessions) session.dispose();
  }
}
