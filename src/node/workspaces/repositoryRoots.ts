/**
 * Where a folder's repository is, remembered: New agent asks it of the same few folders again and
 * again (the dialog's branch suggestion, then the start; then the next agent in the same
 * repository), and each `git rev-parse` is a process New agent waits for before its worktree can
 * be made. The branch checked out is not remembered: it changes with every `git switch`.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type RepositoryInfo, repositoryOf } from './worktreeGit.ts';

/** A folder's repository; `branch` only when git was just asked (undefined when remembered). */
export interface LocatedRepository {
  root: string;
  mainRoot: string;
  branch?: string | null;
}

/** Folders remembered at most (the oldest forgotten first): a person's repositories, not a crawl. */
const maxFolders = 64;

export class RepositoryRoots {
  readonly #known = new Map<string, { root: string; mainRoot: string }>();

  /** Ask git (and remember the answer). */
  async lookup(folder: string): Promise<RepositoryInfo | null> {
    const repo = await repositoryOf(folder);
    this.#known.delete(folder);
    if (repo !== null) {
      this.#known.set(folder, { root: repo.root, mainRoot: repo.mainRoot });
      if (this.#known.size > maxFolders) this.#known.delete(this.#known.keys().next().value!);
    }
    return repo;
  }

  /** The remembered roots while they still hold, else git's answer. */
  async locate(folder: string): Promise<LocatedRepository | null> {
    const known = this.#known.get(folder);
    if (known && stillHolds(folder, known.root)) return { root: known.root, mainRoot: known.mainRoot };
    return await this.lookup(folder);
  }
}

/**
 * Whether `root` is still the top of `folder`'s checkout: its `.git` (a folder, or a file in a
 * linked worktree) is there, and no `.git` appeared between the folder and it (a `git init` or a
 * clone inside the repository, which git would now find first).
 */
function stillHolds(folder: string, root: string): boolean {
  if (!existsSync(join(root, '.git'))) return false;
  for (let at = folder; at !== root; at = dirname(at)) {
    if (existsSync(join(at, '.git'))) return false;
    if (dirname(at) === at) return false; // root is not above folder: never remembered so, but never loop
  }
  return true;
}
