/**
 * The small types every part of the API contract shares (contract.ts and its per-feature files
 * such as historyContract.ts import them from here, so none imports another in a cycle).
 */
import { z } from 'zod';

export const TerminalId = z.string().min(1).max(64).regex(/^[A-Za-z0-9_.-]+$/, 'terminal ids are [A-Za-z0-9_.-]');
export type TerminalId = z.infer<typeof TerminalId>;

export const Creator = z.object({
  kind: z.enum(['person', 'agent', 'remote']),
  /** Who: "you", an agent's peer name, a relay viewer. */
  name: z.string().max(200),
});
export type Creator = z.infer<typeof Creator>;
