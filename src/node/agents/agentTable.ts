/**
 * The agent CLIs Switchboard recognises, in one place: how to tell from a process that it is one,
 * and (where captured) how to read its state from the screen. A setting (`extraAgents`) adds more.
 *
 * Process match: the basename of argv[0] (`claude`, `codex`), or — for agents that are scripts
 * (`node …/bin/gemini.js`, `python …/bin/aider`) — the script's basename or a path pattern.
 * Only argv[0] and an interpreter's script count: `vim claude.md`, `grep codex`, `echo claude` are
 * never an agent.
 *
 * Screen rules are data, per agent, with the version they were captured from
 * (test/fixtures/agents/<kind>/<version>/ holds the screens they are tested on).
 */
import type { AgentDefinitionSetting } from '../../common/api/agentContract.ts';

/** How a permission dialog names its tool and what it asks (see screenRules.ts). */
export interface PermissionToolRule {
  /**
   * The line that names the tool: the dialog's title (the line under `titleRule`, the default),
   * the ask itself, the nearest line above the ask that matches, or the first one between the ask
   * and the options.
   */
  at?: 'title' | 'ask' | 'above' | 'dialog';
  /** That line (trimmed), e.g. `Bash command`; its `detail` group, if any, is the detail for `detail: 'header'`. */
  header: RegExp;
  tool: string;
  /**
   * Where the detail is: between the dialog's dashed frame lines (a command), the line after the
   * dialog's title (a file; the line after the header where the dialog has no title), the header's
   * `detail` group, or the first line between the ask and the options that matches this pattern
   * (its `detail` group; the lines under it up to a blank one go on with it).
   */
  detail: 'framed' | 'nextLine' | 'header' | RegExp;
  /** `{tool}` and `{detail}` are replaced: `{tool}: {detail}` → `Bash: touch marker.txt`. */
  reason: string;
}

/** A dialog of numbered options: a permission prompt, or a question whose options the agent numbers. */
export interface NumberedDialogRule {
  /** The dialog's question (group `ask`): the nearest matching line above the first option, at most `askWithin` lines up. */
  ask: RegExp;
  askWithin: number;
  /** An option line (groups `number` and `label`); the options start at 1. */
  option: RegExp;
  /** Lines under an option indented at least to its label: its text wrapped at the pane's width (`join`), or its description (`skip`). */
  continuation: 'join' | 'skip';
  /** The dialog's footer, under the options (a blank line may come between): without it, numbered lines are text (an `echo`), not the dialog. */
  footer: RegExp;
  /** The dialog stands at the bottom of the screen: nothing but footer lines under its footer (text above an input box is the transcript). */
  last?: boolean;
}

export interface ScreenRules {
  /** The agent's version the rules were captured from. */
  capturedFrom: string;
  /**
   * Only the bottom of the screen is read: the agent draws its dialogs and status line there, while
   * the transcript above may quote anything (a file saying "Do you want to proceed?").
   */
  bottomLines: number;
  /** A line of the status area that shows a turn is running. Read in the last `statusLines` lines. */
  working: RegExp[];
  statusLines: number;
  /**
   * A line over the input box that shows a turn is running (Claude Code's spinner, `✢ Nebulizing…`):
   * the last line above the box's top edge that starts in the first column (hints, tips and a
   * to-do list under it are indented). For when the status area does not say it: Claude Code's
   * drops "esc to interrupt" while the person types the next request into the box.
   */
  spinner?: RegExp;
  /** Dialogs drawn in a box, or beside a bar: a line matching this is read as its `inside` group (the box's sides or the bar dropped). */
  boxSide?: RegExp;
  /** The permission dialog: the question, then numbered options. */
  permission?: NumberedDialogRule & {
    /** The line the dialog's title follows (the rule above it), for tools named `at: 'title'`. */
    titleRule?: RegExp;
    /** The lines around a command (dashed, or a box's top and bottom edges), for `detail: 'framed'`. */
    frame?: RegExp;
    /** A bar beside the framed lines, without a closing side (`boxSide` wants both): a line matching this is read as its `inside` group. */
    frameSide?: RegExp;
    tools: PermissionToolRule[];
    /** Options that mean yes / no (for approve and deny). */
    approve: RegExp;
    deny: RegExp;
  };
  /**
   * A permission dialog whose options stand side by side on one line (`Allow once   Allow always
   * Reject`), under a selector the screen's text does not show: answered by clicking the option
   * (the agent takes mouse clicks), so an answer never depends on where the selector stands.
   */
  permissionRow?: {
    ask: RegExp;
    /** The options line: its `options` group holds them, two or more spaces apart. At most `rowWithin` lines under the ask. */
    row: RegExp;
    rowWithin: number;
    tools: PermissionToolRule[];
    approve: RegExp;
    deny: RegExp;
  };
  /** A question with a selector (`❯`) over its options and no input box; answered by moving the selector. */
  question?: { ask: RegExp; selected: RegExp };
  /** A question with numbered options; answered by the option's digit. `selected` marks the option the selector stands on, where the text shows it. */
  numberedQuestion?: NumberedDialogRule & { selected?: RegExp };
  /**
   * The empty (or half-typed) input box: the turn is over. Its line is right under `rule` if given,
   * among the last `withinLast` lines if given (the transcript above may show earlier prompts
   * alike), and over a line matching `below` (the agent's status line) if given.
   */
  idle?: { inputLine: RegExp; rule?: RegExp; withinLast?: number; below?: RegExp };
  /**
   * A turn that was cut short, not finished (the person refused or interrupted it, or the agent was
   * ended while it asked and then resumed): `line`, the mark the agent leaves, in the last turn
   * (under the last `turnStart` line above the input box). Still idle, the turn being over, but
   * with a reason, so it is not taken for done. A call it asked for and never ran (`unrun`, then
   * `command` with its wrapped lines) is named in the reason.
   */
  interrupted?: { line: RegExp; turnStart: RegExp; unrun?: RegExp; command?: RegExp; tool?: string };
  /** Simple rules (from settings): a bottom line matching one of these means needs-input (the line is the reason) or idle. */
  needsInputLines?: RegExp[];
  idleLines?: RegExp[];
}

export interface AgentDefinition {
  kind: string;
  label: string;
  /** argv[0] basenames (and script basenames, without .js/.mjs/.cjs/.py). */
  commands: string[];
  /** Patterns an interpreter's script path may match (a package's install path). */
  scripts: RegExp[];
  screen: ScreenRules | null;
}

export const claudeCodeScreen: ScreenRules = {
  capturedFrom: '2.1.332',
  bottomLines: 30,
  working: [/\besc to interrupt\b/],
  statusLines: 3,
  // A glyph of its animation, then a word and the ellipsis ("✢ Nebulizing…"); when the turn ends
  // the line becomes "✻ Churned for 2s · done 3:42 PM", without one.
  spinner: /^[·✢✳✶✻✽*] \S[^…]*…/u,
  permission: {
    ask: /^\s*(?<ask>Do you want to .+\?)\s*$/,
    askWithin: 1,
    option: /^\s*(?:❯\s*)?(?<number>\d+)\.\s+(?<label>\S.*?)\s*$/,
    continuation: 'join',
    titleRule: /^─{20,}$/,
    frame: /^╌{20,}$/,
    // A compound command (`… && git commit …`) stands beside a `│` on its left only, wrapped at the pane's width.
    frameSide: /^\s?│ ?(?<inside>.*)$/,
    tools: [
      { header: /^Bash command$/, tool: 'Bash', detail: 'framed', reason: '{tool}: {detail}' },
      { header: /^Edit file$/, tool: 'Edit', detail: 'nextLine', reason: '{tool} {detail}' },
      // Write's title says what it does to the file: a new one, one it has read, one it has not.
      { header: /^(?:Create|Overwrite|Write) file$/, tool: 'Write', detail: 'nextLine', reason: '{tool} {detail}' },
      { header: /^Fetch$/, tool: 'WebFetch', detail: 'nextLine', reason: '{tool}: {detail}' },
      // With the diff open in the IDE the title says so ("Opened changes in Switchboard ⧉"): the
      // ask names the tool (by the file's basename), the line under the title is still its path.
      { at: 'ask', header: /^Do you want to make this edit to .+\?$/, tool: 'Edit', detail: 'nextLine', reason: '{tool} {detail}' },
      { at: 'ask', header: /^Do you want to (?:create|overwrite|write to) .+\?$/, tool: 'Write', detail: 'nextLine', reason: '{tool} {detail}' },
    ],
    footer: /^\s*Esc to cancel\b/,
    approve: /^Yes$/,
    deny: /^No\b/,
  },
  question: { ask: /^\s+(?<ask>\S.*\?)\s*$/, selected: /^\s+❯\s+(?:\d+\.\s+)?(?<label>\S.*?)\s*$/ },
  idle: { inputLine: /^❯(?:\s.*)?$/, rule: /^─{20,}$/ },
  // Under the turn's prompt (`❯ …` in the first column): "Did not run 1 call" (refused with Esc)
  // or "No result recorded for 1 call" (resumed after the CLI ended while it asked), then the
  // command, then the mark.
  interrupted: {
    line: /^\s*⎿\s+Interrupted · What should Claude do instead\?\s*$/,
    turnStart: /^❯\s*\S/,
    unrun: /^\s*(?:Did not run|No result recorded for) \d+ calls?\s*$/,
    command: /^\s*⎿\s+\$ (?<detail>.+)$/,
    tool: 'Bash',
  },
};

/**
 * Codex CLI (test/fixtures/agents/codex/). Its input box (`› `) stays at the bottom in every state,
 * under a "Working (4s • esc to interrupt)" line while a turn runs; earlier prompts in the
 * transcript start with `› ` too, so only the box near the bottom counts. A command approval asks
 * "Would you like to run the following command?" above the command (`$ …`) and numbered options
 * that take their digit; a question (request_user_input, Plan mode) numbers its options too.
 */
export const codexScreen: ScreenRules = {
  capturedFrom: '0.171.0',
  bottomLines: 30,
  working: [/\(\d[\dhms ]* • esc to interrupt\)\s*$/],
  statusLines: 12,
  permission: {
    ask: /^\s*(?<ask>Would you like to .+\?)\s*$/,
    // The reason and the command stand between the question and the options.
    askWithin: 20,
    // An option's label, without the description a question sets beside it (two spaces on).
    option: /^\s*(?:›\s*)?(?<number>\d+)\.\s+(?<label>\S.*?)(?:\s{2,}\S.*)?\s*$/,
    continuation: 'join',
    tools: [{ at: 'ask', header: /^Would you like to run the following command\?$/, tool: 'Shell', detail: /^\$ (?<detail>.+)$/, reason: '{tool}: {detail}' }],
    footer: /^\s*Press enter to confirm or esc to cancel\b/,
    last: true,
    approve: /^Yes, proceed\b/,
    deny: /^No\b/,
  },
  numberedQuestion: {
    ask: /^\s*(?<ask>\S.*\?)\s*$/,
    askWithin: 2,
    option: /^\s*(?:›\s*)?(?<number>\d+)\.\s+(?<label>\S.*?)(?:\s{2,}\S.*)?\s*$/,
    continuation: 'join',
    footer: /\benter to submit answer\b/,
    last: true,
    selected: /^\s*›\s*\d+\./,
  },
  // `› ` then the draft (or the placeholder), not a numbered option, over its status line
  // (`  gpt-5 default · ~/project`, or `  ? for shortcuts` while the session starts).
  idle: { inputLine: /^›(?!\s+\d+\.\s)(?:\s.*)?$/, withinLast: 6, below: /^ {2}(?:\S.* · \S|\? for shortcuts)/ },
};

/**
 * Gemini CLI (test/fixtures/agents/gemini/). Its input box (` > `) stays at the bottom while a turn
 * runs, under a "⠴ Thinking... (esc to cancel, 3s)" line; earlier prompts in the transcript look
 * alike, so only the box near the bottom counts. Its dialogs are drawn in a box: a tool approval
 * names the tool and its subject (`? Shell  touch marker.txt`), asks ("Allow execution of
 * [Shell]?", "Apply this change?") and numbers its options; its questions (ask_user, the first
 * run's folder trust) number theirs. Every option takes its digit.
 */
export const geminiScreen: ScreenRules = {
  capturedFrom: '0.61.0',
  bottomLines: 30,
  working: [/\(esc to cancel, \d[\dhms ]*\)/],
  statusLines: 12,
  boxSide: /^\s?│ ?(?<inside>.*?)\s*│\s*$/,
  permission: {
    ask: /^(?<ask>(?:Allow execution of .+|Apply this change)\?)$/,
    askWithin: 2,
    option: /^(?:●\s*)?\s*(?<number>\d+)\.\s+(?<label>\S.*?)\s*$/,
    continuation: 'join',
    tools: [
      { at: 'above', header: /^\? Shell\s+(?<detail>.+)$/, tool: 'Shell', detail: 'header', reason: '{tool}: {detail}' },
      { at: 'above', header: /^\? Edit\s+(?<detail>.+?)(?::\s.*)?$/, tool: 'Edit', detail: 'header', reason: '{tool} {detail}' },
    ],
    // The box's bottom edge, right under the options.
    footer: /^\s?╰─{10,}╯\s*$/,
    last: true,
    approve: /^Allow once$/,
    deny: /^No\b/,
  },
  numberedQuestion: {
    ask: /^(?<ask>\S.*\?)$/,
    // The folder-trust question explains itself between the question and the options.
    askWithin: 8,
    option: /^(?:●\s*)?\s*(?<number>\d+)\.\s+(?<label>\S.*?)\s*$/,
    // Each option's description stands under it.
    continuation: 'skip',
    footer: /^\s?╰─{10,}╯\s*$|^Enter to select\b/,
    last: true,
    selected: /^●\s*\d+\./,
  },
  idle: { inputLine: /^ > /, withinLast: 6 },
};

/**
 * GitHub Copilot CLI (test/fixtures/agents/copilot/). Its input box is Claude Code's shape (`❯`
 * between two rules) with a footer line under it that says "Working" while a turn runs. Its
 * approvals are boxed: "Do you want to run this command?" under the command in a box of its own,
 * "Do you want to edit <path>?"; they and the folder-trust question number their options, which
 * take their digit. Its questions (ask_user) list unnumbered choices under a `❯` selector.
 */
export const copilotScreen: ScreenRules = {
  capturedFrom: '1.0.102',
  bottomLines: 30,
  working: [/^ \S Working\b/],
  statusLines: 2,
  boxSide: /^│ ?(?<inside>.*?)\s*│\s*$/,
  permission: {
    ask: /^(?<ask>Do you want to .+\?)$/,
    askWithin: 2,
    option: /^(?:❯\s*)?\s*(?<number>\d+)\.\s+(?<label>\S.*?)\s*$/,
    continuation: 'join',
    frame: /^[╭╰]─{10,}[╮╯]$/,
    tools: [
      { at: 'ask', header: /^Do you want to run this command\?$/, tool: 'Shell', detail: 'framed', reason: '{tool}: {detail}' },
      { at: 'ask', header: /^Do you want to edit (?<detail>.+)\?$/, tool: 'Edit', detail: 'header', reason: '{tool} {detail}' },
    ],
    // The key hints, then the box's bottom edge.
    footer: /^↑\/↓ to navigate · enter to select\b|^╰─{10,}╯$/,
    last: true,
    approve: /^Yes$/,
    // Its "No, and tell Copilot what to do differently" digit only moves the selector there (it
    // wants a text next): no plain No, so deny is Esc, which refuses and ends the turn.
    deny: /^No\b(?!, and tell)/,
  },
  numberedQuestion: {
    ask: /^(?<ask>\S.*\?)$/,
    askWithin: 2,
    option: /^(?:❯\s*)?\s*(?<number>\d+)\.\s+(?<label>\S.*?)\s*$/,
    continuation: 'join',
    footer: /^↑\/↓ to navigate · enter to select\b|^╰─{10,}╯$/,
    last: true,
    selected: /^❯/,
  },
  question: { ask: /^\s+(?<ask>\S.*\?)\s*$/, selected: /^\s+❯\s+(?:\d+\.\s+)?(?<label>\S.*?)\s*$/ },
  idle: { inputLine: /^❯(?:\s.*)?$/, rule: /^─{20,}$/, withinLast: 6 },
};

/**
 * OpenCode (test/fixtures/agents/opencode/), a full-screen app whose transcript and dialogs stand
 * beside a `┃` bar. Its status line says "esc interrupt" while a turn runs; the input box's bottom
 * edge (`╹▀▀▀`) over the "ctrl+p commands" line is the turn over. A tool approval ("△ Permission
 * required", then `# Shell command` and `$ <command>`, or `→ Edit <file>`) puts its options in one
 * row under a selector the text does not show; they are clicked (OpenCode takes mouse clicks).
 * Its questions number their choices.
 */
export const opencodeScreen: ScreenRules = {
  capturedFrom: '1.18.33',
  bottomLines: 40,
  working: [/\besc (?:again to )?interrupt\b/],
  statusLines: 1,
  boxSide: /^\s*┃ ?(?<inside>.*)$/,
  permissionRow: {
    ask: /^\s*△ (?<ask>Permission required)$/,
    row: /^\s*(?<options>\S.*?)\s{2,}(?:ctrl\+f fullscreen\s+)?⇆ select\s+enter confirm\s*$/,
    rowWithin: 30,
    tools: [
      { at: 'dialog', header: /^# Shell command$/, tool: 'Shell', detail: /^\$ (?<detail>.+)$/, reason: '{tool}: {detail}' },
      { at: 'dialog', header: /^→ Edit (?<detail>.+)$/, tool: 'Edit', detail: 'header', reason: '{tool} {detail}' },
    ],
    approve: /^Allow once$/,
    deny: /^Reject$/,
  },
  // Its question tool numbers the choices (each with its description under it); they take their digit.
  numberedQuestion: {
    ask: /^\s*(?<ask>\S.*\?)$/,
    askWithin: 2,
    option: /^\s*(?<number>\d+)\.\s+(?<label>\S.*?)\s*$/,
    continuation: 'skip',
    footer: /^\s*↑↓ select\s+enter submit\b/,
    last: true,
  },
  idle: { inputLine: /^\s*╹▀{20,}\s*$/, below: /\bctrl\+p commands\b/ },
};

export const builtInAgents: readonly AgentDefinition[] = [
  { kind: 'claude-code', label: 'Claude Code', commands: ['claude'], scripts: [/@anthropic-ai\/claude-code\//], screen: claudeCodeScreen },
  { kind: 'codex', label: 'Codex', commands: ['codex'], scripts: [/@openai\/codex\//], screen: codexScreen },
  { kind: 'gemini', label: 'Gemini CLI', commands: ['gemini'], scripts: [/@google\/gemini-cli\//], screen: geminiScreen },
  { kind: 'aider', label: 'Aider', commands: ['aider'], scripts: [/\/aider\/__main__\.py$/, /\/aider\/main\.py$/], screen: null },
  { kind: 'opencode', label: 'OpenCode', commands: ['opencode'], scripts: [/\/opencode-ai\//], screen: opencodeScreen },
  { kind: 'copilot', label: 'GitHub Copilot CLI', commands: ['copilot'], scripts: [/@github\/copilot\//], screen: copilotScreen },
  { kind: 'goose', label: 'Goose', commands: ['goose'], scripts: [], screen: null },
  { kind: 'amp', label: 'Amp', commands: ['amp'], scripts: [/@sourcegraph\/amp\//], screen: null },
  { kind: 'cursor-agent', label: 'Cursor Agent', commands: ['cursor-agent'], scripts: [/\/cursor-agent\//], screen: null },
];

/** The built-in table plus the user's `extraAgents` (a setting with a built-in's kind replaces it). */
export function agentTable(extra: readonly AgentDefinitionSetting[]): AgentDefinition[] {
  const added = extra.map(fromSetting);
  const replaced = new Set(added.map((agent) => agent.kind));
  return [...added, ...builtInAgents.filter((agent) => !replaced.has(agent.kind))];
}

function fromSetting(setting: AgentDefinitionSetting): AgentDefinition {
  const screen = setting.screen;
  return {
    kind: setting.kind,
    label: setting.label,
    commands: [...setting.commands],
    scripts: (setting.scripts ?? []).map((pattern) => new RegExp(pattern)),
    screen: screen
      ? {
          capturedFrom: 'settings',
          bottomLines: 30,
          statusLines: 30,
          working: (screen.working ?? []).map((pattern) => new RegExp(pattern)),
          needsInputLines: (screen.needsInput ?? []).map((pattern) => new RegExp(pattern)),
          idleLines: (screen.idle ?? []).map((pattern) => new RegExp(pattern)),
        }
      : null,
  };
}
