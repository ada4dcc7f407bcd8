/**
 * The worktrees Switchboard made for agents, kept in `$SWITCHBOARD_HOME/worktrees.json` (0600):
 * which branch each one has, its base (git does not record what a branch was made from) and the
 * agent that works there. `worktree.*` acts only on these, never on worktrees a person made.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { AgentProfileId } from '../../common/api/workspaceContract.ts';
import type { ILogger } from '../logger.ts';
import { writePrivateFileAtomic } from '../paths.ts';

export const worktreesFileName = 'worktrees.json';

export const WorktreeRecord = z.object({
  path: z.string().min(1),
  branch: z.string().min(1),
  base: z.string().min(1),
  repoRoot: z.string().min(1),
  /** The task's name (the pane's name at start). */
  name: z.string(),
  /** The task itself (the first prompt), for the merge's commit message; null when none. */
  task: z.string().nullable(),
  profile: AgentProfileId.nullable(),
  sessionId: z.string().nullable(),
  createdAt: z.number(),
});
export type WorktreeRecord = z.infer<typeof WorktreeRecord>;

const WorktreesFile = z.object({ version: z.literal(1), worktrees: z.array(WorktreeRecord) });

export class WorktreeRegistry {
  readonly #filePath: string;
  readonly #logger: ILogger;
  readonly #records = new Map<string, WorktreeRecord>();
  #writes: Promise<void> = Promise.resolve();

  constructor(options: { dataDir: string; logger: ILogger }) {
    this.#filePath = join(options.dataDir, worktreesFileName);
    this.#logger = options.logger;
  }

  async load(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.#filePath, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.#logger.warn('cannot read the worktrees file', { error: String(error) });
      return;
    }
    const parsed = WorktreesFile.safeParse(safeJson(text));
    if (!parsed.success) {
      // Kept as it is on disk until the next change rewrites it: nothing of the repositories is touched.
      this.#logger.warn('the worktrees file is not valid; starting with no recorded worktrees', { file: this.#filePath });
      return;
    }
    for (const record of parsed.data.worktrees) this.#records.set(record.path, record);
  }

  get(path: string): WorktreeRecord | undefined {
    return this.#records.get(path);
  }

  list(): WorktreeRecord[] {
    return [...this.#records.values()].sort((a, b) => a.createdAt - b.createdAt);
  }

  async add(record: WorktreeRecord): Promise<void> {
    this.#records.set(record.path, record);
    await this.#save();
  }

  async remove(path: string): Promise<void> {
    if (!this.#records.delete(path)) return;
    await this.#save();
  }

  /** Writes queue behind each other, so the file always ends with the latest state. */
  #save(): Promise<void> {
    const contents = JSON.stringify({ version: 1, worktrees: this.list() }, null, 2) + '\n';
    const write = this.#writes.then(() => writePrivateFileAtomic(this.#filePath, contents));
    this.#writes = write.catch((error: unknown) => this.#logger.error('cannot write the worktrees file', { error: String(error) }));
    return write;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
