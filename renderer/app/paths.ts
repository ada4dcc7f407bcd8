/** "/home/ada/src/app" → "~/src/app" when home is "/home/ada". */
export function shortenPath(path: string, homeDir: string | undefined): string {
  if (!homeDir || homeDir === '/') return path;
  const home = homeDir.replace(/\/+$/, '');
  if (path === home) return '~';
  if (path.startsWith(`${home}/`)) return `~${path.slice(home.length)}`;
  return path;
}

/** "~/src" → "/home/ada/src": the Hub takes absolute paths, people type ~. */
export function expandHome(path: string, homeDir: string | undefined): string {
  if (!homeDir) return path;
  const home = homeDir.replace(/\/+$/, '');
  if (path === '~') return home || '/';
  if (path.startsWith('~/')) return `${home}${path.slice(1)}`;
  return path;
}

/** The last segment of a path, for compact labels ("/a/b/c" → "c"). */
export function baseName(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1) || '/';
}

/**
 * Fits a path into about `maxChars` by dropping leading folders ("…/project/src"): the end of a
 * path is the part that tells terminals apart.
 */
export function compactPath(path: string, maxChars = 30): string {
  if (path.length <= maxChars) return path;
  const segments = path.split('/');
  let result = segments.pop() ?? path;
  while (segments.length > 0) {
    const next = `${segments[segments.length - 1]}/${result}`;
    if (next.length + 2 > maxChars) break;
    result = next;
    segments.pop();
  }
  return `…/${result}`;
}
