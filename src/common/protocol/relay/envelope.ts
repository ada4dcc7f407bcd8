/**
 * Parsing one GSD relay frame: limits first (frameLimits.ts, on the raw text), then JSON, then the
 * envelope (`type`), then the schema of that type. Every refusal is a value with the reference
 * parser's error text and a coarse `kind`, so callers can log each kind once and carry on.
 */
import { checkFrameLimits, type EnvelopeLimits, type FrameLimitKind } from './frameLimits.ts';
import { isRelayMessageType, type RelayMessage, relayMessageSchemas, type RelayMessageType } from './messages.ts';

export type EnvelopeRefusalKind = FrameLimitKind | 'missing-type' | 'bad-type' | 'unknown-type' | 'schema';

export type ParsedEnvelope =
  | { ok: true; message: RelayMessage }
  | {
      ok: false;
      kind: EnvelopeRefusalKind;
      error: string;
      /** The frame's `type` when it got that far (for logs). */
      type?: string;
    };

export interface ParseEnvelopeOptions {
  limits?: Partial<EnvelopeLimits>;
  /** Size of the frame on the wire, when the caller has the bytes. */
  byteLength?: number;
}

export function parseEnvelope(text: string, options: ParseEnvelopeOptions = {}): ParsedEnvelope {
  const violation = checkFrameLimits(text, options.limits, options.byteLength);
  if (violation) return { ok: false, kind: violation.kind, error: violation.error };

  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, kind: 'json', error: `envelope: ${(error as Error).message}` };
  }
  // The scan guarantees an object root; keep the check so this function stands on its own.
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return { ok: false, kind: 'root', error: 'frame root must be object' };
  const record = json as Record<string, unknown>;
  if (!Object.hasOwn(record, 'type')) return { ok: false, kind: 'missing-type', error: 'envelope: missing type' };
  const type = record.type;
  if (typeof type !== 'string') return { ok: false, kind: 'bad-type', error: `envelope type: expected a string, got ${describeJsonType(type)}` };
  if (!isRelayMessageType(type)) return { ok: false, kind: 'unknown-type', error: `unknown message type: ${JSON.stringify(type)}`, type };

  const parsed = relayMessageSchemas[type].safeParse(record);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.map(String).join('.');
    return { ok: false, kind: 'schema', type, error: `unmarshal ${type}: ${path ? `${path}: ` : ''}${issue.message}` };
  }
  return { ok: true, message: { type, ...parsed.data } as RelayMessage };
}

/** Parse and require one type (tests, and code that expects a specific answer). */
export function parseEnvelopeOf<T extends RelayMessageType>(type: T, text: string, options?: ParseEnvelopeOptions): Extract<RelayMessage, { type: T }> {
  const parsed = parseEnvelope(text, options);
  if (!parsed.ok) throw new Error(parsed.error);
  if (parsed.message.type !== type) throw new Error(`expected a ${type} frame, got ${parsed.message.type}`);
  return parsed.message as Extract<RelayMessage, { type: T }>;
}

function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
