/**
 * What agents did to terminals through the control socket: create, send, exec, close, signal,
 * resize, rename. In memory and bounded (the UI's Activity view and persistence come later and
 * build on `onDidRecord`).
 */
import { ControlConstants } from '../../common/constants.ts';
import { Emitter, type Event } from '../../common/event.ts';
import type { IDisposable } from '../../common/lifecycle.ts';

export interface AuditEntry {
  seq: number;
  /** Epoch ms. */
  at: number;
  /** The client's name (`clientName`), or "socket client". */
  peer: string;
  cmd: string;
  terminalId: string;
  /** One line for people: what was typed, which signal, the new size… */
  summary: string;
}

export interface AuditQuery {
  limit?: number | undefined;
  peer?: string | undefined;
  terminalId?: string | undefined;
}

/** Longest summary kept; a 1 MiB `send` is not worth keeping whole in an audit line. */
const maxSummaryChars = 200;

export class AuditLog implements IDisposable {
  readonly #capacity: number;
  readonly #entries: AuditEntry[] = [];
  #nextSeq = 1;
  readonly #onDidRecord = new Emitter<AuditEntry>();
  readonly onDidRecord: Event<AuditEntry> = this.#onDidRecord.event;

  constructor(capacity: number = ControlConstants.auditEntries) {
    this.#capacity = capacity;
  }

  record(entry: Omit<AuditEntry, 'seq' | 'at' | 'summary'> & { summary: string; at?: number }): AuditEntry {
    const full: AuditEntry = {
      seq: this.#nextSeq++,
      at: entry.at ?? Date.now(),
      peer: entry.peer,
      cmd: entry.cmd,
      terminalId: entry.terminalId,
      summary: summarize(entry.summary),
    };
    this.#entries.push(full);
    if (this.#entries.length > this.#capacity) this.#entries.splice(0, this.#entries.length - this.#capacity);
    this.#onDidRecord.fire(full);
    return full;
  }

  /** The newest matching entries (at most `limit`), oldest first. */
  query(query: AuditQuery = {}): AuditEntry[] {
    const limit = query.limit ?? 100;
    const result: AuditEntry[] = [];
    for (let index = this.#entries.length - 1; index >= 0 && result.length < limit; index--) {
      const entry = this.#entries[index]!;
      if (query.peer !== undefined && entry.peer !== query.peer) continue;
      if (query.terminalId !== undefined && entry.terminalId !== query.terminalId) continue;
      result.push(entry);
    }
    return result.reverse();
  }

  dispose(): void {
    this.#onDidRecord.dispose();
  }
}

/** Control chars made visible (\r, \n, \x1b…) and the length capped, so a summary is one readable line. */
export function summarize(text: string): string {
  const visible = text.replace(/[\x00-\x1f\x7f]/g, (char) => {
    if (char === '\r') return '\\r';
    if (char === '\n') return '\\n';
    if (char === '\t') return '\\t';
    return '\\x' + char.charCodeAt(0).toString(16).padStart(2, '0');
  });
  return visible.length > maxSummaryChars ? visible.substring(0, maxSummaryChars - 1) + '…' : visible;
}
