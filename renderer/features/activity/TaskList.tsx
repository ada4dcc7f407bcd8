import type { TaskInfo, TaskStatus } from '../../../src/common/api/taskContract.ts';
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import './activity.css';

const openStatuses: ReadonlySet<TaskStatus> = new Set(['pending', 'running', 'blocked']);

/**
 * The tasks agents handed each other (claws' `task.assign`), newest first: what, who assigned it,
 * to whom (and the terminal it works in), its status with progress and note, and its result.
 */
export function TaskList({ tasks }: { tasks: readonly TaskInfo[] }) {
  const open = tasks.filter((task) => openStatuses.has(task.status)).length;
  return (
    <section className="activity-section" aria-labelledby="activity-tasks-title">
      <div className="activity-section-header">
        <h2 id="activity-tasks-title">Tasks</h2>
        <span className="activity-count" aria-live="polite">
          {tasks.length} {tasks.length === 1 ? 'task' : 'tasks'}
          {open > 0 && ` · ${open} open`}
        </span>
      </div>
      <table className="activity-table task-table" aria-label="Agent tasks">
        <thead>
          <tr>
            <th scope="col">Task</th>
            <th scope="col">Assigned by</th>
            <th scope="col">Assignee</th>
            <th scope="col">Status</th>
            <th scope="col">Result</th>
          </tr>
        </thead>
        <tbody>
          {tasks.map((task) => (
            <TaskRow key={task.taskId} task={task} />
          ))}
        </tbody>
      </table>
    </section>
  );
}

function TaskRow({ task }: { task: TaskInfo }) {
  const workbench = useWorkbench();
  const terminal = useObservable(workbench.terminals).get(task.assigneeTerminalId ?? '');
  const assignedAt = new Date(task.assignedAt);
  const detail = statusDetail(task);
  return (
    <tr data-task-id={task.taskId} data-status={task.status}>
      <td className="task-what" title={task.promptPreview}>
        <span className="task-title task-clamp">{task.title}</span>
        <span className="task-sub">
          <span className="task-id">{task.taskId}</span> {task.promptPreview}
        </span>
      </td>
      <td title={`${task.assignedByName} (${task.assignedBy}), ${assignedAt.toLocaleString()}`}>
        <span className="task-main activity-peer">{task.assignedByName}</span>
        <span className="task-sub activity-time">{taskTime(assignedAt)}</span>
      </td>
      <td className="task-assignee" title={`${task.assigneeName} (${task.assignee})`}>
        <span className="task-main activity-peer">{task.assigneeName}</span>
        <span className="task-sub">
          {terminal ? (
            <button type="button" className="link-button" title="Show this terminal" onClick={() => workbench.revealTerminal(terminal.id)}>
              {terminal.name}
            </button>
          ) : task.assigneeTerminalId ? (
            <span className="activity-gone" title="This terminal has been closed">
              {task.assigneeTerminalId}
            </span>
          ) : (
            'no terminal'
          )}
        </span>
      </td>
      <td className="task-status-cell" title={detail ?? undefined}>
        <span className="task-main">
          <span className="task-status" data-status={task.status}>
            {task.status}
          </span>
          {task.progressPct !== null && openStatuses.has(task.status) && (
            <>
              {' '}
              <span className="task-progress">{Math.round(task.progressPct)}%</span>
            </>
          )}
        </span>
        {detail && <span className="task-sub task-clamp">{detail}</span>}
      </td>
      <td className="task-result" title={task.resultPreview ?? undefined}>
        {task.resultPreview !== null ? <code className="task-main task-clamp">{task.resultPreview}</code> : <span className="task-main task-none">{openStatuses.has(task.status) ? '…' : '—'}</span>}
        {task.artifacts.length > 0 && (
          <span className="task-sub" title={task.artifacts.map((artifact) => `${artifact.type}: ${artifact.path}`).join('\n')}>
            {task.artifacts.length === 1 ? task.artifacts[0]!.path : `${task.artifacts.length} artifacts`}
          </span>
        )}
      </td>
    </tr>
  );
}

/** The line under the status: a requested cancel first (the worker should act on it), else the worker's note. */
function statusDetail(task: TaskInfo): string | null {
  if (task.cancelRequested && openStatuses.has(task.status)) return task.cancelReason ? `cancel requested: ${task.cancelReason}` : 'cancel requested';
  return task.note;
}

function taskTime(at: Date): string {
  if (at.toDateString() !== new Date().toDateString()) return at.toLocaleDateString([], { month: 'short', day: 'numeric' });
  return at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
}
