/**
 * `switchboard worktree list|diff|finish`: the worktrees agents work in (made by `agent start
 * --worktree` or the New agent dialog), what each changed against its base, and finishing one:
 * merge it into its base, keep only its branch, or discard it (docs/protocol.md, `worktree.*`).
 */
import { resolve, sep } from 'node:path';
import type { WorktreeInfo } from '../../common/api/workspaceContract.ts';
import { CliUsageError, ExitCode } from '../command.ts';
import { type ControlClient, ControlClientError } from '../controlClient.ts';
import { defineControlCommand, printable, printJson, requirePositionals } from '../controlCommand.ts';

export const worktreeCommand = defineControlCommand({
  name: 'worktree',
  summary: 'List agents\' worktrees, show what one changed, merge, keep or discard it.',
  usage: 'worktree list [--repo DIR] | diff [WORKTREE] [--scope all|committed|uncommitted] [--file FILE] | finish merge|branch|discard [WORKTREE] [--message TEXT] [--confirm]',
  details: [
    'WORKTREE is a worktree\'s folder (default: the one this folder is in).',
    'list: each worktree with its branch, base, commits ahead, changed files and lines, and its agent pane.',
    'diff: the unified diff against the base: committed and uncommitted together (all, the default),',
    'or either alone; --file for one file.',
    'finish merge: commit what is uncommitted (--message, default from the task), merge into the base',
    '(fast-forward when possible, else a merge commit) where the base is checked out, then remove the',
    'worktree and the branch. A conflict or uncommitted changes in the base\'s checkout refuse, and',
    'nothing is changed. finish branch: commit, remove the worktree, keep the branch. finish discard:',
    'remove the worktree and the branch; with uncommitted or unmerged work only with --confirm.',
    'The agent pane working there is closed when the worktree goes.',
  ].join('\n'),
  allowPositionals: true,
  options: {
    repo: { type: 'string', valueName: 'DIR', description: 'list: only the worktrees of this repository (its main checkout)' },
    scope: { type: 'string', valueName: 'SCOPE', description: 'diff: all (default), committed or uncommitted' },
    file: { type: 'string', valueName: 'FILE', description: 'diff: only this file (relative to the worktree)' },
    message: { type: 'string', short: 'm', valueName: 'TEXT', description: 'finish: the commit message for uncommitted work' },
    confirm: { type: 'boolean', description: 'finish: also while its agent works or waits for an answer; discard: also with uncommitted changes or unmerged commits' },
  },
  async run({ args, io, client }) {
    const [action] = requirePositionals(args, ['list|diff|finish'], { rest: true });
    switch (action) {
      case 'list': {
        requirePositionals(args, ['list']);
        const repo = typeof args.values.repo === 'string' ? resolve(io.cwd, args.values.repo) : undefined;
        const { worktrees } = await client.call('worktree.list', repo ? { repoRoot: repo } : {});
        if (args.json) printJson(io, worktrees);
        else io.stdout(formatWorktreeTable(worktrees));
        return ExitCode.ok;
      }
      case 'diff': {
        requirePositionals(args, ['diff', 'WORKTREE'].slice(0, Math.max(1, args.positionals.length)));
        const path = await worktreePath(client, args.positionals[1], io.cwd);
        const scope = args.values.scope as string | undefined;
        if (scope !== undefined && scope !== 'all' && scope !== 'committed' && scope !== 'uncommitted') throw new CliUsageError('--scope must be all, committed or uncommitted');
        const diff = await client.call('worktree.diff', {
          path,
          ...(scope ? { scope } : {}),
          ...(typeof args.values.file === 'string' ? { file: args.values.file } : {}),
        });
        if (args.json) printJson(io, diff);
        else io.stdout(diff.files.map((file) => file.diff + (file.truncated ? '[… the rest of this file\'s diff is not shown]\n' : '')).join(''));
        return ExitCode.ok;
      }
      case 'finish': {
        const [, mode, ref] = requirePositionals(args, ['finish', 'merge|branch|discard'].concat(args.positionals.length > 2 ? ['WORKTREE'] : []));
        if (mode !== 'merge' && mode !== 'branch' && mode !== 'discard') throw new CliUsageError('finish takes merge, branch or discard');
        const path = await worktreePath(client, ref, io.cwd);
        const result = await client
          .call('worktree.finish', {
            path,
            mode,
            ...(typeof args.values.message === 'string' ? { message: args.values.message } : {}),
            ...(args.values.confirm === true ? { confirm: true } : {}),
          })
          .catch((error: unknown) => {
            throw inCliWords(error);
          });
        if (args.json) printJson(io, result);
        else {
          const what =
            mode === 'merge'
              ? result.merge === 'up-to-date' && result.committed === null
                ? `nothing to merge: ${result.branch} had nothing ${result.base} lacks; removed the worktree and the branch`
                : `merged ${result.branch} into ${result.base} (${result.merge})`
              : mode === 'branch'
                ? `kept branch ${result.branch}; removed the worktree`
                : `discarded ${result.branch} and its worktree`;
          io.stdout(`${printable(what)}\n`);
        }
        return ExitCode.ok;
      }
      default:
        throw new CliUsageError(`unknown action ${JSON.stringify(action)}: use list, diff or finish`);
    }
  },
});

/**
 * The Hub's refusal speaks to socket clients ("Send confirm: true …"); on the command line the
 * same thing is the --confirm flag.
 */
function inCliWords(error: unknown): unknown {
  if (!(error instanceof ControlClientError) || !/Send confirm: true/.test(error.message)) return error;
  const message = error.message.replace(/Send confirm: true(?: \([^)]*\))? to/, 'Run it again with --confirm to');
  return new ControlClientError(error.code, message, error.serverCode, error.details);
}

/** WORKTREE as given, else the agent worktree this folder is in (an agent runs `switchboard worktree diff` from inside its own). */
async function worktreePath(client: ControlClient, ref: string | undefined, cwd: string): Promise<string> {
  if (ref !== undefined) return resolve(cwd, ref);
  const { worktrees } = await client.call('worktree.list', {});
  const here = worktrees.find((entry) => cwd === entry.path || cwd.startsWith(entry.path + sep));
  if (!here) throw new CliUsageError('this folder is not in an agent worktree; name one (see `switchboard worktree list`)');
  return here.path;
}

export function formatWorktreeTable(worktrees: readonly WorktreeInfo[]): string {
  if (worktrees.length === 0) return 'No agent worktrees.\n';
  const header = ['BRANCH', 'BASE', 'AHEAD', 'FILES', '+/-', 'AGENT', 'PATH'];
  const rows = worktrees.map((entry) => [
    entry.branch,
    entry.base,
    String(entry.ahead),
    entry.missing ? 'gone' : entry.error ? 'error' : String(entry.files.length) + (entry.filesTruncated ? '+' : ''),
    `+${entry.additions} -${entry.deletions}`,
    entry.terminalId ?? '-',
    entry.path,
  ].map(printable));
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  return [header, ...rows].map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ').trimEnd()).join('\n') + '\n';
}
