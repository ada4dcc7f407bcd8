import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createSessionToken, isAllowedHostHeader, isLoopbackHost, isSameOrigin, readCookie, splitHostPort, tokensEqual } from '../../../../src/node/server/auth.ts';

describe('browser-mode auth', () => {
  it('makes 32-byte base64url tokens, different every time', () => {
    const a = createSessionToken();
    assert.match(a, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(a, 'base64url').length, 32);
    assert.notEqual(a, createSessionToken());
  });

  it('compares tokens exactly, including different lengths and missing values', () => {
    const token = createSessionToken();
    assert.ok(tokensEqual(token, token));
    assert.ok(!tokensEqual(token, token.slice(0, -1)));
    assert.ok(!tokensEqual(token, token + 'x'));
    assert.ok(!tokensEqual(token, undefined));
    assert.ok(!tokensEqual(token, ''));
  });

  it('reads one cookie among several', () => {
    assert.equal(readCookie('a=1; switchboard_token=abc; b=2', 'switchboard_token'), 'abc');
    assert.equal(readCookie('xswitchboard_token=abc', 'switchboard_token'), undefined);
    assert.equal(readCookie(undefined, 'switchboard_token'), undefined);
  });

  it('accepts only our own host names on our port (DNS rebinding defence)', () => {
    const policy = { port: 4000, bindHost: '127.0.0.1' };
    for (const host of ['127.0.0.1:4000', 'localhost:4000', '[::1]:4000', 'LOCALHOST:4000']) assert.ok(isAllowedHostHeader(host, policy), host);
    for (const host of ['evil.example:4000', '127.0.0.1:4001', '127.0.0.1', 'localhost', '', undefined, '[::1]', '10.0.0.1:4000']) {
      assert.ok(!isAllowedHostHeader(host, policy), String(host));
    }
  });

  it('accepts the bound address and IP literals, never DNS names, when remote access is allowed', () => {
    assert.ok(isAllowedHostHeader('192.168.1.5:4000', { port: 4000, bindHost: '192.168.1.5' }));
    assert.ok(!isAllowedHostHeader('192.168.1.6:4000', { port: 4000, bindHost: '192.168.1.5' }));
    assert.ok(isAllowedHostHeader('10.1.2.3:4000', { port: 4000, bindHost: '0.0.0.0' }));
    assert.ok(!isAllowedHostHeader('rebind.example:4000', { port: 4000, bindHost: '0.0.0.0' }));
  });

  it('requires the Origin of a browser to be the page origin', () => {
    assert.ok(isSameOrigin(undefined, '127.0.0.1:4000'));
    assert.ok(isSameOrigin('http://127.0.0.1:4000', '127.0.0.1:4000'));
    assert.ok(!isSameOrigin('http://evil.example', '127.0.0.1:4000'));
    assert.ok(!isSameOrigin('null', '127.0.0.1:4000'));
    assert.ok(!isSameOrigin('http://localhost:4000', '127.0.0.1:4000'));
  });

  it('splits host and port, refusing junk', () => {
    assert.deepEqual(splitHostPort('[::1]:80'), { host: '::1', port: 80 });
    assert.deepEqual(splitHostPort('a.b:8080'), { host: 'a.b', port: 8080 });
    assert.equal(splitHostPort('a:b:80'), undefined);
    assert.equal(splitHostPort('a:99999'), undefined);
    assert.equal(splitHostPort('a'), undefined);
  });

  it('knows loopback hosts', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) assert.ok(isLoopbackHost(host), host);
    for (const host of ['0.0.0.0', '192.168.0.1', '::', 'example.com']) assert.ok(!isLoopbackHost(host), host);
  });
});
