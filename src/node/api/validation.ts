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
