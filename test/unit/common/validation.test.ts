import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { formatZodIssues, nestsDeeperThan } from '../../../src/common/validation.ts';

describe('formatZodIssues', () => {
  test('prefixes each issue with its dotted path and joins them on one line', () => {
    const parsed = z.object({ size: z.object({ cols: z.number().min(2) }), name: z.string() }).safeParse({ size: { cols: 1 }, name: 3 });
    assert.equal(parsed.success, false);
    assert.equal(formatZodIssues(parsed.error!), 'size.cols: Too small: expected number to be >=2; name: Invalid input: expected string, received number');
  });

  test('an issue at the root has no path prefix', () => {
    const parsed = z.string().safeParse(1);
    assert.equal(formatZodIssues(parsed.error!), 'Invalid input: expected string, received number');
  });

  test('lists at most `limit` issues and counts the rest', () => {
    const parsed = z.array(z.string()).safeParse([1, 2, 3, 4]);
    assert.equal(formatZodIssues(parsed.error!, 2), '0: Invalid input: expected string, received number; 1: Invalid input: expected string, received number; and 2 more');
  });
});

describe('nestsDeeperThan', () => {
  test('counts arrays and objects as levels, scalars as none', () => {
    assert.equal(nestsDeeperThan(1, 0), false);
    assert.equal(nestsDeeperThan({ a: [1] }, 2), false);
    assert.equal(nestsDeeperThan({ a: [[1]] }, 2), true);
  });

  test('a hostile 100 000-level value is caught without overflowing the stack', () => {
    let value: unknown = [];
    for (let level = 0; level < 100_000; level++) value = [value];
    assert.equal(nestsDeeperThan(value, 64), true);
  });
});
