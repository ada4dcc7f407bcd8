/**
 * Serves the built renderer (dist/renderer). Only files inside that directory are reachable:
 * the URL path is decoded, normalised and checked to stay under the root, and symlinks that
 * point outside it are refused.
 */
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.wasm': 'application/wasm',
};

export function contentTypeFor(path: string): string {
  return contentTypes[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

/** dist/renderer of this checkout (src/node/server → repo root). */
export function defaultRendererDir(): string {
  return fileURLToPath(new URL('../../../dist/renderer/', import.meta.url));
}

export type StaticLookup = { kind: 'file'; path: string; size: number } | { kind: 'not-found' } | { kind: 'bad-path' };

/** Map a URL pathname (still percent-encoded) to a file under root, refusing anything outside. */
export async function resolveStaticFile(root: string, urlPathname: string): Promise<StaticLookup> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPathname);
  } catch {
    return { kind: 'bad-path' };
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return { kind: 'bad-path' };
  const relative = decoded === '/' || decoded === '' ? 'index.html' : decoded.replace(/^\/+/, '');
  const rootResolved = resolve(root);
  const candidate = resolve(join(rootResolved, relative));
  if (candidate !== rootResolved && !candidate.startsWith(rootResolved + sep)) return { kind: 'bad-path' };
  try {
    const [realRoot, realFile] = await Promise.all([realpath(rootResolved), realpath(candidate)]);
    if (!realFile.startsWith(realRoot + sep)) return { kind: 'bad-path' };
    const info = await stat(realFile);
    if (!info.isFile()) return { kind: 'not-found' };
    return { kind: 'file', path: realFile, size: info.size };
  } catch {
    return { kind: 'not-found' };
  }
}

/**
 * Vite names what it emits under assets/ `<name>-<hash>.<ext>`: a file's content never changes under
 * its name, so a browser may keep it for good and a reload takes the bundle from its cache (and V8's
 * compiled code with it) instead of fetching 1.2 MB again. Anything else — index.html, which names
 * the current assets, and the unhashed public files — is fetched again each time.
 */
const hashedAsset = /^\/assets\/[^/]+-[A-Za-z0-9_-]{8,}(?:\.[a-z0-9]+)+$/;

/** Cache-Control for a renderer file by its URL path (after any `/m/<machine>` prefix). Private: behind a login. */
export function cacheControlFor(urlPathname: string): string {
  return hashedAsset.test(urlPathname) ? 'private, max-age=31536000, immutable' : 'no-cache';
}

/** Stream a resolved file; headers beyond type/length are the caller's. */
export function sendFile(res: ServerResponse, file: { path: string; size: number }, headOnly: boolean): void {
  res.setHeader('Content-Type', contentTypeFor(file.path));
  res.setHeader('Content-Length', String(file.size));
  res.writeHead(200);
  if (headOnly) {
    res.end();
    return;
  }
  const stream = createReadStream(file.path);
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}
