/**
 * Syntax highlighting by file name. The mapping is pure (unit-tested); each language package is
 * loaded on first use with a dynamic `import()`, so Vite splits it into its own chunk and the
 * window's startup bundle carries none of them.
 */
import type { Extension } from '@codemirror/state';

export type LanguageKey =
  | 'javascript'
  | 'jsx'
  | 'typescript'
  | 'tsx'
  | 'python'
  | 'json'
  | 'markdown'
  | 'css'
  | 'html'
  | 'rust'
  | 'go'
  | 'yaml'
  | 'cpp'
  | 'java'
  | 'sql'
  | 'xml';

const byExtension: Readonly<Record<string, LanguageKey>> = {
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'jsx',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  py: 'python',
  pyi: 'python',
  pyw: 'python',
  json: 'json',
  jsonc: 'json',
  json5: 'json',
  webmanifest: 'json',
  md: 'markdown',
  markdown: 'markdown',
  mdx: 'markdown',
  css: 'css',
  html: 'html',
  htm: 'html',
  xhtml: 'html',
  vue: 'html',
  svelte: 'html',
  rs: 'rust',
  go: 'go',
  yaml: 'yaml',
  yml: 'yaml',
  c: 'cpp',
  h: 'cpp',
  cc: 'cpp',
  cpp: 'cpp',
  cxx: 'cpp',
  hh: 'cpp',
  hpp: 'cpp',
  hxx: 'cpp',
  ino: 'cpp',
  java: 'java',
  sql: 'sql',
  xml: 'xml',
  svg: 'xml',
  xsd: 'xml',
  xsl: 'xml',
  xslt: 'xml',
  plist: 'xml',
  csproj: 'xml',
};

/** Files known by their whole name (no extension, or one that says nothing). */
const byFileName: Readonly<Record<string, LanguageKey>> = {
  '.babelrc': 'json',
  '.eslintrc': 'json',
  '.prettierrc': 'json',
  'tsconfig.json': 'json',
  '.clang-format': 'yaml',
  'pom.xml': 'xml',
};

/** VS Code language ids (as the Hub guesses them for file tabs) that map to a package here. */
const byLanguageId: Readonly<Record<string, LanguageKey>> = {
  javascript: 'javascript',
  javascriptreact: 'jsx',
  typescript: 'typescript',
  typescriptreact: 'tsx',
  python: 'python',
  json: 'json',
  jsonc: 'json',
  markdown: 'markdown',
  css: 'css',
  html: 'html',
  rust: 'rust',
  go: 'go',
  yaml: 'yaml',
  c: 'cpp',
  cpp: 'cpp',
  java: 'java',
  sql: 'sql',
  xml: 'xml',
};

const labels: Readonly<Record<LanguageKey, string>> = {
  javascript: 'JavaScript',
  jsx: 'JavaScript JSX',
  typescript: 'TypeScript',
  tsx: 'TypeScript JSX',
  python: 'Python',
  json: 'JSON',
  markdown: 'Markdown',
  css: 'CSS',
  html: 'HTML',
  rust: 'Rust',
  go: 'Go',
  yaml: 'YAML',
  cpp: 'C/C++',
  java: 'Java',
  sql: 'SQL',
  xml: 'XML',
};

/** The language of a file by its name (POSIX or Windows path), or null for plain text. */
export function languageForPath(path: string): LanguageKey | null {
  const name = path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
  const known = byFileName[name] ?? byFileName[name.toLowerCase()];
  if (known) return known;
  const dot = name.lastIndexOf('.');
  // A leading dot is a hidden file's name, not an extension (".bashrc").
  if (dot <= 0) return null;
  return byExtension[name.slice(dot + 1).toLowerCase()] ?? null;
}

/** The language of a VS Code language id ("typescriptreact"…), or null. */
export function languageForId(languageId: string): LanguageKey | null {
  return byLanguageId[languageId] ?? null;
}

export function languageLabel(language: LanguageKey | null): string {
  return language ? labels[language] : 'Plain text';
}

const loaded = new Map<LanguageKey, Promise<Extension>>();

/** The CodeMirror language support for `language`, loading its package once. */
export function loadLanguage(language: LanguageKey): Promise<Extension> {
  let pending = loaded.get(language);
  if (!pending) {
    pending = importLanguage(language);
    // A failed load (a chunk missing after an upgrade) may be retried by the next editor.
    pending.catch(() => loaded.delete(language));
    loaded.set(language, pending);
  }
  return pending;
}

async function importLanguage(language: LanguageKey): Promise<Extension> {
  // Literal specifiers, one per package: the bundler turns each into its own lazy chunk.
  switch (language) {
    case 'javascript':
      return (await import('@codemirror/lang-javascript')).javascript();
    case 'jsx':
      return (await import('@codemirror/lang-javascript')).javascript({ jsx: true });
    case 'typescript':
      return (await import('@codemirror/lang-javascript')).javascript({ typescript: true });
    case 'tsx':
      return (await import('@codemirror/lang-javascript')).javascript({ typescript: true, jsx: true });
    case 'python':
      return (await import('@codemirror/lang-python')).python();
    case 'json':
      return (await import('@codemirror/lang-json')).json();
    case 'markdown':
      return (await import('@codemirror/lang-markdown')).markdown();
    case 'css':
      return (await import('@codemirror/lang-css')).css();
    case 'html':
      return (await import('@codemirror/lang-html')).html();
    case 'rust':
      return (await import('@codemirror/lang-rust')).rust();
    case 'go':
      return (await import('@codemirror/lang-go')).go();
    case 'yaml':
      return (await import('@codemirror/lang-yaml')).yaml();
    case 'cpp':
      return (await import('@codemirror/lang-cpp')).cpp();
    case 'java':
      return (await import('@codemirror/lang-java')).java();
    case 'sql':
      return (await import('@codemirror/lang-sql')).sql();
    case 'xml':
      return (await import('@codemirror/lang-xml')).xml();
  }
}
