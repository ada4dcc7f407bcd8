/**
 * The relay link's parsing (src/common/protocol/relay): the envelope walker that bounds a frame
 * before JSON.parse (frameLimits.ts) and the schema of every message type, preview frames included.
 * - `relay-envelope`: arbitrary text and near-JSON never throw, and for real JSON the walker
 *   agrees with a model computed on the parsed value: it refuses exactly the frames that break a
 *   limit (depth, fields, items, size), with one of the broken limits' errors, and a non-object root;
 * - `relay-messages`: for every message type, frames shaped by its schema (most valid, some near
 *   misses): a frame the schema accepts parses, equals what the schema made of it, and survives
 *   encodeFrame → parseEnvelope unchanged; one it refuses gets `unmarshal <type>: …` (kind schema);
 * - `relay-binary-frames`: preview bodies as binary frames (src/node/relay/preview/
 *   previewBodyFrames.ts): what is encoded decodes to the same message and body; a frame with its
 *   header length, bytes or end damaged, or any bytes, is refused with a kind and an error.
 */
import { deepStrictEqual } from 'node:assert/strict';
import fc from 'fast-check';
import { parseEnvelope } from '../../src/common/protocol/relay/envelope.ts';
import { encodeFrame } from '../../src/common/protocol/relay/frames.ts';
import { checkFrameLimits, type EnvelopeLimits, type FrameLimitKind, utf8ByteLength } from '../../src/common/protocol/relay/frameLimits.ts';
import { relayMessageSchemas, relayMessageTypes, type RelayMessageType } from '../../src/common/protocol/relay/messages.ts';
import { decodeBodyFrame, encodeBodyFrame } from '../../src/node/relay/preview/previewBodyFrames.ts';
import { anyJson, shapedBy } from '../arbitraries.ts';
import { type FuzzBoundary, show, withinTimeLimit } from '../boundary.ts';

interface Shape {
  depth: number;
  fields: number;
  items: number;
}

/** The model: deepest nesting (root container = 1), most fields of one object, most items of one array. */
function shapeOf(value: unknown): Shape {
  const shape: Shape = { depth: 0, fields: 0, items: 0 };
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    shape.depth = Math.max(shape.depth, depth);
    const children = Array.isArray(item) ? item : Object.values(item);
    if (Array.isArray(item)) shape.items = Math.max(shape.items, item.length);
    else shape.fields = Math.max(shape.fields, children.length);
    for (const child of children) stack.push([child, depth + 1]);
  }
  return shape;
}

/** JSON with wide objects and long arrays too (fc.jsonValue keeps both small). */
const nestedJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true, maxDepth: 8 }, anyJson(0), tie('object'), tie('array')),
  object: fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 3 }),
  array: fc.array(tie('value'), { maxLength: 3 }),
})).value;
const wideJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: nestedJson },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 6 }), nestedJson, { maxKeys: 14 }) },
  { weight: 1, arbitrary: fc.array(nestedJson, { maxLength: 14 }).map((items) => ({ items })) },
);

const smallLimits: fc.Arbitrary<Partial<EnvelopeLimits>> = fc.record(
  { maxDepth: fc.integer({ min: 1, max: 6 }), maxObjectFields: fc.integer({ min: 1, max: 10 }), maxArrayItems: fc.integer({ min: 1, max: 10 }), maxFrameBytes: fc.integer({ min: 1, max: 400 }) },
  { requiredKeys: [] },
);

/** JSON text with a few characters inserted, deleted or replaced: the walker's syntax paths. */
const nearJsonText = fc
  .tuple(
    wideJson.map((value) => JSON.stringify(value) ?? 'null'),
    fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.nat({ max: 2 }), fc.constantFrom('{', '}', '[', ']', '"', ':', ',', '\\', ' ', 'x', '1', '\u0000', '\ud800')), { maxLength: 4 }),
  )
  .map(([text, edits]) => {
    let result = text;
    for (const [where, op, char] of edits) {
      const at = Math.floor(where * result.length);
      result = op === 0 ? result.slice(0, at) + char + result.slice(at) : op === 1 ? result.slice(0, at) + result.slice(at + 1) : result.slice(0, at) + char + result.slice(at + 1);
    }
    return result;
  });

export const relayEnvelopeBoundary: FuzzBoundary = {
  name: 'relay-envelope',
  title: 'Relay frame limits and envelope walker (src/common/protocol/relay/frameLimits.ts, envelope.ts)',
  testRuns: 4000,
  open() {
    const property = fc.property(
      fc.oneof(
        { weight: 3, arbitrary: wideJson.map((value) => ({ json: true as const, value, text: JSON.stringify(value) ?? 'null' })) },
        { weight: 1, arbitrary: wideJson.map((value) => ({ json: true as const, value, text: JSON.stringify(value, null, 1) ?? 'null' })) },
        { weight: 2, arbitrary: nearJsonText.map((text) => ({ json: false as const, value: undefined, text })) },
        { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 64 }).map((text) => ({ json: false as const, value: undefined, text })) },
      ),
      smallLimits,
      (frame, limits) =>
        withinTimeLimit('checking a frame', () => {
          const violation = checkFrameLimits(frame.text, limits);
          const parsed = parseEnvelope(frame.text, { limits });
          if (!parsed.ok && (typeof parsed.error !== 'string' || parsed.error.length === 0)) throw new Error(`a refusal without an error: ${show(parsed)}`);
          if (violation && (parsed.ok || parsed.kind !== violation.kind)) throw new Error(`parseEnvelope ignored the walker's ${violation.kind}: ${show(parsed)}`);
          if (!frame.json) return true;
          const shape = shapeOf(frame.value);
          const broken = new Set<FrameLimitKind>();
          if (utf8ByteLength(frame.text) > (limits.maxFrameBytes ?? 1 << 20)) broken.add('size');
          else {
            if (shape.depth > (limits.maxDepth ?? 32)) broken.add('depth');
            if (shape.fields > (limits.maxObjectFields ?? 256)) broken.add('fields');
            if (shape.items > (limits.maxArrayItems ?? 4096)) broken.add('items');
            if (broken.size === 0 && (frame.value === null || typeof frame.value !== 'object' || Array.isArray(frame.value))) broken.add('root');
          }
          if (broken.size === 0 && violation) throw new Error(`refused a frame within the limits (${show(shape)}, ${show(limits)}): ${violation.error}`);
          if (broken.size > 0 && !violation) throw new Error(`let through a frame that breaks ${[...broken].join(', ')} (${show(shape)}, ${show(limits)})`);
          if (violation && !broken.has(violation.kind) && !(violation.kind === 'root' && broken.size > 0)) {
            throw new Error(`refused with ${violation.kind} (${violation.error}), but the frame breaks ${[...broken].join(', ')}`);
          }
          return true;
        }),
    );
    return { property, dispose() {} };
  },
};

const candidates = new Map<RelayMessageType, fc.Arbitrary<unknown>>(relayMessageTypes.map((type) => [type, shapedBy(relayMessageSchemas[type])]));

export const relayMessagesBoundary: FuzzBoundary = {
  name: 'relay-messages',
  title: 'Every relay message schema, preview frames included (src/common/protocol/relay/messages.ts)',
  testRuns: 5000,
  open() {
    const property = fc.property(
      fc.constantFrom(...relayMessageTypes).chain((type) => candidates.get(type)!.map((fields) => ({ type, fields }))),
      ({ type, fields }) =>
        withinTimeLimit('parsing a message', () => {
          const text = typeof fields === 'object' && fields !== null && !Array.isArray(fields) ? JSON.stringify({ ...fields, type }) : JSON.stringify({ type, fields });
          const onTheWire = JSON.parse(text) as Record<string, unknown>;
          const expected = relayMessageSchemas[type].safeParse(onTheWire);
          const parsed = parseEnvelope(text);
          if (!expected.success) {
            if (parsed.ok) throw new Error(`${type}: accepted a frame its schema refuses: ${text.slice(0, 300)}`);
            if (parsed.kind !== 'schema' || !parsed.error.startsWith(`unmarshal ${type}: `)) {
              if (!['depth', 'fields', 'items', 'size'].includes(parsed.kind)) throw new Error(`${type}: refused with ${parsed.kind} (${parsed.error}), expected the schema's error`);
            }
            return true;
          }
          if (!parsed.ok) throw new Error(`${type}: refused a valid frame (${parsed.kind}: ${parsed.error}): ${text.slice(0, 300)}`);
          deepStrictEqual(parsed.message, { type, ...(expected.data as object) });
          const { type: _type, ...data } = parsed.message as Record<string, unknown>;
          const again = parseEnvelope(encodeFrame(type, data as never));
          if (!again.ok) throw new Error(`${type}: what we parsed does not parse again once encoded: ${again.error}`);
          deepStrictEqual(again.message, parsed.message);
          return true;
        }),
    );
    return { property, dispose() {} };
  },
};

const bodyTypes = ['previewStreamChunk', 'previewWebSocketData'] as const;

/** A binary frame changed a little: its header length, its bytes, its end. */
const damagedFrame = fc
  .tuple(
    fc.constantFrom(...bodyTypes).chain((type) => fc.tuple(fc.constant(type), shapedBy(relayMessageSchemas[type], { mutate: false }), fc.uint8Array({ maxLength: 64 }))),
    fc.array(fc.tuple(fc.nat(), fc.nat({ max: 3 }), fc.nat({ max: 255 })), { maxLength: 3 }),
  )
  .map(([[type, fields, body], edits]) => {
    let frame = encodeBodyFrame(type, { ...(fields as object), bodyBase64: undefined } as never, Buffer.from(body));
    for (const [where, op, byte] of edits) {
      const at = where % Math.max(frame.length, 1);
      if (op === 0) frame[at] = byte;
      else if (op === 1) frame = frame.subarray(0, at);
      else if (op === 2) {
        if (frame.length >= 4) frame.writeUInt32BE((frame.readUInt32BE(0) + byte - 128) >>> 0, 0);
      }
      else frame = Buffer.concat([frame.subarray(0, at), Buffer.from([byte]), frame.subarray(at)]);
    }
    return frame;
  });

export const relayBinaryFramesBoundary: FuzzBoundary = {
  name: 'relay-binary-frames',
  title: 'Preview bodies as binary relay frames (src/node/relay/preview/previewBodyFrames.ts)',
  testRuns: 3000,
  open() {
    const valid = fc.constantFrom(...bodyTypes).chain((type) =>
      fc.record({ type: fc.constant(type), fields: shapedBy(relayMessageSchemas[type], { mutate: false }), body: fc.uint8Array({ maxLength: 256 }).map((bytes) => Buffer.from(bytes)) }),
    );
    const property = fc.property(
      fc.oneof(
        { weight: 2, arbitrary: valid.map((input) => ({ kind: 'valid' as const, ...input })) },
        { weight: 2, arbitrary: damagedFrame.map((frame) => ({ kind: 'damaged' as const, frame })) },
        { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => ({ kind: 'damaged' as const, frame: Buffer.from(bytes) })) },
      ),
      smallLimits,
      (input, limits) =>
        withinTimeLimit('decoding a binary frame', () => {
          if (input.kind === 'damaged') {
            const decoded = decodeBodyFrame(input.frame, limits);
            if (!decoded.ok && (decoded.error.length === 0 || decoded.kind.length === 0)) throw new Error(`a refusal without kind or error: ${show(decoded)}`);
            if (decoded.ok && !(bodyTypes as readonly string[]).includes(decoded.message.type)) throw new Error(`accepted a ${decoded.message.type} as a binary frame`);
            return true;
          }
          const fields = { ...(input.fields as Record<string, unknown>), bodyBase64: '' };
          const expected = relayMessageSchemas[input.type].safeParse(JSON.parse(JSON.stringify(fields)));
          const frame = encodeBodyFrame(input.type, fields as never, input.body);
          const decoded = decodeBodyFrame(frame);
          if (!expected.success) {
            if (decoded.ok) throw new Error(`${input.type}: accepted a header its schema refuses`);
            return true;
          }
          if (!decoded.ok) throw new Error(`${input.type}: refused a frame it encoded (${decoded.kind}: ${decoded.error})`);
          const { body, ...message } = decoded.message as unknown as Record<string, unknown> & { body: Buffer };
          if (!body.equals(input.body)) throw new Error(`${input.type}: body ${body.toString('hex')}, sent ${input.body.toString('hex')}`);
          deepStrictEqual(message, { type: input.type, ...(expected.data as object) });
          return true;
        }),
    );
    return { property, dispose() {} };
  },
};
