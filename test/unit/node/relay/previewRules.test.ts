/**
 * The preview tunnel's pure rules: loopback targets (no name resolved), RFC 3339 expiries,
 * origin-form paths, methods, the headers that go on to a dev server and come back, close codes,
 * and the bounded memory of ended stream ids.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  closeReason,
  EndedIds,
  isForwardableMethod,
  isLoopbackTarget,
  isOriginFormPath,
  isSendableCloseCode,
  parseRfc3339,
  requestHeaders,
  responseHeaders,
} from '../../../../src/node/relay/preview/previewRules.ts';

describe('preview rules', () => {
  it('takes loopback targets only, and never a name other than localhost', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '127.255.255.255', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::0001', 'localhost', 'LOCALHOST']) assert.equal(isLoopbackTarget(host), true, host);
    for (const host of ['10.0.0.1', '0.0.0.0', '::', '::2', '128.0.0.1', 'example.com', 'localhost.example.com', '127.0.0.1.nip.io', '', '::ffff:10.0.0.1', '1::1', '127.0.0.1:80', 'local host']) {
      assert.equal(isLoopbackTarget(host), false, host);
    }
  });

  it('reads RFC 3339 times and nothing else', () => {
    assert.equal(parseRfc3339('2026-12-04T13:00:00Z'), Date.UTC(2026, 11, 4, 13));
    assert.equal(parseRfc3339('2026-12-04T14:00:00.5+01:00'), Date.UTC(2026, 11, 4, 13) + 500);
    for (const text of ['', 'tomorrow', '2026-12-04', '2026-12-04 13:00:00Z', '1764853200000', '2026-13-04T13:00:00Z', '2026-12-04T13:00:00']) assert.equal(parseRfc3339(text), undefined, text);
  });

  it('forwards origin-form paths only', () => {
    for (const path of ['/', '/a/b?c=d&e', '/@vite/client', '/src/main.ts?t=1', '/%2F%2Fx']) assert.equal(isOriginFormPath(path), true, path);
    for (const path of ['', 'a', '//evil.example/x', 'http://x/', '/a b', '/a\r\nb', '/a#frag', '/a\\b', '*', `/${'a'.repeat(9000)}`]) assert.equal(isOriginFormPath(path), false, path);
  });

  it('forwards token methods but CONNECT and TRACE', () => {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'PROPFIND']) assert.equal(isForwardableMethod(method), true);
    for (const method of ['CONNECT', 'TRACE', '', 'GET /', 'G\nET']) assert.equal(isForwardableMethod(method), false);
  });

  it('drops hop-by-hop headers and those Connection names, keeps the rest, sets host', () => {
    const out = requestHeaders(
      {
        Connection: ['keep-alive, X-Secret-Hop'],
        'x-secret-hop': ['1'],
        'keep-alive': ['timeout=5'],
        'transfer-encoding': ['chunked'],
        upgrade: ['websocket'],
        te: ['trailers'],
        'proxy-authorization': ['Basic x'],
        accept: ['text/html', 'application/json'],
        'content-length': ['12'],
        'x-bad': ['a\r\nInjected: 1'],
        'x-ctl': ['a\u0001b'],
        'x-wide': ['✓'],
        'bad name': ['x'],
      },
      5173,
    );
    assert.deepEqual(out, { accept: ['text/html', 'application/json'], 'content-length': '12', host: 'localhost:5173' });
    assert.deepEqual(requestHeaders({ host: ['relay.example'] }, 5173), { host: 'relay.example' });
    assert.deepEqual(requestHeaders({ 'sec-websocket-key': ['k'], 'sec-websocket-protocol': ['a'], host: ['x'], origin: ['http://localhost:5173'] }, 5173, { webSocket: true }), { host: 'x', origin: ['http://localhost:5173'] });
    assert.deepEqual(requestHeaders({ 'sec-websocket-key': ['k'] }, 5173, { webSocket: true }), { host: 'localhost:5173' });
    assert.deepEqual(responseHeaders({ connection: ['close, x-hop'], 'x-hop': ['1'], 'transfer-encoding': ['chunked'], 'set-cookie': ['a=1; Path=/', 'b=2'], 'content-type': ['text/html'] }), {
      'set-cookie': ['a=1; Path=/', 'b=2'],
      'content-type': ['text/html'],
    });
  });

  it('sends only sendable close codes and short reasons', () => {
    for (const code of [1000, 1001, 1009, 1011, 3000, 4001, 4999]) assert.equal(isSendableCloseCode(code), true, String(code));
    for (const code of [undefined, 999, 1004, 1005, 1006, 1015, 2000, 5000, 1000.5]) assert.equal(isSendableCloseCode(code), false, String(code));
    assert.equal(Buffer.byteLength(closeReason('é'.repeat(100))), 122);
    assert.equal(closeReason(undefined), '');
  });

  it('remembers ended stream ids up to a bound, and answers each once', () => {
    const ended = new EndedIds(3);
    for (const id of ['a', 'b', 'c', 'd']) ended.add(id);
    assert.equal(ended.size, 3);
    assert.equal(ended.has('a'), false, 'the oldest is forgotten');
    assert.equal(ended.answerOnce('b'), true);
    assert.equal(ended.answerOnce('b'), false);
    ended.add('c', true);
    assert.equal(ended.answerOnce('c'), false, 'already answered (our own cancel)');
    assert.equal(ended.answerOnce('zzz'), false);
  });
});
