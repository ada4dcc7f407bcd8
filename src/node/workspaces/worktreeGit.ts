/**
 * What agent workspaces do to a repository, each step one or a few `git` commands (git.ts):
 * make a worktree on a new branch, copy the `.worktreeinclude` files into it, read its changes
 * against its base, discard a file or a hunk, and finish it (merge, keep the branch, discard).
 *
 * The user's main checkout is only written by a merge they asked for; nothing here rewrites
 * history (no reset --hard, rebase, force push, amend).
 */
import { constants as fsConstants } from 'node:fs';
import { copyFile, lstat, mkdir, readFile, readlink, realpath, rm, stat, symlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ApiError } from '../../common/api/errors.ts';
import {
  type DiffScope,
  type FileChangeStatus,
  WorkspaceLimits,
  type WorktreeChangedFile,
  type WorktreeDiffFile,
} from '../../common/api/workspaceContract.ts';
import { firstLines, git, splitNul } from './git.ts';
import { parseUnifiedDiff, type ParsedFileDiff } from './unifiedDiff.ts';

/** Options every diff of ours uses, whatever the user's config says about prefixes, colours or external tools. */
const diffOptions = ['-c', 'core.quotePath=false', '-c', 'diff.noprefix=false', '-c', 'diff.mnemonicPrefix=false', '-c', 'color.ui=false'];
const diffFlags = ['--no-color', '--no-ext-diff', '--no-textconv', '--src-prefix=a/', '--dst-prefix=b/', '-M'];

export interface RepositoryInfo {
  /** The top of the checkout `folder` is in (a linked worktree's own top when folder is in one). */
  root: string;
  /** The main checkout (the common git dir's parent). */
  mainRoot: string;
  /** The branch checked out there; null when HEAD is detached. */
  branch: string | null;
}

/** The repository `folder` is in; null when it is not in one. */
export async function repositoryOf(folder: string): Promise<RepositoryInfo | null> {
  // One git for the common case; HEAD's name comes back as "HEAD" when detached.
  const top = await git(['rev-parse', '--show-toplevel', '--path-format=absolute', '--git-common-dir', '--symbolic-full-name', 'HEAD'], { cwd: folder, allowFailure: true });
  if (top.exitCode !== 0) {
    if (/not a git repository/i.test(top.stderr)) return null;
    // A repository without commits yet: HEAD names no commit, but the rest is known.
    if (/ambiguous argument 'HEAD'|unknown revision/i.test(top.stderr)) return await unbornRepositoryOf(folder);
    throw new ApiError('GIT_FAILED', `git rev-parse failed in ${folder}: ${firstLines(top.stderr)}`);
  }
  const [root, commonDir, head] = top.stdout.split('\n');
  if (!root || !commonDir) return null;
  const mainRoot = basename(commonDir) === '.git' ? dirname(commonDir) : root;
  return { root, mainRoot, branch: head?.startsWith('refs/heads/') ? head.slice('refs/heads/'.length) : null };
}

async function unbornRepositoryOf(folder: string): Promise<RepositoryInfo | null> {
  const top = await git(['rev-parse', '--show-toplevel', '--path-format=absolute', '--git-common-dir'], { cwd: folder });
  const [root, commonDir] = top.stdout.split('\n');
  if (!root || !commonDir) return null;
  const branch = await git(['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd: root, allowFailure: true });
  const mainRoot = basename(commonDir) === '.git' ? dirname(commonDir) : root;
  return { root, mainRoot, branch: branch.exitCode === 0 ? branch.stdout.trim() : null };
}

export async function branchExists(repo: string, branch: string): Promise<boolean> {
  const result = await git(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: repo, allowFailure: true });
  return result.exitCode === 0;
}

/** git's own rules for a branch name (`git check-ref-format --branch`). */
async function isValidBranchName(repo: string, branch: string): Promise<boolean> {
  const result = await git(['check-ref-format', '--branch', branch], { cwd: repo, allowFailure: true });
  // check-ref-format --branch also expands @{-1}; a name that does not come back as itself is not a plain branch name.
  return result.exitCode === 0 && result.stdout.trim() === branch && !branch.startsWith('-');
}

export function invalidBranchName(branch: string): ApiError {
  return new ApiError('INVALID_BRANCH', `"${branch}" is not a valid branch name (git check-ref-format --branch refuses it)`);
}

function noBaseBranch(base: string, repoRoot: string): ApiError {
  return new ApiError('INVALID_BRANCH', `there is no branch "${base}" in ${repoRoot} to start the worktree from`);
}

/**
 * Why `git worktree add -b <branch> … <base>` would be refused, as a clear error: the base first,
 * then the branch's name, then the branch taken (`branch` null: a derived name, known free). The
 * checks run side by side; null when none applies (git's own error says what went wrong).
 */
export async function worktreeRefusal(repo: string, base: string, branch: string | null): Promise<ApiError | null> {
  const [hasBase, valid, taken] = await Promise.all([
    branchExists(repo, base),
    branch === null ? true : isValidBranchName(repo, branch),
    branch === null ? false : branchExists(repo, branch),
  ]);
  if (!hasBase) return noBaseBranch(base, repo);
  if (!valid) return invalidBranchName(branch!);
  if (taken) return new ApiError('BRANCH_EXISTS', `the branch "${branch}" already exists in ${repo}; choose another name`);
  return null;
}

/** A branch name from a task: `Fix the login timeout!` → `fix-the-login-timeout`. */
export function branchNameFromTask(task: string): string {
  const slug = task
    .split('\n')[0]!
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/g, '');
  return slug.length > 0 ? slug : 'agent';
}

/** A branch not taken yet: `name`, else `name-2`, `name-3`… */
export async function unusedBranchName(repo: string, name: string, isPathFree: (branch: string) => boolean): Promise<string> {
  for (let suffix = 1; suffix < 1000; suffix++) {
    const candidate = suffix === 1 ? name : `${name}-${suffix}`;
    if (!(await branchExists(repo, candidate)) && isPathFree(candidate)) return candidate;
  }
  throw new ApiError('BRANCH_EXISTS', `branches ${name} to ${name}-999 all exist; give a branch name`);
}

/**
 * Where a branch's worktree goes: `<worktreesFolder>/<repo name>/<branch>` when the setting names a
 * folder, else beside the repository in `<repo>-worktrees/<branch>`. Slashes of the branch become
 * folders' dashes, so `feature/x` is one folder. Never inside the repository.
 */
export function worktreePathFor(repoRoot: string, branch: string, worktreesFolder: string): string {
  const leaf = branch.replaceAll('/', '-');
  const path = worktreesFolder ? join(worktreesFolder, basename(repoRoot), leaf) : join(dirname(repoRoot), `${basename(repoRoot)}-worktrees`, leaf);
  if (isInside(path, repoRoot)) {
    throw new ApiError('INVALID_PARAMS', `the worktrees folder ${worktreesFolder} is inside the repository ${repoRoot}; choose a folder outside it (Settings → Agents)`);
  }
  return path;
}

export function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

export async function addWorktree(repo: string, path: string, branch: string, base: string): Promise<void> {
  // `refs/heads/…`: the base is a local branch, never a tag or a remote branch of the same name.
  await git(['worktree', 'add', '-b', branch, path, `refs/heads/${base}`], { cwd: repo });
}

/** `addWorktree` from the commit `checkout`'s HEAD is on, for when the branch HEAD names is still being asked (headBranch). */
export async function addWorktreeFromHead(checkout: string, path: string, branch: string): Promise<void> {
  await git(['worktree', 'add', '-b', branch, path, 'HEAD'], { cwd: checkout });
}

/** The branch checked out in `checkout` (also one with no commits yet); null when HEAD is detached. */
export async function headBranch(checkout: string): Promise<string | null> {
  const head = await git(['symbolic-ref', '--quiet', 'HEAD'], { cwd: checkout, allowFailure: true });
  // --quiet: exit 1 and no message when HEAD is detached; anything else is an error.
  if (head.exitCode === 1) return null;
  const ref = head.stdout.trim();
  if (head.exitCode !== 0 || !ref.startsWith('refs/heads/')) throw new ApiError('GIT_FAILED', `git symbolic-ref HEAD failed in ${checkout}: ${firstLines(head.stderr) || ref}`);
  return ref.slice('refs/heads/'.length);
}

/**
 * Whether `git worktree add -b <branch>` takes `branch` literally. It applies check-ref-format's
 * rules too, except that it expands `@{-N}` (the branch checked out N switches ago) and would read
 * a leading `-` as an option; `isValidBranchName` refuses both, so the two agree on every name
 * this lets through.
 */
export function isLiteralBranchName(branch: string): boolean {
  return branch.length > 0 && !branch.startsWith('-') && !branch.includes('@{');
}

/** Remove a worktree (`--force`: also with changes, for a confirmed discard); a folder already gone is pruned instead. */
export async function removeWorktree(repo: string, path: string, options: { force: boolean }): Promise<void> {
  if (!(await exists(path))) {
    await git(['worktree', 'prune'], { cwd: repo });
    return;
  }
  await git(['worktree', 'remove', ...(options.force ? ['--force'] : []), path], { cwd: repo });
}

export async function deleteBranch(repo: string, branch: string, options: { force: boolean }): Promise<void> {
  await git(['branch', options.force ? '-D' : '-d', branch], { cwd: repo });
}

/**
 * The main checkout's files that `.worktreeinclude` names and git ignores (relative paths). It
 * reads the main checkout only, so New agent runs it while `git worktree add` checks out.
 */
export async function listWorktreeInclude(repoRoot: string): Promise<string[]> {
  const includeFile = join(repoRoot, '.worktreeinclude');
  if (!(await exists(includeFile))) return [];
  const matching = splitNul((await git(['ls-files', '-z', '--others', '--ignored', `--exclude-from=${includeFile}`], { cwd: repoRoot })).stdout);
  if (matching.length === 0) return [];
  // Of those, the ones git ignores (asked about these few paths only, not every ignored file of node_modules).
  const checked = await git(['check-ignore', '-z', '--stdin'], { cwd: repoRoot, input: matching.join('\0') + '\0', allowFailure: true });
  const ignoredSet = new Set(splitNul(checked.stdout));
  return matching.filter((file) => ignoredSet.has(file));
}

/**
 * Copy the files `.worktreeinclude` lists (gitignore patterns) from the main checkout, as Claude
 * Code does: only files that match a pattern AND that git ignores, so a tracked file is never
 * copied over the checkout's own. git does the matching (`ls-files --ignored --exclude-from`).
 * Returns the relative paths copied; anything already at a path in the worktree (a file, a link,
 * even a dangling one) is left alone. Nothing is written outside the worktree: a folder the
 * checkout made a symbolic link (the base commit may have one where the main checkout has a real
 * folder) is not written through, and a link being copied is copied as a link, never followed.
 */
export async function copyWorktreeInclude(repoRoot: string, worktreePath: string, listed?: Promise<string[]>): Promise<string[]> {
  const files = await (listed ?? listWorktreeInclude(repoRoot));
  if (files.length === 0) return [];
  const realWorktree = await realpath(worktreePath);
  const copied: string[] = [];
  for (const file of files) {
    const from = join(repoRoot, file);
    const to = join(worktreePath, file);
    if (!isInside(to, worktreePath) || (await lexists(to))) continue;
    if (!(await folderStaysInside(dirname(to), realWorktree))) continue;
    await mkdir(dirname(to), { recursive: true });
    const info = await lstat(from);
    try {
      if (info.isSymbolicLink()) await symlink(await readlink(from), to);
      else if (info.isFile()) await copyFile(from, to, fsConstants.COPYFILE_EXCL);
      else continue;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue; // appeared since the look above: left alone
      throw error;
    }
    copied.push(file);
  }
  return copied;
}

/** Whether anything (a dangling link included) is at `path`. */
async function lexists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the folder `dir` (inside the worktree by its name) really is inside it: its deepest part
 * that exists, with links resolved, must be a folder inside the worktree. The parts still missing
 * are then made by mkdir, so they are real folders.
 */
async function folderStaysInside(dir: string, realWorktree: string): Promise<boolean> {
  let existing = dir;
  for (;;) {
    if (await lexists(existing)) break;
    const parent = dirname(existing);
    if (parent === existing) return false;
    existing = parent;
  }
  try {
    const real = await realpath(existing);
    return isInside(real, realWorktree) && (await stat(real)).isDirectory();
  } catch {
    return false; // a dangling link
  }
}

export interface WorktreeState {
  mergeBase: string;
  ahead: number;
  behind: number;
  files: WorktreeChangedFile[];
  filesTruncated: boolean;
  additions: number;
  deletions: number;
  uncommittedCount: number;
}

/** The worktree's changes against `base`: ahead/behind, and each changed file with its +/− lines. */
export async function worktreeState(path: string, base: string): Promise<WorktreeState> {
  const mergeBase = (await git(['merge-base', base, 'HEAD'], { cwd: path })).stdout.trim();
  // Each status and its +/− lines from one git (--raw and --numstat together): a refresh runs while an agent writes.
  const [counts, summary, uncommittedTracked, untracked] = await Promise.all([
    git(['rev-list', '--left-right', '--count', `${base}...HEAD`], { cwd: path }),
    git([...diffOptions, 'diff', '--raw', '--numstat', '-z', '-M', '--no-ext-diff', '--no-textconv', mergeBase], { cwd: path }),
    git([...diffOptions, 'diff', '--name-only', '-z', '--no-ext-diff', 'HEAD'], { cwd: path }),
    git(['ls-files', '-z', '--others', '--exclude-standard'], { cwd: path }),
  ]);
  const [behind, ahead] = counts.stdout.trim().split(/\s+/).map(Number);
  const { statuses, numstat } = parseRawNumstat(summary.stdout);
  const uncommitted = new Set(splitNul(uncommittedTracked.stdout));
  const files: WorktreeChangedFile[] = [];
  for (const entry of numstat) {
    const status = statuses.get(entry.path);
    files.push({
      path: entry.path,
      oldPath: entry.oldPath,
      status: status?.status ?? 'modified',
      additions: entry.additions,
      deletions: entry.deletions,
      binary: entry.additions === null,
      uncommitted: uncommitted.has(entry.path) || (entry.oldPath !== null && uncommitted.has(entry.oldPath)),
    });
  }
  const untrackedFiles = splitNul(untracked.stdout);
  for (const file of untrackedFiles.slice(0, WorkspaceLimits.maxListedFiles)) {
    const lines = await countLines(join(path, file));
    files.push({ path: file, oldPath: null, status: 'added', additions: lines, deletions: lines === null ? null : 0, binary: lines === null, uncommitted: true });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const listed = files.slice(0, WorkspaceLimits.maxListedFiles);
  return {
    mergeBase,
    ahead: ahead ?? 0,
    behind: behind ?? 0,
    files: listed,
    filesTruncated: files.length > listed.length || untrackedFiles.length > WorkspaceLimits.maxListedFiles,
    additions: files.reduce((sum, file) => sum + (file.additions ?? 0), 0),
    deletions: files.reduce((sum, file) => sum + (file.deletions ?? 0), 0),
    uncommittedCount: files.filter((file) => file.uncommitted).length,
  };
}

type NumstatEntry = { path: string; oldPath: string | null; additions: number | null; deletions: number | null };

/**
 * `git diff --raw --numstat -z`: first the raw records, ":<modes> <ids> <status>\0path\0" (a rename
 * or copy: "…R086\0old\0new\0"), then the numstat ones, "A\tD\tpath\0" (a rename: "A\tD\t\0old\0new\0").
 */
function parseRawNumstat(output: string): { statuses: Map<string, { status: FileChangeStatus; oldPath: string | null }>; numstat: NumstatEntry[] } {
  const parts = output.split('\0');
  const statuses = new Map<string, { status: FileChangeStatus; oldPath: string | null }>();
  const numstat: NumstatEntry[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part === '') continue;
    if (part.startsWith(':')) {
      const letter = part.slice(part.lastIndexOf(' ') + 1)[0];
      if (letter === 'R' || letter === 'C') {
        const oldPath = parts[++i] ?? '';
        const path = parts[++i] ?? '';
        statuses.set(path, { status: letter === 'R' ? 'renamed' : 'copied', oldPath });
      } else {
        const path = parts[++i] ?? '';
        const status: FileChangeStatus = letter === 'A' ? 'added' : letter === 'D' ? 'deleted' : letter === 'T' ? 'typechange' : 'modified';
        statuses.set(path, { status, oldPath: null });
      }
      continue;
    }
    const [added, deleted, name] = part.split('\t');
    const additions = added === '-' ? null : Number(added);
    const deletions = deleted === '-' ? null : Number(deleted);
    if (name === '' || name === undefined) {
      const oldPath = parts[++i] ?? '';
      const path = parts[++i] ?? '';
      numstat.push({ path, oldPath, additions, deletions });
    } else {
      numstat.push({ path: name, oldPath: null, additions, deletions });
    }
  }
  return { statuses, numstat };
}

/** Lines of a text file; null for a binary one (a NUL byte in its first 8 KiB, as git decides). */
async function countLines(file: string): Promise<number | null> {
  let data: Buffer;
  try {
    const info = await lstat(file);
    if (!info.isFile()) return 0;
    data = await readFile(file);
  } catch {
    return 0;
  }
  if (data.subarray(0, 8000).includes(0)) return null;
  if (data.length === 0) return 0;
  let lines = 0;
  for (const byte of data) if (byte === 10) lines++;
  return data[data.length - 1] === 10 ? lines : lines + 1;
}

export interface DiffRequest {
  path: string;
  base: string;
  scope: DiffScope;
  file?: string | undefined;
}

export interface DiffAnswer {
  fromCommit: string;
  files: WorktreeDiffFile[];
}

/** The worktree's diff for `scope`, per file; with `file`, only it, with its old and new contents. */
export async function worktreeDiff(request: DiffRequest): Promise<DiffAnswer> {
  const { path, scope } = request;
  const from = scope === 'uncommitted' ? await revParse(path, 'HEAD') : (await git(['merge-base', request.base, 'HEAD'], { cwd: path })).stdout.trim();
  const parsed = await parsedDiff(path, scope, from, request.file);
  const uncommitted = new Set(splitNul((await git([...diffOptions, 'diff', '--name-only', '-z', '--no-ext-diff', 'HEAD'], { cwd: path })).stdout));
  const untracked = scope === 'committed' ? new Set<string>() : new Set(splitNul((await git(['ls-files', '-z', '--others', '--exclude-standard'], { cwd: path })).stdout));
  const files: WorktreeDiffFile[] = [];
  for (const entry of parsed) {
    const truncated = entry.text.length > WorkspaceLimits.maxFileDiffChars;
    const file: WorktreeDiffFile = {
      path: entry.path,
      oldPath: entry.oldPath,
      status: entry.status,
      additions: entry.binary ? null : entry.additions,
      deletions: entry.binary ? null : entry.deletions,
      binary: entry.binary,
      uncommitted: scope === 'uncommitted' || untracked.has(entry.path) || uncommitted.has(entry.path),
      diff: truncated ? entry.text.slice(0, WorkspaceLimits.maxFileDiffChars) : entry.text,
      hunks: truncated ? [] : entry.hunks,
      truncated,
    };
    if (request.file !== undefined) {
      file.oldContents = entry.status === 'added' ? null : await textAt(path, from, entry.oldPath ?? entry.path);
      file.newContents = entry.status === 'deleted' ? null : scope === 'committed' ? await textAt(path, 'HEAD', entry.path) : await workingText(join(path, entry.path));
    }
    files.push(file);
  }
  return { fromCommit: from, files };
}

/** git's patch for the scope, plus new-file patches for untracked files (git diff leaves them out). */
async function parsedDiff(path: string, scope: DiffScope, from: string, file: string | undefined): Promise<ParsedFileDiff[]> {
  const pathspec = file === undefined ? [] : ['--', file];
  const range = scope === 'committed' ? [from, 'HEAD'] : [from];
  const tracked = await git([...diffOptions, 'diff', ...diffFlags, ...range, ...pathspec], { cwd: path });
  const files = parseUnifiedDiff(tracked.stdout);
  if (scope === 'committed') return files;
  const untracked = splitNul((await git(['ls-files', '-z', '--others', '--exclude-standard', ...pathspec], { cwd: path })).stdout);
  for (const name of untracked.slice(0, WorkspaceLimits.maxListedFiles)) {
    // --no-index exits 1 when the files differ, which they always do here.
    const added = await git([...diffOptions, 'diff', '--no-index', ...diffFlags, '--', '/dev/null', name], { cwd: path, allowFailure: true });
    const [parsed] = parseUnifiedDiff(added.stdout);
    if (parsed) files.push({ ...parsed, path: name, status: 'added' });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return files;
}

async function revParse(path: string, rev: string): Promise<string> {
  return (await git(['rev-parse', '--verify', `${rev}^{commit}`], { cwd: path })).stdout.trim();
}

/** A file's text at a commit; null when it is not there, is binary or is too big for the Review view. */
async function textAt(path: string, commit: string, file: string): Promise<string | null> {
  const result = await git(['cat-file', 'blob', `${commit}:${file}`], { cwd: path, allowFailure: true });
  if (result.exitCode !== 0) return null;
  return asText(Buffer.from(result.stdout, 'utf8'), result.stdout);
}

async function workingText(file: string): Promise<string | null> {
  try {
    const data = await readFile(file);
    return asText(data, data.toString('utf8'));
  } catch {
    return null;
  }
}

function asText(data: Buffer, text: string): string | null {
  if (data.subarray(0, 8000).includes(0) || text.length > WorkspaceLimits.maxFileContentsChars) return null;
  return text;
}

/** A worktree-relative path that stays inside the worktree, or INVALID_PARAMS. */
export function safeRelativePath(worktree: string, file: string): string {
  const absolute = resolve(worktree, file);
  if (isAbsolute(file) || !absolute.startsWith(worktree + sep) || file.split(/[\\/]/).includes('.git')) {
    throw new ApiError('INVALID_PARAMS', `${file} is not a file of the worktree ${worktree}`);
  }
  return relative(worktree, absolute).split(sep).join('/');
}

/**
 * A whole file back to how it is at the diff's old side (the merge base, or HEAD for
 * `uncommitted`), in the working tree and the index. A renamed file comes back under its old name.
 */
export async function discardFile(path: string, base: string, file: string, scope: 'all' | 'uncommitted'): Promise<void> {
  const relativePath = safeRelativePath(path, file);
  const from = scope === 'uncommitted' ? await revParse(path, 'HEAD') : (await git(['merge-base', base, 'HEAD'], { cwd: path })).stdout.trim();
  const [entry] = await parsedDiff(path, scope, from, relativePath);
  if (!entry) throw new ApiError('NOT_FOUND', `${relativePath} has no changes to discard (against ${scope === 'uncommitted' ? 'HEAD' : base})`);
  const oldPath = entry.oldPath && entry.status === 'renamed' ? entry.oldPath : null;
  for (const name of oldPath ? [relativePath, oldPath] : [relativePath]) {
    const inFrom = (await git(['cat-file', '-e', `${from}:${name}`], { cwd: path, allowFailure: true })).exitCode === 0;
    if (inFrom) {
      await git(['restore', `--source=${from}`, '--staged', '--worktree', '--', name], { cwd: path });
    } else {
      await git(['rm', '--cached', '--quiet', '--ignore-unmatch', '--', name], { cwd: path });
      await rm(join(path, name), { force: true });
    }
  }
}

/**
 * One hunk undone in the working tree: `git apply -R` of it, checked first. The hunk must be one
 * the file's diff has now; a file changed since the diff was read is refused (NOT_FOUND), not guessed.
 */
export async function discardHunk(path: string, base: string, file: string, hunkText: string, scope: 'all' | 'uncommitted'): Promise<void> {
  const relativePath = safeRelativePath(path, file);
  const from = scope === 'uncommitted' ? await revParse(path, 'HEAD') : (await git(['merge-base', base, 'HEAD'], { cwd: path })).stdout.trim();
  const [entry] = await parsedDiff(path, scope, from, relativePath);
  const hunk = entry?.hunks.find((candidate) => candidate.text === hunkText || candidate.text === hunkText + '\n');
  if (!entry || !hunk) throw new ApiError('NOT_FOUND', `that change to ${relativePath} is not in its diff any more (the file changed since): read the diff again`);
  const patch = entry.header + hunk.text;
  const apply = ['apply', '-R', '--whitespace=nowarn'];
  const check = await git([...apply, '--check', '-'], { cwd: path, input: patch, allowFailure: true });
  if (check.exitCode !== 0) throw new ApiError('GIT_FAILED', `cannot undo that change to ${relativePath}: ${firstLines(check.stderr)}`);
  await git([...apply, '-'], { cwd: path, input: patch });
}

/** Tracked changes and untracked files in a checkout (`git status --porcelain`), as "XY path". */
export async function statusLines(path: string, options: { untracked: boolean }): Promise<string[]> {
  const result = await git(['status', '--porcelain=v1', '-z', `--untracked-files=${options.untracked ? 'all' : 'no'}`], { cwd: path });
  const parts = result.stdout.split('\0');
  const lines: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part === '') continue;
    lines.push(part);
    // A rename's entry is followed by its old name.
    if (part[0] === 'R' || part[0] === 'C') i++;
  }
  return lines;
}

/** Commit everything in the worktree (`add -A`) with `message`; the new commit, or null when there was nothing. */
export async function commitAll(path: string, message: string): Promise<string | null> {
  if ((await statusLines(path, { untracked: true })).length === 0) return null;
  await git(['add', '-A'], { cwd: path });
  // --no-verify is not used: the repository's hooks are the user's rules for a commit.
  const commit = await git(['commit', '--quiet', '-F', '-'], { cwd: path, input: message, allowFailure: true });
  if (commit.exitCode !== 0) throw new ApiError('GIT_FAILED', `committing the worktree's changes failed: ${firstLines(commit.stderr || commit.stdout)}`);
  return await revParse(path, 'HEAD');
}

/** Where `branch` is checked out (`git worktree list`), if anywhere. */
export async function checkoutOf(repo: string, branch: string): Promise<string | null> {
  const result = await git(['worktree', 'list', '--porcelain', '-z'], { cwd: repo });
  let current: string | null = null;
  for (const line of result.stdout.split('\0')) {
    if (line.startsWith('worktree ')) current = line.slice('worktree '.length);
    else if (line === `branch refs/heads/${branch}` && current !== null) return current;
  }
  return null;
}

export interface MergeOutcome {
  kind: 'fast-forward' | 'merge-commit' | 'up-to-date';
  commit: string;
}

/**
 * Merge `branch` into `base`: in the checkout that has the base (which must be clean), with
 * `git merge` (fast-forward when possible, else a merge commit); a conflict is undone with
 * `git merge --abort` and reported with its files. A base checked out nowhere is only
 * fast-forwarded (`update-ref` with the old value, so nothing else moved it meanwhile).
 */
export async function mergeIntoBase(repo: string, branch: string, base: string): Promise<MergeOutcome> {
  const branchTip = (await git(['rev-parse', '--verify', `refs/heads/${branch}`], { cwd: repo })).stdout.trim();
  const baseTip = (await git(['rev-parse', '--verify', `refs/heads/${base}`], { cwd: repo })).stdout.trim();
  if ((await git(['merge-base', '--is-ancestor', branchTip, baseTip], { cwd: repo, allowFailure: true })).exitCode === 0) {
    return { kind: 'up-to-date', commit: baseTip };
  }
  const canFastForward = (await git(['merge-base', '--is-ancestor', baseTip, branchTip], { cwd: repo, allowFailure: true })).exitCode === 0;
  const checkout = await checkoutOf(repo, base);
  if (checkout === null) {
    if (!canFastForward) {
      throw new ApiError('INVALID_PARAMS', `${base} is not checked out anywhere and ${branch} cannot be fast-forwarded onto it; check ${base} out to merge with a merge commit`);
    }
    await git(['update-ref', '-m', `switchboard: fast-forward ${base} to ${branch}`, `refs/heads/${base}`, branchTip, baseTip], { cwd: repo });
    return { kind: 'fast-forward', commit: branchTip };
  }
  await assertBaseCheckoutClean(repo, base);
  const merge = await git(['merge', '--no-edit', '-m', `Merge branch '${branch}' (Switchboard agent)`, branch], { cwd: checkout, allowFailure: true });
  if (merge.exitCode !== 0) {
    const conflicted = splitNul((await git(['diff', '--name-only', '--diff-filter=U', '-z'], { cwd: checkout })).stdout);
    if (await mergeInProgress(checkout)) await git(['merge', '--abort'], { cwd: checkout });
    if (conflicted.length > 0) {
      throw new ApiError('MERGE_CONFLICT', `merging ${branch} into ${base} conflicts in: ${conflicted.join(', ')}. The merge was aborted; ${base} and the worktree are as they were`);
    }
    throw new ApiError('GIT_FAILED', `merging ${branch} into ${base} failed; nothing was merged: ${firstLines(merge.stderr || merge.stdout)}`);
  }
  const after = await revParse(checkout, 'HEAD');
  return { kind: after === branchTip && canFastForward ? 'fast-forward' : 'merge-commit', commit: after };
}

/**
 * Would merging the worktree as it is now (uncommitted work included) into `base` conflict? Checked
 * before anything is committed, so a conflict leaves the worktree exactly as it was: the work is
 * written as a commit object that no branch points at (a private index, `commit-tree`) and merged
 * in memory (`git merge-tree --write-tree`, git 2.38+; older gits skip the check and rely on
 * `merge --abort`). Returns the conflicting files.
 */
export async function previewMergeConflicts(path: string, base: string): Promise<string[]> {
  const index = join(tmpdir(), `switchboard-merge-check-${randomBytes(6).toString('hex')}`);
  // commit-tree needs a name even for an object nobody will see; the user's own is used when set.
  const env = { GIT_INDEX_FILE: index, GIT_AUTHOR_NAME: 'Switchboard', GIT_AUTHOR_EMAIL: 'switchboard@localhost', GIT_COMMITTER_NAME: 'Switchboard', GIT_COMMITTER_EMAIL: 'switchboard@localhost' };
  try {
    await git(['read-tree', 'HEAD'], { cwd: path, env });
    await git(['add', '-A'], { cwd: path, env });
    const tree = (await git(['write-tree'], { cwd: path, env })).stdout.trim();
    const commit = (await git(['commit-tree', tree, '-p', 'HEAD', '-m', 'switchboard merge check'], { cwd: path, env })).stdout.trim();
    const merged = await git(['merge-tree', '--write-tree', '--name-only', '--no-messages', base, commit], { cwd: path, allowFailure: true });
    if (merged.exitCode === 0) return [];
    if (merged.exitCode === 1) return [...new Set(merged.stdout.split('\n').slice(1).filter((line) => line.length > 0))];
    // 129: this git has no --write-tree; the merge itself still aborts on a conflict.
    return [];
  } finally {
    await rm(index, { force: true });
  }
}

/** The checkout that has `base` must be clean for a merge; refused before anything is committed. */
export async function assertBaseCheckoutClean(repo: string, base: string): Promise<void> {
  const checkout = await checkoutOf(repo, base);
  if (checkout === null) return;
  const dirty = await statusLines(checkout, { untracked: false });
  if (dirty.length > 0) {
    throw new ApiError(
      'BASE_DIRTY',
      `${checkout} (where ${base} is checked out) has uncommitted changes: ${dirty.map((line) => line.slice(3)).slice(0, 20).join(', ')}. Commit or stash them there first; nothing was merged`,
    );
  }
  if (await mergeInProgress(checkout)) throw new ApiError('BASE_DIRTY', `${checkout} is in the middle of a merge; finish or abort it there first`);
}

async function mergeInProgress(checkout: string): Promise<boolean> {
  return (await git(['rev-parse', '-q', '--verify', 'MERGE_HEAD'], { cwd: checkout, allowFailure: true })).exitCode === 0;
}

/** Commits on `branch` not on `base`, one line each (`abc1234 subject`). */
export async function unmergedCommits(repo: string, branch: string, base: string): Promise<string[]> {
  const result = await git(['log', '--format=%h %s', `${base}..${branch}`], { cwd: repo });
  return result.stdout.split('\n').filter((line) => line.length > 0);
}

export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
