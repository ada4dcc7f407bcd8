/**
 * A dev server found in a terminal (src/node/servers): a TCP port a process of the terminal's
 * process tree listens on, on a loopback or wildcard address, merged with the URL the program
 * printed for it. Carried in TerminalInfo.servers, the control socket's `list`, `terminal.<id>.server`
 * bus messages and (later) the relay's localServerDetected.
 */
import { z } from 'zod';

export const DevServer = z.object({
  /** The address it listens on: 0.0.0.0 or :: (every interface), 127.0.0.1 or ::1; or the printed URL's host when no socket was seen. */
  host: z.string(),
  port: z.number().int().min(1).max(65_535),
  /** What to open: the URL the program printed for this port, else http://localhost:PORT/. */
  url: z.string(),
  /** The process that holds the listening socket; null when only the printed URL and a listener outside the pane's processes were seen. */
  pid: z.number().int().nullable(),
  /** When it was first seen, epoch ms. */
  since: z.number(),
});
export type DevServer = z.infer<typeof DevServer>;
