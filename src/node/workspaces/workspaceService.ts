/**
 * Agent workspaces (issue 20): start an agent from a profile in one step — optionally in its own
 * git worktree, with the repository's `.worktreeinclude` files and setup script and a port range
 * of its own — then see what it changed, discard parts, and finish (merge, keep the branch,
 * discard). The Hub's `agent.*`/`worktree.*` methods, the control socket's commands, the CLI and
 * MCP all come here.
 *
 * Owned by the Hub; `start()` loads the worktree records and watches them; `dispose()` stops the
 * watchers (agents' panes belong to the PtyHost).
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Creator, EventPayload, HubEvent, Settings } from '../../common/api/contract.ts';
import { ApiError, isApiError } from '../../common/api/errors.ts';
import {
  type AgentPaneInfo,
  type AgentProfile,
  type AgentProfileAvailability,
  type AgentStartParams,
  type AgentStartResult,
  WorkspaceLimits,
  type WorktreeDiff,
  type WorktreeDiffParams,
  type WorktreeDiscardParams,
  type WorktreeFinishParams,
  type WorktreeFinishResult,
  type WorktreeInfo,
} from '../../common/api/workspaceContract.ts';
import type { Event } from '../../common/event.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { PtySession } from '../pty/ptySession.ts';
import type { ILogger } from '../logger.ts';
import type { PtyHost } from '../pty/ptyHost.ts';
import type { AgentHookInbox } from '../agents/claudeHooks.ts';
import { buildAgentArgs, mergeProfiles, profileAvailability } from './profiles.ts';
import { newSetupNonce, setupLaunchArgs, waitForSetup } from './setupLaunch.ts';
import {
  addWorktree,
  assertBaseCheckoutClean,
  invalidBranchName,
  isLiteralBranchName,
  branchExists,
  branchNameFromTask,
  commitAll,
  copyWorktreeInclude,
  listWorktreeInclude,
  deleteBranch,
  discardFile,
  discardHunk,
  exists,
  mergeIntoBase,
  previewMergeConflicts,
  removeWorktree,
  addWorktreeFromHead,
  headBranch,
  statusLines,
  unmergedCommits,
  unusedBranchName,
  worktreeDiff,
  worktreeRefusal,
  worktreePathFor,
  worktreeState,
} from './worktreeGit.ts';
import { type WorktreeRecord, WorktreeRegistry } from './worktreeRegistry.ts';
import type { AgentPaneRestore } from './agentRestore.ts';
import type { AgentPaneRestoreRequest } from '../layout/sessionRestore.ts';
import { WorktreeWatcher } from './worktreeWatcher.ts';
import { RepositoryRoots } from './repositoryRoots.ts';

/** What a new worktree starts from: a branch named, or the one checked out in `headOf` (asked while git works). */
type WorktreeBase = { name: string } | { headOf: string; detached: () => ApiError };

/** The IDE bridge, as far as starting Claude Code needs it (see WorkspaceLimits.firstPromptIdeWaitMs). */
export interface WorkspaceIdeBridge {
  /** The bridge listens (the panes have CLAUDE_CODE_SSE_PORT). */
  available(): boolean;
  /** A Claude Code in this pane is connected. */
  connected(terminalId: string): boolean;
  readonly onDidChange: Event<unknown>;
}

export interface WorkspaceServiceOptions {
  ptyHost: PtyHost;
  ide?: WorkspaceIdeBridge;
  dataDir: string;
  settings: () => Settings;
  logger: ILogger;
  emit: <E extends HubEvent>(event: E, payload: EventPayload<E>) => void;
  /** Hook folders for Claude Code panes (agent state from its own hooks; src/node/agents/claudeHooks.ts). */
  agentHooks?: Pick<AgentHookInbox, 'create' | 'bind' | 'release'>;
}

/** What the Hub remembers of a pane it started from a profile (also what a restart needs to resume it). */
export interface AgentPaneRecord {
  terminalId: string;
  profile: string;
  profileName: string;
  sessionId: string | null;
  /** The worktree it works in; null when started in a plain folder. */
  worktreePath: string | null;
  cwd: string;
  /** Its port range's slot; null for a pane that runs no agent (not resumed after a restart). */
  portSlot: number | null;
  prompt: string | null;
  origin: AgentPaneInfo['origin'];
  reason: AgentPaneInfo['reason'];
  message: string | null;
}

/** The setup script's place in a repository. */
export const setupScriptPath = join('.switchboard', 'setup');

export class WorkspaceService implements IDisposable {
  readonly #options: WorkspaceServiceOptions;
  readonly #logger: ILogger;
  readonly #registry: WorktreeRegistry;
  readonly #agents = new Map<string, AgentPaneRecord>();
  readonly #watchers = new Map<string, WorktreeWatcher>();
  /** Worktrees whose refresh is running, and whether another was asked for meanwhile. */
  readonly #refreshing = new Map<string, boolean>();
  /** Worktrees being finished: no refresh events while git rewrites them. */
  readonly #finishing = new Set<string>();
  /** Agent starts in progress (they hold a port slot and count against the limit). */
  #starting = 0;
  readonly #pendingSlots = new Set<number>();
  /** Worktree creation per repository, one at a time (see #inRepository). */
  readonly #repositoryQueues = new Map<string, Promise<void>>();
  readonly #repositories = new RepositoryRoots();
  readonly #subscriptions: IDisposable[] = [];
  #disposed = false;

  constructor(options: WorkspaceServiceOptions) {
    this.#options = options;
    this.#logger = options.logger;
    this.#registry = new WorktreeRegistry({ dataDir: options.dataDir, logger: options.logger });
    this.#subscriptions.push(
      options.ptyHost.onDidRemoveTerminal(({ id }) => {
        const agent = this.#agents.get(id);
        if (!agent) return;
        this.#agents.delete(id);
        this.#panesChanged();
        if (agent.worktreePath) void this.#refresh(agent.worktreePath);
      }),
    );
  }

  async start(): Promise<void> {
    await this.#registry.load();
    for (const record of this.#registry.list()) {
      if (await exists(record.path)) this.#watch(record.path);
    }
  }

  /** The agent panes started from a profile, by terminal id (for restore data). */
  agentPane(terminalId: string): AgentPaneRecord | undefined {
    return this.#agents.get(terminalId);
  }

  profiles(): AgentProfile[] {
    return mergeProfiles(this.#options.settings().agentProfiles);
  }

  async profileAvailability(): Promise<AgentProfileAvailability[]> {
    return await Promise.all(this.profiles().map((profile) => profileAvailability(profile)));
  }

  #profile(id: string): AgentProfile {
    const profiles = this.profiles();
    const profile = profiles.find((entry) => entry.id === id);
    if (!profile) throw new ApiError('NOT_FOUND', `no agent profile "${id}" (profiles: ${profiles.map((entry) => entry.id).join(', ')})`);
    return profile;
  }

  /** The agent panes open now (see AgentPaneInfo). */
  panes(): AgentPaneInfo[] {
    return [...this.#agents.values()]
      .filter((agent) => this.#options.ptyHost.get(agent.terminalId))
      .map((agent) => ({
        terminalId: agent.terminalId,
        profile: agent.profile,
        profileName: agent.profileName,
        sessionId: agent.sessionId,
        worktreePath: agent.worktreePath,
        cwd: agent.cwd,
        prompt: agent.prompt,
        origin: agent.origin,
        reason: agent.reason,
        message: agent.message,
        portBase: agent.portSlot === null ? null : WorkspaceLimits.firstPortBase + agent.portSlot * WorkspaceLimits.portsPerAgent,
      }));
  }

  #panesChanged(): void {
    if (!this.#disposed) this.#options.emit('agent.panesChanged', this.panes());
  }

  /** What the window state keeps of an agent pane, so a restart brings the agent back. */
  restoreDataOf(terminalId: string): AgentPaneRestore | undefined {
    const agent = this.#agents.get(terminalId);
    if (!agent) return undefined;
    return { profile: agent.profile, sessionId: agent.sessionId, worktreePath: agent.worktreePath, cwd: agent.cwd, prompt: agent.prompt };
  }

  /**
   * Back after a restart: the agent resumed with its profile's resume command in the same folder,
   * under its last screen; or, when that cannot be (the profile cannot resume, its program or the
   * profile is gone, the worktree's folder is gone), a shell under the last screen with a line
   * that says why — never silently another folder. Answers the new terminal id.
   */
  async restoreAgentPane(request: AgentPaneRestoreRequest): Promise<string> {
    const { agent } = request;
    const profile = this.profiles().find((entry) => entry.id === agent.profile);
    const profileName = profile?.name ?? agent.profile;
    const record = agent.worktreePath ? this.#registry.get(agent.worktreePath) : undefined;
    const size = { ...(request.cols ? { cols: request.cols } : {}), ...(request.rows ? { rows: request.rows } : {}) };
    const createdBy: Creator = { kind: 'person', name: 'you' };
    let reason: AgentPaneInfo['reason'] = null;
    let message: string | null = null;
    let agentPath: string | null = null;
    const folderGone = !(await exists(agent.cwd)) || (agent.worktreePath !== null && !(await exists(agent.worktreePath)));
    if (folderGone) {
      reason = 'worktree-missing';
      message = agent.worktreePath ? `the worktree ${agent.worktreePath} is gone` : `the folder ${agent.cwd} is gone`;
    } else if (!profile) {
      reason = 'profile-missing';
      message = `there is no agent profile "${agent.profile}" any more`;
    } else if (profile.resume.kind === 'none' || (profile.resume.kind === 'session' && !agent.sessionId)) {
      reason = 'cannot-resume';
      message = `${profile.name} cannot be resumed`;
    } else {
      const availability = await profileAvailability(profile);
      if (!availability.installed || !availability.resolvedPath) {
        reason = 'not-installed';
        message = `${profile.name} is not installed: \`${profile.command}\` ${availability.reason ?? 'was not found'}`;
      } else {
        agentPath = availability.resolvedPath;
      }
    }
    if (profile && agentPath !== null && this.#liveAgentCount() < WorkspaceLimits.maxConcurrentAgents) {
      const slot = this.#takePortSlot();
      try {
        const session = await this.#withHooks(profile, buildAgentArgs(profile, { mode: 'resume', sessionId: agent.sessionId }), (args) => this.#options.ptyHost.create({
          file: agentPath,
          args,
          cwd: agent.cwd,
          env: agentEnvironment(profile, WorkspaceLimits.firstPortBase + slot * WorkspaceLimits.portsPerAgent, agent.worktreePath),
          shellIntegration: false,
          createdBy,
          ...(request.name ? { name: request.name } : {}),
          ...size,
          restore: { preamble: request.lastScreen + agentBanner(`resumed · ${profileName}${endedAt(request.from.endedAt)}`, 'dim'), from: request.from },
        }));
        this.#agents.set(session.id, { terminalId: session.id, profile: profile.id, profileName, sessionId: agent.sessionId, worktreePath: agent.worktreePath, cwd: agent.cwd, portSlot: slot, prompt: agent.prompt, origin: 'resumed', reason: null, message: null });
        this.#panesChanged();
        if (agent.worktreePath) void this.#refresh(agent.worktreePath);
        return session.id;
      } finally {
        this.#pendingSlots.delete(slot);
      }
    }
    if (agentPath !== null) {
      reason = 'cannot-resume';
      message = `${WorkspaceLimits.maxConcurrentAgents} agents are running already`;
    }
    // A shell where the agent worked (or, with its folder gone, in the repository or the workspace, said so).
    const cwd = !folderGone ? agent.cwd : record && (await exists(record.repoRoot)) ? record.repoRoot : request.fallbackCwd;
    const session = await this.#options.ptyHost.create({
      cwd,
      createdBy,
      ...(request.name ? { name: request.name } : {}),
      ...size,
      restore: {
        preamble: request.lastScreen + agentBanner(`not resumed · ${message ?? ''}${folderGone ? ` · this is a shell in ${cwd}` : ''}`, 'warn'),
        from: request.from,
      },
    });
    this.#agents.set(session.id, { terminalId: session.id, profile: agent.profile, profileName, sessionId: agent.sessionId, worktreePath: agent.worktreePath, cwd: agent.cwd, portSlot: null, prompt: agent.prompt, origin: 'not-resumed', reason, message });
    this.#panesChanged();
    return session.id;
  }

  /**
   * Claude Code started here reports its state through its own hooks (claudeHooks.ts): `--settings`
   * with them (merged by Claude Code with the user's settings, whose files are never touched),
   * bound to the pane once it exists. A profile that passes its own `--settings` is left as it is.
   */
  async #withHooks<T extends { id: string }>(profile: AgentProfile, args: string[], create: (args: string[]) => Promise<T>): Promise<T> {
    const hooks = this.#options.agentHooks;
    if (!hooks || profile.kind !== 'claude-code' || args.includes('--settings')) return await create(args);
    const { key, settings } = await hooks.create();
    try {
      const session = await create(['--settings', settings, ...args]);
      hooks.bind(key, session.id);
      return session;
    } catch (error) {
      hooks.release(key);
      throw error;
    }
  }

  /** Start again (see `agent.restart`): a fresh start of the pane's profile in its folder, in a new pane that replaces it. */
  async restartAgent(terminalId: string, options: { prompt: boolean }, createdBy: Creator): Promise<AgentStartResult> {
    const agent = this.#agents.get(terminalId);
    if (!agent || !this.#options.ptyHost.get(terminalId)) throw new ApiError('NOT_FOUND', `terminal ${terminalId} is not an agent pane Switchboard started`);
    if (!(await exists(agent.cwd))) throw new ApiError('NOT_FOUND', `${agent.cwd} is gone: the agent cannot start there again`);
    const profile = this.#profile(agent.profile);
    const name = this.#options.ptyHost.get(terminalId)!.info.name;
    const availability = await profileAvailability(profile);
    if (!availability.installed || availability.resolvedPath === null) {
      throw new ApiError('PROFILE_NOT_INSTALLED', `${profile.name} is not installed: \`${profile.command}\` ${availability.reason ?? 'was not found'}`);
    }
    // The old pane goes first, so the new one can take its name and its slot.
    this.#agents.delete(terminalId);
    await this.#options.ptyHost.close(terminalId);
    if (this.#liveAgentCount() + this.#starting >= WorkspaceLimits.maxConcurrentAgents) {
      throw new ApiError('AGENT_LIMIT', `${WorkspaceLimits.maxConcurrentAgents} agents are running, the most Switchboard starts at once; finish or close one first`);
    }
    const slot = this.#takePortSlot();
    this.#starting++;
    try {
      const sessionId = profile.resume.kind === 'session' ? randomUUID() : null;
      const prompt = options.prompt && agent.prompt ? agent.prompt : undefined;
      const portBase = WorkspaceLimits.firstPortBase + slot * WorkspaceLimits.portsPerAgent;
      const agentPath = availability.resolvedPath;
      const session = await this.#withHooks(profile, buildAgentArgs(profile, { mode: 'start', prompt, sessionId }), (args) => this.#options.ptyHost.create({
        file: agentPath,
        args,
        cwd: agent.cwd,
        env: agentEnvironment(profile, portBase, agent.worktreePath),
        name: this.#unusedPaneName(name),
        shellIntegration: false,
        createdBy,
      }));
      this.#agents.set(session.id, { terminalId: session.id, profile: profile.id, profileName: profile.name, sessionId, worktreePath: agent.worktreePath, cwd: agent.cwd, portSlot: slot, prompt: agent.prompt, origin: 'started', reason: null, message: null });
      this.#panesChanged();
      const record = agent.worktreePath ? this.#registry.get(agent.worktreePath) : undefined;
      return {
        terminalId: session.id,
        name: session.info.name,
        profile: profile.id,
        cwd: agent.cwd,
        ...(record ? { worktree: { path: record.path, branch: record.branch, base: record.base } } : {}),
        sessionId,
        portBase,
        setupRan: false,
      };
    } finally {
      this.#starting--;
      this.#pendingSlots.delete(slot);
    }
  }

  async suggestBranch(folder: string, task: string): Promise<{ branch: string; base: string | null; isRepository: boolean; reason: string | null }> {
    const repo = await this.#repositories.lookup(folder).catch((error: unknown) => {
      if (isApiError(error) && (error.code === 'GIT_MISSING' || error.code === 'NOT_FOUND')) return error;
      throw error;
    });
    if (repo === null || repo instanceof ApiError) {
      return { branch: branchNameFromTask(task), base: null, isRepository: false, reason: repo === null ? `${folder} is not in a git repository` : repo.message };
    }
    const branch = await unusedBranchName(repo.mainRoot, branchNameFromTask(task), () => true);
    return { branch, base: repo.branch, isRepository: true, reason: repo.branch === null ? 'HEAD is detached: choose a base branch' : null };
  }

  /** Start an agent (see AgentStartParams). Nothing stays behind when it fails: no worktree, no branch, no pane. */
  async startAgent(params: AgentStartParams, createdBy: Creator): Promise<AgentStartResult> {
    this.#assertNotDisposed();
    const profile = this.#profile(params.profile);
    const availability = await profileAvailability(profile);
    if (!availability.installed || availability.resolvedPath === null) {
      throw new ApiError('PROFILE_NOT_INSTALLED', `${profile.name} is not installed: \`${profile.command}\` ${availability.reason ?? 'was not found'}`);
    }
    const folderInfo = await stat(params.folder).catch(() => null);
    if (!folderInfo?.isDirectory()) throw new ApiError('NOT_FOUND', `folder not found: ${params.folder}`);
    if (this.#liveAgentCount() + this.#starting >= WorkspaceLimits.maxConcurrentAgents) {
      throw new ApiError('AGENT_LIMIT', `${WorkspaceLimits.maxConcurrentAgents} agents are running, the most Switchboard starts at once; finish or close one first`);
    }
    const slot = this.#takePortSlot();
    this.#starting++;
    try {
      return await this.#startAgent(params, profile, availability.resolvedPath, slot, createdBy);
    } finally {
      this.#starting--;
      this.#pendingSlots.delete(slot);
    }
  }

  async #startAgent(params: AgentStartParams, profile: AgentProfile, agentPath: string, slot: number, createdBy: Creator): Promise<AgentStartResult> {
    const settings = this.#options.settings();
    const name = this.#unusedPaneName(params.name ?? taskName(params.prompt) ?? profile.name);
    let worktree: { path: string; branch: string; base: string; repoRoot: string } | null = null;
    if (params.worktree) worktree = await this.#makeWorktree(params.folder, params.worktree, params.prompt ?? params.name ?? '', settings.worktreesFolder);
    let terminalId: string | null = null;
    try {
      const cwd = worktree?.path ?? params.folder;
      const setup = worktree && (await exists(join(worktree.path, setupScriptPath))) ? join(worktree.path, setupScriptPath) : null;
      const sessionId = profile.resume.kind === 'session' ? randomUUID() : null;
      // Claude Code reviewing in Switchboard gets its task typed once it is connected (see WorkspaceLimits.firstPromptIdeWaitMs).
      const typePrompt = params.prompt !== undefined && profile.kind === 'claude-code' && profile.reviewEditsInSwitchboard && this.#options.ide?.available() === true;
      const args = buildAgentArgs(profile, { mode: 'start', prompt: typePrompt ? undefined : params.prompt, sessionId });
      const portBase = WorkspaceLimits.firstPortBase + slot * WorkspaceLimits.portsPerAgent;
      const env = agentEnvironment(profile, portBase, worktree?.path ?? null);
      const nonce = newSetupNonce();
      const session = await this.#withHooks(profile, args, (args) => this.#options.ptyHost.create({
        ...(setup ? { file: '/bin/sh', args: setupLaunchArgs(setup, nonce, agentPath, args) } : { file: agentPath, args }),
        cwd,
        env,
        name,
        shellIntegration: false,
        createdBy,
        ...(params.cols ? { cols: params.cols } : {}),
        ...(params.rows ? { rows: params.rows } : {}),
      }));
      terminalId = session.id;
      this.#agents.set(session.id, {
        terminalId: session.id,
        profile: profile.id,
        profileName: profile.name,
        sessionId,
        worktreePath: worktree?.path ?? null,
        cwd,
        portSlot: slot,
        prompt: params.prompt ?? null,
        origin: 'started',
        reason: null,
        message: null,
      });
      if (setup) {
        const timeoutSec = settings.agentSetupTimeoutSec;
        const outcome = await waitForSetup(session, nonce, timeoutSec * 1000);
        if (outcome.kind !== 'ok') {
          const screen = await session.readScreen({ scrollback: true }).catch(() => null);
          const lastLines = joinWrappedRows(screen?.lines ?? [], screen?.cols ?? 0)
            .filter((line) => line.trim().length > 0 && !line.startsWith('[switchboard]'))
            .slice(-12)
            .join('\n');
          if (outcome.kind === 'timeout') {
            throw new ApiError('SETUP_TIMEOUT', `.switchboard/setup did not finish within ${timeoutSec} s (the agentSetupTimeoutSec setting); it was stopped, the agent not started and the worktree removed.${lastLines ? `\nLast output:\n${lastLines}` : ''}`);
          }
          const how = outcome.exitCode !== null ? `exit ${outcome.exitCode}` : `signal ${outcome.signal ?? 'unknown'}`;
          throw new ApiError('SETUP_FAILED', `.switchboard/setup failed (${how}); the agent was not started and the worktree removed.${lastLines ? `\nLast output:\n${lastLines}` : ''}`);
        }
      }
      if (worktree) {
        await this.#registry.add({
          path: worktree.path,
          branch: worktree.branch,
          base: worktree.base,
          repoRoot: worktree.repoRoot,
          name,
          task: params.prompt ?? null,
          profile: profile.id,
          sessionId,
          createdAt: Date.now(),
        });
        this.#watch(worktree.path);
      }
      this.#panesChanged();
      if (typePrompt) void this.#typeFirstPrompt(session, params.prompt!);
      this.#logger.info('agent started', { terminalId: session.id, profile: profile.id, cwd, worktree: worktree?.path ?? null, setup: setup !== null });
      return {
        terminalId: session.id,
        name: session.info.name,
        profile: profile.id,
        cwd,
        ...(worktree ? { worktree: { path: worktree.path, branch: worktree.branch, base: worktree.base } } : {}),
        sessionId,
        portBase,
        setupRan: setup !== null,
      };
    } catch (error) {
      if (terminalId !== null) {
        if (this.#agents.delete(terminalId)) this.#panesChanged();
        await this.#options.ptyHost.close(terminalId).catch((closeError: unknown) => this.#logger.warn('cannot close a failed agent pane', { error: String(closeError) }));
      }
      if (worktree) await this.#undoWorktree(worktree);
      throw error;
    }
  }

  /**
   * Type the task into Claude Code once it is connected to the IDE bridge (or after
   * firstPromptIdeWaitMs) and shows its input box — as a bracketed paste when it asked for one, then
   * Enter. Not typed when its input box does not come (it asks something first): a task typed into
   * a question would answer it.
   */
  async #typeFirstPrompt(session: PtySession, prompt: string): Promise<void> {
    const ide = this.#options.ide!;
    const ready = () => session.info.agent?.kind === 'claude-code' && session.info.agent.state === 'idle';
    const gone = () => session.exitStatus !== null || !this.#options.ptyHost.get(session.id);
    await waitUntil(() => ide.connected(session.id) || gone(), [ide.onDidChange, session.onDidChangeInfo], WorkspaceLimits.firstPromptIdeWaitMs);
    const isReady = await waitUntil(() => ready() || gone(), [session.onDidChangeInfo], WorkspaceLimits.firstPromptReadyWaitMs);
    if (gone()) return;
    if (!isReady || !ready()) {
      this.#logger.warn('Claude Code did not show its input box; its task was not typed', { terminalId: session.id });
      return;
    }
    if (!ide.connected(session.id)) this.#logger.warn('Claude Code did not connect to the IDE bridge; typing its task anyway', { terminalId: session.id });
    const screen = await session.readScreen().catch(() => null);
    session.write(screen?.bracketedPaste ? `\x1b[200~${prompt}\x1b[201~` : prompt.replace(/\r?\n/g, ' '));
    await new Promise((resolve) => setTimeout(resolve, WorkspaceLimits.firstPromptEnterDelayMs));
    if (!gone()) session.write('\r');
  }

  async #makeWorktree(
    folder: string,
    request: NonNullable<AgentStartParams['worktree']>,
    task: string,
    worktreesFolder: string,
  ): Promise<{ path: string; branch: string; base: string; repoRoot: string }> {
    const repo = await this.#repositories.locate(folder);
    if (repo === null) throw new ApiError('NOT_A_GIT_REPO', `${folder} is not in a git repository: start the agent without a worktree (turn "work in a new worktree" off)`);
    const repoRoot = repo.mainRoot;
    const detached = () => new ApiError('INVALID_BRANCH', `HEAD is detached in ${repo.root}: name the base branch to start the worktree from`);
    // With the repository remembered, the branch checked out is asked while git makes the worktree from HEAD.
    let base: WorktreeBase;
    if (request.base !== undefined) base = { name: request.base };
    else if (repo.branch === undefined) base = { headOf: repo.root, detached };
    else if (repo.branch === null) throw detached();
    else base = { name: repo.branch };
    // One worktree made at a time per repository: two starts with the same task must not both pick the same free name.
    return await this.#inRepository(repoRoot, () => this.#addWorktreeFor(repoRoot, base, request.branch, task, worktreesFolder));
  }

  async #addWorktreeFor(
    repoRoot: string,
    baseWanted: WorktreeBase,
    requestedBranch: string | undefined,
    task: string,
    worktreesFolder: string,
  ): Promise<{ path: string; branch: string; base: string; repoRoot: string }> {
    // No checks before `git worktree add`: it refuses everything they would (a missing base, a name
    // that is not a branch name, a branch taken) and New agent waits for each git process. When it
    // refuses, the checks tell which, in this order: the base, the branch's name, the branch taken.
    // The branch HEAD names, when that is the base: asked while git works (each process New agent
    // waits for is one too many), after `git worktree add` has been started — starting a process
    // holds this thread for a few milliseconds.
    let headName: Promise<string | null> | undefined;
    const askHead = (headOf: string) => {
      headName ??= headBranch(headOf);
      headName.catch(() => {}); // awaited by baseName
      return headName;
    };
    const baseName = async (): Promise<string> => {
      if ('name' in baseWanted) return baseWanted.name;
      const name = await askHead(baseWanted.headOf);
      if (name === null) throw baseWanted.detached();
      return name;
    };
    let branch: string;
    if (requestedBranch !== undefined) {
      branch = requestedBranch;
      if (!isLiteralBranchName(branch)) throw (await worktreeRefusal(repoRoot, await baseName(), branch)) ?? invalidBranchName(branch);
    } else {
      if ('headOf' in baseWanted) askHead(baseWanted.headOf); // while the free name is looked for
      // A derived name skips names whose folder is taken too (a worktree removed by hand leaves its folder).
      branch = await unusedBranchName(repoRoot, branchNameFromTask(task), (name) => !existsSync(worktreePathFor(repoRoot, name, worktreesFolder)));
    }
    const refusal = async () => await worktreeRefusal(repoRoot, await baseName(), requestedBranch === undefined ? null : branch);
    const path = worktreePathFor(repoRoot, branch, worktreesFolder);
    if (existsSync(path)) throw (await refusal()) ?? new ApiError('INVALID_PARAMS', `the worktree folder ${path} already exists; remove it or choose another branch name`);
    const added = 'name' in baseWanted ? addWorktree(repoRoot, path, branch, baseWanted.name) : addWorktreeFromHead(baseWanted.headOf, path, branch);
    added.catch(() => {}); // awaited below
    if ('headOf' in baseWanted) askHead(baseWanted.headOf);
    // `.worktreeinclude`'s files are looked up in the main checkout while git checks out the new one.
    const included = listWorktreeInclude(repoRoot);
    included.catch(() => {}); // awaited below once the worktree exists; unread if git refuses
    const [name, made] = await Promise.allSettled([baseName(), added]);
    if (name.status === 'rejected') {
      // Detached (or git failed): nothing is kept, whatever git made meanwhile.
      if (made.status === 'fulfilled') await this.#undoWorktree({ path, branch, repoRoot });
      throw name.reason;
    }
    const base = name.value;
    if (made.status === 'rejected') throw (await refusal()) ?? made.reason;
    const worktree = { path, branch, base, repoRoot };
    try {
      const copied = await copyWorktreeInclude(repoRoot, path, included);
      if (copied.length > 0) this.#logger.info('copied .worktreeinclude files', { path, count: copied.length });
    } catch (error) {
      await this.#undoWorktree(worktree);
      throw error;
    }
    return worktree;
  }

  /** Runs `work` after the repository's previous worktree work finished (a chain per repository). */
  async #inRepository<T>(repoRoot: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#repositoryQueues.get(repoRoot) ?? Promise.resolve();
    const run = previous.then(work, work);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.#repositoryQueues.set(repoRoot, settled);
    try {
      return await run;
    } finally {
      if (this.#repositoryQueues.get(repoRoot) === settled) this.#repositoryQueues.delete(repoRoot);
    }
  }

  /** A failed start's worktree and branch go (the branch has nothing of its own yet). */
  async #undoWorktree(worktree: { path: string; branch: string; repoRoot: string }): Promise<void> {
    try {
      await removeWorktree(worktree.repoRoot, worktree.path, { force: true });
      await deleteBranch(worktree.repoRoot, worktree.branch, { force: true });
    } catch (error) {
      this.#logger.error('cannot remove the worktree of a failed agent start', { path: worktree.path, error: String(error) });
    }
  }

  async list(filter: { repoRoot?: string | undefined } = {}): Promise<WorktreeInfo[]> {
    const records = this.#registry.list().filter((record) => filter.repoRoot === undefined || record.repoRoot === filter.repoRoot);
    return await Promise.all(records.map((record) => this.#info(record)));
  }

  async diff(params: WorktreeDiffParams): Promise<WorktreeDiff> {
    const record = await this.#requireLive(params.path);
    const scope = params.scope ?? 'all';
    const answer = await worktreeDiff({ path: record.path, base: record.base, scope, file: params.file });
    return { path: record.path, scope, base: record.base, fromCommit: answer.fromCommit, files: answer.files };
  }

  async discard(params: WorktreeDiscardParams): Promise<WorktreeInfo> {
    const record = await this.#requireLive(params.path);
    const scope = params.scope ?? 'all';
    if (params.hunk !== undefined) await discardHunk(record.path, record.base, params.file, params.hunk, scope);
    else await discardFile(record.path, record.base, params.file, scope);
    const info = await this.#info(record);
    this.#options.emit('worktree.changed', info);
    return info;
  }

  async finish(params: WorktreeFinishParams): Promise<WorktreeFinishResult> {
    const record = this.#registry.get(params.path);
    if (!record) throw new ApiError('NOT_FOUND', `${params.path} is not a worktree Switchboard made (see worktree.list)`);
    if (this.#finishing.has(record.path)) throw new ApiError('INVALID_PARAMS', `${record.path} is being finished already`);
    this.#finishing.add(record.path);
    try {
      return await this.#finish(record, params);
    } finally {
      this.#finishing.delete(record.path);
    }
  }

  async #finish(record: WorktreeRecord, params: WorktreeFinishParams): Promise<WorktreeFinishResult> {
    const present = await exists(record.path);
    const result: WorktreeFinishResult = {
      mode: params.mode,
      path: record.path,
      branch: record.branch,
      base: record.base,
      committed: null,
      merge: null,
      mergedCommit: null,
      worktreeRemoved: false,
      branchDeleted: false,
      closedTerminalId: null,
    };
    // An agent still at work (a turn running, a prompt waiting for an answer) would be stopped
    // mid-turn when its pane closes: that is asked for, never done by surprise.
    const busyAgent = params.confirm ? null : this.#busyAgent(record.path);
    if (busyAgent && params.mode !== 'discard') {
      throw new ApiError(
        'BUSY',
        `${params.mode === 'merge' ? 'merging' : 'finishing'} ${record.branch} closes the pane ${busyAgent}. Nothing was changed. Send confirm: true (switchboard worktree finish ${params.mode} --confirm) to finish anyway`,
      );
    }
    if (params.mode === 'discard') {
      if (!params.confirm) {
        const uncommitted = present ? await statusLines(record.path, { untracked: true }) : [];
        const commits = (await branchExists(record.repoRoot, record.branch)) ? await unmergedCommits(record.repoRoot, record.branch, record.base) : [];
        if (uncommitted.length > 0 || commits.length > 0) {
          const parts = [
            ...(uncommitted.length > 0 ? [`uncommitted changes in ${uncommitted.map((line) => line.slice(3)).slice(0, 20).join(', ')}${uncommitted.length > 20 ? ` and ${uncommitted.length - 20} more` : ''}`] : []),
            ...(commits.length > 0 ? [`${commits.length} commit(s) not merged into ${record.base}: ${commits.slice(0, 10).join('; ')}`] : []),
          ];
          throw new ApiError('UNMERGED_WORK', `discarding ${record.branch} would lose ${parts.join(' and ')}${busyAgent ? `, and close the pane ${busyAgent}` : ''}. Send confirm: true to discard anyway`);
        }
        if (busyAgent) throw new ApiError('BUSY', `discarding ${record.branch} closes the pane ${busyAgent}. Nothing was changed. Send confirm: true (switchboard worktree finish discard --confirm) to discard anyway`);
      }
      result.closedTerminalId = await this.#closeAgentPane(record.path);
      await removeWorktree(record.repoRoot, record.path, { force: true });
      result.worktreeRemoved = true;
      if (await branchExists(record.repoRoot, record.branch)) {
        await deleteBranch(record.repoRoot, record.branch, { force: true });
        result.branchDeleted = true;
      }
      await this.#forget(record, 'discard');
      return result;
    }
    if (!present) {
      // Its folder was deleted by hand: "branch" keeps what the branch has (nothing uncommitted is left to commit) and forgets the worktree.
      if (params.mode !== 'branch' || !(await branchExists(record.repoRoot, record.branch))) {
        throw new ApiError('NOT_FOUND', `the worktree folder ${record.path} is gone; only discarding it is possible (its branch ${record.branch} is kept by "branch" only if it still exists)`);
      }
      result.closedTerminalId = await this.#closeAgentPane(record.path);
      await removeWorktree(record.repoRoot, record.path, { force: false });
      result.worktreeRemoved = true;
      await this.#forget(record, 'branch');
      return result;
    }
    const message = params.message ?? `${record.name} (Switchboard agent)${record.task && record.task !== record.name ? `\n\n${record.task}` : ''}`;
    if (params.mode === 'merge') {
      // Both refusals come before the commit, so a refused merge leaves the worktree as it was.
      await assertBaseCheckoutClean(record.repoRoot, record.base);
      const conflicts = await previewMergeConflicts(record.path, record.base);
      if (conflicts.length > 0) {
        throw new ApiError('MERGE_CONFLICT', `merging ${record.branch} into ${record.base} would conflict in: ${conflicts.join(', ')}. Nothing was committed or merged; ${record.base} and the worktree are as they were`);
      }
    }
    result.committed = await commitAll(record.path, message);
    if (params.mode === 'merge') {
      const merged = await mergeIntoBase(record.repoRoot, record.branch, record.base);
      result.merge = merged.kind;
      result.mergedCommit = merged.commit;
    }
    result.closedTerminalId = await this.#closeAgentPane(record.path);
    await removeWorktree(record.repoRoot, record.path, { force: false });
    result.worktreeRemoved = true;
    if (params.mode === 'merge') {
      // -d: git itself checks the branch is merged; it is, a moment ago.
      await deleteBranch(record.repoRoot, record.branch, { force: false });
      result.branchDeleted = true;
    }
    await this.#forget(record, params.mode);
    return result;
  }

  /**
   * The worktree's agent pane, said in words, when its agent is mid-turn or waits for an answer
   * ("\"fix-login\" where Claude Code is still working" or "… waits for an answer: Bash: rm x");
   * null when none runs there or it is done with its turn (or exited).
   */
  #busyAgent(worktreePath: string): string | null {
    for (const entry of this.#agents.values()) {
      if (entry.worktreePath !== worktreePath) continue;
      const info = this.#options.ptyHost.get(entry.terminalId)?.info;
      const agent = info?.agent;
      if (!info || info.state !== 'running' || !agent) continue;
      if (agent.state === 'working') return `${JSON.stringify(info.name)} where ${agent.label} is still working (its turn would be cut short)`;
      if (agent.state === 'needs-input') return `${JSON.stringify(info.name)} where ${agent.label} waits for an answer${agent.reason ? `: ${agent.reason}` : ''}`;
    }
    return null;
  }

  async #closeAgentPane(worktreePath: string): Promise<string | null> {
    const agent = [...this.#agents.values()].find((entry) => entry.worktreePath === worktreePath);
    if (!agent || !this.#options.ptyHost.get(agent.terminalId)) return null;
    await this.#options.ptyHost.close(agent.terminalId);
    return agent.terminalId;
  }

  async #forget(record: WorktreeRecord, mode: WorktreeFinishParams['mode']): Promise<void> {
    this.#watchers.get(record.path)?.dispose();
    this.#watchers.delete(record.path);
    await this.#registry.remove(record.path);
    this.#options.emit('worktree.removed', { path: record.path, mode });
  }

  async #requireLive(path: string): Promise<WorktreeRecord> {
    const record = this.#registry.get(path);
    if (!record) throw new ApiError('NOT_FOUND', `${path} is not a worktree Switchboard made (see worktree.list)`);
    if (!(await exists(record.path))) throw new ApiError('NOT_FOUND', `the worktree folder ${record.path} is gone`);
    return record;
  }

  async #info(record: WorktreeRecord): Promise<WorktreeInfo> {
    const agent = [...this.#agents.values()].find((entry) => entry.worktreePath === record.path && this.#options.ptyHost.get(entry.terminalId));
    const base: WorktreeInfo = {
      path: record.path,
      branch: record.branch,
      base: record.base,
      repoRoot: record.repoRoot,
      ahead: 0,
      behind: 0,
      files: [],
      filesTruncated: false,
      additions: 0,
      deletions: 0,
      uncommittedCount: 0,
      terminalId: agent?.terminalId ?? null,
      profile: record.profile,
      name: record.name,
      createdAt: record.createdAt,
      missing: false,
      error: null,
    };
    if (!(await exists(record.path))) {
      // What is left is the branch (if it is): its commits not on the base, for "keep" or "discard".
      try {
        if (await branchExists(record.repoRoot, record.branch)) {
          return { ...base, ahead: (await unmergedCommits(record.repoRoot, record.branch, record.base)).length, missing: true, error: `the worktree folder ${record.path} is gone` };
        }
        return { ...base, missing: true, error: `the worktree folder ${record.path} is gone, and so is its branch ${record.branch}` };
      } catch {
        return { ...base, missing: true, error: `the worktree folder ${record.path} is gone` };
      }
    }
    try {
      const state = await worktreeState(record.path, record.base);
      return {
        ...base,
        ahead: state.ahead,
        behind: state.behind,
        files: state.files,
        filesTruncated: state.filesTruncated,
        additions: state.additions,
        deletions: state.deletions,
        uncommittedCount: state.uncommittedCount,
      };
    } catch (error) {
      return { ...base, error: error instanceof Error ? error.message : String(error) };
    }
  }

  #watch(path: string): void {
    if (this.#watchers.has(path) || this.#disposed) return;
    const watcher = new WorktreeWatcher({ path, logger: this.#logger, onDidChange: () => void this.#refresh(path) });
    this.#watchers.set(path, watcher);
    // The first refresh puts the watches in place, then reads: a commit made before then is read.
    void this.#refresh(path);
  }

  /** Read a worktree's changes again and tell every client; one refresh at a time per worktree (a request meanwhile runs once after). */
  async #refresh(path: string): Promise<void> {
    if (this.#disposed || this.#finishing.has(path)) return;
    if (this.#refreshing.has(path)) {
      this.#refreshing.set(path, true);
      return;
    }
    this.#refreshing.set(path, false);
    try {
      const record = this.#registry.get(path);
      if (!record) return;
      // Watch first, read after: a change made while reading is then seen by a watch and read
      // again, where reading first would miss one made before the watches were in place.
      await this.#watchers.get(path)?.resync();
      const info = await this.#info(record);
      if (!this.#disposed && !this.#finishing.has(path) && this.#registry.get(path)) this.#options.emit('worktree.changed', info);
    } catch (error) {
      this.#logger.warn('cannot read a worktree’s changes', { path, error: String(error) });
    } finally {
      const again = this.#refreshing.get(path);
      this.#refreshing.delete(path);
      if (again) void this.#refresh(path);
    }
  }

  /** Worktrees being watched now (tests, the idle-CPU benchmark). */
  get watchedWorktrees(): number {
    return this.#watchers.size;
  }

  #liveAgentCount(): number {
    let count = 0;
    for (const agent of this.#agents.values()) {
      const session = this.#options.ptyHost.get(agent.terminalId);
      if (agent.portSlot !== null && session && !session.exitStatus) count++;
    }
    return count;
  }

  /** The lowest port slot no running agent (or start in progress) holds. */
  #takePortSlot(): number {
    const used = new Set(this.#pendingSlots);
    for (const agent of this.#agents.values()) {
      const session = this.#options.ptyHost.get(agent.terminalId);
      if (agent.portSlot !== null && session && !session.exitStatus) used.add(agent.portSlot);
    }
    let slot = 0;
    while (used.has(slot)) slot++;
    this.#pendingSlots.add(slot);
    return slot;
  }

  #unusedPaneName(wanted: string): string {
    const taken = new Set(this.#options.ptyHost.list().map((info) => info.name));
    if (!taken.has(wanted)) return wanted;
    for (let n = 2; ; n++) {
      const candidate = `${wanted} (${n})`;
      if (!taken.has(candidate)) return candidate;
    }
  }

  #assertNotDisposed(): void {
    if (this.#disposed) throw new ApiError('CONNECTION_CLOSED', 'Switchboard is shutting down');
  }

  dispose(): void {
    this.#disposed = true;
    for (const watcher of this.#watchers.values()) watcher.dispose();
    this.#watchers.clear();
    for (const subscription of this.#subscriptions) subscription.dispose();
  }
}

/** A pane name from a task: its first line, cut to 60 characters. */
function taskName(prompt: string | undefined): string | null {
  if (!prompt) return null;
  const line = prompt.split('\n')[0]!.trim();
  if (line.length === 0) return null;
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

/** The agent's own environment: its profile's, its port range and where it works. */
function agentEnvironment(profile: AgentProfile, portBase: number, worktreePath: string | null): Record<string, string> {
  return {
    ...profile.env,
    PORT: String(portBase),
    SWITCHBOARD_PORT_BASE: String(portBase),
    SWITCHBOARD_PORT_COUNT: String(WorkspaceLimits.portsPerAgent),
    SWITCHBOARD_AGENT_PROFILE: profile.id,
    ...(worktreePath ? { SWITCHBOARD_WORKTREE: worktreePath } : {}),
  };
}

/** The rule under a restored agent pane's last screen: dim for resumed, yellow for what needs the person. */
function agentBanner(text: string, tone: 'dim' | 'warn'): string {
  const style = tone === 'dim' ? '\x1b[2m' : '\x1b[33m';
  return `\x1b[0m${style}── ${text.replace(/[\x00-\x1f\x7f]/g, '?')} ──\x1b[0m\r\n`;
}

function endedAt(epochMs: number | null): string {
  if (epochMs === null) return '';
  const date = new Date(epochMs);
  const pad = (value: number) => String(value).padStart(2, '0');
  return ` · ended ${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** Resolves true once `check()` holds (checked now and after each event), false after `timeoutMs`. */
function waitUntil(check: () => boolean, events: ReadonlyArray<Event<unknown>>, timeoutMs: number): Promise<boolean> {
  if (check()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const subscriptions: IDisposable[] = [];
    const finish = (result: boolean) => {
      clearTimeout(timer);
      for (const subscription of subscriptions) subscription.dispose();
      resolve(result);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    // A wait must not keep the process alive (a Hub shut down meanwhile ends its panes, and the checks see that).
    timer.unref();
    for (const event of events) subscriptions.push(event(() => check() && finish(true)));
  });
}

/**
 * Screen rows back into the lines that were printed: a row filled to the last column was wrapped
 * onto the next (our own "[switchboard] running <long path>" line wraps in an 80-column pane, and
 * its tail would read as the setup's output).
 */
export function joinWrappedRows(rows: readonly string[], cols: number): string[] {
  const lines: string[] = [];
  let wrapping = false;
  for (const row of rows) {
    if (wrapping) lines[lines.length - 1] += row;
    else lines.push(row);
    wrapping = cols > 0 && row.length >= cols;
  }
  return lines;
}
