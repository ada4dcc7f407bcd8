/**
 * `switchboard agent start`: start an agent CLI from a profile in a pane of the running app, in a
 * folder or in a new git worktree (docs/protocol.md, `agent.start`); `switchboard agent profiles`:
 * the profiles and whether each one's program is installed. (`switchboard agents` lists the panes
 * that run one.)
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AgentStartInput } from '../../common/api/workspaceContract.ts';
import { ControlConstants } from '../../common/constants.ts';
import { CliUsageError, ExitCode } from '../command.ts';
import { ControlClientError } from '../controlClient.ts';
import { defineControlCommand, printable, printJson, requirePositionals } from '../controlCommand.ts';

export const agentCommand = defineControlCommand({
  name: 'agent',
  summary: 'Start an agent (Claude Code, Codex, …) from a profile, optionally in its own git worktree.',
  usage: 'agent start --profile ID [--worktree [BRANCH]] [--base BRANCH] [--prompt TEXT] [--name NAME] [FOLDER] | agent profiles',
  details: [
    'start: opens a pane running the profile\'s CLI in FOLDER (default: this folder). With --worktree,',
    'in a new git worktree on BRANCH (default: a name made from the prompt) from --base (default: the',
    'branch checked out in FOLDER), beside the repository in <repo>-worktrees/. The repository\'s',
    '.worktreeinclude files are copied and its .switchboard/setup runs first, in the pane. The agent',
    'gets ports of its own in PORT / SWITCHBOARD_PORT_BASE. With one argument after --worktree, an',
    'existing folder is FOLDER and anything else BRANCH; --branch names it explicitly.',
    'Prints the terminal id (and the worktree), or the whole answer with --json.',
    'profiles: each profile, its command and whether it is installed.',
    'See what it changed with `switchboard worktree list|diff`, finish with `switchboard worktree finish`.',
  ].join('\n'),
  allowPositionals: true,
  options: {
    profile: { type: 'string', short: 'p', valueName: 'ID', description: 'start: the profile (claude, codex, gemini, aider, opencode or your own)' },
    worktree: { type: 'boolean', short: 'w', description: 'start: work in a new git worktree' },
    branch: { type: 'string', valueName: 'BRANCH', description: 'start: the worktree\'s new branch (implies --worktree)' },
    base: { type: 'string', valueName: 'BRANCH', description: 'start: the branch the worktree starts from (implies --worktree)' },
    prompt: { type: 'string', valueName: 'TEXT', description: 'start: the task, passed to the agent as its first prompt' },
    name: { type: 'string', valueName: 'NAME', description: 'start: the pane\'s name (default: from the task)' },
  },
  async run({ args, io, client }) {
    const [action] = requirePositionals(args, ['start|profiles'], { rest: true });
    if (action === 'profiles') {
      requirePositionals(args, ['profiles']);
      const { profiles } = await client.call('agent.profiles', {});
      if (args.json) {
        printJson(io, profiles);
        return ExitCode.ok;
      }
      const rows = profiles.map((entry) => [entry.profile.id, entry.profile.name, entry.profile.command, entry.installed ? (entry.resolvedPath ?? 'yes') : `no: ${shortReason(entry.reason)}`]);
      const header = ['ID', 'NAME', 'COMMAND', 'INSTALLED'];
      const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
      io.stdout([header, ...rows].map((row) => row.map((cell, column) => (column === 3 ? printable(cell) : printable(cell).padEnd(widths[column]!))).join('  ')).join('\n') + '\n');
      return ExitCode.ok;
    }
    if (action !== 'start') throw new CliUsageError(`unknown action ${JSON.stringify(action)}: use start or profiles`);
    const profile = args.values.profile as string | undefined;
    if (!profile) throw new CliUsageError('missing --profile ID (see `switchboard agent profiles`)');
    const rest = args.positionals.slice(1);
    const explicitBranch = args.values.branch as string | undefined;
    const base = args.values.base as string | undefined;
    const worktree = args.values.worktree === true || explicitBranch !== undefined || base !== undefined;
    let branch = explicitBranch;
    let folder: string | undefined;
    if (worktree && explicitBranch === undefined && rest.length === 2) [branch, folder] = rest;
    else if (worktree && explicitBranch === undefined && rest.length === 1) {
      // `--worktree X`: X is the folder if it is one, else the branch.
      if (isDirectory(resolve(io.cwd, rest[0]!))) folder = rest[0];
      else branch = rest[0];
    } else if (rest.length <= 1) folder = rest[0];
    else throw new CliUsageError(`unexpected argument ${JSON.stringify(rest[1])}`);
    const params: AgentStartInput = {
      profile,
      folder: resolve(io.cwd, folder ?? '.'),
      ...(worktree ? { worktree: { ...(branch !== undefined ? { branch } : {}), ...(base !== undefined ? { base } : {}) } } : {}),
      ...(typeof args.values.prompt === 'string' ? { prompt: args.values.prompt } : {}),
      ...(typeof args.values.name === 'string' ? { name: args.values.name } : {}),
    };
    // The repository's setup script runs before the answer; its own timeout (a setting) is the limit.
    let started;
    try {
      started = await client.call('agent.start', params, { timeoutMs: ControlConstants.maxTimeoutMs });
    } catch (error) {
      if (args.json || !(error instanceof ControlClientError) || !error.message.includes('\n')) throw error;
      // A failed setup says why and then its last lines of output: those read as lines, not as
      // one line joined with "; " as other errors are.
      const [first, ...rest] = error.message.split('\n');
      io.stderr(`switchboard agent: ${printable(first!)}\n${rest.map((line) => `  ${printable(line)}\n`).join('')}`);
      return ExitCode.failure;
    }
    if (args.json) {
      printJson(io, started);
      return ExitCode.ok;
    }
    io.stdout(`${started.terminalId}\n`);
    // The id lasts until Switchboard restarts; the name (and the worktree) last: say it for scripts and people.
    io.stderr(`started ${printable(started.name)} (address it by that name across restarts)\n`);
    if (started.worktree) io.stderr(`worktree ${printable(started.worktree.path)} on ${printable(started.worktree.branch)} (from ${printable(started.worktree.base)})\n`);
    return ExitCode.ok;
  },
});

/** A program not found lists the whole PATH it searched; in the table, saying so is enough (--json has it all). */
function shortReason(reason: string | null): string {
  return (reason ?? '').replace(/^not found on PATH \(.*\)$/s, 'not found on PATH');
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
