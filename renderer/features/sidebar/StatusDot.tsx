import type { TerminalInfo } from '../../../src/common/api/contract.ts';
import { agentStateText } from '../agents/agentFormat.ts';

export type TerminalStatus = 'running' | 'busy' | 'attention' | 'exited' | 'failed';

/** running: a shell waiting; busy: a command running; failed: exited non-zero. */
export function terminalStatus(info: TerminalInfo): TerminalStatus {
  // An agent that asks the person something is the pane's news, as a bell is.
  if (info.needsAttention || info.agent?.state === 'needs-input') return 'attention';
  if (info.state === 'exited') return info.exitCode === 0 ? 'exited' : 'failed';
  return info.runningCommand ? 'busy' : 'running';
}

export function statusText(info: TerminalInfo): string {
  if (info.state === 'exited') {
    if (info.signal) return `Exited (${info.signal})`;
    return `Exited with code ${info.exitCode ?? '?'}`;
  }
  if (info.agent && info.agent.state !== 'exited') return `${info.agent.label}: ${agentStateText(info.agent)}`;
  if (info.needsAttention) return 'Needs attention';
  return info.runningCommand ? `Running ${info.runningCommand}` : 'Running';
}

export function StatusDot({ info, attention, failed }: { info: TerminalInfo; attention?: boolean; failed?: boolean }) {
  let status = terminalStatus(info);
  if (attention) status = 'attention';
  else if (failed && status !== 'attention') status = 'failed';
  return <span className="status-dot" data-status={status} aria-hidden="true" />;
}
