/**
 * `switchboard mcp`: an MCP server on stdin/stdout that gives a model Switchboard's terminals as
 * tools, proxied to the control socket. stdout carries nothing but MCP frames; anything for a
 * person goes to stderr.
 */
import { type CliCommand, ExitCode } from '../command.ts';
import { ControlClient, resolveControlSocketPath } from '../controlClient.ts';
import { resolveControlToken, socketOption } from '../controlCommand.ts';
import { switchboardVersion } from '../version.ts';

export const mcpCommand: CliCommand = {
  name: 'mcp',
  summary: 'Run an MCP server on stdio that lets AI agents use the terminals (for Claude Code, Codex…).',
  usage: 'mcp [--socket PATH]',
  details: [
    'Tools: terminal_list, terminal_create, terminal_send, terminal_exec, terminal_read, terminal_wait,',
    'terminal_signal, terminal_close, the claws/2 bus: bus_publish, bus_subscribe, bus_poll, review_request',
    '(ask the person to review a file change in the app before it is made), and History:',
    'history_list, history_search, history_reference (pointers to transcript files, not their',
    'content) and history_read (one bounded page of a transcript); agent_status; agent workspaces:',
    'agent_start, worktree_list, worktree_diff, worktree_finish.',
    'The app must be running (npm start or switchboard serve); until it is, tool calls',
    'answer with an error saying so. Set it up in Claude Code with:',
    '  claude mcp add switchboard -- npx switchboard mcp',
  ].join('\n'),
  allowPositionals: false,
  options: { ...socketOption },
  async run(args, io) {
    const [{ StdioServerTransport }, { createSwitchboardMcpServer }, { ReviewToolLimits }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('../mcp/terminalTools.ts'),
      import('../mcp/reviewTools.ts'),
    ]);
    const stdin = io.stdin ?? process.stdin;
    const stdout = io.stdoutStream ?? process.stdout;
    const socketPath = resolveControlSocketPath({ socketFlag: args.values.socket as string | undefined, env: io.env, cwd: io.cwd });
    const token = resolveControlToken(args.values.token, io.env);
    const client = new ControlClient({ socketPath, clientName: 'switchboard-mcp', clientVersion: switchboardVersion, token });
    const server = createSwitchboardMcpServer(client, switchboardVersion);
    // Two agents must be told apart in the app: what they do is credited to the MCP client's own
    // name from its `initialize` ("claude-code", "codex"), not to this proxy.
    server.server.oninitialized = () => {
      const peer = server.server.getClientVersion();
      if (peer?.name) client.setClient(peer.name.slice(0, 200), peer.version);
    };
    // review_request carries whole files (up to 10 MiB, JSON-escaped): the SDK's 10 MB default
    // would drop the session on a big proposal instead of letting the tool refuse it clearly.
    const transport = new StdioServerTransport(stdin, stdout, { maxBufferSize: ReviewToolLimits.maxStdioMessageBytes });
    // The stdio transport does not notice its input ending; the client closing stdin is our cue to stop.
    const ended = new Promise<void>((resolve) => {
      stdin.once('end', resolve);
      stdin.once('close', resolve);
      transport.onclose = () => resolve();
    });
    try {
      await server.connect(transport);
      await ended;
      return ExitCode.ok;
    } finally {
      await server.close();
      client.dispose();
    }
  },
};
