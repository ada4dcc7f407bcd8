/**
 * The agent part of the API contract (issue 19): which panes run an agent CLI (Claude Code, Codex,
 * Gemini, Aider…), what state each is in, and answering its permission prompt. The Hub decides the
 * state (agent hooks, the IDE bridge, OSC 9/777 and BEL, the headless mirror's screen); the app's
 * sidebar and "Waiting for you" list, the control socket (`list`, `agent.<id>.state`, `wait`), the
 * CLI and MCP, and the remote view all read this one shape. Spread into `hubMethods` by contract.ts.
 */
import { z } from 'zod';
import { TerminalId } from './contractTypes.ts';

/**
 * - `working`: the agent is busy with a turn (Claude Code's "esc to interrupt").
 * - `needs-input`: it waits for the person mid-turn: a permission prompt, a question, a diff to review.
 * - `idle`: its turn is over; it waits for the next prompt (done, for now).
 * - `exited`: the agent program ended (the pane may still run its shell).
 */
export const AgentState = z.enum(['working', 'needs-input', 'idle', 'exited']);
export type AgentState = z.infer<typeof AgentState>;

/** What a `needs-input` agent asks, when the Hub can tell, so the app can offer the right answers. */
export const AgentPrompt = z.object({
  /** `permission`: approve or deny a tool call; `question`: pick an option or type an answer. */
  kind: z.enum(['permission', 'question']),
  /** The tool a permission is for (`Bash`, `Edit`…), when known. */
  toolName: z.string().max(200).nullable(),
  /** The options as the agent numbers them on screen ("1. Yes", "2. Yes, and don't ask again", "3. No"). */
  options: z.array(z.string().max(500)).max(20),
});
export type AgentPrompt = z.infer<typeof AgentPrompt>;

export const AgentStatus = z.object({
  /** The agent's id in the agent table: `claude-code`, `codex`, `gemini`, `aider`, … (a setting may add more). */
  kind: z.string().min(1).max(64),
  /** Its name for people: "Claude Code", "Codex", … */
  label: z.string().min(1).max(100),
  state: AgentState,
  /** Epoch ms when it entered this state. */
  since: z.number(),
  /** For `needs-input`: what it asks (`Bash: touch marker.txt`, `Edit src/app.ts`, a question's text); for `exited`: `exit 3`; else null. */
  reason: z.string().max(2000).nullable(),
  /** For `needs-input`, when the screen shows a prompt the app can answer. */
  prompt: AgentPrompt.nullable(),
  /** For `exited`: the agent program's exit code, when known. */
  exitCode: z.number().int().nullable(),
});
export type AgentStatus = z.infer<typeof AgentStatus>;

/**
 * An answer to the prompt on screen. `approve`/`deny` for a permission prompt; `option` picks the
 * numbered option (1-based) of either kind. Refused (the pane untouched) when the prompt is gone or
 * is not the one answered: `expectSince` is the `since` of the state the person saw.
 */
export const AgentAnswerParams = z
  .object({
    terminalId: TerminalId,
    answer: z.union([z.literal('approve'), z.literal('deny'), z.object({ option: z.number().int().min(1).max(20) }).strict()]),
    expectSince: z.number(),
  })
  .strict();
export type AgentAnswerParams = z.infer<typeof AgentAnswerParams>;

export const agentMethods = {
  'agent.answer': { params: AgentAnswerParams, result: z.object({ ok: z.literal(true) }) },
} as const;

/** A regular expression given in settings: it must compile (checked where settings are read). */
const SettingPattern = z
  .string()
  .min(1)
  .max(500)
  .refine((pattern) => {
    try {
      new RegExp(pattern);
      return true;
    } catch {
      return false;
    }
  }, 'not a valid regular expression');

/**
 * One more agent CLI for the agent table (setting `extraAgents`): how to recognise its process and,
 * optionally, its screens. A `kind` of a built-in agent replaces that one.
 */
export const AgentDefinitionSetting = z
  .object({
    kind: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'an agent kind is lower-case letters, digits and "-"'),
    label: z.string().min(1).max(100),
    /** Executable names (argv[0]'s basename), or a script's name run by node/python/bun/deno. */
    commands: z.array(z.string().min(1).max(200).regex(/^[^/\s]+$/, 'a command is a file name, without "/"')).min(1).max(20),
    /** Regular expressions for the script path an interpreter runs (e.g. `@acme/agent/`). */
    scripts: z.array(SettingPattern).max(20).optional(),
    /** Regular expressions read against the bottom lines of the screen. */
    screen: z
      .object({ working: z.array(SettingPattern).max(20).optional(), needsInput: z.array(SettingPattern).max(20).optional(), idle: z.array(SettingPattern).max(20).optional() })
      .strict()
      .optional(),
  })
  .strict();
export type AgentDefinitionSetting = z.infer<typeof AgentDefinitionSetting>;
