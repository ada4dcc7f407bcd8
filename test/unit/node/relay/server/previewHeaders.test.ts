/**
 * The relay's preview rules without I/O (src/node/relay/server/preview/previewHeaders.ts and
 * previewFlow.ts): the relay's preview paths, the header rewriting both ways (to the dev server as
 * if opened on localhost, back to the preview's own origin), the send window and the sequence rule.
 * Preview origins, tickets and the session cookie: previewOrigins.test.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { closeReason, SendWindow, sendableCloseCode, sequenceError } from '../../../../../src/node/relay/server/preview/previewFlow.ts';
import { hostOnlyCookie, offeredProtocols, originForm, parsePreviewPath, rewriteLocation, rewriteRequestHeaders, rewriteResponseHeaders } from '../../../../../src/node/relay/server/preview/previewHeaders.ts';

const label = 'pvabcdefghijklmnopqrstuvwxyz';
const previewOrigin = `https://${label}.preview.example.com`;

describe('preview paths on the relay', () => {
  it('tells the open endpoint from anything else under /m/<machine>/preview (no preview is served there)', () => {
    assert.deepEqual(parsePreviewPath('/m/home/preview/open?terminalId=t&port=5173'), { kind: 'open', machineId: 'home' });
    assert.deepEqual(parsePreviewPath('/m/home/preview/open'), { kind: 'open', machineId: 'home' });
    assert.deepEqual(parsePreviewPath('/m/home/preview/pv-abcdefghijklmnopqrstuvwx/src/main.ts?t=1'), { kind: 'elsewhere' });
    assert.deepEqual(parsePreviewPath('/m/home/preview'), { kind: 'elsewhere' });
    assert.deepEqual(parsePreviewPath('/m/home/preview/open/x'), { kind: 'elsewhere' });
    assert.equal(parsePreviewPath('/m/..%2F/preview/open')?.kind, 'bad');
    assert.equal(parsePreviewPath('/m/home/'), undefined);
    assert.equal(parsePreviewPath('/m/home/previews'), undefined);
    assert.equal(parsePreviewPath('/@vite/client'), undefined);
    assert.equal(originForm('//x//y'), '/x//y');
  });
});

describe('request headers to the dev server', () => {
  const rewrite = (raw: string[], extra: Partial<Parameters<typeof rewriteRequestHeaders>[2]> = {}) => {
    const headers: Record<string, string> = {};
    for (let index = 0; index < raw.length; index += 2) headers[raw[index]!.toLowerCase()] = raw[index + 1]!;
    return rewriteRequestHeaders(headers, raw, {
      previewOrigin,
      port: 5173,
      relayCookies: (name) => name === 'sb_preview_session' || name.startsWith('__Host-sb_viewer_'),
      dropAuthorization: false,
      ...extra,
    });
  };

  it('sets Host, rewrites Origin and Referer of the preview origin to localhost, adds X-Forwarded-Host/Proto (no prefix)', () => {
    const out = rewrite(['Host', `${label}.preview.example.com`, 'Origin', previewOrigin, 'Referer', `${previewOrigin}/about?x=1`, 'Accept', 'text/html', 'X-Forwarded-For', '6.6.6.6', 'X-Forwarded-Prefix', '/spoof']);
    assert.deepEqual(out, {
      accept: ['text/html'],
      host: ['localhost:5173'],
      origin: ['http://localhost:5173'],
      referer: ['http://localhost:5173/about?x=1'],
      'x-forwarded-host': [`${label}.preview.example.com`],
      'x-forwarded-proto': ['https'],
    });
  });

  it("leaves another site's Origin and Referer as they are (the relay's own too: the dev server decides)", () => {
    const out = rewrite(['Origin', 'https://evil.example', 'Referer', 'https://relay.example.com/m/home/']);
    assert.deepEqual([out.origin, out.referer], [['https://evil.example'], ['https://relay.example.com/m/home/']]);
  });

  it("drops hop-by-hop headers, those Connection names, the relay's cookies and a relay bearer", () => {
    const out = rewrite(
      ['Connection', 'keep-alive, X-Secret-Hop', 'Keep-Alive', '5', 'Transfer-Encoding', 'chunked', 'TE', 'trailers', 'Upgrade', 'h2c', 'X-Secret-Hop', '1', 'Cookie', '__Host-sb_viewer_home=sbrv_x; theirs=1; sb_preview_session=s3cret', 'Cookie', 'more=2', 'Authorization', 'Bearer sbrv_x'],
      { dropAuthorization: true },
    );
    assert.deepEqual(Object.keys(out).sort(), ['cookie', 'host', 'x-forwarded-host', 'x-forwarded-proto']);
    assert.deepEqual(out.cookie, ['theirs=1; more=2']);
    assert.equal(rewrite(['Cookie', 'sb_preview_session=s3cret']).cookie, undefined, 'no Cookie header left when only the relay’s were there');
    assert.deepEqual(rewrite(['Authorization', 'Basic dXNlcg==']).authorization, ['Basic dXNlcg=='], "the dev server's own auth passes");
  });

  it('drops the WebSocket handshake headers for an upgrade (the daemon makes its own)', () => {
    const out = rewrite(['Sec-WebSocket-Key', 'k', 'Sec-WebSocket-Version', '13', 'Sec-WebSocket-Protocol', 'vite-hmr', 'Sec-WebSocket-Extensions', 'permessage-deflate'], { webSocket: true });
    assert.deepEqual(Object.keys(out).filter((name) => name.startsWith('sec-')), []);
    assert.deepEqual(offeredProtocols('vite-hmr, other ,,'), ['vite-hmr', 'other']);
  });
});

describe('response headers to the viewer', () => {
  it('moves redirects to the dev server itself to the preview origin; root-absolute and others stay', () => {
    const to = (location: string) => rewriteLocation(location, { port: 5173, previewOrigin });
    assert.equal(to('http://localhost:5173/login?next=/'), `${previewOrigin}/login?next=/`);
    assert.equal(to('http://127.0.0.1:5173/a#b'), `${previewOrigin}/a#b`);
    assert.equal(to('http://[::1]:5173/'), `${previewOrigin}/`);
    assert.equal(to('/dashboard'), '/dashboard', 'root-absolute already lands on the preview origin');
    assert.equal(to('http://localhost:3000/x'), 'http://localhost:3000/x', 'another port is another server');
    assert.equal(to('https://accounts.example.com/auth'), 'https://accounts.example.com/auth');
    assert.equal(to('//cdn.example.com/x'), '//cdn.example.com/x');
    assert.equal(to('relative/path'), 'relative/path');
  });

  it('drops hop-by-hop headers and broken ones; keeps the dev server’s own CSP; set-cookie loses its Domain', () => {
    const out = rewriteResponseHeaders(
      {
        'Content-Type': ['text/html'],
        connection: ['close, x-hop'],
        'x-hop': ['1'],
        'transfer-encoding': ['chunked'],
        'set-cookie': ['a=1; Path=/', 'b=2; Path=/api', 'x=1; Domain=localhost', 'y=2; path=/; domain=.example.com; HttpOnly'],
        'content-security-policy': ["default-src 'self'"],
        'bad name': ['x'],
        'x-injected': ['a\r\nSet-Cookie: evil=1'],
      },
      { port: 5173, previewOrigin },
    );
    assert.deepEqual(out, [
      ['content-type', ['text/html']],
      ['set-cookie', ['a=1; Path=/', 'b=2; Path=/api', 'x=1', 'y=2; path=/; HttpOnly']],
      ['content-security-policy', ["default-src 'self'"]],
    ]);
    assert.equal(hostOnlyCookie('k=v=w; Max-Age=5; DOMAIN = evil; Secure'), 'k=v=w; Max-Age=5; Secure');
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
