import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { encodeError, encodeResponse } from '../../../../src/node/control/protocol.ts';
import { summarize } from '../../../../src/node/control/auditLog.ts';

describe('claws envelope', () => {
  it('puts id, rid, protocol and ok first, then the body', () => {
    assert.equal(encodeResponse(7, true, { serverTime: 1 }), '{"id":7,"rid":7,"protocol":"claws/1","ok":true,"serverTime":1}\n');
  });

  it('lets a body id replace id but never rid (create returns the terminal id)', () => {
    const frame = JSON.parse(encodeResponse('req-1', true, { id: 't-1', rid: 'x', ok: false }));
    assert.deepEqual(frame, { id: 't-1', rid: 'req-1', protocol: 'claws/1', ok: true });
  });

  it('encodes frame-level errors without id or rid, exactly as claws', () => {
    assert.equal(encodeError(undefined, 'bad json'), '{"protocol":"claws/1","ok":false,"error":"bad json"}\n');
    assert.equal(encodeError(3, 'nope', 'NOT_FOUND'), '{"id":3,"rid":3,"protocol":"claws/1","ok":false,"error":"nope","code":"NOT_FOUND"}\n');
  });
});

describe('audit summaries', () => {
  it('make control chars visible and cap the length', () => {
    assert.equal(summarize('ls\r\x1b[A\t'), 'ls\\r\\x1b[A\\t');
    const long = summarize('x'.repeat(1000));
    assert.equal(long.length, 200);
    assert.ok(long.endsWith('…'));
  });
});
