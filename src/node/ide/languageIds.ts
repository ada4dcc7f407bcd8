/**
 * VS Code language ids by file name, for `getOpenEditors`, `openFile` and file tabs. Claude Code
 * only displays them, so a short table of common languages is enough; anything else is plaintext.
 */
import { basename, extname } from 'node:path';

const byExtension: Record<string, string> = {
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'typescriptreact',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascriptreact',
  '.json': 'json',
  '.jsonc': 'jsonc',
  '.md': 'markdown',
  '.py': 'python',
  '.rs': 'rust',
  '.go': 'go',
  '.java': 'java',
  '.kt': 'kotlin',
  '.c': 'c',
  '.h': 'c',
  '.cc': 'cpp',
  '.cpp': 'cpp',
  '.hpp': 'cpp',
  '.cs': 'csharp',
  '.rb': 'ruby',
  '.php': 'php',
  '.swift': 'swift',
  '.sh': 'shellscript',
  '.bash': 'shellscript',
  '.zsh': 'shellscript',
  '.fish': 'fish',
  '.html': 'html',
  '.htm': 'html',
  '.css': 'css',
  '.scss': 'scss',
  '.less': 'less',
  '.xml': 'xml',
  '.svg': 'xml',
  '.yaml': 'yaml',
  '.yml': 'yaml',
  '.toml': 'toml',
  '.ini': 'ini',
  '.sql': 'sql',
  '.lua': 'lua',
  '.vue': 'vue',
  '.svelte': 'svelte',
  '.txt': 'plaintext',
};

const byName: Record<string, string> = {
  dockerfile: 'dockerfile',
  makefile: 'makefile',
  '.bashrc': 'shellscript',
  '.zshrc': 'shellscript',
  '.gitignore': 'ignore',
};

export function languageIdFor(path: string): string {
  const name = basename(path).toLowerCase();
  return byName[name] ?? byExtension[extname(name)] ?? 'plaintext';
}
