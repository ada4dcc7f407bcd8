/**
 * Agent profiles: the CLIs Switchboard knows how to start (built in) and the user's own (the
 * `agentProfiles` setting, which may also override a built-in one by its id), how each one's
 * command line is built for a start or a resume, and whether its program is installed.
 */
import { homedir } from 'node:os';
import type { AgentProfile, AgentProfileAvailability, AgentProfileSetting } from '../../common/api/workspaceContract.ts';
import { resolveExecutable } from '../pty/shellLaunch.ts';

/** What each CLI offers, from its own documentation (`--help`); the resume ways are the CLIs' "latest session in this folder" where they have no session id of ours. */
export const builtInProfiles: readonly AgentProfile[] = [
  {
    id: 'claude',
    name: 'Claude Code',
    kind: 'claude-code',
    command: 'claude',
    args: [],
    env: {},
    // `claude "task"` starts the interactive session with the task as its first message.
    prompt: { kind: 'argument' },
    // A session id we choose, so the same conversation is found again after a restart.
    resume: { kind: 'session', startArgs: ['--session-id', '{sessionId}'], resumeArgs: ['--resume', '{sessionId}'] },
    reviewEditsInSwitchboard: true,
    builtIn: true,
    overridden: false,
  },
  {
    id: 'codex',
    name: 'Codex CLI',
    kind: 'codex',
    command: 'codex',
    args: [],
    env: {},
    prompt: { kind: 'argument' },
    resume: { kind: 'args', resumeArgs: ['resume', '--last'] },
    reviewEditsInSwitchboard: false,
    builtIn: true,
    overridden: false,
  },
  {
    id: 'gemini',
    name: 'Gemini CLI',
    kind: 'gemini',
    command: 'gemini',
    args: [],
    env: {},
    // -i / --prompt-interactive: run the prompt and stay interactive (plain -p exits after it).
    prompt: { kind: 'flag', flag: '--prompt-interactive' },
    resume: { kind: 'args', resumeArgs: ['--resume', 'latest'] },
    reviewEditsInSwitchboard: false,
    builtIn: true,
    overridden: false,
  },
  {
    id: 'aider',
    name: 'Aider',
    kind: 'aider',
    command: 'aider',
    args: [],
    env: {},
    // --message answers once and exits: there is no interactive start with a prompt.
    prompt: { kind: 'none' },
    resume: { kind: 'args', resumeArgs: ['--restore-chat-history'] },
    reviewEditsInSwitchboard: false,
    builtIn: true,
    overridden: false,
  },
  {
    id: 'opencode',
    name: 'OpenCode',
    kind: 'opencode',
    command: 'opencode',
    args: [],
    env: {},
    prompt: { kind: 'flag', flag: '--prompt' },
    resume: { kind: 'args', resumeArgs: ['--continue'] },
    reviewEditsInSwitchboard: false,
    builtIn: true,
    overridden: false,
  },
];

/** Built-in profiles with the settings' overrides applied, then the custom ones, in that order. */
export function mergeProfiles(settings: readonly AgentProfileSetting[]): AgentProfile[] {
  const byId = new Map(settings.map((entry) => [entry.id, entry]));
  const merged: AgentProfile[] = builtInProfiles.map((profile) => {
    const override = byId.get(profile.id);
    // An override is a whole profile; only what makes it the built-in one (its kind) stays.
    return override ? { ...fromSetting(override), kind: profile.kind, builtIn: true, overridden: true } : profile;
  });
  for (const entry of settings) {
    if (!builtInProfiles.some((profile) => profile.id === entry.id)) merged.push(fromSetting(entry));
  }
  return merged;
}

function fromSetting(entry: AgentProfileSetting): AgentProfile {
  return { ...entry, args: [...entry.args], env: { ...entry.env }, builtIn: false, overridden: false };
}

/** Whether the profile's program can be found, as a PTY started now would look for it (its PATH). */
export async function profileAvailability(profile: AgentProfile, env: NodeJS.ProcessEnv = process.env): Promise<AgentProfileAvailability> {
  const check = await resolveExecutable(profile.command, { cwd: env.HOME ?? homedir(), path: profile.env.PATH ?? env.PATH });
  return check.ok
    ? { profile, installed: true, command: profile.command, resolvedPath: check.path, reason: null }
    : { profile, installed: false, command: profile.command, resolvedPath: null, reason: check.reason };
}

export interface AgentCommandRequest {
  mode: 'start' | 'resume';
  prompt?: string | undefined;
  /** For `resume.kind: "session"` profiles: the uuid chosen at start. */
  sessionId?: string | null | undefined;
}

/**
 * The arguments the profile's program gets: its own `args`, Claude Code's permission mode when
 * edits are reviewed in Switchboard, then the session id (start) or the resume arguments, then the
 * prompt (start only).
 */
export function buildAgentArgs(profile: AgentProfile, request: AgentCommandRequest): string[] {
  const args = [...profile.args];
  if (profile.kind === 'claude-code' && profile.reviewEditsInSwitchboard) args.push('--permission-mode', 'default');
  const withSession = (list: readonly string[]) => list.map((arg) => arg.replaceAll('{sessionId}', request.sessionId ?? ''));
  if (request.mode === 'resume') {
    if (profile.resume.kind === 'none') throw new Error(`profile ${profile.id} cannot resume`);
    if (profile.resume.kind === 'session' && !request.sessionId) throw new Error(`profile ${profile.id} resumes by session id, and none was recorded`);
    args.push(...withSession(profile.resume.resumeArgs));
    return args;
  }
  if (profile.resume.kind === 'session') {
    if (!request.sessionId) throw new Error(`profile ${profile.id} needs a session id to start`);
    args.push(...withSession(profile.resume.startArgs));
  }
  if (request.prompt !== undefined) {
    // A task starting with "-" would be read as an option: "--" ends the options (commander, clap and yargs CLIs all honour it).
    if (profile.prompt.kind === 'argument') args.push(...(request.prompt.startsWith('-') ? ['--'] : []), request.prompt);
    else if (profile.prompt.kind === 'flag') args.push(profile.prompt.flag, request.prompt);
  }
  return args;
}
