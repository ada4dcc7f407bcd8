/**
 * Agents' prompts of a machine as a remote viewer answers them (issue 19): a Switchboard daemon
 * sends an agent's permission prompt in a shared pane as `permissionRequest` (toolInput `kind:
 * "agentPermission"`, src/node/relay/agentPrompts.ts) and its question as `question` (with the
 * `terminalId` and `since` extension fields). The view answers the prompt the person sees — the
 * pane's agent state, which `agentTerminalUpdated` carries — with `agent.answer`, mapped here onto
 * `permissionResponse {approved}` / `questionResponse {answer: the option's label}`, and waits for
 * the machine's result on this viewer's channel: done, or refused with the machine's reason (the
 * prompt had gone, was answered on the machine first, …) — nothing was typed then.
 */
import { z } from 'zod';
import type { AgentAnswerParams } from '../common/api/agentContract.ts';
import { ApiError } from '../common/api/errors.ts';
import type { IDisposable } from '../common/lifecycle.ts';
import type { RelayFields } from '../common/protocol/relay/messages.ts';

/** The part of a daemon's `toolInput` this view needs to tell an agent's prompt from a review and tie it to its pane. */
export const AgentPermissionInput = z.object({
  kind: z.literal('agentPermission'),
  terminalId: z.string().min(1).max(64),
  since: z.number(),
  reason: z.string().max(4000).optional(),
  options: z.array(z.string().max(500)).max(20).optional(),
});

interface PendingPrompt {
  requestId: string;
  sessionId: string;
  kind: 'permission' | 'question';
  terminalId: string;
  since: number;
  /** A question's option labels, in order. */
  labels: string[];
}

interface Waiting {
  resolve(): void;
  reject(error: ApiError): void;
  timer: ReturnType<typeof setTimeout>;
}

export const RelayAgentPromptsConstants = {
  /** The machine types an answer after the dialog is 400 ms old and re-reads its screen first: its result comes well within this. */
  answerTimeoutMs: 15_000,
} as const;

export interface RelayAgentPromptsOptions {
  /** Send a frame on this viewer's channel; false when the relay is not reachable. */
  send(frame: { type: 'permissionResponse'; fields: Omit<RelayFields<'permissionResponse'>, 'channelId'> } | { type: 'questionResponse'; fields: Omit<RelayFields<'questionResponse'>, 'channelId'> }): boolean;
  machineId: string;
  answerTimeoutMs?: number;
}

export class RelayAgentPrompts implements IDisposable {
  readonly #options: RelayAgentPromptsOptions;
  readonly #pending = new Map<string, PendingPrompt>();
  readonly #waiting = new Map<string, Waiting>();

  constructor(options: RelayAgentPromptsOptions) {
    this.#options = options;
  }

  /** A `permissionRequest`: kept when it is an agent's prompt (true); false leaves it to the reviews. */
  addPermission(frame: RelayFields<'permissionRequest'>): boolean {
    const input = AgentPermissionInput.safeParse(frame.toolInput);
    if (!input.success) return false;
    this.#add({ requestId: frame.requestId, sessionId: frame.sessionId, kind: 'permission', terminalId: input.data.terminalId, since: input.data.since, labels: [] });
    return true;
  }

  /** A `question`: kept when it names the pane that asks (false: nothing here can show it). */
  addQuestion(frame: RelayFields<'question'>): boolean {
    if (frame.terminalId === undefined || frame.since === undefined) return false;
    const labels = (frame.options ?? []).map((option) => option.label);
    this.#add({ requestId: frame.requestId, sessionId: frame.sessionId, kind: 'question', terminalId: frame.terminalId, since: frame.since, labels });
    return true;
  }

  /** The machine settled a request for every viewer (channel "*"): true when it was an agent's prompt. */
  settle(requestId: string): boolean {
    return this.#pending.delete(requestId) || requestId.startsWith('agent:');
  }

  /** This viewer's answer was typed, or refused with the machine's reason (a frame on its own channel). */
  result(frame: { requestId: string; outcome?: string | undefined; reason?: string | undefined }): boolean {
    const waiting = this.#waiting.get(frame.requestId);
    if (!waiting) return false;
    this.#waiting.delete(frame.requestId);
    clearTimeout(waiting.timer);
    if (frame.outcome === 'refused') waiting.reject(new ApiError('INVALID_PARAMS', frame.reason || 'the machine refused the answer (nothing was typed)'));
    else waiting.resolve();
    return true;
  }

  /** `agent.answer` in the remote view: resolves once the machine typed it, rejects with its reason when it did not. */
  async answer(params: AgentAnswerParams): Promise<void> {
    const prompt = [...this.#pending.values()].reverse().find((candidate) => candidate.terminalId === params.terminalId);
    if (!prompt) throw new ApiError('INVALID_PARAMS', `the prompt in terminal ${params.terminalId} is gone — answered on ${this.#options.machineId}, or the agent moved on (nothing was sent)`);
    if (prompt.since !== params.expectSince) {
      throw new ApiError('INVALID_PARAMS', `the prompt in terminal ${params.terminalId} was answered or replaced since you saw it (nothing was sent)`);
    }
    if (this.#waiting.has(prompt.requestId)) throw new ApiError('INVALID_PARAMS', 'an answer to this prompt is on its way (nothing more was sent)');
    const { answer } = params;
    let sent: boolean;
    if (prompt.kind === 'permission') {
      if (typeof answer === 'object') throw new ApiError('INVALID_PARAMS', 'through the relay a permission prompt takes Approve or Deny');
      sent = this.#options.send({ type: 'permissionResponse', fields: { sessionId: prompt.sessionId, requestId: prompt.requestId, approved: answer === 'approve' } });
    } else {
      if (typeof answer !== 'object') throw new ApiError('INVALID_PARAMS', `the prompt in terminal ${params.terminalId} is a question: pick one of its options`);
      const label = prompt.labels[answer.option - 1];
      if (label === undefined) throw new ApiError('INVALID_PARAMS', `the question has ${prompt.labels.length} options, not ${answer.option}`);
      sent = this.#options.send({ type: 'questionResponse', fields: { sessionId: prompt.sessionId, requestId: prompt.requestId, answer: label } });
    }
    if (!sent) throw new ApiError('CONNECTION_CLOSED', 'the connection to the relay is closed (nothing was sent)');
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(prompt.requestId);
        reject(new ApiError('TIMEOUT', `${this.#options.machineId} did not confirm the answer within ${Math.round(this.#timeoutMs / 1000)} s; look at the pane to see whether it was taken`));
      }, this.#timeoutMs);
      this.#waiting.set(prompt.requestId, { resolve, reject, timer });
    });
  }

  dispose(): void {
    for (const waiting of this.#waiting.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(new ApiError('CONNECTION_CLOSED', 'the connection to the relay closed before the machine confirmed the answer'));
    }
    this.#waiting.clear();
    this.#pending.clear();
  }

  get #timeoutMs(): number {
    return this.#options.answerTimeoutMs ?? RelayAgentPromptsConstants.answerTimeoutMs;
  }

  #add(prompt: PendingPrompt): void {
    // One prompt per pane at a time: a newer one replaces what that pane asked before.
    for (const [requestId, other] of this.#pending) if (other.terminalId === prompt.terminalId && requestId !== prompt.requestId) this.#pending.delete(requestId);
    this.#pending.set(prompt.requestId, prompt);
  }
}
