/** The frame-limit scan and the envelope parser with the protocol's default limits. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseEnvelope } from '../../../../src/common/protocol/relay/envelope.ts';
import { checkFrameLimits, defaultEnvelopeLimits, utf8ByteLength } from '../../../../src/common/protocol/relay/frameLimits.ts';

function refusal(text: string, limits = {}) {
  const parsed = parseEnvelope(text, { limits });
  assert.equal(parsed.ok, false, `expected ${text.slice(0, 80)} to be refused`);
  return parsed as { ok: false; kind: string; error: string };
}

const close = '{"type":"terminalClose","terminalId":"t-1","channelId":"c-1"';

/** A frame of exactly `bytes` bytes: a terminalClose padded with an unknown string field. */
function frameOfSize(bytes: number, padChar = 'x'): string {
  const head = `${close},"pad":"`;
  const tail = '"}';
  const padBytes = bytes - utf8ByteLength(head) - utf8ByteLength(tail);
  const perChar = utf8ByteLength(padChar);
  assert.equal(padBytes % perChar, 0);
  return head + padChar.repeat(padBytes / perChar) + tail;
}

function nested(depth: number): string {
  // depth 1 is the root object itself.
  return `${close},"n":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
}

describe('relay frame limits (defaults: 1 MiB, depth 32, 256 fields, 4096 items)', () => {
  it('accepts a frame of exactly 1 MiB and refuses one byte more, counting UTF-8 bytes', () => {
    assert.ok(parseEnvelope(frameOfSize(defaultEnvelopeLimits.maxFrameBytes)).ok);
    assert.deepEqual(refusal(frameOfSize(defaultEnvelopeLimits.maxFrameBytes + 1)), {
      ok: false,
      kind: 'size',
      error: 'frame exceeds max size: 1048577 > 1048576 bytes',
    });
    // 'é' is 2 bytes: a frame that is short in UTF-16 units can still be too big.
    const wide = frameOfSize(defaultEnvelopeLimits.maxFrameBytes + 2, 'é');
    assert.ok(wide.length < defaultEnvelopeLimits.maxFrameBytes);
    assert.equal(refusal(wide).error, 'frame exceeds max size: 1048578 > 1048576 bytes');
  });

  it('trusts the byte length the caller measured on the wire', () => {
    assert.deepEqual(checkFrameLimits('{"type":"x"}', {}, 2_000_000), { kind: 'size', error: 'frame exceeds max size: 2000000 > 1048576 bytes' });
  });

  it('accepts depth 32 and refuses depth 33', () => {
    assert.ok(parseEnvelope(nested(32)).ok);
    assert.deepEqual(refusal(nested(33)), { ok: false, kind: 'depth', error: 'frame exceeds max depth: 33 > 32' });
  });

  it('refuses a megabyte of open brackets at the first level too deep', () => {
    const hostile = '{"type":"terminalClose","x":' + '['.repeat(1_000_000 - 40);
    assert.equal(refusal(hostile).error, 'frame exceeds max depth: 33 > 32');
  });

  it('accepts 256 fields per object and refuses 257, in nested objects too', () => {
    const fields = (count: number) => Array.from({ length: count }, (_, index) => `"f${index}":${index}`).join(',');
    assert.ok(parseEnvelope(`{"type":"terminalClose","terminalId":"t","channelId":"c",${fields(253)}}`).ok);
    assert.equal(refusal(`{"type":"terminalClose","terminalId":"t","channelId":"c",${fields(254)}}`).error, 'frame object exceeds max fields: 257 > 256');
    assert.equal(refusal(`${close},"inner":{${fields(257)}}}`).error, 'frame object exceeds max fields: 257 > 256');
  });

  it('accepts 4096 array items and refuses 4097', () => {
    const items = (count: number) => `[${Array.from({ length: count }, () => '"a"').join(',')}]`;
    assert.ok(parseEnvelope(`${close},"list":${items(4096)}}`).ok);
    assert.deepEqual(refusal(`${close},"list":${items(4097)}}`), { ok: false, kind: 'items', error: 'frame array exceeds max items: 4097 > 4096' });
  });

  it('does not count brackets, braces, quotes or commas inside strings', () => {
    const tricky = `${close},"s":"[[[{{{,,,\\"\\\\\\"]]]}}}","t":"\\\\"}`;
    assert.ok(parseEnvelope(tricky, { limits: { maxDepth: 1, maxArrayItems: 1 } }).ok);
  });

  it('refuses a root that is not an object, like the reference (after the scan)', () => {
    for (const text of ['[{"type":"hello"}]', '"hello"', '42', 'true', 'null']) {
      assert.deepEqual(refusal(text), { ok: false, kind: 'root', error: 'frame root must be object' }, text);
    }
  });

  it('refuses empty, truncated, doubled and malformed JSON', () => {
    assert.equal(refusal('').error, 'frame json: empty');
    assert.equal(refusal('   \n').error, 'frame json: empty');
    assert.equal(refusal('{"type":"terminalClose"').error, 'frame json: incomplete document');
    assert.equal(refusal('{"type":"termin').error, 'frame json: unexpected end of JSON input');
    assert.equal(refusal('{"type":tr').error, 'frame json: unexpected end of JSON input');
    assert.equal(refusal('{"type":"a"}{"type":"b"}').error, 'frame json: multiple top-level values');
    assert.equal(refusal('{"type" "a"}').error, 'frame json: invalid character "\\"" at offset 8');
    assert.equal(refusal('{"type":"a",}').error, 'frame json: invalid character "}" at offset 12');
    assert.equal(refusal('{"type":"a"]').kind, 'json');
    assert.equal(refusal('{"type":nope}').kind, 'json');
    // Passes the scan, fails JSON.parse: a bad escape.
    assert.match(refusal('{"type":"\\x"}').error, /^envelope: /);
  });

  it('refuses a frame without a type, with a type that is not a string, or with an unknown type', () => {
    assert.deepEqual(refusal('{"terminalId":"t"}'), { ok: false, kind: 'missing-type', error: 'envelope: missing type' });
    assert.equal(refusal('{"type":7}').kind, 'bad-type');
    const unknown = parseEnvelope('{"type":"contextStats","sessionId":"s"}');
    assert.deepEqual(unknown, { ok: false, kind: 'unknown-type', type: 'contextStats', error: 'unknown message type: "contextStats"' });
  });

  it('refuses missing required fields and nulls, naming the field', () => {
    assert.equal(refusal('{"type":"terminalInput","channelId":"c","dataBase64":"YQ=="}').error, 'unmarshal terminalInput: terminalId: Invalid input: expected string, received undefined');
    assert.equal(refusal('{"type":"terminalResize","terminalId":"t","channelId":"c","cols":null,"rows":5}').kind, 'schema');
    assert.equal(refusal('{"type":"terminalResize","terminalId":"t","channelId":"c","cols":80.5,"rows":5}').kind, 'schema');
  });

  it('parses a valid frame into a typed message without its unknown fields', () => {
    const parsed = parseEnvelope('{"type":"terminalResize","terminalId":"t","channelId":"c","cols":100,"rows":28,"x":{"y":[1]}}');
    assert.deepEqual(parsed, { ok: true, message: { type: 'terminalResize', terminalId: 't', channelId: 'c', cols: 100, rows: 28 } });
  });
});
