/**
 * Splits `git diff` output into files and hunks. Hand-written because what is needed is git's own
 * patch format cut at its seams (`diff --git`, `@@`), with each hunk kept byte for byte so it can
 * be handed back to `git apply -R`; the `diff` package would parse and re-render it.
 */
import type { DiffHunk, FileChangeStatus } from '../../common/api/workspaceContract.ts';

export interface ParsedFileDiff {
  path: string;
  oldPath: string | null;
  status: FileChangeStatus;
  binary: boolean;
  additions: number;
  deletions: number;
  /** The lines before the first hunk (`diff --git`, mode lines, `---`/`+++`), newline-terminated. */
  header: string;
  hunks: DiffHunk[];
  /** The whole file's diff. */
  text: string;
}

const hunkHeader = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** Parse git's patch output (made with `--src-prefix=a/ --dst-prefix=b/` and `core.quotePath=false`). */
export function parseUnifiedDiff(output: string): ParsedFileDiff[] {
  const files: ParsedFileDiff[] = [];
  const lines = output.split('\n');
  // A trailing newline leaves one empty element: not a line of the diff.
  if (lines.at(-1) === '') lines.pop();
  let index = 0;
  while (index < lines.length) {
    if (!lines[index]!.startsWith('diff --git ')) {
      index++;
      continue;
    }
    const start = index;
    index++;
    while (index < lines.length && !lines[index]!.startsWith('diff --git ')) index++;
    files.push(parseFile(lines.slice(start, index)));
  }
  return files;
}

function parseFile(lines: string[]): ParsedFileDiff {
  const headerLines: string[] = [];
  let cursor = 0;
  while (cursor < lines.length && !lines[cursor]!.startsWith('@@ ')) headerLines.push(lines[cursor++]!);
  let oldName: string | null = null;
  let newName: string | null = null;
  let renameFrom: string | null = null;
  let renameTo: string | null = null;
  let status: FileChangeStatus = 'modified';
  let binary = false;
  for (const line of headerLines) {
    if (line.startsWith('--- ')) oldName = pathOf(line.slice(4), 'a/');
    else if (line.startsWith('+++ ')) newName = pathOf(line.slice(4), 'b/');
    else if (line.startsWith('rename from ')) renameFrom = unquote(line.slice('rename from '.length));
    else if (line.startsWith('rename to ')) renameTo = unquote(line.slice('rename to '.length));
    else if (line.startsWith('copy from ')) renameFrom = unquote(line.slice('copy from '.length));
    else if (line.startsWith('copy to ')) renameTo = unquote(line.slice('copy to '.length));
    else if (line.startsWith('new file mode')) status = 'added';
    else if (line.startsWith('deleted file mode')) status = 'deleted';
    else if (line.startsWith('similarity index')) status = headerLines.some((entry) => entry.startsWith('copy from ')) ? 'copied' : 'renamed';
    else if (line.startsWith('Binary files ') || line === 'GIT binary patch') binary = true;
  }
  // Without ---/+++ (a pure rename, a mode change, a binary file) the names are in the first line.
  const fromFirstLine = namesFromDiffLine(headerLines[0] ?? '');
  const path = renameTo ?? newName ?? oldName ?? fromFirstLine.newPath;
  const oldPath = renameFrom ?? (status === 'renamed' || status === 'copied' ? (oldName ?? fromFirstLine.oldPath) : null);
  const hunks: DiffHunk[] = [];
  let additions = 0;
  let deletions = 0;
  while (cursor < lines.length) {
    const headerLine = lines[cursor]!;
    const match = hunkHeader.exec(headerLine);
    const body: string[] = [headerLine];
    cursor++;
    while (cursor < lines.length && !lines[cursor]!.startsWith('@@ ')) {
      const line = lines[cursor++]!;
      body.push(line);
      if (line.startsWith('+')) additions++;
      else if (line.startsWith('-')) deletions++;
    }
    if (!match) continue;
    hunks.push({
      header: headerLine,
      text: body.join('\n') + '\n',
      oldStart: Number(match[1]),
      oldLines: match[2] === undefined ? 1 : Number(match[2]),
      newStart: Number(match[3]),
      newLines: match[4] === undefined ? 1 : Number(match[4]),
    });
  }
  return {
    path,
    oldPath,
    status,
    binary,
    additions,
    deletions,
    header: headerLines.join('\n') + '\n',
    hunks,
    text: lines.join('\n') + '\n',
  };
}

/** `a/src/x.ts` → `src/x.ts`; `/dev/null` → null. */
function pathOf(field: string, prefix: string): string | null {
  const name = unquote(field.replace(/\t$/, ''));
  if (name === '/dev/null') return null;
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

function namesFromDiffLine(line: string): { oldPath: string; newPath: string } {
  const rest = line.slice('diff --git '.length);
  // Unquoted names without spaces in them are the common case: `a/x b/x`.
  const quoted = /^"((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)"$/.exec(rest);
  if (quoted) return { oldPath: stripPrefix(unquote(`"${quoted[1]}"`), 'a/'), newPath: stripPrefix(unquote(`"${quoted[2]}"`), 'b/') };
  const middle = rest.indexOf(' b/');
  if (middle === -1) return { oldPath: rest, newPath: rest };
  return { oldPath: stripPrefix(rest.slice(0, middle), 'a/'), newPath: rest.slice(middle + 3) };
}

function stripPrefix(name: string, prefix: string): string {
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

/** git's C-style quoting (used with core.quotePath=false only for ", \\ and control characters). */
export function unquote(name: string): string {
  if (!(name.startsWith('"') && name.endsWith('"') && name.length >= 2)) return name;
  const bytes: number[] = [];
  const body = name.slice(1, -1);
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, b: 8, f: 12, v: 11, a: 7, '"': 34, '\\': 92 };
  for (let i = 0; i < body.length; i++) {
    const char = body[i]!;
    if (char !== '\\') {
      bytes.push(...Buffer.from(char, 'utf8'));
      continue;
    }
    const next = body[i + 1] ?? '';
    if (/[0-7]/.test(next)) {
      bytes.push(parseInt(body.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      bytes.push(simple[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}
