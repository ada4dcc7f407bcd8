/**
 * Which TCP ports are listened on, and by which process.
 *
 * Linux: /proc/net/tcp and /proc/net/tcp6 list every socket of this network namespace with its
 * inode; a LISTEN socket (state 0A) belongs to the process whose /proc/<pid>/fd holds a link to
 * `socket:[inode]`. Reading both tables is one cheap read each; looking through a process's fds
 * costs a readlink per fd, so callers do it only when a new listening inode appeared.
 *
 * macOS: no socket table to read; `lsof` tells the listening TCP sockets of given processes
 * (listenersOfProcesses), one spawn per look.
 *
 * Windows: nothing yet (GetExtendedTcpTable would tell); only printed URLs are used (README,
 * "Dev servers").
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { listProcDir, readProcLink, readProcTextOffThread } from '../procFiles.ts';

const execFileAsync = promisify(execFile);

/** The machine's whole table of listening sockets can be read (Linux). */
export const socketTablesSupported = process.platform === 'linux';
/** The listening sockets of given processes can be asked for (macOS: lsof). */
export const processListenersSupported = process.platform === 'darwin';

export interface ListeningSocket {
  /** Printable address: 0.0.0.0, ::, 127.0.0.1, ::1 (only loopback and wildcard addresses are kept). */
  host: string;
  port: number;
  inode: number;
}

/** The LISTEN state in /proc/net/tcp's `st` column. */
const listenState = '0A';
/** Looking at more fds of one process than this is not worth it (a proxy with thousands of connections). */
const maxFdsPerProcess = 4096;

/**
 * Parse /proc/net/tcp or /proc/net/tcp6: the LISTEN sockets on a loopback or wildcard address.
 * Addresses are hex in the kernel's byte order: each 32-bit word little-endian on the machines
 * Node runs on (x86, arm64), which is what we assume.
 */
export function parseSocketTable(text: string): ListeningSocket[] {
  const sockets: ListeningSocket[] = [];
  const lines = text.split('\n');
  for (let index = 1; index < lines.length; index++) {
    const line = lines[index]!;
    // Most rows of a busy machine are connections: skip them before splitting.
    if (!line.includes(' 0A ')) continue;
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10 || fields[3] !== listenState) continue;
    const local = fields[1]!;
    const colon = local.indexOf(':');
    if (colon === -1) continue;
    const host = localHost(local.substring(0, colon));
    const port = Number.parseInt(local.substring(colon + 1), 16);
    const inode = Number(fields[9]);
    if (host === null || !Number.isInteger(port) || port <= 0 || !Number.isInteger(inode) || inode <= 0) continue;
    sockets.push({ host, port, inode });
  }
  return sockets;
}

/** The printable form of a kernel-order hex address when it is loopback or wildcard; null for any other address. */
function localHost(hex: string): string | null {
  if (hex.length === 8) return ipv4Local(wordBytes(hex, 0));
  if (hex.length !== 32) return null;
  const bytes = [0, 8, 16, 24].flatMap((start) => wordBytes(hex, start));
  const zeroPrefix = bytes.slice(0, 10).every((byte) => byte === 0);
  if (zeroPrefix && bytes[10] === 0xff && bytes[11] === 0xff) return ipv4Local(bytes.slice(12)); // ::ffff:a.b.c.d
  if (!zeroPrefix || bytes[10] !== 0 || bytes[11] !== 0 || bytes[12] !== 0 || bytes[13] !== 0 || bytes[14] !== 0) return null;
  if (bytes[15] === 0) return '::';
  if (bytes[15] === 1) return '::1';
  return null;
}

/** Four bytes of one little-endian 32-bit word, in network order. */
function wordBytes(hex: string, start: number): number[] {
  const word = Number.parseInt(hex.substring(start, start + 8), 16);
  return [word & 0xff, (word >>> 8) & 0xff, (word >>> 16) & 0xff, (word >>> 24) & 0xff];
}

function ipv4Local(bytes: number[]): string | null {
  if (bytes.every((byte) => byte === 0)) return '0.0.0.0';
  if (bytes[0] === 127) return bytes.join('.');
  return null;
}

/** Every loopback/wildcard LISTEN socket of this network namespace (Linux; empty elsewhere). */
export async function readListeningSockets(): Promise<ListeningSocket[]> {
  if (!socketTablesSupported) return [];
  // Off the Hub's thread, unlike the per-process files (procFiles.ts): the kernel walks its whole
  // socket hash table to write these, ~4 ms each however few sockets there are.
  const tables = await Promise.all(['/proc/net/tcp', '/proc/net/tcp6'].map((path) => readProcTextOffThread(path)));
  return tables.flatMap((table) => (table === null ? [] : parseSocketTable(table)));
}

/** The socket inodes among `pid`'s open fds (empty when the process is gone or not ours to read). */
export async function socketInodesOf(pid: number): Promise<number[]> {
  const fds = listProcDir(`/proc/${pid}/fd`);
  if (fds === null) return [];
  const inodes: number[] = [];
  for (const fd of fds.slice(0, maxFdsPerProcess)) {
    const link = readProcLink(`/proc/${pid}/fd/${fd}`);
    if (link?.startsWith('socket:[')) inodes.push(Number(link.substring(8, link.length - 1)));
  }
  return inodes;
}

export interface ProcessListener {
  pid: number;
  host: string;
  port: number;
}

/**
 * `lsof -F ptn` output → the loopback/wildcard listeners in it. Records: `p<pid>` starts a
 * process, then per file `f<fd>`, `t<IPv4|IPv6>`, `n<address>:<port>` (`*` is the wildcard).
 */
export function parseLsofListeners(text: string): ProcessListener[] {
  const listeners: ProcessListener[] = [];
  let pid = 0;
  let type = '';
  for (const line of text.split('\n')) {
    const field = line.charAt(0);
    const value = line.substring(1);
    if (field === 'p') pid = Number(value);
    else if (field === 'f') type = '';
    else if (field === 't') type = value;
    else if (field === 'n' && pid > 0) {
      const colon = value.lastIndexOf(':');
      if (colon === -1 || value.includes('->')) continue;
      const rawHost = value.substring(0, colon).replace(/^\[|\]$/g, '');
      const port = Number(value.substring(colon + 1));
      if (!Number.isInteger(port) || port <= 0 || port > 65_535) continue;
      const host = rawHost === '*' ? (type === 'IPv6' ? '::' : '0.0.0.0') : rawHost === 'localhost' ? '127.0.0.1' : rawHost;
      const local = host === '0.0.0.0' || host === '::' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
      if (local) listeners.push({ pid, host, port });
    }
  }
  return listeners;
}

/** macOS: the loopback/wildcard TCP listeners among `pids` (empty when lsof is missing or finds none). */
export async function listenersOfProcesses(pids: readonly number[]): Promise<ProcessListener[]> {
  if (!processListenersSupported || pids.length === 0) return [];
  const args = ['-nP', '-a', '-iTCP', '-sTCP:LISTEN', '-p', pids.join(','), '-F', 'ptn'];
  try {
    const { stdout } = await execFileAsync('lsof', args, { timeout: 2000, maxBuffer: 1024 * 1024 });
    return parseLsofListeners(stdout);
  } catch (error) {
    // lsof exits 1 when it found nothing; what it printed still counts.
    const stdout = (error as { stdout?: unknown }).stdout;
    return typeof stdout === 'string' ? parseLsofListeners(stdout) : [];
  }
}
