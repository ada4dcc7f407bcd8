/**
 * Which TCP ports are listened on, and by which process.
 *
 * Linux: /proc/net/tcp and /proc/net/tcp6 list every socket of this network namespace with its
 * inode; a LISTEN socket (state 0A) belongs to the process whose /proc/<pid>/fd holds a link to
 * `socket:[inode]`. Reading both tables is one cheap read each; looking through a process's fds
 * costs a readlink per fd, so callers do it only when a new listening inode appeared.
 *
 * Other platforms: no socket table here (macOS would need libproc or lsof, Windows
 * GetExtendedTcpTable); `supported` is false and only printed URLs are used (README, "Dev servers").
 */
import { readdir, readFile, readlink } from 'node:fs/promises';

export const socketTablesSupported = process.platform === 'linux';

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
    const fields = lines[index]!.trim().split(/\s+/);
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
  const tables = await Promise.all(['/proc/net/tcp', '/proc/net/tcp6'].map((path) => readFile(path, 'utf8').catch(() => '')));
  return tables.flatMap(parseSocketTable);
}

/** The socket inodes among `pid`'s open fds (empty when the process is gone or not ours to read). */
export async function socketInodesOf(pid: number): Promise<number[]> {
  let fds: string[];
  try {
    fds = await readdir(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  if (fds.length > maxFdsPerProcess) fds = fds.slice(0, maxFdsPerProcess);
  const links = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  const inodes: number[] = [];
  for (const link of links) {
    if (link.startsWith('socket:[')) inodes.push(Number(link.substring(8, link.length - 1)));
  }
  return inodes;
}
