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
  /** The dialog's title line (trimmed), e.g. `Bash command`. */
  header: RegExp;
  tool: string;
  /** Where the detail is: between the dialog's dashed frame lines (a command), or the line after the title (a file). */
  detail: 'framed' | 'nextLine';
  /** `{tool}` and `{detail}` are replaced: `{tool}: {detail}` → `Bash: touch marker.txt`. */
  reason: string;
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
  /** The permission dialog: the question line, then numbered options. */
  permission?: {
    ask: RegExp;
    option: RegExp;
    /** The line the dialog's title follows (the rule above it). */
    titleRule: RegExp;
    frame: RegExp;
    tools: PermissionToolRule[];
    /** The dialog's footer, right under the options: without it, numbered lines are text (an `echo`), not the dialog. */
    footer: RegExp;
    /** Options that mean yes / no (for approve and deny). */
    approve: RegExp;
    deny: RegExp;
  };
  /** A question with a selector (`❯`) over its options and no input box. */
  question?: { ask: RegExp; selected: RegExp };
  /** The empty (or half-typed) input box right under a rule line: the turn is over. */
  idle?: { inputLine: RegExp; rule: RegExp };
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
  permission: {
    ask: /^\s*(?<ask>Do you want to .+\?)\s*$/,
    option: /^\s*(?:❯\s*)?(?<number>\d+)\.\s+(?<label>\S.*?)\s*$/,
    titleRule: /^─{20,}$/,
    frame: /^╌{20,}$/,
    tools: [
      { header: /^Bash command$/, tool: 'Bash', detail: 'framed', reason: '{tool}: {detail}' },
      { header: /^Edit file$/, tool: 'Edit', detail: 'nextLine', reason: '{tool} {detail}' },
      { header: /^Create file$/, tool: 'Write', detail: 'nextLine', reason: '{tool} {detail}' },
      { header: /^Fetch$/, tool: 'WebFetch', detail: 'nextLine', reason: '{tool}: {detail}' },
    ],
    footer: /^\s*Esc to cancel\b/,
    approve: /^Yes$/,
    deny: /^No\b/,
  },
  question: { ask: /^\s+(?<ask>\S.*\?)\s*$/, selected: /^\s+❯\s+(?:\d+\.\s+)?(?<label>\S.*?)\s*$/ },
  idle: { inputLine: /^❯(?:\s.*)?$/, rule: /^─{20,}$/ },
};

export const builtInAgents: readonly AgentDefinition[] = [
  { kind: 'claude-code', label: 'Claude Code', commands: ['claude'], scripts: [/@anthropic-ai\/claude-code\//], screen: claudeCodeScreen },
  { kind: 'codex', label: 'Codex', commands: ['codex'], scripts: [/@openai\/codex\//], screen: null },
  { kind: 'gemini', label: 'Gemini CLI', commands: ['gemini'], scripts: [/@google\/gemini-cli\//], screen: null },
  { kind: 'aider', label: 'Aider', commands: ['aider'], scripts: [/\/aider\/__main__\.py$/, /\/aider\/main\.py$/], screen: null },
  { kind: 'opencode', label: 'OpenCode', commands: ['opencode'], scripts: [/\/opencode-ai\//], screen: null },
  { kind: 'copilot', label: 'GitHub Copilot CLI', commands: ['copilot'], scripts: [/@github\/copilot\//], screen: null },
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
