/**
 * Reading an agent's state from its screen (the Hub's headless mirror), by the agent's rules in
 * agentTable.ts. Pure: lines in, a reading out. Checked in order of what matters most to a
 * person: a permission dialog, a question, a running turn, the empty input box.
 */
import type { AgentPrompt } from '../../common/api/agentContract.ts';
import type { ScreenRules } from './agentTable.ts';

export interface ScreenReading {
  state: 'working' | 'needs-input' | 'idle';
  reason: string | null;
  prompt: AgentPrompt | null;
  /** For a permission prompt: the option numbers that approve and deny (null: none on screen). */
  answers: { approve: number | null; deny: number | null } | null;
  /** For a question: the option (1-based) the selector stands on. */
  selected?: number;
}

const maxReasonChars = 2000;

export function readAgentScreen(rules: ScreenRules, screenLines: readonly string[]): ScreenReading | null {
  let end = screenLines.length;
  while (end > 0 && screenLines[end - 1]!.trim() === '') end--;
  const lines = screenLines.slice(Math.max(0, end - rules.bottomLines), end);
  return readPermission(rules, lines) ?? readQuestion(rules, lines) ?? readWorking(rules, lines) ?? readLines(rules, lines);
}

function readPermission(rules: ScreenRules, lines: readonly string[]): ScreenReading | null {
  const permission = rules.permission;
  if (!permission) return null;
  // The last question on screen: an older answered one may still stand above it.
  for (let index = lines.length - 1; index >= 0; index--) {
    const ask = permission.ask.exec(lines[index]!)?.groups?.ask;
    if (!ask) continue;
    const options: Array<{ number: number; label: string; column: number }> = [];
    let at = index + 1;
    for (; at < lines.length; at++) {
      const line = lines[at]!;
      const groups = permission.option.exec(line)?.groups;
      if (groups) {
        options.push({ number: Number(groups.number), label: groups.label!, column: line.indexOf(groups.label!) });
        continue;
      }
      // An option too long for the pane's width goes on under its own text: the same option, so
      // the prompt reads the same at any width (a resize must not make it another prompt).
      const last = options.at(-1);
      const indent = line.length - line.trimStart().length;
      if (!last || line.trim() === '' || indent < last.column) break;
      last.label = `${last.label} ${line.trim()}`;
    }
    // Without numbered options and the dialog's footer under it, the question is text (a file, an `echo`), not the dialog.
    if (lines[at]?.trim() === '') at++;
    if (options.length < 2 || options[0]!.number !== 1 || !permission.footer.test(lines[at] ?? '')) return null;
    const { toolName, reason } = permissionReason(permission, lines, index, ask);
    return {
      state: 'needs-input',
      reason: reason.slice(0, maxReasonChars),
      prompt: { kind: 'permission', toolName, options: options.map((option) => `${option.number}. ${option.label}`.slice(0, 500)) },
      answers: {
        approve: options.find((option) => permission.approve.test(option.label))?.number ?? null,
        deny: options.find((option) => permission.deny.test(option.label))?.number ?? null,
      },
    };
  }
  return null;
}

function permissionReason(permission: NonNullable<ScreenRules['permission']>, lines: readonly string[], askIndex: number, ask: string): { toolName: string | null; reason: string } {
  let titleIndex = -1;
  for (let index = askIndex - 1; index >= 0; index--) {
    if (permission.titleRule.test(lines[index]!.trim())) {
      titleIndex = index + 1;
      break;
    }
  }
  const title = titleIndex >= 0 ? (lines[titleIndex] ?? '').trim() : '';
  const tool = permission.tools.find((candidate) => candidate.header.test(title));
  if (!tool) return { toolName: null, reason: title ? `${title}: ${ask}` : ask };
  let detail = '';
  if (tool.detail === 'nextLine') {
    detail = (lines[titleIndex + 1] ?? '').trim();
  } else {
    const frames: number[] = [];
    for (let index = titleIndex; index < askIndex && frames.length < 2; index++) if (permission.frame.test(lines[index]!.trim())) frames.push(index);
    if (frames.length === 2) {
      detail = lines
        .slice(frames[0]! + 1, frames[1])
        .map((line) => line.trim())
        .filter((line) => line !== '')
        .join(' ');
    }
  }
  if (!detail) return { toolName: tool.tool, reason: `${tool.tool}: ${ask}` };
  return { toolName: tool.tool, reason: tool.reason.replace('{tool}', tool.tool).replace('{detail}', detail) };
}

function readQuestion(rules: ScreenRules, lines: readonly string[]): ScreenReading | null {
  const question = rules.question;
  if (!question) return null;
  // The selector stands over a list of options; with the input box on screen, a `❯` is the prompt instead.
  if (hasInputBox(rules, lines)) return null;
  for (let index = lines.length - 1; index >= 0; index--) {
    if (!question.selected.test(lines[index]!)) continue;
    for (let above = index - 1; above >= Math.max(0, index - 8); above--) {
      const ask = question.ask.exec(lines[above]!)?.groups?.ask;
      if (!ask) continue;
      const { options, selected } = optionsFrom(lines, above + 1);
      if (options.length < 2) return null;
      return { state: 'needs-input', reason: ask.slice(0, maxReasonChars), prompt: { kind: 'question', toolName: null, options }, answers: null, selected };
    }
    return null;
  }
  return null;
}

/** The option lines of a selector list: from its first option to the first blank line, at the options' indent. */
function optionsFrom(lines: readonly string[], from: number): { options: string[]; selected: number } {
  let start = from;
  while (start < lines.length && !lines[start]!.includes('❯')) start++;
  if (start >= lines.length) return { options: [], selected: 1 };
  // The description between the question and the list is indented like the question; options sit under the selector.
  const column = lines[start]!.indexOf('❯');
  const options: string[] = [];
  // The selector may stand on any option: the list starts at the first line indented like the options.
  while (start > from && lines[start - 1]!.length > column + 1 && lines[start - 1]!.slice(0, column + 1).trim() === '') start--;
  const selectorLine = lines.slice(start).findIndex((line) => line.includes('❯'));
  for (let index = start; index < lines.length && options.length < 20; index++) {
    const line = lines[index]!;
    if (line.trim() === '' || line.length <= column) break;
    const indent = line.length - line.trimStart().length;
    if (indent < column) break;
    options.push(line.slice(column).replace(/^❯/, '').trim().replace(/^\d+\.\s+/, '').slice(0, 500));
  }
  // Re-number them as the agent would be answered (1-based, top to bottom).
  return { options: options.map((label, index) => `${index + 1}. ${label}`), selected: selectorLine + 1 };
}

function readWorking(rules: ScreenRules, lines: readonly string[]): ScreenReading | null {
  const status = lines.slice(-rules.statusLines);
  if (status.some((line) => rules.working.some((pattern) => pattern.test(line)))) return { state: 'working', reason: null, prompt: null, answers: null };
  return null;
}

function readLines(rules: ScreenRules, lines: readonly string[]): ScreenReading | null {
  for (let index = lines.length - 1; index >= 0; index--) {
    const line = lines[index]!;
    if (rules.needsInputLines?.some((pattern) => pattern.test(line))) return { state: 'needs-input', reason: line.trim().slice(0, maxReasonChars), prompt: null, answers: null };
    if (rules.idleLines?.some((pattern) => pattern.test(line))) return { state: 'idle', reason: null, prompt: null, answers: null };
  }
  if (hasInputBox(rules, lines)) return { state: 'idle', reason: null, prompt: null, answers: null };
  return null;
}

function hasInputBox(rules: ScreenRules, lines: readonly string[]): boolean {
  const idle = rules.idle;
  if (!idle) return false;
  for (let index = lines.length - 1; index > 0; index--) {
    if (idle.inputLine.test(lines[index]!) && idle.rule.test(lines[index - 1]!.trim())) return true;
  }
  return false;
}
