/**
 * The relay's own test vectors (test/fixtures/relay/gsd-vectors.json, copied from the protocol
 * module's tests): every frame must be accepted or rejected exactly as the reference parser does.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseEnvelope } from '../../../../src/common/protocol/relay/envelope.ts';
import type { EnvelopeLimits } from '../../../../src/common/protocol/relay/frameLimits.ts';

interface Vector {
  test: string;
  case: string;
  raw: string;
  expect: 'accept' | 'reject';
  limits?: Partial<EnvelopeLimits>;
}

const fixture = JSON.parse(readFileSync(new URL('../../../fixtures/relay/gsd-vectors.json', import.meta.url), 'utf8')) as { vectors: Vector[] };

/** Which refusal each limit vector must produce (the others are type errors: kind "schema"). */
const expectedLimitErrors: Record<string, { kind: string; error: string }> = {
  TestParseEnvelopeWithLimitsRejectsExcessiveDepth: { kind: 'depth', error: 'frame exceeds max depth: 4 > 3' },
  TestParseEnvelopeWithLimitsRejectsTooManyObjectFields: { kind: 'fields', error: 'frame object exceeds max fields: 3 > 2' },
  TestParseEnvelopeWithLimitsRejectsTooManyArrayItems: { kind: 'items', error: 'frame array exceeds max items: 3 > 2' },
  TestValidateEnvelopeFrameRejectsNonObjectRoot: { kind: 'root', error: 'frame root must be object' },
};

describe('GSD relay vectors', () => {
  it('has all 41 vectors', () => {
    assert.equal(fixture.vectors.length, 41);
  });

  for (const [index, vector] of fixture.vectors.entries()) {
    const name = `#${index + 1} ${vector.test}${vector.case ? ` (${vector.case})` : ''}: ${vector.expect}`;
    it(name, () => {
      const parsed = parseEnvelope(vector.raw, vector.limits ? { limits: vector.limits } : {});
      if (vector.expect === 'accept') {
        assert.ok(parsed.ok, `expected accept, got: ${parsed.ok ? '' : parsed.error}`);
        const raw = JSON.parse(vector.raw) as Record<string, unknown>;
        assert.equal(parsed.message.type, raw.type);
        // Unknown fields are accepted and dropped.
        for (const unknown of ['foo', 'unknown', 'extraPaginationKey', 'extra']) {
          assert.equal(Object.hasOwn(parsed.message, unknown), false, `unknown field ${unknown} must be dropped`);
        }
        return;
      }
      assert.equal(parsed.ok, false, 'expected reject');
      if (parsed.ok) return;
      const limit = expectedLimitErrors[vector.test];
      if (limit) {
        assert.equal(parsed.kind, limit.kind);
        assert.equal(parsed.error, limit.error);
      } else {
        assert.equal(parsed.kind, 'schema', parsed.error);
        assert.match(parsed.error, new RegExp(`^unmarshal ${String(JSON.parse(vector.raw).type)}: `));
      }
    });
  }

  it('keeps the nested unknown field of a context ref out of the parsed task', () => {
    const vector = fixture.vectors.find((candidate) => candidate.test === 'TestParseEnvelopeTaskContextRefs')!;
    const parsed = parseEnvelope(vector.raw);
    assert.ok(parsed.ok && parsed.message.type === 'task');
    assert.deepEqual(parsed.message.contextRefs, [
      { kind: 'file', path: 'README.md', name: 'README.md', size: 42, modifiedAt: '2026-04-28T12:00:00Z' },
      { kind: 'folder', path: 'apps/web/src/components', name: 'components' },
    ]);
  });

  it('names the field of a wrong type', () => {
    const vector = fixture.vectors.find((candidate) => candidate.case === 'terminalOpen cols string')!;
    const parsed = parseEnvelope(vector.raw);
    assert.ok(!parsed.ok);
    assert.equal(parsed.error, 'unmarshal terminalOpen: cols: Invalid input: expected number, received string');
  });
});
