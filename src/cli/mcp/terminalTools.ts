/**
 * The MCP face of the control socket: terminal tools for models, each a thin proxy to one or two
 * socket commands. Descriptions are written for the model that reads them: what the tool does,
 * when to pick it, and its limits. Every failure comes back as a tool error (`isError: true`) with
 * a one-line reason the model can act on; nothing here throws out of a handler.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { TerminalConstants } from '../../common/constants.ts';
import { allowedSignals } from '../../common/protocol/control/terminalCommands.ts';
import { guarded, resolveTerminalId, tailOf, text } from './toolResults.ts';
import { type ControlClient, ControlClientError, type ExecEvent } from '../controlClient.ts';
import { registerAgentTools } from './agentTools.ts';
import { registerBusTools } from './busTools.ts';
import { registerHistoryTools } from './historyTools.ts';
import { registerReviewTools } from './reviewTools.ts';
import { registerWorkspaceTools } from './workspaceTools.ts';

export const McpToolDefaults = {
  /**
   * exec's default here is shorter than the socket's 180 s: MCP clients commonly give up on a tool
   * call after about a minute, and a model is better served by a clear timeout it can react to.
   */
  execTimeoutMs: 60_000,
  waitTimeoutMs: 30_000,
  /** Upper bound a model may ask for; longer jobs should run with send + wait. */
  maxTimeoutMs: 600_000,
  /**
   * Text a tool returns at most, by default and when asked for more. MCP clients cap a tool result
   * (Claude Code at about 25k tokens) and drop a bigger one, so exec output and reads come in pages
   * of the size history_read uses, with the offsets to fetch the rest; the socket's own caps
   * (exec 256 KiB, readLog 512 KiB) are for programs, not a model's context.
   */
  defaultReadBytes: 16_384,
  maxReadBytes: 131_072,
} as const;

/**
 * An exec's output as a model gets it: the tail that fits `limit`, and when the output is longer,
 * a line before it that says what was cut and how to read the rest (the output's byte range in
 * the terminal's log, which terminal_read pages through).
 */
function execOutput(output: string, limit: number, event?: Pick<ExecEvent, 'startOffset' | 'endOffset' | 'truncated'>): string {
  const tail = tailOf(output, limit);
  if (!tail.cut && !event?.truncated) return tail.text;
  const whole = event?.truncated ? 'more than 256 KiB' : `${tail.totalBytes} bytes`;
  const where =
    event === undefined
      ? 'terminal_read mode "log" reads the terminal\'s recent output'
      : `the whole output is bytes ${event.startOffset}-${event.endOffset} of the terminal's log: read it with terminal_read mode "log", offset ${event.startOffset} (each reply gives the next offset; the terminal keeps its last 4 MiB)`;
  const more = tail.cut && limit < McpToolDefaults.maxReadBytes ? `, or run it again with a larger outputLimit (max ${McpToolDefaults.maxReadBytes})` : '';
  return `[output cut: the last ${tail.shownBytes} bytes of ${whole} shown; ${where}${more}]\n${tail.text}`;
}

const terminalParam = z
  .string()
  .min(1)
  .describe('The terminal: its id (from terminal_list or terminal_create), a unique prefix of the id, or its name.');

const timeoutParam = (defaultMs: number) =>
  z
    .number()
    .int()
    .min(1)
    .max(McpToolDefaults.maxTimeoutMs)
    .optional()
    .describe(`Milliseconds to wait before giving up (default ${defaultMs}, max ${McpToolDefaults.maxTimeoutMs}).`);

export const mcpServerInstructions = [
  'Switchboard terminals are real terminals shared with a person who watches them in the Switchboard app.',
  'Use terminal_exec to run a shell command to completion and get its output and exit code.',
  'Use terminal_send to type into an interactive program (a REPL, a TUI, a prompt asking for input, a long-running server),',
  'then terminal_read (mode "screen") or terminal_wait to see what happened.',
].join(' ');

export function createSwitchboardMcpServer(client: ControlClient, version: string): McpServer {
  const server = new McpServer({ name: 'switchboard', version }, { instructions: mcpServerInstructions });

  server.registerTool(
    'terminal_list',
    {
      title: 'List terminals',
      description:
        'List the terminals open in Switchboard: id, name, pid, status (running/exited), exit code, working directory, size, who created it, (when known) the command running now, and servers: the dev servers its processes listen on ({host, port, url, pid, since}; url is what to open). Use it to find a terminal to work in, or the URL of a dev server a terminal runs.',
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () => guarded(async () => text(JSON.stringify(await client.list(), null, 2))),
  );

  server.registerTool(
    'terminal_create',
    {
      title: 'Open a terminal',
      description:
        "Open a new terminal running the user's shell; it appears in the Switchboard app, visible to the person. Returns its id. Optionally types a first command into it without waiting for it (good for starting a server or a watcher you will check on later with terminal_wait or terminal_read).",
      inputSchema: {
        name: z.string().min(1).max(200).optional().describe('A short name shown on the tab; later calls can use it instead of the id.'),
        cwd: z.string().min(1).optional().describe("Absolute working directory (default: the app's first workspace folder)."),
        command: z.string().min(1).optional().describe('A command line to type into the new shell right away (not waited for).'),
      },
      annotations: { destructiveHint: false, openWorldHint: false },
    },
    ({ name, cwd, command }) =>
      guarded(async () => {
        const id = await client.create({ name, cwd });
        if (command !== undefined) await client.send(id, { text: command });
        return text(`Created terminal ${id}${name ? ` (${name})` : ''}${command !== undefined ? ` and typed: ${command}` : ''}.`);
      }),
  );

  server.registerTool(
    'terminal_send',
    {
      title: 'Type into a terminal',
      description:
        'Type text into a terminal as if the person typed it, then press Enter (unless newline is false). Use it for interactive programs: answering a prompt, driving a REPL or a full-screen TUI, or starting a long-running process. It returns at once with the output offset at the moment of sending, not the output: follow with terminal_wait (pass that offset as since, so output that arrives quickly is not missed) or terminal_read (mode "screen" for TUIs). To run a shell command and get its output and exit code, use terminal_exec instead. For control keys send the character itself, e.g. "\\u0003" for Ctrl-C, with newline false.',
      inputSchema: {
        terminal: terminalParam,
        text: z.string().describe('The text to type.'),
        newline: z.boolean().optional().describe('Press Enter after the text (default true).'),
        paste: z.boolean().optional().describe('Send as a bracketed paste; use for multi-line text into editors and REPLs.'),
      },
      annotations: { destructiveHint: true, openWorldHint: false },
    },
    ({ terminal, text: typed, newline, paste }) =>
      guarded(async () => {
        const id = await resolveTerminalId(client, terminal);
        const sent = await client.send(id, { text: typed, newline, paste });
        const offset = sent.offset === undefined ? '' : ` Output offset at sending: ${sent.offset} (use as since in terminal_wait).`;
        return text(`Sent ${typed.length} characters to ${id}${newline === false ? '' : ' and pressed Enter'}${sent.pasted ? ' as a bracketed paste' : ''}.${offset}`);
      }),
  );

  server.registerTool(
    'terminal_exec',
    {
      title: 'Run a shell command',
      description: `Run a shell command in a terminal's shell, wait until it finishes, and return its exit code and output (stdout and stderr as printed, escape sequences stripped). The person sees it run in the pane. Use it for commands that finish on their own (build, test, git, ls). Limits: returns the last ${McpToolDefaults.defaultReadBytes} bytes of output (outputLimit, max ${McpToolDefaults.maxReadBytes}); when more was printed, the reply starts with a note giving the output's offsets in the terminal's log, so terminal_read mode "log" can page through all of it; default timeout ${McpToolDefaults.execTimeoutMs} ms (max ${McpToolDefaults.maxTimeoutMs}); commands in one terminal run one after another. Do not use it for interactive programs or ones that never exit (servers, watchers, editors): use terminal_send then terminal_wait/terminal_read. Fails if a full-screen program is in the foreground.`,
      inputSchema: {
        terminal: terminalParam,
        command: z.string().min(1).describe('The command line, as you would type it at the prompt.'),
        timeoutMs: timeoutParam(McpToolDefaults.execTimeoutMs),
        outputLimit: z
          .number()
          .int()
          .min(1024)
          .max(McpToolDefaults.maxReadBytes)
          .optional()
          .describe(`At most this many bytes of the end of the output to return (default ${McpToolDefaults.defaultReadBytes}, max ${McpToolDefaults.maxReadBytes}).`),
      },
      annotations: { destructiveHint: true, openWorldHint: true },
    },
    ({ terminal, command, timeoutMs, outputLimit }) =>
      guarded(async () => {
        const id = await resolveTerminalId(client, terminal);
        const limit = outputLimit ?? McpToolDefaults.defaultReadBytes;
        let event;
        try {
          event = await client.exec(id, command, timeoutMs ?? McpToolDefaults.execTimeoutMs);
        } catch (error) {
          // A timeout or the shell exiting still tells the model what it needs to act: the output
          // so far and the line the pane waits on (`name? `) — with the reason, as an error.
          const output = error instanceof ControlClientError ? error.details.output : undefined;
          if (typeof output !== 'string') throw error;
          return { content: [{ type: 'text', text: `${(error as Error).message}\noutput so far:\n${execOutput(output, limit)}` }], isError: true };
        }
        const typedNote = event.personTyped ? '\n[a person typed into this terminal while the command ran: their keys, echoed, are mixed into the output]' : '';
        return text(`exit code: ${event.exitCode ?? 'unknown'}${typedNote}\n${execOutput(event.output, limit, event)}`);
      }),
  );

  server.registerTool(
    'terminal_read',
    {
      title: 'Read a terminal',
      description: `Read what a terminal shows. mode "screen" (default) returns the rendered screen as text, as the person sees it; use it for TUIs and to check a prompt (with scrollback, at most the last ${McpToolDefaults.maxReadBytes} bytes of it). mode "log" returns the output history (escape sequences stripped unless raw) addressed by absolute byte offsets: limit bytes (default ${McpToolDefaults.defaultReadBytes}, max ${McpToolDefaults.maxReadBytes}) from offset, or without offset the last limit bytes; the reply ends with the next offset, so pass it as offset to read on (or only what is new).`,
      inputSchema: {
        terminal: terminalParam,
        mode: z.enum(['screen', 'log']).optional().describe('"screen" (default) or "log".'),
        scrollback: z.number().int().min(0).max(10_000).optional().describe('screen mode: also include up to this many lines above the screen.'),
        offset: z.number().int().min(0).optional().describe('log mode: absolute byte offset to start at.'),
        limit: z.number().int().min(1).max(McpToolDefaults.maxReadBytes).optional().describe('log mode: maximum bytes to return.'),
        raw: z.boolean().optional().describe('log mode: keep escape sequences.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ terminal, mode, scrollback, offset, limit, raw }) =>
      guarded(async () => {
        const id = await resolveTerminalId(client, terminal);
        if ((mode ?? 'screen') === 'screen') {
          const screen = await client.readScreen(id, scrollback);
          const lines = screen.lines.map((line) => line.trimEnd());
          while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
          const shown = tailOf(lines.join('\n'), McpToolDefaults.maxReadBytes);
          const cut = shown.cut ? `, scrollback cut: the last ${shown.shownBytes} of ${shown.totalBytes} bytes shown (ask for fewer lines, or read mode "log")` : '';
          const footer = `[screen ${screen.cols}x${screen.rows}, cursor at row ${screen.cursor.y} column ${screen.cursor.x}${screen.altScreen ? ', full-screen program' : ''}${cut}]`;
          return text(`${shown.text}\n${footer}`);
        }
        const log = await client.readLog(id, { offset, limit: limit ?? McpToolDefaults.defaultReadBytes, strip: raw !== true });
        // `truncated` also means "more follows" (claws' meaning): only a start moved past what the
        // terminal still keeps is a gap. (A start moved a few bytes past a split escape sequence is not.)
        const clamped = offset !== undefined && log.offset > offset && log.totalSize - offset > TerminalConstants.ringBytes;
        const gap = clamped ? ', older output is no longer kept: started at the oldest kept byte' : '';
        const more = log.nextOffset < log.totalSize ? `; more follows, next offset: ${log.nextOffset}` : `; next offset: ${log.nextOffset} (the end, for now)`;
        return text(`${log.bytes}\n[bytes ${log.offset}-${log.nextOffset} of ${log.totalSize}${gap}${more}]`);
      }),
  );

  server.registerTool(
    'terminal_wait',
    {
      title: 'Wait for a terminal',
      description: `Block until something happens in a terminal: output matching a regular expression (pattern), the output going quiet for idleMs, the shell back at its prompt (prompt: the running command finished), a process of the terminal listening on a TCP port (port: the dev server is up), or the terminal's program exiting (exit). Give at least one; the first met ends the wait. Only output from now on counts, unless since gives an earlier output offset (terminal_send returns one). Use it after terminal_send or terminal_create with a command, e.g. wait for "listening on" from a server. Returns what matched, or says it timed out (default ${McpToolDefaults.waitTimeoutMs} ms, max ${McpToolDefaults.maxTimeoutMs}); a timeout is not an error.`,
      inputSchema: {
        terminal: terminalParam,
        pattern: z.string().min(1).max(1000).optional().describe('JavaScript regular expression, matched against new output with escape sequences stripped. It never matches the echo of text typed with terminal_send, only what the program prints (a program that does not echo delays the match by at most 1 s).'),
        ignoreCase: z.boolean().optional().describe('Match pattern without regard to case.'),
        since: z.number().int().min(0).optional().describe('Output offset to count from (from terminal_send), so output printed before this call still matches.'),
        idleMs: z.number().int().min(1).max(McpToolDefaults.maxTimeoutMs).optional().describe('Done when nothing was printed for this many milliseconds.'),
        prompt: z.boolean().optional().describe('Done when the shell shows its prompt again.'),
        exit: z.boolean().optional().describe("Done when the terminal's program exits."),
        port: z.number().int().min(1).max(65_535).optional().describe('Done when a process of the terminal listens on this TCP port (at once if one already does); returns the server URL.'),
        timeoutMs: timeoutParam(McpToolDefaults.waitTimeoutMs),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ terminal, pattern, ignoreCase, since, idleMs, prompt, exit, port, timeoutMs }) =>
      guarded(async () => {
        if (pattern === undefined && idleMs === undefined && prompt !== true && exit !== true && port === undefined) {
          throw new Error('give at least one condition: pattern, idleMs, prompt, exit or port');
        }
        const flags = ignoreCase ? 'i' : undefined;
        if (pattern !== undefined) new RegExp(pattern, flags); // a bad pattern fails here with the engine's own message
        const id = await resolveTerminalId(client, terminal);
        const timeout = timeoutMs ?? McpToolDefaults.waitTimeoutMs;
        const result = await client.wait(id, { pattern, flags, since, idleMs, prompt: prompt || undefined, exit: exit || undefined, port, timeoutMs: timeout });
        if (!result.matched) return text(`Timed out after ${timeout} ms; nothing matched.`);
        const parts = [`Matched ${result.condition ?? 'a condition'}`];
        if (result.offset !== undefined) parts.push(`at output offset ${result.offset}`);
        if (result.exitCode !== undefined && result.exitCode !== null) parts.push(`(exit code ${result.exitCode})`);
        else if (result.signal) parts.push(`(signal ${result.signal})`);
        if (result.server) parts.push(`(${result.server.url}, pid ${result.server.pid ?? 'unknown'})`);
        return text(parts.join(' ') + (result.text ? `:\n${result.text}` : '.'));
      }),
  );

  server.registerTool(
    'terminal_close',
    {
      title: 'Close a terminal',
      description: 'Close a terminal and end the program in it (the person loses that pane). Closing one that is already closed is not an error.',
      inputSchema: { terminal: terminalParam },
      annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ terminal }) =>
      guarded(async () => {
        let id: string;
        try {
          id = await resolveTerminalId(client, terminal);
        } catch (error) {
          // A terminal closed already is no longer listed: that is the idempotent case, not an
          // error. The socket's close says so for whatever id it is given.
          if (!(error instanceof ControlClientError) || error.code !== 'UNKNOWN_TERMINAL') throw error;
          id = terminal;
        }
        const { alreadyClosed } = await client.close(id);
        return text(alreadyClosed ? `Terminal ${id} was already closed (no open terminal has that id or name); nothing to do.` : `Closed terminal ${id}.`);
      }),
  );

  server.registerTool(
    'terminal_signal',
    {
      title: 'Signal a terminal',
      description:
        'Send a signal to the program in the foreground of a terminal (its process group), as the keyboard would: SIGINT is Ctrl-C (stop a running command or server; a terminal_exec waiting on it then returns with exit code 130), SIGTSTP is Ctrl-Z, SIGTERM/SIGKILL end it harder. The shell itself keeps running.',
      inputSchema: {
        terminal: terminalParam,
        signal: z.enum(allowedSignals).optional().describe('The signal (default SIGINT).'),
      },
      annotations: { destructiveHint: true, openWorldHint: false },
    },
    ({ terminal, signal }) =>
      guarded(async () => {
        const id = await resolveTerminalId(client, terminal);
        const sent = await client.call('signal', { terminalId: id, signal: signal ?? 'SIGINT' });
        return text(`Sent ${sent.signal} to the foreground process group ${sent.processGroup} of terminal ${id}.`);
      }),
  );

  registerBusTools(server, client);
  registerReviewTools(server, client);
  registerHistoryTools(server, client);
  registerAgentTools(server, client);
  registerWorkspaceTools(server, client);
  return server;
}
