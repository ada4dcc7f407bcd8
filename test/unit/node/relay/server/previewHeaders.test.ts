/**
 * The relay's preview rules without I/O (src/node/relay/server/preview/previewHeaders.ts and
 * previewFlow.ts): preview paths, the sb_preview cookie, which root paths stay the relay's, the
 * header rewriting both ways, the send window and the sequence rule.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { closeReason, SendWindow, sendableCloseCode, sequenceError } from '../../../../../src/node/relay/server/preview/previewFlow.ts';
import {
  isRelayOwnPath,
  offeredProtocols,
  originForm,
  parsePreviewCookie,
  parsePreviewPath,
  previewCookie,
  rewriteLocation,
  rewriteRequestHeaders,
  rewriteResponseHeaders,
} from '../../../../../src/node/relay/server/preview/previewHeaders.ts';

const id = 'pv-abcdefghijklmnopqrstuvwx';

describe('preview paths', () => {
  it('tells the open endpoint, a bare preview, a served path and bad addresses apart', () => {
    assert.deepEqual(parsePreviewPath('/m/home/preview/open?terminalId=t&port=5173'), { kind: 'open', machineId: 'home' });
    assert.deepEqual(parsePreviewPath(`/m/home/preview/${id}`), { kind: 'bare', machineId: 'home', previewId: id });
    assert.deepEqual(parsePreviewPath(`/m/home/preview/${id}/src/main.ts?t=1`), { kind: 'serve', machineId: 'home', previewId: id, prefix: `/m/home/preview/${id}`, path: '/src/main.ts?t=1' });
    assert.deepEqual(parsePreviewPath(`/m/home/preview/${id}/`), { kind: 'serve', machineId: 'home', previewId: id, prefix: `/m/home/preview/${id}`, path: '/' });
    assert.equal(parsePreviewPath(`/m/home/preview/${id}//evil.example/x`)?.kind === 'serve' && (parsePreviewPath(`/m/home/preview/${id}//evil.example/x`) as { path: string }).path, '/evil.example/x', 'never a //host path');
    assert.equal(parsePreviewPath('/m/home/preview/pv-short/')?.kind, 'bad');
    assert.equal(parsePreviewPath('/m/..%2F/preview/open')?.kind, 'bad');
    assert.equal(parsePreviewPath('/m/home/'), undefined);
    assert.equal(parsePreviewPath('/m/home/previews'), undefined);
    assert.equal(originForm('//x//y'), '/x//y');
  });

  it('keeps the relay its own root paths; a WebSocket to / is the dev server’s', () => {
    for (const path of ['/', '/healthz', '/m', '/m/home/', '/ws/ui', '/login']) assert.equal(isRelayOwnPath(path, false), true, path);
    for (const path of ['/@vite/client', '/src/main.ts', '/favicon.ico', '/healthzz']) assert.equal(isRelayOwnPath(path, false), false, path);
    assert.equal(isRelayOwnPath('/', true), false);
    assert.equal(isRelayOwnPath('/ws/daemon', true), true);
  });

  it('reads and writes the sb_preview cookie (machine ids may hold dots)', () => {
    assert.deepEqual(parsePreviewCookie(`my.box.${id}`), { machineId: 'my.box', previewId: id });
    assert.equal(parsePreviewCookie('home.pv-x'), undefined);
    assert.equal(parsePreviewCookie(id), undefined);
    assert.equal(parsePreviewCookie(undefined), undefined);
    assert.equal(previewCookie('home', id, false), `sb_preview=home.${id}; HttpOnly; SameSite=Strict; Path=/`);
    assert.match(previewCookie('home', id, true), /; Secure$/);
  });
});

describe('request headers to the dev server', () => {
  const rewrite = (raw: string[], extra: Partial<Parameters<typeof rewriteRequestHeaders>[2]> = {}) => {
    const headers: Record<string, string> = {};
    for (let index = 0; index < raw.length; index += 2) headers[raw[index]!.toLowerCase()] = raw[index + 1]!;
    return rewriteRequestHeaders(headers, raw, {
      siteOrigin: 'https://relay.example.com',
      prefix: `/m/home/preview/${id}`,
      port: 5173,
      relayCookies: (name) => name === 'sb_preview' || name.startsWith('__Host-sb_viewer_'),
      dropAuthorization: false,
      ...extra,
    });
  };

  it('sets Host, rewrites Origin and Referer from the relay to localhost, adds X-Forwarded-*', () => {
    const out = rewrite(['Host', 'relay.example.com', 'Origin', 'https://relay.example.com', 'Referer', `https://relay.example.com/m/home/preview/${id}/about?x=1`, 'Accept', 'text/html', 'X-Forwarded-For', '6.6.6.6']);
    assert.deepEqual(out, {
      accept: ['text/html'],
      host: ['localhost:5173'],
      origin: ['http://localhost:5173'],
      referer: ['http://localhost:5173/about?x=1'],
      'x-forwarded-host': ['relay.example.com'],
      'x-forwarded-proto': ['https'],
      'x-forwarded-prefix': [`/m/home/preview/${id}`],
    });
  });

  it("leaves another site's Origin and Referer as they are (the dev server decides)", () => {
    const out = rewrite(['Origin', 'https://evil.example', 'Referer', 'https://evil.example/x']);
    assert.deepEqual([out.origin, out.referer], [['https://evil.example'], ['https://evil.example/x']]);
  });

  it("drops hop-by-hop headers, those Connection names, the relay's cookies and a relay bearer", () => {
    const out = rewrite(
      ['Connection', 'keep-alive, X-Secret-Hop', 'Keep-Alive', '5', 'Transfer-Encoding', 'chunked', 'TE', 'trailers', 'Upgrade', 'h2c', 'X-Secret-Hop', '1', 'Cookie', `__Host-sb_viewer_home=sbrv_x; theirs=1; sb_preview=home.${id}`, 'Cookie', 'more=2', 'Authorization', 'Bearer sbrv_x'],
      { dropAuthorization: true },
    );
    assert.deepEqual(Object.keys(out).sort(), ['cookie', 'host', 'x-forwarded-host', 'x-forwarded-prefix', 'x-forwarded-proto']);
    assert.deepEqual(out.cookie, ['theirs=1; more=2']);
    assert.equal(rewrite(['Cookie', `sb_preview=home.${id}`]).cookie, undefined, 'no Cookie header left when only the relay’s were there');
    assert.deepEqual(rewrite(['Authorization', 'Basic dXNlcg==']).authorization, ['Basic dXNlcg=='], "the dev server's own auth passes");
  });

  it('drops the WebSocket handshake headers for an upgrade (the daemon makes its own)', () => {
    const out = rewrite(['Sec-WebSocket-Key', 'k', 'Sec-WebSocket-Version', '13', 'Sec-WebSocket-Protocol', 'vite-hmr', 'Sec-WebSocket-Extensions', 'permessage-deflate'], { webSocket: true });
    assert.deepEqual(Object.keys(out).filter((name) => name.startsWith('sec-')), []);
    assert.deepEqual(offeredProtocols('vite-hmr, other ,,'), ['vite-hmr', 'other']);
  });

  it('has no X-Forwarded-Prefix for a root-path request, and maps its Referer as is', () => {
    const out = rewrite(['Referer', 'https://relay.example.com/src/main.ts'], { prefix: undefined });
    assert.equal(out['x-forwarded-prefix'], undefined);
    assert.deepEqual(out.referer, ['http://localhost:5173/src/main.ts']);
  });
});

describe('response headers to the viewer', () => {
  const prefix = `/m/home/preview/${id}`;

  it('moves redirects to the dev server itself (or root-absolute) under the preview; others stay', () => {
    const to = (location: string) => rewriteLocation(location, { port: 5173, prefix });
    assert.equal(to('http://localhost:5173/login?next=/'), `${prefix}/login?next=/`);
    assert.equal(to('http://127.0.0.1:5173/a#b'), `${prefix}/a#b`);
    assert.equal(to('http://[::1]:5173/'), `${prefix}/`);
    assert.equal(to('/dashboard'), `${prefix}/dashboard`);
    assert.equal(to('http://localhost:3000/x'), 'http://localhost:3000/x', 'another port is another server');
    assert.equal(to('https://accounts.example.com/auth'), 'https://accounts.example.com/auth');
    assert.equal(to('//cdn.example.com/x'), '//cdn.example.com/x');
    assert.equal(to('relative/path'), 'relative/path');
  });

  it('drops hop-by-hop headers and broken ones; keeps set-cookie and the dev server’s own CSP', () => {
    const out = rewriteResponseHeaders(
      {
        'Content-Type': ['text/html'],
        connection: ['close, x-hop'],
        'x-hop': ['1'],
        'transfer-encoding': ['chunked'],
        'set-cookie': ['a=1; Path=/', 'b=2; Path=/api'],
        'content-security-policy': ["default-src 'self'"],
        'bad name': ['x'],
        'x-injected': ['a\r\nSet-Cookie: evil=1'],
      },
      { port: 5173, prefix },
    );
    assert.deepEqual(out, [
      ['content-type', ['text/html']],
      ['set-cookie', ['a=1; Path=/', 'b=2; Path=/api']],
      ['content-security-policy', ["default-src 'self'"]],
    ]);
  });
});

describe('flow control', () => {
  it('counts unacknowledged bytes against the window, and refuses an ack of what was never sent', () => {
    const window = new SendWindow(100);
    window.sent(1, 60);
    assert.equal(window.full, false);
    window.sent(2, 50);
    assert.equal(window.full, true);
    assert.equal(window.ack(1), undefined);
    assert.equal(window.unacked, 50);
    assert.equal(window.full, false);
    assert.equal(window.ack(3), 'ack of sequence 3, only 2 sent');
    const none = new SendWindow(undefined);
    none.sent(1, 10_000_000);
    assert.equal(none.full, false, 'no window: never waits');
  });

  it('says what is wrong with a sequence', () => {
    assert.equal(sequenceError(1, 1), undefined);
    assert.equal(sequenceError(4, 6), 'sequence 6 after 3');
    assert.equal(sequenceError(4, 3), 'sequence 3 after 3');
    assert.equal(sequenceError(4, 1), 'sequence 1 after 3');
  });

  it('sends only close codes a WebSocket may send, and reasons within 123 bytes', () => {
    assert.equal(sendableCloseCode(1000), 1000);
    assert.equal(sendableCloseCode(4001), 4001);
    assert.equal(sendableCloseCode(1006), 1000);
    assert.equal(sendableCloseCode(1005), 1000);
    assert.equal(sendableCloseCode(99), 1000);
    assert.equal(sendableCloseCode(undefined, 1001), 1001);
    assert.equal(Buffer.byteLength(closeReason('é'.repeat(100))), 122);
  });
});
