import { useRef } from 'react';
import type { AgentStatus } from '../../../src/common/api/agentContract.ts';
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { promptAnswers } from './agentFormat.ts';

/**
 * The answers a needs-input agent's prompt offers, as buttons (Approve / Deny, or a question's
 * options), and the Hub's refusal in words when the prompt had already gone. Renders nothing when
 * the Hub could not tell what the prompt offers: the person answers in the pane.
 *
 * An answer gives the keyboard back — to the agent's pane from its banner, to where it was from
 * the list — since the buttons go with the prompt and would leave it on <body>, losing what the
 * person types next.
 */
export function AgentAnswerButtons({ terminalId, agent, where }: { terminalId: string; agent: AgentStatus; where: 'banner' | 'list' }) {
  const workbench = useWorkbench();
  const answer = useObservable(workbench.agents.answers).get(terminalId);
  const prompt = agent.state === 'needs-input' ? agent.prompt : null;
  // Sent for this very prompt: the buttons wait for the Hub (a refusal for an older prompt is not shown).
  const current = answer && answer.since === agent.since ? answer : undefined;
  // What had the keyboard before the press (read on pointerdown, before the button takes it).
  const focusBefore = useRef<HTMLElement | null>(null);
  const giveFocusBack = () => {
    const before = focusBefore.current;
    focusBefore.current = null;
    if (where === 'banner') workbench.focusPane(terminalId);
    else if (before?.isConnected && before !== document.body && !before.closest('.agent-answers')) before.focus();
    else if (workbench.view.value === 'terminals') workbench.requestPaneFocus();
  };
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
          onPointerDown={() => {
            focusBefore.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
          }}
          onClick={(event) => {
            event.stopPropagation();
            void workbench.agents.answer(terminalId, value);
            giveFocusBack();
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
