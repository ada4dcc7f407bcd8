/**
 * Which agent (if any) runs in a terminal's foreground: the process group the terminal's shell
 * handed the terminal to (tpgid of the shell's /proc stat), its leader, and the leader's children
 * in that group (`npx claude` runs npm, then sh, then claude). Linux only (/proc); elsewhere no
 * agent is detected.
 *
 * Also the home of reading a terminal's whole process tree (processTree), which the dev-server
 * detection (src/node/servers) looks through for listening sockets.
 */
import { execFile } from 'node:child_process';
import { basename } from 'node:path';
import { promisify } from 'node:util';
import { foregroundProcessGroup } from '../control/foregroundProcess.ts';
import { listProcDir, readProcText, readProcTextOffThread } from '../procFiles.ts';
import { parseProcStat } from '../pty/processGroups.ts';
import type { AgentDefinition } from './agentTable.ts';

const execFileAsync = promisify(execFile);

/** Interpreters whose first non-option argument is the program that runs. */
const interpreters = /^(node|nodejs|bun|deno|python[0-9.]*|pypy[0-9.]*)$/;
/** A wrapper chain deeper than this is not followed (and the scan stays cheap). */
const maxDepth = 4;
const maxProcesses = 24;

export interface AgentProcess {
  agent: AgentDefinition;
  pid: number;
  /** The foreground process group it was found in. */
  group: number;
}

/** The agent a command line runs, if any: argv[0]'s basename, or an interpreter's script. */
export function matchAgentCommand(argv: readonly string[], table: readonly AgentDefinition[]): AgentDefinition | null {
  const program = argv[0];
  if (!program) return null;
  const name = basename(program);
  const direct = table.find((agent) => agent.commands.includes(name));
  if (direct) return direct;
  if (!interpreters.test(name)) return null;
  const script = argv.slice(1).find((arg) => !arg.startsWith('-'));
  if (!script) return null;
  const scriptName = basename(script).replace(/\.(c|m)?js$|\.py$/, '');
  return table.find((agent) => agent.commands.includes(scriptName) || agent.scripts.some((pattern) => pattern.test(script))) ?? null;
}

/** A process's command line; null when it is gone, a zombie or a kernel thread. Off the Hub's thread: it waits on the process's memory lock (procFiles.ts). */
export async function readArgv(pid: number): Promise<string[] | null> {
  const raw = await readProcTextOffThread(`/proc/${pid}/cmdline`, { shortReadIsEnd: true });
  if (raw === null || raw === '') return null;
  return raw.replace(/\0$/, '').split('\0');
}

/** The children a thread forked (`pid` itself: its main thread), from /proc. */
function childrenOfThread(pid: number, thread: number | string = pid): number[] {
  const text = readProcText(`/proc/${pid}/task/${thread}/children`);
  return text === null ? [] : text.split(' ').filter(Boolean).map(Number);
}

function processGroupOf(pid: number): number | null {
  return parseProcStat(readProcText(`/proc/${pid}/stat`) ?? '')?.processGroup ?? null;
}

/** The foreground process group of the terminal whose session leader is `shellPid` (its own group when the shell is in front). */
export function foregroundGroup(shellPid: number): Promise<number> {
  return foregroundProcessGroup(shellPid);
}

/** The agent in foreground group `group`: its leader, else a descendant of the leader in the same group. */
export async function findAgentInGroup(group: number, table: readonly AgentDefinition[]): Promise<AgentProcess | null> {
  if (process.platform !== 'linux') return null;
  let level = [group];
  let seen = 0;
  for (let depth = 0; depth < maxDepth && level.length > 0; depth++) {
    const next: number[] = [];
    for (const pid of level) {
      if (++seen > maxProcesses) return null;
      const argv = await readArgv(pid);
      const agent = argv && matchAgentCommand(argv, table);
      if (agent) return { agent, pid, group };
      for (const child of childrenOfThread(pid)) if (processGroupOf(child) === group) next.push(child);
    }
    level = next;
  }
  return null;
}

/** Children of every thread of `pid` (a program may fork from any thread; /proc lists a child under the thread that forked it). */
function childrenOfAllThreads(pid: number): number[] {
  const threads = listProcDir(`/proc/${pid}/task`);
  if (threads === null) return [];
  return threads.flatMap((thread) => childrenOfThread(pid, thread));
}

/** `ps -ax -o pid=,ppid=` → children by parent (macOS, where there is no /proc). */
export function parsePsParents(text: string): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const line of text.split('\n')) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    if (!Number.isInteger(pid) || !Number.isInteger(ppid) || pid! <= 0) continue;
    const list = children.get(ppid!);
    if (list) list.push(pid!);
    else children.set(ppid!, [pid!]);
  }
  return children;
}

async function psChildren(): Promise<Map<number, number[]>> {
  try {
    const { stdout } = await execFileAsync('ps', ['-ax', '-o', 'pid=,ppid='], { timeout: 2000, maxBuffer: 4 * 1024 * 1024 });
    return parsePsParents(stdout);
  } catch {
    return new Map();
  }
}

/**
 * `rootPid` and its descendants, breadth first, at most `limit` of them (a fork bomb or a build
 * with hundreds of workers stays cheap to look at). Linux: /proc; macOS: one `ps`; elsewhere
 * just the root.
 */
export async function processTree(rootPid: number, limit: number): Promise<number[]> {
  if (process.platform !== 'linux' && process.platform !== 'darwin') return [rootPid];
  const parents = process.platform === 'darwin' ? await psChildren() : null;
  const found = [rootPid];
  const seen = new Set(found);
  for (let index = 0; index < found.length && found.length < limit; index++) {
    const children = parents ? (parents.get(found[index]!) ?? []) : childrenOfAllThreads(found[index]!);
    for (const child of children) {
      if (seen.has(child)) continue;
      seen.add(child);
      found.push(child);
      if (found.length >= limit) break;
    }
  }
  return found;
}
