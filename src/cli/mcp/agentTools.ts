/**
 * agent_status: which panes run an agent CLI and what each is doing (working, needs-input, idle,
 * exited), so an orchestrating agent can see its workers without reading their screens.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { formatAgentTable } from '../commands/agents.ts';
import type { ControlClient } from '../controlClient.ts';
import { guarded, resolveTerminalId, text } from './toolResults.ts';

export function registerAgentTools(server: McpServer, client: ControlClient): void {
  server.registerTool(
    'agent_status',
    {
      title: 'Agent panes and their state',
      description:
        'List the terminals that run an agent CLI (Claude Code, Codex, Gemini CLI, Aider, …) with the agent, its state (working, needs-input, idle = its turn is over, exited), how long it has been in it, and the reason (what it asks, e.g. "Bash: touch marker.txt", or its exit code). With `terminal`, only that one. Call it again rather than reading screens to see whether a worker is done.',
      inputSchema: {
        terminal: z.string().min(1).max(200).optional().describe('A terminal id, id prefix or name: only this one.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ terminal }) =>
      guarded(async () => {
        const id = terminal ? await resolveTerminalId(client, terminal) : null;
        const all = await client.list();
        const chosen = id ? all.filter((entry) => entry.id === id) : all;
        const withAgents = chosen.filter((entry) => entry.agent);
        if (id && withAgents.length === 0) return text(`Terminal ${id} runs no agent.\n`);
        return text(formatAgentTable(withAgents, Date.now()));
      }),
  );
}
