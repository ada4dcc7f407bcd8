/** How every Switchboard MCP tool answers: text content, and failures as tool errors (never a crash). */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { withAuthHint } from '../authHint.ts';

export function text(body: string): CallToolResult {
  return { content: [{ type: 'text', text: body }] };
}

/** Runs a tool; any failure becomes `isError: true` with its message, so the server keeps serving. */
export async function guarded(handler: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await handler();
  } catch (error) {
    return { content: [{ type: 'text', text: withAuthHint(error instanceof Error ? error.message : String(error)) }], isError: true };
  }
}
