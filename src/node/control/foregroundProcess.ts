/**
 * The foreground process group of a terminal: the job the person would interrupt with Ctrl-C.
 * On Linux it is field `tpgid` of /proc/<shell pid>/stat (the PTY is the shell's controlling
 * terminal); elsewhere we fall back to the shell's own group.
 */
import { readProcText } from '../procFiles.ts';
import { parseProcStat } from '../pty/processGroups.ts';

export async function foregroundProcessGroup(shellPid: number): Promise<number> {
  if (process.platform !== 'linux') return shellPid;
  const tpgid = parseProcStat(readProcText(`/proc/${shellPid}/stat`) ?? '')?.terminalGroup ?? 0;
  return tpgid > 0 ? tpgid : shellPid;
}
