/**
 * claws/2 bus topics: dot-separated lowercase segments (`task.build.done`). A subscription's
 * pattern may use `*` for exactly one segment and `**` for one or more (`task.**` matches
 * `task.a` and `task.a.b`, not `task`); `+` is a literal segment, as in claws. Hand-written: the
 * matching rules are the protocol's own.
 */

/** One segment: lowercase letters, digits, `_` and `-` (terminal ids like `t-3f2a9c01` fit). */
const segmentPattern = /^[a-z0-9_][a-z0-9_-]*$/;

export const TopicLimits = {
  /** Long enough for any real topic, short enough that a topic is never a payload in disguise. */
  maxLength: 256,
  maxSegments: 32,
} as const;

export type TopicCheck = { ok: true; segments: string[] } | { ok: false; error: string };

/** A concrete topic, as published: no wildcards. */
export function checkTopic(topic: string): TopicCheck {
  return check(topic, false);
}

/** A subscription pattern: segments, `*` or `**`. */
export function checkPattern(pattern: string): TopicCheck {
  return check(pattern, true);
}

function check(topic: string, wildcards: boolean): TopicCheck {
  const what = wildcards ? 'topic pattern' : 'topic';
  if (topic.length === 0) return { ok: false, error: `${what} is empty` };
  if (topic.length > TopicLimits.maxLength) return { ok: false, error: `${what} is longer than ${TopicLimits.maxLength} characters` };
  const segments = topic.split('.');
  if (segments.length > TopicLimits.maxSegments) return { ok: false, error: `${what} has more than ${TopicLimits.maxSegments} segments` };
  for (const segment of segments) {
    if (wildcards && (segment === '*' || segment === '**')) continue;
    // claws' own mcp_server.js subscribes to `worker.+.complete` on every tool call; claws' matcher
    // takes `+` literally (not as a wildcard), so accept it the same way: it matches a `+` segment,
    // which no topic we publish has, rather than fail claws' subscribe.
    if (wildcards && segment === '+') continue;
    if (segment === '*' || segment === '**') return { ok: false, error: `invalid topic ${JSON.stringify(topic)}: wildcards (* and **) are only allowed when subscribing` };
    if (!segmentPattern.test(segment)) {
      return {
        ok: false,
        error: `invalid ${what} ${JSON.stringify(topic)}: segments are lowercase letters, digits, _ and -, separated by dots${wildcards ? ' (or * and **)' : ''}`,
      };
    }
  }
  return { ok: true, segments };
}

/**
 * Whether a concrete topic matches a pattern (both already checked). Dynamic programming over
 * (pattern position, topic position), so a pattern full of `**` costs O(P·T), never exponential.
 */
export function topicMatches(pattern: readonly string[], topic: readonly string[]): boolean {
  // reachable[t]: the first p pattern segments can consume exactly the first t topic segments.
  let reachable = new Array<boolean>(topic.length + 1).fill(false);
  reachable[0] = true;
  for (const segment of pattern) {
    const next = new Array<boolean>(topic.length + 1).fill(false);
    if (segment === '**') {
      // One or more segments: from any reachable t, every t' > t is reachable.
      let seen = false;
      for (let t = 0; t <= topic.length; t++) {
        if (seen) next[t] = true;
        if (reachable[t]) seen = true;
      }
    } else {
      for (let t = 0; t < topic.length; t++) {
        if (reachable[t] && (segment === '*' || segment === topic[t])) next[t + 1] = true;
      }
    }
    reachable = next;
  }
  return reachable[topic.length] === true;
}

/** Convenience for strings (tests, one-off checks): false when either is invalid. */
export function topicMatchesString(pattern: string, topic: string): boolean {
  const checkedPattern = checkPattern(pattern);
  const checkedTopic = checkTopic(topic);
  return checkedPattern.ok && checkedTopic.ok && topicMatches(checkedPattern.segments, checkedTopic.segments);
}
