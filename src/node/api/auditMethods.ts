/**
 * The agents' audit log on the client API: `audit.list`, and the `audit.recorded` and
 * `terminal.agentInput` events, so the person sees in the UI what agents do to terminals.
 */
import type { AuditEntry, EventPayload, HubEvent } from '../../common/api/contract.ts';
import { ControlConstants } from '../../common/constants.ts';
import { Disposable } from '../../common/lifecycle.ts';
import type { AuditEntry as ControlAuditEntry, AuditLog } from '../control/auditLog.ts';
import type { PtyHost } from '../pty/ptyHost.ts';
import type { HubMethodHandlers } from './hubConnection.ts';

/** Commands whose audit entry means "the agent typed this into the terminal". */
const inputCommands = new Set(['send', 'exec']);

type Broadcast = <E extends HubEvent>(event: E, payload: EventPayload<E>) => void;

export class AuditFeed extends Disposable {
  readonly #audit: AuditLog;
  readonly #ptyHost: PtyHost;
  /**
   * Terminal names as they were when each entry was recorded, by seq: a closed terminal's entries
   * still say which terminal it was. Bounded like the log itself.
   */
  readonly #terminalNames = new Map<number, string>();

  constructor(options: { audit: AuditLog; ptyHost: PtyHost; broadcast: Broadcast }) {
    super();
    this.#audit = options.audit;
    this.#ptyHost = options.ptyHost;
    this.register(
      this.#audit.onDidRecord((entry) => {
        this.#rememberName(entry);
        options.broadcast('audit.recorded', this.#toApi(entry));
        if (inputCommands.has(entry.cmd) && entry.terminalId) {
          options.broadcast('terminal.agentInput', { id: entry.terminalId, peer: entry.peer, text: inputPreview(entry.summary) });
        }
      }),
    );
  }

  readonly methods: Pick<HubMethodHandlers, 'audit.list'> = {
    'audit.list': ({ limit, peer, terminalId }) =>
      this.#audit
        .query({ limit: limit ?? 100, peer, terminalId })
        .reverse()
        .map((entry) => this.#toApi(entry)),
  };

  #rememberName(entry: ControlAuditEntry): void {
    const name = this.#ptyHost.get(entry.terminalId)?.info.name;
    if (name === undefined) return;
    this.#terminalNames.set(entry.seq, name);
    // Map order is insertion order, which is seq order: the first key is the oldest.
    while (this.#terminalNames.size > ControlConstants.auditEntries) this.#terminalNames.delete(this.#terminalNames.keys().next().value!);
  }

  #toApi(entry: ControlAuditEntry): AuditEntry {
    return {
      seq: entry.seq,
      at: entry.at,
      peer: entry.peer,
      cmd: entry.cmd,
      terminalId: entry.terminalId || null,
      terminalName: this.#terminalNames.get(entry.seq) ?? this.#ptyHost.get(entry.terminalId)?.info.name ?? null,
      summary: entry.summary,
    };
  }
}

/** The audit summary of typed input without the Enter at its end: "npm test\r" reads as "npm test". */
export function inputPreview(summary: string): string {
  return summary.replace(/(\\r|\\n)+$/, '').slice(0, 200);
}
