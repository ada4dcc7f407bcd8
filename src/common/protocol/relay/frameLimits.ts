/**
 * Transport-level bounds of a GSD relay frame, checked on the raw text BEFORE `JSON.parse`, so a
 * hostile frame (a megabyte of `[[[[…`, a million keys) costs one linear scan and never reaches the
 * parser, the heap or a schema. The rules and error texts are those of the reference parser
 * (gsd-build/protocol-go `ValidateEnvelopeFrame`):
 *
 *   frame exceeds max size: N > M bytes        (UTF-8 bytes of the whole frame)
 *   frame exceeds max depth: D > M             (root object = depth 1)
 *   frame object exceeds max fields: N > M
 *   frame array exceeds max items: N > M
 *   frame root must be object                  (checked once the whole frame was scanned)
 *   frame json: empty | multiple top-level values | …   (syntax the scan itself notices)
 *
 * The scan is a small JSON tokenizer written by hand: no library walks JSON without building it,
 * which is exactly what must not happen before the limits are known to hold. It checks structure
 * (keys, colons, commas, brackets) precisely and scalars loosely; `JSON.parse` afterwards catches
 * what is left (a bad escape, a malformed number).
 */

export interface EnvelopeLimits {
  maxFrameBytes: number;
  maxDepth: number;
  maxObjectFields: number;
  maxArrayItems: number;
}

/** The protocol's defaults (protocol-go `DefaultMax*`). */
export const defaultEnvelopeLimits: Readonly<EnvelopeLimits> = Object.freeze({
  maxFrameBytes: 1 << 20,
  maxDepth: 32,
  maxObjectFields: 256,
  maxArrayItems: 4096,
});

/** Absent or zero fields take the default, as in the reference parser. */
export function normalizeEnvelopeLimits(limits: Partial<EnvelopeLimits> = {}): EnvelopeLimits {
  return {
    maxFrameBytes: limits.maxFrameBytes || defaultEnvelopeLimits.maxFrameBytes,
    maxDepth: limits.maxDepth || defaultEnvelopeLimits.maxDepth,
    maxObjectFields: limits.maxObjectFields || defaultEnvelopeLimits.maxObjectFields,
    maxArrayItems: limits.maxArrayItems || defaultEnvelopeLimits.maxArrayItems,
  };
}

/** Which rule a frame broke; callers log refusals once per kind. */
export type FrameLimitKind = 'size' | 'depth' | 'fields' | 'items' | 'root' | 'json';

export interface FrameLimitViolation {
  kind: FrameLimitKind;
  error: string;
}

/** UTF-8 length of a JS string without allocating (lone surrogates count as the 3 bytes of U+FFFD). */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        index++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

const OBJECT = 1;
const ARRAY = 2;

// What the innermost container expects next.
const EXPECT_KEY_OR_END = 0; // just after `{`
const EXPECT_KEY = 1; // after `,` in an object
const EXPECT_COLON = 2;
const EXPECT_VALUE = 3; // after `:` or after `,` in an array
const EXPECT_VALUE_OR_END = 4; // just after `[`
const EXPECT_COMMA_OR_END = 5;

const QUOTE = 0x22;

/**
 * Check `text` against the limits. Returns undefined when the frame may be parsed, else the
 * violation with the reference parser's error text. `byteLength` is the frame's size on the wire
 * when the caller knows it (a received Buffer); otherwise it is computed from the text.
 */
export function checkFrameLimits(text: string, limits: Partial<EnvelopeLimits> = {}, byteLength?: number): FrameLimitViolation | undefined {
  const max = normalizeEnvelopeLimits(limits);
  // A UTF-16 unit is at most 3 UTF-8 bytes: short frames need no exact count.
  const bytes = byteLength ?? (text.length * 3 <= max.maxFrameBytes ? text.length : utf8ByteLength(text));
  if (bytes > max.maxFrameBytes) return { kind: 'size', error: `frame exceeds max size: ${bytes} > ${max.maxFrameBytes} bytes` };

  const kinds: number[] = [];
  const counts: number[] = [];
  const expects: number[] = [];
  let rootSeen = false;
  let rootIsObject = false;
  const length = text.length;
  let index = 0;

  const syntax = (message: string): FrameLimitViolation => ({ kind: 'json', error: `frame json: ${message}` });
  const invalid = (at: number): FrameLimitViolation =>
    syntax(`invalid character ${JSON.stringify(text.charAt(at))} at offset ${at}`);

  /** A value starts at `index` in the innermost container (or at the root). Returns a violation or undefined. */
  const markValue = (isObject: boolean): FrameLimitViolation | undefined => {
    const top = kinds.length - 1;
    if (top < 0) {
      if (rootSeen) return syntax('multiple top-level values');
      rootSeen = true;
      rootIsObject = isObject;
      return undefined;
    }
    if (kinds[top] === ARRAY) {
      const count = counts[top]! + 1;
      counts[top] = count;
      if (count > max.maxArrayItems) return { kind: 'items', error: `frame array exceeds max items: ${count} > ${max.maxArrayItems}` };
    }
    expects[top] = EXPECT_COMMA_OR_END;
    return undefined;
  };

  /** Index just past the string that opens at `start` (a quote), or -1 when it never closes. */
  const skipString = (start: number): number => {
    let from = start + 1;
    for (;;) {
      const quote = text.indexOf('"', from);
      if (quote === -1) return -1;
      const escape = text.indexOf('\\', from);
      if (escape === -1 || escape > quote) return quote + 1;
      // Skip the escaped char (which may itself be a quote or a backslash) and look again.
      from = escape + 2;
    }
  };

  while (index < length) {
    const code = text.charCodeAt(index);
    // JSON whitespace.
    if (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) {
      index++;
      continue;
    }
    const top = kinds.length - 1;
    const expect = top >= 0 ? expects[top]! : EXPECT_VALUE;

    if (expect === EXPECT_COLON) {
      if (code !== 0x3a) return invalid(index);
      expects[top] = EXPECT_VALUE;
      index++;
      continue;
    }
    if (expect === EXPECT_COMMA_OR_END) {
      if (code === 0x2c) {
        expects[top] = kinds[top] === OBJECT ? EXPECT_KEY : EXPECT_VALUE;
        index++;
        continue;
      }
      if ((code === 0x7d && kinds[top] === OBJECT) || (code === 0x5d && kinds[top] === ARRAY)) {
        kinds.pop();
        counts.pop();
        expects.pop();
        index++;
        continue;
      }
      return invalid(index);
    }
    if (expect === EXPECT_KEY_OR_END || expect === EXPECT_KEY) {
      if (code === 0x7d && expect === EXPECT_KEY_OR_END) {
        kinds.pop();
        counts.pop();
        expects.pop();
        index++;
        continue;
      }
      if (code !== QUOTE) return invalid(index);
      const count = counts[top]! + 1;
      counts[top] = count;
      if (count > max.maxObjectFields) return { kind: 'fields', error: `frame object exceeds max fields: ${count} > ${max.maxObjectFields}` };
      const end = skipString(index);
      if (end === -1) return syntax('unexpected end of JSON input');
      expects[top] = EXPECT_COLON;
      index = end;
      continue;
    }
    // A value is expected (root, after a colon, in an array).
    if (expect === EXPECT_VALUE_OR_END && code === 0x5d) {
      kinds.pop();
      counts.pop();
      expects.pop();
      index++;
      continue;
    }
    if (code === 0x7b || code === 0x5b) {
      const violation = markValue(code === 0x7b);
      if (violation) return violation;
      if (kinds.length + 1 > max.maxDepth) return { kind: 'depth', error: `frame exceeds max depth: ${kinds.length + 1} > ${max.maxDepth}` };
      kinds.push(code === 0x7b ? OBJECT : ARRAY);
      counts.push(0);
      expects.push(code === 0x7b ? EXPECT_KEY_OR_END : EXPECT_VALUE_OR_END);
      index++;
      continue;
    }
    if (code === QUOTE) {
      const violation = markValue(false);
      if (violation) return violation;
      const end = skipString(index);
      if (end === -1) return syntax('unexpected end of JSON input');
      index = end;
      continue;
    }
    if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {
      const violation = markValue(false);
      if (violation) return violation;
      index++;
      while (index < length && isNumberChar(text.charCodeAt(index))) index++;
      continue;
    }
    const literal = code === 0x74 ? 'true' : code === 0x66 ? 'false' : code === 0x6e ? 'null' : undefined;
    if (literal !== undefined) {
      if (!text.startsWith(literal, index)) {
        return index + literal.length > length && literal.startsWith(text.slice(index)) ? syntax('unexpected end of JSON input') : invalid(index);
      }
      const violation = markValue(false);
      if (violation) return violation;
      index += literal.length;
      continue;
    }
    return invalid(index);
  }

  if (!rootSeen) return syntax('empty');
  if (!rootIsObject) return { kind: 'root', error: 'frame root must be object' };
  if (kinds.length > 0) return syntax('incomplete document');
  return undefined;
}

function isNumberChar(code: number): boolean {
  // digits . e E + -
  return (code >= 0x30 && code <= 0x39) || code === 0x2e || code === 0x65 || code === 0x45 || code === 0x2b || code === 0x2d;
}
