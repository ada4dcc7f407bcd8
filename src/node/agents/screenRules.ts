/**
 * Reading an agent's state from its screen (the Hub's headless mirror), by the agent's rules in
 * agentTable.ts. Pure: lines in, a reading out. Checked in order of what matters most to a
 * person: a permission dialog, a question, a running turn, the empty input box.
 */
import type { AgentPrompt } from '../../common/api/agentContract.ts';
import type { NumberedDialogRule, PermissionToolRule, ScreenRules } from './agentTable.ts';

export interface ScreenReading {
  state: 'working' | 'needs-input' | 'idle';
  reason: string | null;
  prompt: AgentPrompt | null;
  /** For a permission prompt: the option numbers that approve and deny (null: none on screen). */
  answers: { approve: number | null; deny: number | null } | null;
  /** For a question: the option (1-based) the selector stands on. */
  selected?: number;
  /** For a prompt: how an option is picked — its digit, moving the selector to it and Enter, or a click on it. */
  answerBy?: 'digit' | 'selector' | 'click';
  /** For `answerBy: 'click'`: where each option's label starts on screen (1-based row and column). */
  clicks?: Array<{ row: number; column: number }>;
}

const maxReasonChars = 2000;

export function readAgentScreen(rules: ScreenRules, screenLines: readonly string[]): ScreenReading | null {
  let end = screenLines.length;
  while (end > 0 && screenLines[end - 1]!.trim() === '') end--;
  const first = Math.max(0, end - rules.bottomLines);
  const raw = screenLines.slice(first, end);
  const lines = raw.map((line) => unbox(rules, line));
  return readPermission(rules, lines) ?? readPermissionRow(rules, lines, raw, first) ?? readQuestion(rules, lines) ?? readNumberedQuestion(rules, lines) ?? readWorking(rules, lines) ?? readLines(rules, lines);
}

/** A line of a box (`│ text │`) as its inside, for agents that draw their dialogs in one. */
function unbox(rules: ScreenRules, line: string): string {
  return inside(rules.boxSide, line);
}

/** A line beside a box's side or a bar (`side`'s `inside` group), or the line itself. */
function inside(side: RegExp | undefined, line: string): string {
  return (side && side.exec(line)?.groups?.inside?.trimEnd()) ?? line;
}

interface NumberedDialog {
  ask: string;
  askIndex: number;
  /** The line of option 1. */
  firstIndex: number;
  options: Array<{ number: number; label: string; column: number; index: number }>;
}

/** The last dialog of numbered options on screen: option 1, the options after it, the footer under them, the question above. */
function readNumberedDialog(rule: NumberedDialogRule, lines: readonly string[]): NumberedDialog | null {
  for (let index = lines.length - 1; index >= 0; index--) {
    const first = rule.option.exec(lines[index]!)?.groups;
    if (!first || Number(first.number) !== 1) continue;
    // The last dialog on screen decides: an older answered one may still stand above it.
    const options = [{ number: 1, label: first.label!, column: lines[index]!.indexOf(first.label!), index }];
    let at = index + 1;
    for (; at < lines.length; at++) {
      const line = lines[at]!;
      const groups = rule.option.exec(line)?.groups;
      if (groups && Number(groups.number) === options.length + 1) {
        options.push({ number: options.length + 1, label: groups.label!, column: line.indexOf(groups.label!), index: at });
        continue;
      }
      // An option too long for the pane's width goes on under its own text (the same option, so
      // the prompt reads the same at any width), or a description stands there.
      const last = options.at(-1)!;
      const indent = line.length - line.trimStart().length;
      if (line.trim() === '' || indent < last.column) break;
      if (rule.continuation === 'join') last.label = `${last.label} ${line.trim()}`;
    }
    // Without numbered options and the dialog's footer under them, the lines are text (a file, an `echo`), not the dialog.
    if (lines[at]?.trim() === '') at++;
    if (options.length < 2 || !rule.footer.test(lines[at] ?? '')) return null;
    if (rule.last && lines.slice(at + 1).some((line) => line.trim() !== '' && !rule.footer.test(line))) return null;
    for (let above = index - 1; above >= Math.max(0, index - rule.askWithin); above--) {
      const ask = rule.ask.exec(lines[above]!)?.groups?.ask;
      if (ask) return { ask, askIndex: above, firstIndex: index, options };
    }
    return null;
  }
  return null;
}

function readPermission(rules: ScreenRules, lines: readonly string[]): ScreenReading | null {
  const permission = rules.permission;
  if (!permission) return null;
  const dialog = readNumberedDialog(permission, lines);
  if (!dialog) return null;
  const { toolName, reason } = permissionReason(rules, lines, dialog);
  const { options } = dialog;
  return {
    state: 'needs-input',
    reason: reason.slice(0, maxReasonChars),
    prompt: { kind: 'permission', toolName, options: options.map((option) => `${option.number}. ${option.label}`.slice(0, 500)) },
    answers: {
      approve: options.find((option) => permission.approve.test(option.label))?.number ?? null,
      deny: options.find((option) => permission.deny.test(option.label))?.number ?? null,
    },
    answerBy: 'digit',
  };
}

/** A dialog whose options stand on one line under its ask (OpenCode's): read with the screen row of each option, to click it. */
function readPermissionRow(rules: ScreenRules, lines: readonly string[], raw: readonly string[], firstRow: number): ScreenReading | null {
  const permission = rules.permissionRow;
  if (!permission) return null;
  for (let index = lines.length - 1; index >= 0; index--) {
    const row = permission.row.exec(lines[index]!)?.groups?.options;
    if (row === undefined) continue;
    // The options, two or more spaces apart, and where each starts on the screen's line (before a bar or box side was dropped).
    const options: Array<{ label: string; column: number }> = [];
    let from = raw[index]!.indexOf(row);
    for (const [label] of row.matchAll(/\S+(?: \S+)*/g)) {
      const column = raw[index]!.indexOf(label, from);
      options.push({ label, column });
      from = column + label.length;
    }
    if (options.length < 2 || options.some((option) => option.column < 0)) return null;
    for (let above = index - 1; above >= Math.max(0, index - permission.rowWithin); above--) {
      const ask = permission.ask.exec(lines[above]!)?.groups?.ask;
      if (!ask) continue;
      const { toolName, reason } = permissionReason(rules, lines, { ask, askIndex: above, firstIndex: index, options: [] }, permission);
      return {
        state: 'needs-input',
        reason: reason.slice(0, maxReasonChars),
        prompt: { kind: 'permission', toolName, options: options.map((option, number) => `${number + 1}. ${option.label}`.slice(0, 500)) },
        answers: {
          approve: options.findIndex((option) => permission.approve.test(option.label)) + 1 || null,
          deny: options.findIndex((option) => permission.deny.test(option.label)) + 1 || null,
        },
        answerBy: 'click',
        clicks: options.map((option) => ({ row: firstRow + index + 1, column: option.column + 1 })),
      };
    }
    return null;
  }
  return null;
}

function permissionReason(
  rules: ScreenRules,
  lines: readonly string[],
  dialog: NumberedDialog,
  permission: Pick<NonNullable<ScreenRules['permission']>, 'tools' | 'titleRule' | 'frame' | 'frameSide'> = rules.permission!,
): { toolName: string | null; reason: string } {
  const { ask, askIndex } = dialog;
  let titleIndex = -1;
  const titleRule = permission.titleRule;
  if (titleRule) {
    for (let index = askIndex - 1; index >= 0; index--) {
      if (titleRule.test(lines[index]!.trim())) {
        titleIndex = index + 1;
        break;
      }
    }
  }
  const title = titleIndex >= 0 ? (lines[titleIndex] ?? '').trim() : '';
  // The tool whose header stands nearest above the options (a title, the ask, or a line above the ask).
  let found: { tool: PermissionToolRule; index: number; match: RegExpExecArray } | null = null;
  for (const tool of permission.tools) {
    const at = tool.at ?? 'title';
    let index = -1;
    let match: RegExpExecArray | null = null;
    if (at === 'title') {
      match = titleIndex >= 0 ? tool.header.exec(title) : null;
      index = titleIndex;
    } else if (at === 'ask') {
      match = tool.header.exec(ask);
      index = askIndex;
    } else if (at === 'dialog') {
      for (index = askIndex + 1; index < dialog.firstIndex && !match; index++) match = tool.header.exec(lines[index]!.trim());
      index--;
    } else {
      for (index = askIndex - 1; index >= 0 && !match; index--) match = tool.header.exec(lines[index]!.trim());
      index++;
    }
    if (match && (!found || index > found.index)) found = { tool, index, match };
  }
  if (!found) return { toolName: null, reason: title ? `${title}: ${ask}` : ask };
  const { tool, index: headerIndex, match } = found;
  let detail = '';
  if (tool.detail === 'nextLine') {
    detail = (lines[(titleIndex >= 0 ? titleIndex : headerIndex) + 1] ?? '').trim();
  } else if (tool.detail === 'header') {
    detail = match.groups?.detail?.trim() ?? '';
  } else if (tool.detail === 'framed') {
    // The last framed block above the ask (from the title down, when the tool is named above it); a
    // box inside the dialog's box, or a bar beside the block, is read as its inside too; a command
    // wrapped at the pane's width is one line again.
    const frames: number[] = [];
    for (let index = headerIndex < askIndex ? headerIndex : 0; index < askIndex; index++) if (permission.frame?.test(lines[index]!.trim())) frames.push(index);
    if (frames.length >= 2) detail = joinLines(lines.slice(frames.at(-2)! + 1, frames.at(-1)).map((line) => inside(permission.frameSide, unbox(rules, line))));
  } else {
    for (let index = askIndex + 1; index < dialog.firstIndex && !detail; index++) {
      const first = tool.detail.exec(lines[index]!.trim())?.groups?.detail;
      if (first === undefined) continue;
      let last = index + 1;
      while (last < dialog.firstIndex && lines[last]!.trim() !== '') last++;
      detail = joinLines([first, ...lines.slice(index + 1, last)]);
    }
  }
  if (!detail) return { toolName: tool.tool, reason: `${tool.tool}: ${ask}` };
  return { toolName: tool.tool, reason: tool.reason.replace('{tool}', tool.tool).replace('{detail}', detail) };
}

function joinLines(lines: readonly string[]): string {
  return lines
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' ');
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
      if (permissionBeingDrawn(rules, lines, ask, above, index)) return null;
      const { options, selected } = optionsFrom(lines, above + 1);
      if (options.length < 2) return null;
      return { state: 'needs-input', reason: ask.slice(0, maxReasonChars), prompt: { kind: 'question', toolName: null, options }, answers: null, selected, answerBy: 'selector' };
    }
    return null;
  }
  return null;
}

/**
 * A permission dialog of which the Hub has read all but the last lines (a frame written at once
 * can reach it in two reads): without its footer it has a question's shape — a line asking, a
 * selector over options. Its ask and its tool's header above (Claude Code's "Do you want to
 * proceed?" under "Bash command") say what it is; read as a question it would be a prompt of its
 * own, replaced a moment later, and an answer to it refused.
 */
function permissionBeingDrawn(rules: ScreenRules, lines: readonly string[], ask: string, askIndex: number, firstIndex: number): boolean {
  const permission = rules.permission;
  if (!permission?.ask.test(lines[askIndex]!)) return false;
  return permissionReason(rules, lines, { ask, askIndex, firstIndex, options: [] }).toolName !== null;
}

function readNumberedQuestion(rules: ScreenRules, lines: readonly string[]): ScreenReading | null {
  const question = rules.numberedQuestion;
  if (!question) return null;
  const dialog = readNumberedDialog(question, lines);
  if (!dialog) return null;
  const options = dialog.options.map((option) => `${option.number}. ${option.label}`.slice(0, 500));
  const reading: ScreenReading = { state: 'needs-input', reason: dialog.ask.slice(0, maxReasonChars), prompt: { kind: 'question', toolName: null, options }, answers: null, answerBy: 'digit' };
  const selected = question.selected;
  if (selected) reading.selected = dialog.options.find((option) => selected.test(lines[option.index]!))?.number ?? 1;
  return reading;
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
  const working: ScreenReading = { state: 'working', reason: null, prompt: null, answers: null };
  const status = lines.slice(-rules.statusLines);
  if (status.some((line) => rules.working.some((pattern) => pattern.test(line)))) return working;
  const spinner = rules.spinner;
  const box = spinner ? inputBoxIndex(rules, lines) : -1;
  if (!spinner || box < 0) return null;
  // The last line over the box's top edge that starts in the first column; indented ones (a hint,
  // a tip, a to-do list under the spinner) are passed over.
  for (let index = box - (rules.idle?.rule ? 2 : 1); index >= 0; index--) {
    const line = lines[index]!;
    if (line === '' || /^\s/.test(line)) continue;
    return spinner.test(line) ? working : null;
  }
  return null;
}

function readLines(rules: ScreenRules, lines: readonly string[]): ScreenReading | null {
  for (let index = lines.length - 1; index >= 0; index--) {
    const line = lines[index]!;
    if (rules.needsInputLines?.some((pattern) => pattern.test(line))) return { state: 'needs-input', reason: line.trim().slice(0, maxReasonChars), prompt: null, answers: null };
    if (rules.idleLines?.some((pattern) => pattern.test(line))) return { state: 'idle', reason: null, prompt: null, answers: null };
  }
  const box = inputBoxIndex(rules, lines);
  if (box >= 0) return { state: 'idle', reason: interruptedReason(rules, lines, box)?.slice(0, maxReasonChars) ?? null, prompt: null, answers: null };
  return null;
}

/**
 * "Interrupted", or "Interrupted — it was asking: Bash: <command>": the last turn, above the input
 * box, ends with the agent's mark of a turn cut short (`rules.interrupted`); null when it does not.
 */
function interruptedReason(rules: ScreenRules, lines: readonly string[], box: number): string | null {
  const interrupted = rules.interrupted;
  if (!interrupted) return null;
  // From the box's top edge up to the prompt that began the last turn.
  let mark = -1;
  for (let index = box - (rules.idle?.rule ? 2 : 1); index >= 0 && mark < 0; index--) {
    if (interrupted.turnStart.test(lines[index]!)) return null;
    if (interrupted.line.test(lines[index]!)) mark = index;
  }
  if (mark < 0) return null;
  const { unrun, command, tool } = interrupted;
  if (!unrun || !command || !tool) return 'Interrupted';
  // The command over the mark: its first line, and the lines it wrapped onto (indented under it).
  for (let index = mark - 1; index > 0 && !interrupted.turnStart.test(lines[index]!); index--) {
    const first = command.exec(lines[index]!)?.groups?.detail;
    if (first === undefined) continue;
    if (!unrun.test(lines[index - 1]!)) break;
    return `Interrupted — it was asking: ${tool}: ${joinLines([first, ...lines.slice(index + 1, mark)])}`;
  }
  return 'Interrupted';
}

function hasInputBox(rules: ScreenRules, lines: readonly string[]): boolean {
  return inputBoxIndex(rules, lines) >= 0;
}

/** The line of the input box (`rules.idle`), or -1. */
function inputBoxIndex(rules: ScreenRules, lines: readonly string[]): number {
  const idle = rules.idle;
  if (!idle) return -1;
  const from = idle.withinLast === undefined ? 0 : Math.max(0, lines.length - idle.withinLast);
  for (let index = lines.length - 1; index >= from; index--) {
    if (!idle.inputLine.test(lines[index]!)) continue;
    if (idle.rule && !(index > 0 && idle.rule.test(lines[index - 1]!.trim()))) continue;
    const below = idle.below;
    if (!below || lines.slice(index + 1).some((line) => below.test(line))) return index;
  }
  return -1;
}
