/**
 * The agents' audit log on the client API: `audit.list`, and the `audit.recorded` and
 * `terminal.agentInput` events, so the person sees in the UI what agents do to terminals.
 */
import type { AuditEntry, EventPayload, HubEvent } from '../../common/api/contract.ts';
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

  constructor(options: { audit: AuditLog; ptyHost: PtyHost; broadcast: Broadcast }) {
    super();
    this.#audit = options.audit;
    this.#ptyHost = options.ptyHost;
    this.register(
      this.#audit.onDidRecord((entry) => {
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

  #toApi(entry: ControlAuditEntry): AuditEntry {
    return {
      seq: entry.seq,
      at: entry.at,
      peer: entry.peer,
      cmd: entry.cmd,
      terminalId: entry.terminalId || null,
      // The name it had then (entries outlive their terminals and restarts), else the name it has now.
      terminalName: entry.terminalName ?? this.#ptyHost.get(entry.terminalId)?.info.name ?? null,
      summary: entry.summary,
    };
  }
}

/** The audit summary of typed input without the Enter at its end: "npm test\r" reads as "npm test". */
export function inputPreview(summary: string): string {
  return summary.replace(/(\\r|\\n)+$/, '').slice(0, 200);
}
