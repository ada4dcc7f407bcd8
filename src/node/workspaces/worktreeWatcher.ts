/**
 * Notices when an agent changes its worktree, without a polling loop: one non-recursive fs.watch
 * per folder that holds files git cares about (tracked, or untracked and not ignored) and one on
 * the worktree's own git dir (HEAD, index: commits, staging). Ignored folders such as
 * node_modules are never walked or watched (a recursive watch would put an inotify watch on each of
 * their thousands of folders). Events are debounced into one `onDidChange` call; the owner reads
 * the changes with git and calls `resync()` so new folders get watched (it lists them again only
 * after something was created, deleted or renamed).
 */
import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { WorkspaceLimits } from '../../common/api/workspaceContract.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import { git, splitNul } from './git.ts';

/** Folders watched per worktree at most: beyond this (a huge monorepo) only the top folders are; a commit still refreshes through the git dir. */
const maxWatchedFolders = 4000;

export class WorktreeWatcher implements IDisposable {
  readonly #path: string;
  readonly #onDidChange: () => void;
  readonly #logger: ILogger;
  readonly #watchers = new Map<string, FSWatcher>();
  #timer: NodeJS.Timeout | undefined;
  /**
   * Whether the watched folders may differ from what git would list now: something was created,
   * deleted or renamed (an fs.watch 'rename'), a .gitignore changed, or a watch failed. An agent
   * editing files it already has sends only 'change' events, and each refresh then skips the three
   * git processes of a listing (New agent's worktrees refresh up to every 300 ms while it writes).
   */
  #stale = true;
  #listings = 0;
  /** When the first change not refreshed yet came. */
  #pendingSince: number | undefined;
  #disposed = false;

  constructor(options: { path: string; onDidChange: () => void; logger: ILogger }) {
    this.#path = options.path;
    this.#onDidChange = options.onDidChange;
    this.#logger = options.logger;
  }

  /** Watch the worktree's folders and git dir as they are now (again after changes: new folders, removed ones). */
  async resync(): Promise<void> {
    if (this.#disposed || !this.#stale) return;
    // Cleared before listing: an event meanwhile makes the next resync list again.
    this.#stale = false;
    this.#listings++;
    const folders = new Set<string>(['']);
    let gitDir: string | null = null;
    try {
      const [tracked, untracked, dir] = await Promise.all([
        git(['ls-files', '-z'], { cwd: this.#path }),
        git(['ls-files', '-z', '--others', '--exclude-standard', '--directory'], { cwd: this.#path }),
        git(['rev-parse', '--path-format=absolute', '--git-dir'], { cwd: this.#path }),
      ]);
      for (const file of [...splitNul(tracked.stdout), ...splitNul(untracked.stdout)]) {
        for (let folder = dirname(file.replace(/\/$/, '/.')); folder !== '.' && !folders.has(folder); folder = dirname(folder)) folders.add(folder);
      }
      gitDir = dir.stdout.trim();
    } catch (error) {
      this.#stale = true;
      this.#logger.debug('cannot list the worktree for watching', { path: this.#path, error: String(error) });
    }
    if (this.#disposed) return;
    const wanted = new Set([...folders].sort((a, b) => a.length - b.length).slice(0, maxWatchedFolders).map((folder) => join(this.#path, folder)));
    if (gitDir) wanted.add(gitDir);
    for (const [folder, watcher] of this.#watchers) {
      if (!wanted.has(folder)) {
        watcher.close();
        this.#watchers.delete(folder);
      }
    }
    for (const folder of wanted) {
      if (this.#watchers.has(folder)) continue;
      try {
        const watcher = watch(folder, { persistent: false }, (eventType, filename) => {
          if (eventType !== 'change' || filename === null || basename(filename) === '.gitignore') this.#stale = true;
          this.#schedule();
        });
        watcher.on('error', () => {
          // The folder went away (deleted by the agent): the next resync drops it.
          watcher.close();
          this.#watchers.delete(folder);
          this.#stale = true;
          this.#schedule();
        });
        this.#watchers.set(folder, watcher);
      } catch {
        // Gone between the listing and the watch.
      }
    }
  }

  get watchedFolderCount(): number {
    return this.#watchers.size;
  }

  /** How many times the folders were listed with git (tests: a file edited in place lists nothing). */
  get listings(): number {
    return this.#listings;
  }

  /** Debounced, but an agent writing without pause still gets its counts refreshed every refreshMaxWaitMs. */
  #schedule(): void {
    if (this.#disposed) return;
    const now = Date.now();
    this.#pendingSince ??= now;
    clearTimeout(this.#timer);
    const delay = Math.max(0, Math.min(WorkspaceLimits.refreshDebounceMs, this.#pendingSince + WorkspaceLimits.refreshMaxWaitMs - now));
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#pendingSince = undefined;
      if (!this.#disposed) this.#onDidChange();
    }, delay);
  }

  dispose(): void {
    this.#disposed = true;
    clearTimeout(this.#timer);
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
  }
}
