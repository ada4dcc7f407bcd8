/**
 * `$SWITCHBOARD_HOME/serve.json`: how other tools (and tests) find a running `switchboard serve`.
 * Mode 0600 because it holds the access token. Removed when that server exits.
 */
import { readFile, rm } from 'node:fs/promises';
import { z } from 'zod';
import { serveInfoFilePath, writePrivateFileAtomic } from '../paths.ts';

export const ServeInfo = z.object({
  url: z.string(),
  port: z.number().int().min(1).max(65535),
  token: z.string(),
  pid: z.number().int(),
  controlSocket: z.string(),
});
export type ServeInfo = z.infer<typeof ServeInfo>;

export async function writeServeInfo(dataDir: string, info: ServeInfo): Promise<string> {
  const path = serveInfoFilePath(dataDir);
  await writePrivateFileAtomic(path, JSON.stringify(info, null, 2) + '\n');
  return path;
}

export async function readServeInfo(dataDir: string): Promise<ServeInfo | undefined> {
  try {
    return ServeInfo.parse(JSON.parse(await readFile(serveInfoFilePath(dataDir), 'utf8')));
  } catch {
    return undefined;
  }
}

/** Remove serve.json if it still describes the server with this pid (a newer server may own it now). */
export async function removeServeInfo(dataDir: string, pid: number): Promise<void> {
  const current = await readServeInfo(dataDir);
  if (current && current.pid !== pid) return;
  await rm(serveInfoFilePath(dataDir), { force: true });
}
