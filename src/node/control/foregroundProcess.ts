/**
 * The foreground process group of a terminal: the job the person would interrupt with Ctrl-C.
 * On Linux it is field `tpgid` of /proc/<shell pid>/stat (the PTY is the shell's controlling
 * terminal); elsewhere we fall back to the shell's own group.
 */
import { readProcText } from '../procFiles.ts';

export async function foregroundProcessGroup(shellPid: number): Promise<number> {
  if (process.platform !== 'linux') return shellPid;
  const stat = readProcText(`/proc/${shellPid}/stat`);
  if (stat === null) return shellPid;
  // The command name may hold spaces and parentheses: fields are counted after the last ')'.
  const fields = stat.substring(stat.lastIndexOf(')') + 2).split(' ');
  const tpgid = Number(fields[5]);
  return Number.isInteger(tpgid) && tpgid > 0 ? tpgid : shellPid;
}
