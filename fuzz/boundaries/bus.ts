/**
 * The claws/2 bus (src/node/control/bus): sequences of hello / subscribe / unsubscribe / publish /
 * broadcast from a few connections, each parsed by the command's own params schema and run by its
 * own handler (as the dispatcher does), with topics, patterns, cursors in both dialects and
 * payloads up to a megabyte. Real properties, against a model written here:
 * - a topic is accepted by publish exactly when it is a valid concrete topic, a pattern by
 *   subscribe exactly when it is a valid pattern; every refusal is a ControlError with a code;
 * - a connection only ever gets messages whose topic matches a pattern it subscribed to (broadcasts
 *   aside), and a replay sends only messages after the cursor, in order, then `caught-up` with the
 *   cursor in the client's own dialect;
 * - sequences grow.
 */
import { tmpdir } from 'node:os';
import fc from 'fast-check';
import { PtyHost } from '../../src/node/pty/ptyHost.ts';
import { CommandLog } from '../../src/node/control/commandLog.ts';
import { Bus } from '../../src/node/control/bus/bus.ts';
import { busCommands } from '../../src/node/control/bus/busCommands.ts';
import { BusLog } from '../../src/node/control/bus/busLog.ts';
import type { BusConnection } from '../../src/node/control/bus/busPeers.ts';
import type { ControlCommand, ControlPeer } from '../../src/node/control/commandRegistry.ts';
import { ControlError } from '../../src/node/control/protocol.ts';
import { nullLogger } from '../../src/node/logger.ts';
import { anyJson, wrongValue } from '../arbitraries.ts';
import { type FuzzBoundary, show, withinTimeLimitAsync } from '../boundary.ts';

const segmentPool = ['a', 'b', 'task', 'system', 'terminal', 't-1', 'output', '_x', 'A', '', ' ', 'a b', '-a', 'é', '*', '**', '***', 'a*'];

const topicText = fc.oneof(
  { weight: 6, arbitrary: fc.array(fc.constantFrom(...segmentPool), { minLength: 1, maxLength: 5 }).map((segments) => segments.join('.')) },
  { weight: 1, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 1, arbitrary: fc.integer({ min: 30, max: 40 }).map((count) => Array.from({ length: count }, () => 'a').join('.')) },
  { weight: 1, arbitrary: fc.integer({ min: 250, max: 260 }).map((length) => 'a'.repeat(length)) },
);

const cursor = fc.oneof(
  fc.nat({ max: 40 }),
  fc.nat({ max: 40 }).map((n) => `0000:${n}`),
  fc.nat({ max: 40 }).map(String),
  fc.constantFrom('0001:3', '0000:', ':1', '-1', '1.5', '0000:99999999999999999999', -1, 1.5, 2 ** 60, null),
  fc.string({ maxLength: 8 }),
);

const payload = fc.oneof(
  { weight: 6, arbitrary: anyJson(3) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 1 << 20 }).map((size) => 'x'.repeat(size)) },
);

type Op =
  | { op: 'hello'; conn: number; fields: Record<string, unknown> }
  | { op: 'subscribe'; conn: number; fields: Record<string, unknown> }
  | { op: 'unsubscribe'; conn: number; fields: Record<string, unknown> }
  | { op: 'publish'; conn: number; fields: Record<string, unknown> }
  | { op: 'broadcast'; conn: number; fields: Record<string, unknown> };

const conn = fc.nat({ max: 2 });
const maybeWrong = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof({ weight: 9, arbitrary }, { weight: 1, arbitrary: wrongValue() });

const operation: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant('hello' as const),
    conn,
    fields: fc.record(
      { protocol: maybeWrong(fc.constant('claws/2')), role: maybeWrong(fc.constantFrom('orchestrator', 'worker', 'observer')), peerName: maybeWrong(fc.string({ minLength: 1, maxLength: 10 })), terminalId: maybeWrong(fc.string({ maxLength: 5 })), capabilities: maybeWrong(fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 })) },
      { requiredKeys: ['protocol', 'role', 'peerName'] },
    ),
  }),
  fc.record({ op: fc.constant('subscribe' as const), conn, fields: fc.record({ topic: maybeWrong(topicText), fromCursor: cursor }, { requiredKeys: ['topic'] }) }),
  fc.record({ op: fc.constant('unsubscribe' as const), conn, fields: fc.record({ subscriptionId: maybeWrong(fc.oneof(fc.nat({ max: 8 }).map((n) => `s-${n}`), fc.string({ maxLength: 6 }))) }) }),
  fc.record({ op: fc.constant('publish' as const), conn, fields: fc.record({ topic: maybeWrong(topicText), payload, echo: maybeWrong(fc.boolean()) }, { requiredKeys: ['topic'] }) }),
  fc.record({ op: fc.constant('broadcast' as const), conn, fields: fc.record({ text: maybeWrong(fc.string({ maxLength: 20 })), targetRole: fc.constantFrom('orchestrator', 'worker', 'observer', 'nobody') }, { requiredKeys: ['text'] }) }),
);

// ---- the model ------------------------------------------------------------------------------

const segmentRule = /^[a-z0-9_][a-z0-9_-]*$/;

function modelValid(topic: string, wildcards: boolean): boolean {
  if (topic.length === 0 || topic.length > 256) return false;
  const segments = topic.split('.');
  if (segments.length > 32) return false;
  return segments.every((segment) => (wildcards && (segment === '*' || segment === '**')) || segmentRule.test(segment));
}

/** The pattern as a regular expression: `*` one segment, `**` one or more. */
function modelMatches(pattern: string, topic: string): boolean {
  const source = pattern
    .split('.')
    .map((segment) => (segment === '*' ? '[^.]+' : segment === '**' ? '[^.]+(?:\\.[^.]+)*' : segment.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')))
    .join('\\.');
  return new RegExp(`^${source}$`).test(topic);
}

/** What the dispatcher hands a handler as its peer is the connection itself (ControlConnection is both). */
interface FakeConnection extends BusConnection, ControlPeer {
  frames: Array<Record<string, unknown>>;
}

export const busBoundary: FuzzBoundary = {
  name: 'bus',
  title: 'claws/2 bus: topics, cursors, payload sizes (src/node/control/bus)',
  testRuns: 1500,
  fullRuns: 200_000,
  asyncTimeoutMs: 10_000,
  open() {
    const ptyHost = new PtyHost({ logger: nullLogger, defaultCwd: tmpdir() });
    const commandLog = new CommandLog({ ptyHost });
    const property = fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 16 }), async (ops) =>
      withinTimeLimitAsync('a bus sequence', async () => {
        const bus = new Bus({ ptyHost, commandLog, log: new BusLog({ filePath: null, logger: nullLogger }), logger: nullLogger });
        await bus.start();
        const commands = new Map<string, ControlCommand>(busCommands(bus).map((command) => [command.name, command]));
        const connections: FakeConnection[] = [0, 1, 2].map((connectionId) => {
          const frames: Array<Record<string, unknown>> = [];
          return { connectionId, name: `fuzz ${connectionId}`, socketPath: '', connected: true, closedSignal: new AbortController().signal, frames, sendFrame: (frame: Record<string, unknown>) => frames.push(frame) };
        });
        const attachments = connections.map((connection) => bus.attach(connection, () => 0));
        const hello = new Set<number>();
        const patterns = connections.map(() => [] as string[]);
        const cursors = new Map<string, { sequence: number; dialect: 'number' | 'claws' }>();
        let lastSequence = 0;
        try {
          for (const op of ops) {
            const command = commands.get(op.op)!;
            const request = { ...op.fields, id: 1, cmd: op.op };
            const parsed = command.params.safeParse(request);
            if (!parsed.success) continue; // the schema's refusal: control-params covers its message
            let body: Record<string, unknown>;
            try {
              body = (await command.run(parsed.data, { requestId: 1, cmd: op.op, peer: connections[op.conn]! })) as Record<string, unknown>;
            } catch (error) {
              if (!(error instanceof ControlError)) throw new Error(`${op.op} threw ${String(error)} for ${show(op.fields)}`);
              if (error.code === undefined || error.message.length === 0) throw new Error(`${op.op}: a ControlError without code or message for ${show(op.fields)}`);
              checkRefusal(op, hello.has(op.conn), parsed.data as Record<string, unknown>, error);
              continue;
            }
            if (op.op === 'hello') hello.add(op.conn);
            if (op.op === 'subscribe' || op.op === 'publish') {
              const topic = (parsed.data as { topic: string }).topic;
              if (!modelValid(topic, op.op === 'subscribe')) throw new Error(`${op.op} accepted ${show(topic)}, which the model refuses`);
            }
            if (op.op === 'subscribe') {
              patterns[op.conn]!.push((parsed.data as { topic: string }).topic);
              const from = (parsed.data as { fromCursor?: { sequence: number; dialect: 'number' | 'claws' } }).fromCursor;
              if (from) cursors.set(body.subscriptionId as string, from);
            }
            if (op.op === 'publish' || op.op === 'broadcast') {
              const sequence = body.sequence as number;
              if (!(sequence > lastSequence)) throw new Error(`sequence ${sequence} after ${lastSequence}`);
              lastSequence = sequence;
            }
          }
          // Replays go out on the next turn.
          await new Promise((resolve) => setImmediate(resolve));
          connections.forEach((connection, index) => checkFrames(connection.frames, patterns[index]!, cursors));
        } finally {
          for (const attachment of attachments) attachment.dispose();
          bus.dispose();
        }
        return true;
      }),
    );
    return {
      property,
      dispose() {
        commandLog.dispose();
        ptyHost.dispose();
      },
    };
  },
};

function checkRefusal(op: Op, saidHello: boolean, params: Record<string, unknown>, error: ControlError): void {
  if (op.op === 'hello') return;
  if (!saidHello) {
    if (error.message !== 'call hello first') throw new Error(`${op.op} before hello refused with ${show(error.message)}`);
    return;
  }
  if (op.op === 'publish' && modelValid(params.topic as string, false)) throw new Error(`publish refused the valid topic ${show(params.topic)}: ${error.message}`);
  if (op.op === 'subscribe' && modelValid(params.topic as string, true) && !/^terminal\.[^.]+\.output$/.test(params.topic as string)) {
    throw new Error(`subscribe refused the valid pattern ${show(params.topic)}: ${error.message}`);
  }
}

function checkFrames(frames: ReadonlyArray<Record<string, unknown>>, patterns: readonly string[], cursors: ReadonlyMap<string, { sequence: number; dialect: 'number' | 'claws' }>): void {
  let replayed: number[] = [];
  for (const frame of frames) {
    if (frame.push === 'caught-up') {
      const from = cursors.get(frame.subscriptionId as string);
      if (!from) throw new Error(`caught-up for a subscription without a cursor: ${show(frame)}`);
      if (typeof frame.resumeCursor !== (from.dialect === 'claws' ? 'string' : 'number')) throw new Error(`caught-up in the wrong dialect: ${show(frame)} for ${show(from)}`);
      for (let index = 0; index < replayed.length; index++) {
        if (replayed[index]! <= from.sequence) throw new Error(`replayed sequence ${replayed[index]} is not after the cursor ${from.sequence}`);
        if (index > 0 && replayed[index]! <= replayed[index - 1]!) throw new Error(`replay out of order: ${show(replayed)}`);
      }
      replayed = [];
      continue;
    }
    if (frame.push !== 'message') throw new Error(`unexpected push frame ${show(frame)}`);
    const topic = frame.topic as string;
    if (frame.replayed === true) replayed.push(frame.sequence as number);
    if (topic === 'system.broadcast') continue;
    if (!patterns.some((pattern) => modelMatches(pattern, topic))) throw new Error(`got ${show(topic)}, which matches none of ${show(patterns)}`);
  }
}
