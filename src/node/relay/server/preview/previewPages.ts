/**
 * The relay's own answers on preview addresses: a person opened the preview in a new tab, so a
 * refusal is a small readable page (what happened, in the machine's words when it said why), with
 * the relay's security headers and a strict CSP (no scripts at all).
 */
import type { ServerResponse } from 'node:http';
import { setSecurityHeaders } from '../../../server/httpKit.ts';

export interface PreviewPage {
  status: number;
  title: string;
  /** One or two sentences; the machine's message goes in `detail`. */
  message: string;
  detail?: string | undefined;
}

export function sendPreviewPage(res: ServerResponse, page: PreviewPage, options: { closeConnection?: boolean } = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body =
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
    `<title>${escapeHtml(page.title)}</title>` +
    `<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40em;margin:3em auto;padding:0 1em;color:#222}code,pre{background:#f2f2f2;padding:.1em .3em;white-space:pre-wrap}</style>` +
    `</head><body><h1>${escapeHtml(page.title)}</h1><p>${escapeHtml(page.message)}</p>` +
    (page.detail ? `<pre>${escapeHtml(page.detail)}</pre>` : '') +
    `<p><small>Switchboard relay · dev-server preview · HTTP ${page.status}</small></p></body></html>\n`;
  setSecurityHeaders(res);
  res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'");
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Length', String(Buffer.byteLength(body)));
  res.setHeader('Cache-Control', 'no-store');
  if (options.closeConnection) res.setHeader('Connection', 'close');
  res.writeHead(page.status);
  res.end(body);
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);
}
