/**
 * The local URLs a program prints (`➜  Local:   http://localhost:5173/`, `Serving HTTP on 0.0.0.0
 * port 8000 (http://0.0.0.0:8000/)`): http(s) on localhost, 127.0.0.1, 0.0.0.0, [::] or [::1].
 * Output is scanned as it passes, ANSI stripped; a URL split across two batches is found
 * because a short tail of the previous batch is kept.
 */
import { stripAnsi } from '../../common/terminal/ansiStrip.ts';

export interface PrintedUrl {
  /** The host as printed (localhost, 127.0.0.1, 0.0.0.0, ::, ::1). */
  host: string;
  port: number;
  /** What to open: the printed URL with a wildcard host made `localhost`. */
  url: string;
}

/** Long enough for any local URL worth opening; a longer tail would only be scanned twice. */
const tailChars = 256;
const maxUrlChars = 2048;

const localHosts = ['localhost', '127.0.0.1', '0.0.0.0', '[::'];

/** Some `://` in the text is followed by a local host (printed whole and in lower case: colours go around a host, not inside). */
function hasLocalUrl(text: string): boolean {
  for (let at = text.indexOf('://'); at !== -1; at = text.indexOf('://', at + 3)) {
    for (const host of localHosts) if (text.startsWith(host, at + 3)) return true;
  }
  return false;
}

const urlPattern = /\bhttps?:\/\/(localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1?\])(?::(\d{1,5}))?(?![\w:-]|\.\w)(\/[^\s"'<>`\x1b)\]]*)?/gi;

/** Every local URL in `text` (plain, or with ANSI: it is stripped first). */
export function findLocalUrls(text: string): PrintedUrl[] {
  return scanLocalUrls(stripAnsi(text)).map(({ host, port, url }) => ({ host, port, url }));
}

function scanLocalUrls(plain: string): Array<PrintedUrl & { atEnd: boolean }> {
  const found: Array<PrintedUrl & { atEnd: boolean }> = [];
  for (const match of plain.matchAll(urlPattern)) {
    const https = match[0].toLowerCase().startsWith('https');
    const rawHost = match[1]!.toLowerCase();
    const host = rawHost.replace(/^\[|\]$/g, '');
    const port = match[2] ? Number(match[2]) : https ? 443 : 80;
    if (port < 1 || port > 65_535) continue;
    // Trailing punctuation ends a sentence, not the URL ("open http://localhost:3000.").
    const path = (match[3] ?? '/').replace(/[.,;:!?]+$/, '') || '/';
    // A wildcard address is where the server listens, not a place a browser can go.
    const openHost = host === '0.0.0.0' || host === '::' ? 'localhost' : rawHost;
    const url = `${https ? 'https' : 'http'}://${openHost}:${port}${path}`;
    if (url.length <= maxUrlChars) found.push({ host, port, url, atEnd: match.index + match[0].length === plain.length });
  }
  return found;
}

/** Scans one terminal's output stream; holds only a short tail between batches. */
export class PrintedUrlScanner {
  #tail = '';
  /** A URL that ended where the output ended: it may go on in the next batch (`:51` of `:5173`). */
  #pending: PrintedUrl | null = null;

  /**
   * The local URLs in this batch of output (with the kept tail of the last one: a URL in it is
   * reported again, which is harmless). One that touches the batch's end is held back until more
   * output shows where it ends, or `takePending()`.
   */
  push(data: string): PrintedUrl[] {
    const tail = this.#tail;
    this.#tail = data.length >= tailChars ? data.substring(data.length - tailChars) : (tail + data).slice(-tailChars);
    this.#pending = null;
    // Cheap tests first: almost no batch holds a URL, and few URLs are local (a log full of links
    // must not cost a strip and a regex per batch). The batch and the seam with the tail are
    // searched apart: joining a 64 KiB batch to the tail made V8 copy it whole, batch after batch of a flood.
    if (!hasLocalUrl(data) && !(tail.length > 0 && hasLocalUrl(tail + data.substring(0, tailChars)))) return [];
    const urls = scanLocalUrls(stripAnsi(tail + data));
    const last = urls.at(-1);
    if (last?.atEnd) {
      urls.pop();
      this.#pending = { host: last.host, port: last.port, url: last.url };
    }
    return urls.map(({ host, port, url }) => ({ host, port, url }));
  }

  get hasPending(): boolean {
    return this.#pending !== null;
  }

  /** The URL held back at the end of the output, once no more output came to extend it. */
  takePending(): PrintedUrl | null {
    const pending = this.#pending;
    this.#pending = null;
    return pending;
  }

  reset(): void {
    this.#tail = '';
    this.#pending = null;
  }
}
