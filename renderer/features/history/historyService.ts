/**
 * The window's side of History that lives outside the History view: whether the Hub is recording
 * (the sidebar's warning dot, the view's banner), which terminals are marked "don't record" (the
 * tab bar's toggle), and requests to open a session in the view from elsewhere. Owned by the
 * Workbench.
 */
import type { HistoryStatus } from '../../../src/common/api/historyContract.ts';
import type { IHubClient } from '../../../src/common/api/hubClient.ts';
import { Disposable } from '../../../src/common/lifecycle.ts';
import { errorCode } from '../../app/errorList.ts';
import { ObservableValue } from '../../app/observable.ts';

/** Where the History view should go when it opens: a session, optionally at a byte offset with words to highlight. */
export interface HistoryOpenRequest {
  sessionId: string;
  offset?: number;
  terms?: string[];
}

/** What the e2e test hook reads from the open session viewer. */
export interface HistoryViewerProbe {
  readScreen(): string;
}

const movedAsideSeenKey = 'switchboard.history.movedAsideSeen';
const interruptedSeenKey = 'switchboard.history.interruptedSeen';

export class HistoryService extends Disposable {
  readonly #client: IHubClient;
  readonly #reportError: (title: string, error: unknown) => void;
  /** null until loaded (or when this Hub has no history store). */
  readonly status = this.register(new ObservableValue<HistoryStatus | null>(null));
  /** Terminals marked "don't record" (from `history.status` at start, then `history.recordingChanged`). */
  readonly notRecorded = this.register(new ObservableValue<ReadonlySet<string>>(new Set()));
  /** The "database was moved aside" notice, until the person dismisses it (once per moved file). */
  readonly movedAsideNotice = this.register(new ObservableValue<string | null>(null));
  /** The "the last run stopped while recording" notice, until the person dismisses it (once per such stop). */
  readonly interruptedNotice = this.register(new ObservableValue<NonNullable<HistoryStatus['interrupted']> | null>(null));
  readonly openRequest = this.register(new ObservableValue<HistoryOpenRequest | null>(null));
  /** The session viewer on screen, for the e2e test hook. */
  activeViewer: HistoryViewerProbe | null = null;

  constructor(client: IHubClient, reportError: (title: string, error: unknown) => void) {
    super();
    this.#client = client;
    this.#reportError = reportError;
  }

  async start(): Promise<void> {
    this.register(this.#client.on('history.statusChanged', (status) => this.#setStatus(status)));
    this.register(this.#client.on('history.recordingChanged', ({ terminalId, record }) => this.#markRecorded(terminalId, record)));
    // A closed terminal's mark goes with it (the Hub forgets it too).
    this.register(this.#client.on('terminal.removed', ({ id }) => this.#markRecorded(id, true)));
    try {
      const status = await this.#client.call('history.status', {});
      if (!this.store.isDisposed) {
        this.#setStatus(status);
        // A window opened (or reloaded) after terminals were marked still shows their marks.
        this.notRecorded.set(new Set(status.notRecorded));
      }
    } catch (error) {
      if (errorCode(error) !== 'CONNECTION_CLOSED') this.#reportError('Could not read the history recording status', error);
    }
  }

  isRecorded(terminalId: string): boolean {
    return !this.notRecorded.value.has(terminalId);
  }

  async setRecording(terminalId: string, record: boolean): Promise<void> {
    try {
      await this.#client.call('history.setRecording', { terminalId, record });
      // The event says the same; applying it here too keeps the toggle right if events lag.
      this.#markRecorded(terminalId, record);
    } catch (error) {
      this.#reportError(record ? 'Could not record this terminal again' : 'Could not stop recording this terminal', error);
    }
  }

  dismissMovedAside(): void {
    const path = this.movedAsideNotice.value;
    if (path) rememberSeen(movedAsideSeenKey, path);
    this.movedAsideNotice.set(null);
  }

  dismissInterrupted(): void {
    const notice = this.interruptedNotice.value;
    if (notice) rememberSeen(interruptedSeenKey, String(notice.lastRecordedAt));
    this.interruptedNotice.set(null);
  }

  #markRecorded(terminalId: string, record: boolean): void {
    if (this.notRecorded.value.has(terminalId) !== record) return;
    const next = new Set(this.notRecorded.value);
    if (record) next.delete(terminalId);
    else next.add(terminalId);
    this.notRecorded.set(next);
  }

  #setStatus(status: HistoryStatus): void {
    this.status.set(status);
    if (status.movedAside && !wasSeen(movedAsideSeenKey, status.movedAside)) this.movedAsideNotice.set(status.movedAside);
    // Optional: a Hub from before this field sends none.
    const interrupted = status.interrupted ?? null;
    if (interrupted && !wasSeen(interruptedSeenKey, String(interrupted.lastRecordedAt))) this.interruptedNotice.set(interrupted);
  }
}

/** Whether this notice (by key, for this value) was dismissed before. */
function wasSeen(key: string, value: string): boolean {
  try {
    return localStorage.getItem(key) === value;
  } catch {
    return false;
  }
}

function rememberSeen(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Without storage the notice shows again next start; that is the safe side.
  }
}
