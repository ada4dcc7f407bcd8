/**
 * Inputs shared by the boundaries: byte streams with the characters that matter to framers and
 * decoders, arbitrary JSON, and — from a zod schema — values shaped like what the schema accepts,
 * so that a good share of the inputs gets past the first check and reaches the code behind it
 * ("near-valid": each field sometimes swapped for something of the wrong type, dropped, or joined
 * by a field nobody asked for).
 */
import fc from 'fast-check';
import type { z } from 'zod';

const utf8 = (text: string) => Buffer.from(text, 'utf8');

/** Pieces that make framers and decoders work: newlines, CR, multi-byte and cut-short sequences, escapes. */
const specialBytes: Buffer[] = [
  '\n',
  '\r\n',
  '\n\n',
  '{"id":1,"cmd":"ping"}\n',
  'é',
  '€',
  '😀',
  '\x1b]633;A\x07',
  '\x1b\\',
].map(utf8).concat([Buffer.from([0xe2, 0x82]), Buffer.from([0xf0, 0x9f, 0x98]), Buffer.from([0x80]), Buffer.from([0xff]), Buffer.from([0xc3])]);

/** A byte stream: random bytes, UTF-8 text and the special pieces above, in any order. */
export function byteStream(maxPieces = 16): fc.Arbitrary<Buffer> {
  return fc
    .array(
      fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...specialBytes) },
        { weight: 2, arbitrary: fc.uint8Array({ maxLength: 24 }).map((bytes) => Buffer.from(bytes)) },
        { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }).map(utf8) },
      ),
      { maxLength: maxPieces },
    )
    .map((pieces) => Buffer.concat(pieces));
}

/** Where to cut a stream, as fractions of its length. */
export function cutPoints(maxCuts = 8): fc.Arbitrary<number[]> {
  return fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: maxCuts });
}

/** Any JSON value, with the odd strings (lone surrogates, control characters) JSON can carry. */
export function anyJson(maxDepth = 3): fc.Arbitrary<unknown> {
  return fc.jsonValue({ maxDepth, stringUnit: 'binary' });
}

/** Numbers a schema may trip on: huge, negative, fractional, non-finite (JSON turns those into null). */
const edgeNumbers = fc.constantFrom(0, -1, 1, 0.5, -0.5, 2 ** 31, 2 ** 53, -(2 ** 53), 1e308, Number.MAX_SAFE_INTEGER + 2, Number.NaN, Number.POSITIVE_INFINITY);

/** A value of the wrong kind for nearly any field. */
export function wrongValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom(null, true, false, '', [], {}, '0', ' ', 'null', '__proto__', 'constructor'),
    edgeNumbers,
    fc.string({ unit: 'binary', maxLength: 12 }),
    fc.string({ maxLength: 300, minLength: 257 }),
    anyJson(2),
  );
}

/**
 * Values shaped by a zod schema (v4 internals: `_zod.def`). Not exact — refinements and patterns
 * are not solved — but close enough that most candidates pass, and the rest are near misses.
 * `mutate` mixes in near-valid variants at every level.
 */
export function shapedBy(schema: z.ZodType, options: { mutate?: boolean; depth?: number } = {}): fc.Arbitrary<unknown> {
  const mutate = options.mutate ?? true;
  const depth = options.depth ?? 0;
  const exact = shaped(schema, mutate, depth);
  if (!mutate) return exact;
  return fc.oneof({ weight: 12, arbitrary: exact }, { weight: 1, arbitrary: wrongValue() });
}

type Def = { type: string; [key: string]: any };

function defOf(schema: unknown): Def {
  return (schema as { _zod: { def: Def } })._zod.def;
}

function checksOf(def: Def): Array<Record<string, any>> {
  return ((def.checks ?? []) as Array<{ _zod: { def: Record<string, any> } }>).map((check) => check._zod.def);
}

function shaped(schema: z.ZodType, mutate: boolean, depth: number): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  const child = (inner: unknown) => shapedBy(inner as z.ZodType, { mutate, depth: depth + 1 });
  switch (def.type) {
    case 'string':
      return stringFor(def);
    case 'number':
    case 'int':
      return numberFor(def);
    case 'bigint':
      return fc.bigInt();
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'undefined':
    case 'void':
      return fc.constant(undefined);
    case 'literal':
      return fc.constantFrom(...(def.values as unknown[]));
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries as Record<string, unknown>));
    case 'any':
    case 'unknown':
      return anyJson(2);
    case 'never':
      return wrongValue();
    case 'optional':
      return fc.option(child(def.innerType), { nil: undefined, freq: 3 });
    case 'nullable':
      return fc.option(child(def.innerType), { nil: null, freq: 3 });
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return fc.option(child(def.innerType), { nil: undefined, freq: 4 });
    case 'array': {
      const { min, max } = lengthBounds(def, 0, depth > 3 ? 2 : 4);
      return fc.array(child(def.element), { minLength: min, maxLength: max });
    }
    case 'tuple':
      return fc.tuple(...(def.items as unknown[]).map(child));
    case 'set':
      return fc.array(child(def.valueType), { maxLength: 3 });
    case 'record':
      return fc.dictionary(
        shapedBy(def.keyType as z.ZodType, { mutate: false, depth: depth + 1 }).filter((key): key is string => typeof key === 'string'),
        child(def.valueType),
        { maxKeys: 3 },
      );
    case 'object': {
      const shape = def.shape as Record<string, unknown>;
      const fields = Object.fromEntries(Object.entries(shape).map(([key, value]) => [key, child(value)]));
      const record = fc.record(fields, { requiredKeys: [] }).map((value) => Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)));
      // Mostly every field present (what a real client sends), sometimes a few left out.
      const full = fc.record(fields).map((value) => Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)));
      const base = fc.oneof({ weight: 3, arbitrary: full }, { weight: 1, arbitrary: record });
      if (!mutate) return base;
      return fc.oneof(
        { weight: 6, arbitrary: base },
        { weight: 1, arbitrary: fc.tuple(base, fc.string({ maxLength: 8 }), anyJson(1)).map(([value, key, extra]) => ({ ...value, [key]: extra })) },
      );
    }
    case 'union': {
      const options = def.options as unknown[];
      return fc.oneof(...options.map(child));
    }
    case 'intersection':
      return fc.tuple(child(def.left), child(def.right)).map(([left, right]) =>
        typeof left === 'object' && left !== null && typeof right === 'object' && right !== null ? { ...left, ...right } : left,
      );
    case 'pipe': {
      // What arrives on the wire is the input side; a preprocess step (input side a transform) and
      // a picking pipe (whose input side is any object) are better served by the output side too.
      if (defOf(def.out).type === 'transform') return child(def.in);
      if (defOf(def.in).type === 'transform') return child(def.out);
      return fc.oneof(child(def.in), child(def.out));
    }
    case 'transform':
      return anyJson(2);
    case 'lazy':
      if (depth > 4) return fc.constant(null);
      return child(def.getter());
    case 'custom':
      return anyJson(1);
    default:
      return anyJson(2);
  }
}

function lengthBounds(def: Def, fallbackMin: number, fallbackMax: number): { min: number; max: number } {
  let min = fallbackMin;
  let max: number | undefined;
  for (const check of checksOf(def)) {
    if (check.check === 'min_length') min = Math.max(min, check.minimum as number);
    if (check.check === 'max_length') max = check.maximum as number;
    if (check.check === 'length_equals') min = max = check.length as number;
  }
  const upper = Math.min(max ?? Math.max(min, fallbackMax), Math.max(min, fallbackMax));
  return { min, max: Math.max(min, upper) };
}

function stringFor(def: Def): fc.Arbitrary<string> {
  const checks = checksOf(def);
  const pattern = checks.find((check) => check.check === 'string_format' && check.format === 'regex')?.pattern as RegExp | undefined;
  if (pattern) return fc.stringMatching(pattern).filter((text) => text.length <= 4096);
  const format = checks.find((check) => check.check === 'string_format')?.format as string | undefined;
  if (format === 'url') return fc.webUrl();
  if (format === 'uuid' || format === 'guid') return fc.uuid();
  if (format === 'email') return fc.emailAddress();
  if (format === 'datetime') return fc.date({ noInvalidDate: true }).map((date) => date.toISOString());
  const { min, max } = lengthBounds(def, 0, 16);
  const long = max > 64;
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength: min, maxLength: Math.min(max, 16) }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: min, maxLength: Math.min(max, 16) }) },
    { weight: long ? 1 : 0, arbitrary: fc.string({ minLength: min, maxLength: Math.min(max, 2048) }) },
    { weight: 1, arbitrary: fc.constantFrom('/', '..', '../../etc/passwd', '*', 'a.b', '~', 't-1').filter((text) => text.length >= min && text.length <= max) },
  );
}

function numberFor(def: Def): fc.Arbitrary<number> {
  let min = -1e9;
  let max = 1e9;
  let integer = def.type === 'int';
  for (const check of [...checksOf(def), def]) {
    if (check.check === 'number_format' && (check.format === 'safeint' || check.format === 'int32' || check.format === 'uint32')) integer = true;
    if (check.check === 'greater_than') min = (check.value as number) + (check.inclusive ? 0 : integer ? 1 : 1e-9);
    if (check.check === 'less_than') max = (check.value as number) - (check.inclusive ? 0 : integer ? 1 : 1e-9);
  }
  if (min > max) return fc.constant(min);
  const base = integer
    ? fc.integer({ min: Math.max(Math.ceil(min), -(2 ** 31)), max: Math.max(Math.max(Math.ceil(min), -(2 ** 31)), Math.min(Math.floor(max), 2 ** 31 - 1)) })
    : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  return fc.oneof({ weight: 6, arbitrary: base }, { weight: 1, arbitrary: fc.constantFrom(min, max).filter(Number.isFinite) });
}
