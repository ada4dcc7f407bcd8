/**
 * Turning zod failures into the one-line messages clients see in INVALID_PARAMS errors,
 * e.g. `cols: Too small: expected number to be >=2`.
 */
import type { z } from 'zod';

/** Issues joined with "; ", each prefixed with its dotted path when it has one. */
export function formatZodIssues(error: z.ZodError, limit = 5): string {
  const parts = error.issues.slice(0, limit).map((issue) => {
    const path = issue.path.map((segment) => String(segment)).join('.');
    return path.length > 0 ? `${path}: ${issue.message}` : issue.message;
  });
  const more = error.issues.length > limit ? `; and ${error.issues.length - limit} more` : '';
  return parts.join('; ') + more;
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
