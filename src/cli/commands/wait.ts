/** `switchboard wait`: block until a terminal prints something, goes idle, shows a prompt or exits. */
import { CliUsageError, ExitCode } from '../command.ts';
import { defineControlCommand, intOption, printJson, requirePositionals } from '../controlCommand.ts';
import { terminalRefHelp } from '../terminalRef.ts';

const defaultWaitTimeoutMs = 30_000;

export const waitCommand = defineControlCommand({
  name: 'wait',
  summary: 'Wait for output matching a pattern, idleness, a prompt, a listening port or the exit of a terminal.',
  usage: 'wait TERMINAL [--pattern REGEX] [--exit] [--idle MS] [--prompt] [--agent-state STATE] [--port N] [--since OFFSET] [--timeout MS] [--json]',
  details: [
    terminalRefHelp,
    'Give at least one condition; the first one met ends the wait. --pattern is a JavaScript regular',
    'expression matched against output printed from now on (escape sequences stripped), or from',
    '--since OFFSET on: pass the offset `send --json` printed so output that came before the wait',
    'started still counts.',
    '--pattern never matches the echo of text typed with `send`: after `send T \'make; echo built\'`,',
    '`wait T --pattern built` waits for make, not for the shell echoing the typed line. From where the',
    'text was written, output counts again once the text has appeared (with Enter: followed by a line',
    'break) or, with shell integration, once the shell starts the command; a line typed while another',
    'command runs is skipped again when the shell draws it at its next prompt (shell integration only).',
    'A program that never echoes (a password prompt, stty -echo) only delays a match: after 1 s all of',
    'its output counts.',
    '--agent-state waits until the agent CLI in the pane (see `switchboard agents`) is in STATE:',
    'working, needs-input, idle (its turn is over) or exited; several as a comma list (needs-input,idle).',
    'It prints the state and, if any, its reason ("needs-input: Bash: touch marker.txt").',
    '--port N waits until a process of the pane listens on TCP port N (the dev server is up; see',
    '`switchboard ports`), or returns at once if one already does. It prints the server\'s URL.',
    `Exit status: 0 when a condition was met (the matched text, or "exit N", is printed), 124 on timeout`,
    `(default ${defaultWaitTimeoutMs} ms), 1 on error. --json prints the server's answer, e.g.`,
    '{"matched": "pattern", "text": ..., "offset": N}, or {"matched": false} on timeout.',
  ].join('\n'),
  allowPositionals: true,
  options: {
    pattern: { type: 'string', short: 'p', valueName: 'REGEX', description: 'wait for new output matching REGEX' },
    'ignore-case': { type: 'boolean', short: 'i', description: 'match --pattern without regard to case' },
    exit: { type: 'boolean', description: "wait for the terminal's program to exit" },
    idle: { type: 'string', valueName: 'MS', description: 'wait until nothing was printed for MS milliseconds' },
    prompt: { type: 'boolean', description: 'wait until the shell is back at its prompt (the running command finished)' },
    'agent-state': { type: 'string', valueName: 'STATE', description: "wait until the pane's agent is working, needs-input, idle or exited (comma list: any of them)" },
    port: { type: 'string', valueName: 'N', description: 'wait until a process of the pane listens on TCP port N' },
    since: { type: 'string', valueName: 'OFFSET', description: 'count output from this byte offset on (from `send --json` or `read --json`)' },
    timeout: { type: 'string', short: 't', valueName: 'MS', description: `give up after MS milliseconds (default ${defaultWaitTimeoutMs})` },
  },
  async run({ args, io, client, terminalId }) {
    const [ref] = requirePositionals(args, ['TERMINAL']);
    const pattern = args.values.pattern as string | undefined;
    const flags = args.values['ignore-case'] === true ? 'i' : undefined;
    if (pattern !== undefined) {
      try {
        new RegExp(pattern, flags);
      } catch (error) {
        throw new CliUsageError(`--pattern is not a valid regular expression: ${(error as Error).message}`);
      }
    }
    const idleMs = intOption(args, 'idle', { min: 1 });
    const since = intOption(args, 'since', { min: 0 });
    const timeoutMs = intOption(args, 'timeout', { min: 1 }) ?? defaultWaitTimeoutMs;
    const exit = args.values.exit === true ? true : undefined;
    const prompt = args.values.prompt === true ? true : undefined;
    const agentState = agentStatesOption(args.values['agent-state'] as string | undefined);
    const port = intOption(args, 'port', { min: 1, max: 65_535 });
    if (pattern === undefined && idleMs === undefined && !exit && !prompt && !agentState && port === undefined) {
      throw new CliUsageError('give at least one of --pattern, --exit, --idle, --prompt, --agent-state or --port');
    }
    const id = await terminalId(ref!);
    const result = await client.wait(id, { pattern, flags, exit, idleMs, prompt, agentState, port, since, timeoutMs });
    if (args.json) {
      const { condition, ...rest } = result;
      printJson(io, { ...rest, matched: condition ?? result.matched });
    }
    if (!result.matched) {
      if (!args.json) io.stderr(`switchboard wait: timed out after ${timeoutMs} ms\n`);
      return ExitCode.timeout;
    }
    if (!args.json) {
      if (result.text !== undefined && result.text.length > 0) io.stdout(result.text.endsWith('\n') ? result.text : result.text + '\n');
      else if (result.condition === 'exit') io.stdout(`exit ${result.exitCode ?? result.signal ?? 'unknown'}\n`);
      else if (result.condition === 'agentState' && result.agent) io.stdout(`${result.agent.state}${result.agent.reason ? `: ${result.agent.reason}` : ''}\n`);
      else if (result.condition === 'port' && result.server) io.stdout(`${result.server.url}\n`);
    }
    return ExitCode.ok;
  },
});

const agentStates = ['working', 'needs-input', 'idle', 'exited'] as const;
type AgentStateName = (typeof agentStates)[number];

function agentStatesOption(value: string | undefined): AgentStateName[] | undefined {
  if (value === undefined) return undefined;
  const states = value.split(',').map((state) => state.trim());
  for (const state of states) {
    if (!(agentStates as readonly string[]).includes(state)) throw new CliUsageError(`--agent-state: "${state}" is not a state; use ${agentStates.join(', ')}`);
  }
  return states as AgentStateName[];
}
