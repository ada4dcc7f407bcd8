/**
 * Agent prompts over the relay (issue 19, "answer from your phone"): an agent CLI in a shared pane
 * that asks the person something is mirrored to every viewer of the machine —
 * - a permission prompt (Claude Code's "Do you want to proceed?") as `permissionRequest {toolName
 *   = the agent's tool, toolInput = AgentPermissionToolInput}`, answered by `permissionResponse
 *   {approved}`;
 * - a question (a selector over options, Claude Code's AskUserQuestion) as `question {question,
 *   options}`, answered by `questionResponse {answer = an option's label}`.
 * The `requestId` names one prompt instance (`agent:<terminalId>:<since>`): a new prompt in the
 * same pane is a new request. An answer goes through the same path as the app's Approve / Deny
 * (`agent.answer` with `expectSince`), so one for a prompt that has gone, was answered on the
 * machine first, or was replaced is refused and nothing is typed. Results (Switchboard extensions,
 * see docs/relay.md "Agent prompts"):
 * - to every viewer (channel "*"): the prompt settled — `permissionResponse {outcome: accepted |
 *   rejected | withdrawn}` / `questionResponse {outcome: answered | withdrawn}`, with `decidedBy`;
 *   `withdrawn` = it left the screen without an answer from a viewer (answered in the pane or the
 *   app, or the agent moved on);
 * - to the answering viewer only: the same frame with its result, `outcome: refused` and `reason`
 *   when nothing was typed.
 */
import type { AgentAnswerParams, AgentStatus } from '../../common/api/agentContract.ts';
import type { TerminalInfo } from '../../common/api/contract.ts';
import { isApiError } from '../../common/api/errors.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import { encodeFrame, rfc3339 } from '../../common/protocol/relay/frames.ts';
import { BROADCAST_CHANNEL_ID, type RelayFields } from '../../common/protocol/relay/messages.ts';
import type { ILogger } from '../logger.ts';
import type { PtyHost } from '../pty/ptyHost.ts';
import type { RelayLink } from './relayLink.ts';

/** Types an answer into a pane exactly as the app's `agent.answer` does (AgentMonitor.answer). */
export interface RelayAgentAnswers {
  answer(params: AgentAnswerParams): Promise<void>;
}

/** What a viewer gets in `permissionRequest.toolInput` for an agent's permission prompt (documented in docs/relay.md). */
export interface AgentPermissionToolInput {
  /** Tells it from a review (`openDiff`) and from other daemons' tool inputs. */
  kind: 'agentPermission';
  /** The tool's own main argument, as Claude Code names it, when the prompt shows it. */
  command?: string;
  file_path?: string;
  url?: string;
  /** What it asks, as the app shows it: `Bash: touch marker.txt`, `Edit notes.txt`. */
  reason: string;
  /** The options as the agent numbers them ("1. Yes", "2. Yes, and don't ask again …", "3. No"): approved = the plain "Yes", denied = "No" (or Esc). */
  options: string[];
  terminalId: string;
  terminalName: string;
  agent: { kind: string; label: string };
  /** Epoch ms the agent started asking (the `expectSince` of the answer). */
  since: number;
  /** The same, RFC 3339. */
  askedAt: string;
}

export const AGENT_PERMISSION_KIND = 'agentPermission';

interface Mirrored {
  requestId: string;
  kind: 'permission' | 'question';
  terminalId: string;
  since: number;
  /** Option labels without their numbers (questions: what `answer` names). */
  labels: string[];
  /** A viewer's answer is being typed: the prompt's going is that answer's result, not a withdrawal. */
  answering: boolean;
}

export interface AgentPromptsOptions {
  ptyHost: PtyHost;
  link: () => RelayLink | undefined;
  sessionId: string;
  isShared(terminalId: string): boolean;
  /** Without it (a bare relay client) prompts are mirrored but answers are refused. */
  answers: RelayAgentAnswers | undefined;
  /** A viewer's answer was typed: the local pane shows who answered what (`Approve`, `Deny`, the option's label). */
  onAnswered?: ((event: { terminalId: string; viewerName: string; text: string }) => void) | undefined;
  logger: ILogger;
}

type Outcome = 'accepted' | 'rejected' | 'answered' | 'withdrawn';

export class AgentPrompts implements IDisposable {
  readonly #options: AgentPromptsOptions;
  /** The prompt mirrored for each terminal (at most one: an agent asks one thing at a time). */
  readonly #byTerminal = new Map<string, Mirrored>();
  readonly #byRequest = new Map<string, Mirrored>();
  /**
   * The prompt a viewer answered last, per terminal: it stays on the screen (and in the agent's
   * state) for a moment after the keys went in, and must not be sent again as if new.
   */
  readonly #answered = new Map<string, string>();
  readonly #listeners: IDisposable[];

  constructor(options: AgentPromptsOptions) {
    this.#options = options;
    this.#listeners = [
      options.ptyHost.onDidAddTerminal((info) => this.#sync(info)),
      options.ptyHost.onDidChangeTerminal((info) => this.#sync(info)),
      options.ptyHost.onDidRemoveTerminal(({ id }) => {
        this.#withdraw(id);
        this.#answered.delete(id);
      }),
    ];
  }

  /** A link came up: its viewers know nothing yet (the relay forgot what the last one said). */
  announceAll(): void {
    this.#forget();
    for (const info of this.#options.ptyHost.list()) this.#sync(info);
  }

  linkClosed(): void {
    this.#forget();
  }

  /** The pane was shared or unshared. */
  refresh(terminalId: string): void {
    const info = this.#options.ptyHost.get(terminalId)?.info;
    if (info) this.#sync(info);
    else this.#withdraw(terminalId);
  }

  /** Whether `requestId` is an agent prompt this client mirrored (else it may be a review). */
  owns(requestId: string): boolean {
    return this.#byRequest.has(requestId) || requestId.startsWith('agent:');
  }

  /** A viewer's `permissionResponse` to an agent prompt. */
  async onPermissionResponse(message: RelayFields<'permissionResponse'>): Promise<void> {
    const mirrored = this.#byRequest.get(message.requestId);
    const reply = (outcome: 'accepted' | 'rejected' | 'refused', reason?: string) =>
      this.#send('permissionResponse', { sessionId: this.#options.sessionId, channelId: message.channelId, requestId: message.requestId, approved: outcome === 'accepted', outcome, ...(reason ? { reason } : {}) });
    if (mirrored && mirrored.kind !== 'permission') {
      reply('refused', 'this prompt is a question: answer it with questionResponse');
      return;
    }
    const answer = message.approved ? 'approve' : 'deny';
    const result = await this.#answer(mirrored, message.requestId, answer, message.viewerName);
    if ('refused' in result) reply('refused', result.refused);
    else reply(message.approved ? 'accepted' : 'rejected');
  }

  /** A viewer's `questionResponse`: `answer` is one of the options (its label, or its number). */
  async onQuestionResponse(message: RelayFields<'questionResponse'>): Promise<void> {
    const mirrored = this.#byRequest.get(message.requestId);
    const reply = (outcome: 'answered' | 'refused', reason?: string) =>
      this.#send('questionResponse', { sessionId: this.#options.sessionId, channelId: message.channelId, requestId: message.requestId, answer: message.answer, outcome, ...(reason ? { reason } : {}) });
    if (mirrored && mirrored.kind !== 'question') {
      reply('refused', 'this prompt asks for a permission: answer it with permissionResponse');
      return;
    }
    let option: number | undefined;
    if (mirrored) {
      option = optionOf(mirrored.labels, message.answer);
      if (option === undefined) {
        reply('refused', `${JSON.stringify(message.answer.slice(0, 200))} is not one of the options (${mirrored.labels.map((label) => JSON.stringify(label)).join(', ')}); nothing was typed`);
        return;
      }
    }
    const result = await this.#answer(mirrored, message.requestId, { option: option ?? 1 }, message.viewerName);
    if ('refused' in result) reply('refused', result.refused);
    else reply('answered');
  }

  dispose(): void {
    for (const listener of this.#listeners) listener.dispose();
    this.#forget();
  }

  async #answer(mirrored: Mirrored | undefined, requestId: string, answer: AgentAnswerParams['answer'], viewerName: string | undefined): Promise<{ ok: true } | { refused: string }> {
    if (!mirrored) return { refused: 'the prompt is gone — answered on the machine, or the agent moved on (nothing was typed)' };
    if (mirrored.answering) return { refused: 'another answer to this prompt is being typed (nothing more was typed)' };
    const answers = this.#options.answers;
    if (!answers) return { refused: 'this machine does not take answers to agent prompts over the relay (nothing was typed)' };
    const by = viewerName?.trim().slice(0, 200) || 'remote viewer';
    mirrored.answering = true;
    try {
      await answers.answer({ terminalId: mirrored.terminalId, answer, expectSince: mirrored.since });
    } catch (error) {
      mirrored.answering = false;
      if (!isApiError(error)) {
        this.#options.logger.error('typing a remote answer to an agent prompt failed', { requestId, terminalId: mirrored.terminalId, error: String(error) });
        return { refused: 'the machine could not type the answer (nothing was typed); answer in the pane' };
      }
      this.#options.logger.info('a remote answer to an agent prompt was refused', { requestId, terminalId: mirrored.terminalId, reason: error.message });
      // The prompt may have gone while the answer waited: settle it now rather than on the next change.
      const info = this.#options.ptyHost.get(mirrored.terminalId)?.info;
      if (info) this.#sync(info);
      return { refused: error.message };
    }
    this.#options.logger.info('agent prompt answered remotely', { requestId, terminalId: mirrored.terminalId, answer, by });
    const outcome: Outcome = mirrored.kind === 'question' ? 'answered' : answer === 'approve' ? 'accepted' : 'rejected';
    this.#answered.set(mirrored.terminalId, mirrored.requestId);
    this.#settle(mirrored, outcome, by);
    const text = typeof answer === 'object' ? (mirrored.labels[answer.option - 1] ?? `option ${answer.option}`) : answer === 'approve' ? 'Approve' : 'Deny';
    this.#options.onAnswered?.({ terminalId: mirrored.terminalId, viewerName: by, text });
    // The agent may have asked something new while the answer was typed.
    const info = this.#options.ptyHost.get(mirrored.terminalId)?.info;
    if (info) this.#sync(info);
    return { ok: true };
  }

  #sync(info: TerminalInfo): void {
    const agent = info.agent ?? null;
    const prompt = this.#options.isShared(info.id) && info.state === 'running' ? promptOf(agent) : null;
    const mirrored = this.#byTerminal.get(info.id);
    if (mirrored && (!prompt || mirrored.requestId !== requestIdOf(info.id, agent!))) {
      // A viewer's answer is being typed: its result settles it.
      if (!mirrored.answering) this.#settle(mirrored, 'withdrawn');
    }
    if (!prompt || !agent) {
      this.#answered.delete(info.id);
      return;
    }
    const requestId = requestIdOf(info.id, agent);
    if (this.#byTerminal.has(info.id) || this.#answered.get(info.id) === requestId) return;
    this.#answered.delete(info.id);
    this.#mirror(info, agent, prompt);
  }

  #mirror(info: TerminalInfo, agent: AgentStatus, prompt: NonNullable<AgentStatus['prompt']>): void {
    const link = this.#options.link();
    if (!link) return;
    const requestId = requestIdOf(info.id, agent);
    const labels = prompt.options.map(optionLabel);
    const mirrored: Mirrored = { requestId, kind: prompt.kind, terminalId: info.id, since: agent.since, labels, answering: false };
    this.#byTerminal.set(info.id, mirrored);
    this.#byRequest.set(requestId, mirrored);
    const reason = agent.reason ?? (prompt.kind === 'permission' ? `${prompt.toolName ?? 'A tool'} needs your permission` : 'The agent asks');
    if (prompt.kind === 'permission') {
      const toolName = prompt.toolName ?? 'unknown';
      const toolInput: AgentPermissionToolInput = {
        kind: AGENT_PERMISSION_KIND,
        ...toolArgument(toolName, reason),
        reason,
        options: prompt.options,
        terminalId: info.id,
        terminalName: info.name,
        agent: { kind: agent.kind, label: agent.label },
        since: agent.since,
        askedAt: rfc3339(agent.since),
      };
      link.send(encodeFrame('permissionRequest', { sessionId: this.#options.sessionId, channelId: BROADCAST_CHANNEL_ID, requestId, toolName, toolInput }));
    } else {
      link.send(
        encodeFrame('question', {
          sessionId: this.#options.sessionId,
          channelId: BROADCAST_CHANNEL_ID,
          requestId,
          question: reason,
          header: `${agent.label} in ${info.name}`.slice(0, 200),
          multiSelect: false,
          options: labels.map((label) => ({ label })),
          terminalId: info.id,
          since: agent.since,
        }),
      );
    }
  }

  #settle(mirrored: Mirrored, outcome: Outcome, decidedBy?: string): void {
    this.#byTerminal.delete(mirrored.terminalId);
    this.#byRequest.delete(mirrored.requestId);
    const common = { sessionId: this.#options.sessionId, channelId: BROADCAST_CHANNEL_ID, requestId: mirrored.requestId, outcome, ...(decidedBy ? { decidedBy } : {}) };
    if (mirrored.kind === 'permission') this.#send('permissionResponse', { ...common, approved: outcome === 'accepted' });
    else this.#send('questionResponse', { ...common, answer: '' });
  }

  #withdraw(terminalId: string): void {
    const mirrored = this.#byTerminal.get(terminalId);
    if (mirrored && !mirrored.answering) this.#settle(mirrored, 'withdrawn');
  }

  #send<T extends 'permissionResponse' | 'questionResponse'>(type: T, fields: RelayFields<T>): void {
    this.#options.link()?.send(encodeFrame(type, fields));
  }

  #forget(): void {
    this.#byTerminal.clear();
    this.#byRequest.clear();
    this.#answered.clear();
  }
}

/** The prompt a viewer can answer, or null (no agent, not asking, or asking in a way the Hub cannot answer). */
function promptOf(agent: AgentStatus | null): AgentStatus['prompt'] {
  return agent?.state === 'needs-input' ? agent.prompt : null;
}

function requestIdOf(terminalId: string, agent: AgentStatus): string {
  return `agent:${terminalId}:${agent.since}`;
}

/** "2. Yes, and don't ask again" → "Yes, and don't ask again" (as the app's buttons say it). */
function optionLabel(option: string): string {
  return option.replace(/^\s*\d+[.)]\s*/, '');
}

/** The 1-based option an answer names: its label (exactly, then ignoring case and spaces), its number, or "<n>. <label>". */
export function optionOf(labels: readonly string[], answer: string): number | undefined {
  const text = answer.trim();
  const exact = labels.indexOf(text);
  if (exact >= 0) return exact + 1;
  const loose = (value: string) => value.replace(/\s+/g, ' ').trim().toLowerCase();
  const folded = labels.findIndex((label) => loose(label) === loose(text));
  if (folded >= 0) return folded + 1;
  const numbered = /^(\d{1,2})(?:[.)]\s*(.*))?$/.exec(text);
  if (numbered) {
    const number = Number(numbered[1]);
    if (number >= 1 && number <= labels.length && (numbered[2] === undefined || loose(numbered[2]) === loose(labels[number - 1]!))) return number;
  }
  return undefined;
}

/** Claude Code's own argument name for the tool's subject, from the reason the screen gave (`Bash: <command>`, `Edit <file>`). */
function toolArgument(toolName: string, reason: string): Pick<AgentPermissionToolInput, 'command' | 'file_path' | 'url'> {
  const detail = /^\S+:? (.+)$/s.exec(reason)?.[1]?.trim();
  if (!detail || !reason.startsWith(toolName)) return {};
  if (toolName === 'Bash') return { command: detail };
  if (toolName === 'Edit' || toolName === 'Write') return { file_path: detail };
  if (toolName === 'WebFetch') return { url: detail };
  return {};
}
