import type { AgentStatus } from '../../../src/common/api/agentContract.ts';
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { promptAnswers } from './agentFormat.ts';

/**
 * The answers a needs-input agent's prompt offers, as buttons (Approve / Deny, or a question's
 * options), and the Hub's refusal in words when the prompt had already gone. Renders nothing when
 * the Hub could not tell what the prompt offers: the person answers in the pane.
 */
export function AgentAnswerButtons({ terminalId, agent, where }: { terminalId: string; agent: AgentStatus; where: 'banner' | 'list' }) {
  const workbench = useWorkbench();
  const answer = useObservable(workbench.agents.answers).get(terminalId);
  const prompt = agent.state === 'needs-input' ? agent.prompt : null;
  // Sent for this very prompt: the buttons wait for the Hub (a refusal for an older prompt is not shown).
  const current = answer && answer.since === agent.since ? answer : undefined;
  if (!prompt && !current?.refusal) return null;
  const answers = prompt ? promptAnswers(prompt) : [];
  return (
    <span className="agent-answers" data-where={where}>
      {answers.map(({ label, answer: value }) => (
        <button
          key={label}
          type="button"
          className="banner-button agent-answer"
          data-answer={typeof value === 'string' ? value : `option-${value.option}`}
          disabled={current?.sending === true}
          title={typeof value === 'string' ? `${label} (sends the key ${agent.label} expects for it)` : `Pick "${label}"`}
          // The list row is a button of its own (jump to the pane): answering must not also jump.
          onClick={(event) => {
            event.stopPropagation();
            void workbench.agents.answer(terminalId, value);
          }}
        >
          {label}
        </button>
      ))}
      {current?.refusal && (
        <span className="agent-answer-refusal" role="alert">
          {current.refusal}
        </span>
      )}
    </span>
  );
}
