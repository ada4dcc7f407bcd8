/**
 * Turning zod failures into the one-line messages clients see in INVALID_PARAMS errors,
 * e.g. `cols: Too small: expected number to be >=2`.
 */
import type { z } from 'zod';

/** Issues joined with "; ", each prefixed with its dotted path when it has one. */
export function formatZodIssues(error: z.ZodError, limit = 5): string {
  const parts = error.issues.slice(0, limit).map((issue) => {
    const path = issue.path.map((segment) => String(segment)).join('.');
    const message = unionMessage(issue) ?? issue.message;
    return path.length > 0 ? `${path}: ${message}` : message;
  });
  const more = error.issues.length > limit ? `; and ${error.issues.length - limit} more` : '';
  return parts.join('; ') + more;
}

/**
 * zod says only "Invalid input" when no member of a union fits (`id`, a string or a number; a
 * `scrollback` of true or a line count). When every member failed on the value's type, say which
 * types were expected — or that the field is missing.
 */
function unionMessage(issue: z.core.$ZodIssue): string | undefined {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return undefined;
  const expected: string[] = [];
  let received: string | undefined;
  for (const branch of issue.errors) {
    const only = branch.length === 1 ? branch[0] : undefined;
    if (!only || only.code !== 'invalid_type' || only.path.length > 0) return undefined;
    const name = only.expected === 'int' ? 'integer' : only.expected;
    if (!expected.includes(name)) expected.push(name);
    received ??= /received (\w+)/.exec(only.message)?.[1];
  }
  const types = expected.length > 1 ? `${expected.slice(0, -1).join(', ')} or ${expected.at(-1)}` : expected[0];
  if (received === 'undefined') return `required (a ${types})`;
  return `Invalid input: expected ${types}${received ? `, received ${received}` : ''}`;
}

/**
 * Whether a JSON value nests deeper than `maxDepth` arrays/objects. Checked iteratively before a
 * schema sees the value: recursive schemas (the layout tree) would otherwise recurse once per
 * level and a hostile 20 000-level frame would overflow the stack.
 */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth > maxDepth) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
