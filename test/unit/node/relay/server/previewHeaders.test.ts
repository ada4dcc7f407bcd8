/**
 * The relay's preview rules without I/O (src/node/relay/server/preview/previewHeaders.ts,
 * previewOrigins.ts and previewFlow.ts): the relay's preview paths, preview origins (labels, the
 * preview domain, which Host is a preview's, tickets, the session cookie), the header rewriting
 * both ways, the send window and the sequence rule.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { closeReason, SendWindow, sendableCloseCode, sequenceError } from '../../../../../src/node/relay/server/preview/previewFlow.ts';
import { hostOnlyCookie, offeredProtocols, originForm, parsePreviewPath, rewriteLocation, rewriteRequestHeaders, rewriteResponseHeaders } from '../../../../../src/node/relay/server/preview/previewHeaders.ts';
import {
  checkPreviewDomain,
  hasPreviewSession,
  newPreviewLabel,
  parsePreviewDomain,
  PreviewLabel,
  PreviewOriginConstants,
  PreviewOrigins,
  previewSessionCookie,
  PreviewTickets,
} from '../../../../../src/node/relay/server/preview/previewOrigins.ts';

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

describe('preview origins', () => {
  it('makes labels of 26 random lowercase letters and digits after pv', () => {
    const labels = new Set(Array.from({ length: 200 }, () => newPreviewLabel()));
    assert.equal(labels.size, 200);
    for (const made of labels) assert.match(made, PreviewLabel);
    assert.doesNotMatch('pv-abcdefghijklmnopqrstuvwx', PreviewLabel, 'a preview id is no label');
    assert.doesNotMatch('pvABCDEFGHIJKLMNOPQRSTUVWXYZ', PreviewLabel);
  });

  it('takes a host name as --preview-domain, and says what is wrong with anything else', () => {
    assert.equal(parsePreviewDomain('Preview.Example.com'), 'preview.example.com');
    assert.equal(parsePreviewDomain('localhost'), 'localhost');
    for (const [text, why] of [
      ['https://preview.example.com', /no scheme, port, path or wildcard/],
      ['preview.example.com:8443', /no scheme, port, path or wildcard/],
      ['preview.example.com/x', /no scheme, port, path or wildcard/],
      ['*.preview.example.com', /no scheme, port, path or wildcard/],
      ['', /no scheme/],
      ['-bad.example.com', /"-bad" is not a DNS label/],
      ['a..b', /"" is not a DNS label/],
      ['under_score.example.com', /"under_score" is not a DNS label/],
      ['10.0.0.1', /an IP address has no subdomains/],
      [`${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}`, /at most 224 characters/],
    ] as const) {
      assert.throws(() => parsePreviewDomain(text), (error: Error) => why.test(error.message) && error.message.includes('--preview-domain must be a host name'), text);
    }
    assert.throws(() => checkPreviewDomain('example.com', new URL('https://relay.example.com')), /would hold the relay's own host relay\.example\.com/);
    assert.throws(() => checkPreviewDomain('relay.example.com', new URL('https://relay.example.com')), /would hold/);
    checkPreviewDomain('preview.relay.example.com', new URL('https://relay.example.com'));
    checkPreviewDomain('relay-preview.example.net', new URL('https://relay.example.com'));
  });

  it('by default (no --public-url): http://<label>.localhost:<relay port>; previews opened only from a loopback page', () => {
    const origins = new PreviewOrigins({ port: () => 7600 });
    assert.equal(origins.originOf(label), `http://${label}.localhost:7600`);
    assert.equal(origins.pattern, 'http://<label>.localhost:7600');
    assert.equal(origins.secure, false);
    assert.deepEqual(origins.classify(`${label}.localhost:7600`), { label });
    assert.deepEqual(origins.classify(`${label.toUpperCase()}.LOCALHOST:7600`), { label }, 'host names fold case');
    assert.deepEqual(origins.classify(`${label}.localhost:7601`), { label: undefined }, 'another port is no preview of this relay');
    assert.deepEqual(origins.classify(`${label}.localhost`), { label: undefined });
    assert.deepEqual(origins.classify('www.localhost:7600'), { label: undefined }, 'under the domain but no label: a preview host all the same, never the relay');
    assert.deepEqual(origins.classify(`x.${label}.localhost:7600`), { label: undefined });
    for (const relayHost of ['localhost:7600', '127.0.0.1:7600', '[::1]:7600', `${label}.localhost.evil.example:7600`, undefined]) assert.equal(origins.classify(relayHost), undefined, String(relayHost));
    assert.equal(origins.refusal('http://127.0.0.1:7600'), undefined);
    assert.equal(origins.refusal('http://localhost:7600'), undefined);
    const remote = origins.refusal('http://192.168.1.5:7600');
    assert.equal(remote?.status, 501);
    assert.match(remote!.message, /only a browser on the relay’s own machine reaches/);
  });

  it('with --preview-domain: the scheme and port of --public-url; with --public-url alone: refused (501)', () => {
    const https = new PreviewOrigins({ previewDomain: 'preview.example.com', publicUrl: new URL('https://relay.example.com'), port: () => 7600 });
    assert.equal(https.originOf(label), previewOrigin);
    assert.equal(https.secure, true);
    assert.deepEqual(https.classify(`${label}.preview.example.com`), { label });
    assert.deepEqual(https.classify(`${label}.preview.example.com:443`), { label }, 'the default port written out');
    assert.deepEqual(https.classify(`${label}.preview.example.com:7600`), { label: undefined });
    assert.equal(https.classify('relay.example.com'), undefined);
    assert.equal(https.refusal('https://relay.example.com'), undefined);
    const withPort = new PreviewOrigins({ previewDomain: 'preview.example.com', publicUrl: new URL('https://relay.example.com:8443'), port: () => 7600 });
    assert.equal(withPort.originOf(label), `https://${label}.preview.example.com:8443`);
    const lan = new PreviewOrigins({ previewDomain: 'dev.lan', port: () => 7600 });
    assert.equal(lan.originOf(label), `http://${label}.dev.lan:7600`);
    assert.equal(lan.refusal('http://192.168.1.5:7600'), undefined, 'a preview domain works from any machine');

    const refused = new PreviewOrigins({ publicUrl: new URL('https://relay.example.com'), port: () => 7600 });
    assert.equal(refused.pattern, undefined);
    assert.equal(refused.classify(`${label}.localhost:7600`), undefined);
    const page = refused.refusal('https://relay.example.com');
    assert.equal(page?.status, 501);
    assert.match(page!.message, /Start the relay with --preview-domain <domain>/);
    assert.match(page!.message, /act as the remote view/);
    assert.throws(() => new PreviewOrigins({ previewDomain: 'example.com', publicUrl: new URL('https://relay.example.com'), port: () => 1 }), /would hold/);
  });

  it('tickets work once, for a minute, and only for what they were minted for', () => {
    const tickets = new PreviewTickets();
    const now = 1_000_000;
    const ticket = tickets.mint('home', 'pv-1', now);
    assert.match(ticket, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url');
    assert.deepEqual(tickets.consume(ticket, now + 1), { machineId: 'home', previewId: 'pv-1' });
    assert.equal(tickets.consume(ticket, now + 2), undefined, 'used');
    const late = tickets.mint('home', 'pv-1', now);
    assert.equal(tickets.consume(late, now + PreviewOriginConstants.ticketLifetimeMs), undefined, 'expired');
    assert.equal(tickets.consume('not a ticket'), undefined);
    assert.equal(tickets.consume('A'.repeat(43)), undefined);
    for (let index = 0; index < PreviewOriginConstants.maxTickets + 10; index++) tickets.mint('home', `pv-${index}`, now);
    assert.ok(tickets.size <= PreviewOriginConstants.maxTickets, `${tickets.size} tickets kept`);
  });

  it('sets the session cookie host-only and HttpOnly, and checks it among the Cookie header’s', () => {
    assert.equal(previewSessionCookie('s3cret', false), 'sb_preview_session=s3cret; HttpOnly; SameSite=Lax; Path=/');
    assert.equal(previewSessionCookie('s3cret', true), 'sb_preview_session=s3cret; HttpOnly; SameSite=Lax; Path=/; Secure');
    assert.doesNotMatch(previewSessionCookie('s3cret', true), /Domain/i);
    assert.equal(hasPreviewSession('a=1; sb_preview_session=s3cret', 's3cret'), true);
    assert.equal(hasPreviewSession('sb_preview_session=planted; sb_preview_session=s3cret', 's3cret'), true, 'a cookie a page script planted does not shadow it');
    assert.equal(hasPreviewSession('sb_preview_session=other', 's3cret'), false);
    assert.equal(hasPreviewSession('sb_preview_session=', 's3cret'), false);
    assert.equal(hasPreviewSession(undefined, 's3cret'), false);
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
