import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { WireRequest, WireServerMessage } from '../../../../src/common/api/wire.ts';

describe('wire: requests', () => {
  it('accepts a well-formed request, with any params', () => {
    const request = { type: 'request', id: 1, method: 'terminal.list', params: {} };
    assert.deepEqual(WireRequest.parse(request), request);
  });

  it('refuses a request without an integer id', () => {
    const result = WireRequest.safeParse({ type: 'request', id: 'one', method: 'terminal.list', params: {} });
    assert.equal(result.success, false);
    assert.deepEqual(result.error!.issues.map((issue) => issue.path.join('.')), ['id']);
    assert.equal(WireRequest.safeParse({ type: 'request', id: 1.5, method: 'x', params: {} }).success, false);
    assert.equal(WireRequest.safeParse({ type: 'request', id: -1, method: 'x', params: {} }).success, false);
  });

  it('refuses an empty or oversized method name and extra keys', () => {
    assert.equal(WireRequest.safeParse({ type: 'request', id: 1, method: '', params: {} }).success, false);
    assert.equal(WireRequest.safeParse({ type: 'request', id: 1, method: 'm'.repeat(101), params: {} }).success, false);
    const extra = WireRequest.safeParse({ type: 'request', id: 1, method: 'x', params: {}, admin: true });
    assert.equal(extra.success, false);
    assert.equal(extra.error!.issues[0]!.message, 'Unrecognized key: "admin"');
  });

  it('refuses something that is not a request', () => {
    assert.equal(WireRequest.safeParse({ type: 'event', event: 'x', payload: 1 }).success, false);
    assert.equal(WireRequest.safeParse(null).success, false);
    assert.equal(WireRequest.safeParse([1, 2]).success, false);
  });
});

describe('wire: server messages', () => {
  it('accepts success and error responses and events', () => {
    assert.ok(WireServerMessage.safeParse({ type: 'response', id: 3, ok: true, result: [1] }).success);
    assert.ok(WireServerMessage.safeParse({ type: 'response', id: 3, ok: false, error: { code: 'NOT_FOUND', message: 'no' } }).success);
    assert.ok(WireServerMessage.safeParse({ type: 'event', event: 'terminal.added', payload: {} }).success);
  });

  it('refuses an error response with an unknown code', () => {
    assert.equal(WireServerMessage.safeParse({ type: 'response', id: 3, ok: false, error: { code: 'OOPS', message: 'x' } }).success, false);
  });

  it('refuses a failed response without its error', () => {
    assert.equal(WireServerMessage.safeParse({ type: 'response', id: 3, ok: false }).success, false);
  });
});
