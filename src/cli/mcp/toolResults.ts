/** How every Switchboard MCP tool answers: text content, and failures as tool errors (never a crash). */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { withAuthHint } from '../authHint.ts';
import type { ControlClient } from '../controlClient.ts';
import { resolveTerminalId as resolveTerminalRef } from '../terminalRef.ts';

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

/** The end of a text cut to fit a model's context: `text` is at most `maxBytes` of UTF-8. */
export interface TextTail {
  text: string;
  /** UTF-8 bytes of the whole text, and of the part kept. */
  totalBytes: number;
  shownBytes: number;
  cut: boolean;
}

/**
 * The last `maxBytes` (UTF-8) of `body`. MCP clients cap a tool result (Claude Code at about 25k
 * tokens) and drop or reject more, so tools hand a model the tail — where a build or a test run
 * says how it ended — and tell it how to page back. The cut never splits a character, and moves to
 * the next line start when one is near, so the first line shown is whole.
 */
export function tailOf(body: string, maxBytes: number): TextTail {
  const bytes = Buffer.from(body, 'utf8');
  if (bytes.length <= maxBytes) return { text: body, totalBytes: bytes.length, shownBytes: bytes.length, cut: false };
  let start = bytes.length - maxBytes;
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++; // a UTF-8 continuation byte
  const newline = bytes.indexOf(0x0a, start);
  if (newline >= 0 && newline - start < maxBytes / 8) start = newline + 1;
  return { text: bytes.subarray(start).toString('utf8'), totalBytes: bytes.length, shownBytes: bytes.length - start, cut: true };
}

/** A tool's `terminal` argument to a full id; "unknown terminal" points a model at terminal_list, not `switchboard ls`. */
export function resolveTerminalId(client: ControlClient, ref: string): Promise<string> {
  return resolveTerminalRef(client, ref, { listHint: 'terminal_list' });
}
