/**
 * The control socket's commands (src/common/protocol/control/*, src/node/control):
 * - `control-params`: every command's params schema — the very objects the server's dispatcher
 *   parses with — against arbitrary JSON and near-valid params: parsing never throws, and every
 *   refusal has a message naming what is wrong (what clients see as INVALID_PARAMS);
 * - `control-socket`: a real Hub over its real socket: arbitrary lines and near-valid requests for
 *   every command; every answer is a well-formed envelope, every refusal a non-empty error that is
 *   not INTERNAL (an exception that escaped a handler), the connection stays open, and a `ping`
 *   after each input is answered.
 */
import fc from 'fast-check';
import { ApiErrorCodes } from '../../src/common/api/errors.ts';
import { controlCommandNames, controlCommands, type ControlCommandName } from '../../src/common/protocol/control/commands.ts';
import { RequestEnvelope } from '../../src/common/protocol/control/wire.ts';
import { formatZodIssues } from '../../src/common/validation.ts';
import { anyJson, shapedBy } from '../arbitraries.ts';
import { type FuzzBoundary, show, withinTimeLimit, withinTimeLimitAsync } from '../boundary.ts';
import type { NdjsonClient } from '../../test/integration/control/controlTestKit.ts';
import { connectRaw, type Frame, frameWaitMs, type FuzzHub, startFuzzHub } from '../hub.ts';

interface FuzzRequest {
  cmd: string;
  /** The request's own fields; not always an object (then the line is that value alone). */
  fields: unknown;
}

const fieldsByCommand = new Map<string, fc.Arbitrary<unknown>>(controlCommandNames.map((name) => [name, shapedBy(controlCommands[name].params)]));

/** A request for a real command with near-valid fields, or anything at all. */
export function controlRequest(): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...controlCommandNames).chain((cmd) => fieldsByCommand.get(cmd)!.map((fields) => ({ cmd, fields }))) },
    { weight: 1, arbitrary: fc.record({ cmd: fc.string({ maxLength: 20 }), fields: anyJson(3) }) },
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const controlParamsBoundary: FuzzBoundary = {
  name: 'control-params',
  title: "Control commands' params schemas (src/common/protocol/control)",
  testRuns: 5000,
  open() {
    const property = fc.property(controlRequest(), fc.option(anyJson(1), { nil: undefined }), ({ cmd, fields }, id) =>
      withinTimeLimit('parsing params', () => {
        const request = isObject(fields) ? { ...fields, id: id ?? 1, cmd } : fields;
        const envelope = RequestEnvelope.safeParse(request);
        if (!envelope.success && formatZodIssues(envelope.error).length === 0) throw new Error(`envelope refused without a message: ${show(request)}`);
        const schema = Object.hasOwn(controlCommands, cmd) ? controlCommands[cmd as ControlCommandName].params : undefined;
        if (!schema) return true;
        const parsed = schema.safeParse(request);
        if (!parsed.success && formatZodIssues(parsed.error).trim().length === 0) throw new Error(`${cmd}: refused without a message: ${show(request)}`);
        return true;
      }),
    );
    return { property, dispose() {} };
  },
};

/**
 * Valid requests for these are not sent: they start processes or wait for a person by design
 * (their own tests cover them), which a fuzzer would only turn into a pile of shells.
 */
const notSentWhenValid = new Set<string>(['create', 'agent.start', 'review.request']);

/** An answer the server may give: the claws envelope, and a refusal with a message and no INTERNAL. */
export function checkAnswer(frame: Frame, what: string): void {
  if (frame.push !== undefined) return; // a claws/2 push frame (a subscription's message)
  if (typeof frame.ok !== 'boolean') throw new Error(`${what}: an answer without ok: ${show(frame)}`);
  if (frame.protocol !== 'claws/1') throw new Error(`${what}: an answer with protocol ${show(frame.protocol)}`);
  if (frame.ok) return;
  if (typeof frame.error !== 'string' || frame.error.trim().length === 0) throw new Error(`${what}: a refusal without an error message: ${show(frame)}`);
  if (frame.code === 'INTERNAL') throw new Error(`${what}: an exception escaped a handler (INTERNAL): ${show(frame)}`);
  if (typeof frame.code !== 'string' || !(ApiErrorCodes as readonly string[]).includes(frame.code)) throw new Error(`${what}: a refusal without a known code: ${show(frame)}`);
}

/** The answer to the input `line` (the first frame that matches) is one the server may give (checkAnswer). */
export async function expectAnswer(client: NdjsonClient, match: (frame: Frame) => boolean, line: string): Promise<void> {
  checkAnswer(await client.waitFor(match, frameWaitMs, `the answer to ${line.slice(0, 200)}`), line.slice(0, 300));
}

/**
 * After the `n`th input `line`: the server still answers a `ping`, everything it sent meanwhile is
 * well-formed (no line that is not a JSON object), and the Hub logged no error.
 */
export async function expectStillServing(client: NdjsonClient, fuzzHub: FuzzHub, n: number, line: string): Promise<void> {
  const barrier = `b${n}`;
  client.write(`${JSON.stringify({ id: barrier, cmd: 'ping' })}\n`);
  const pong = await client.waitFor((frame) => frame.rid === barrier, frameWaitMs, `a ping after ${line.slice(0, 200)}`);
  if (pong.ok !== true) throw new Error(`ping refused after ${line.slice(0, 200)}: ${show(pong)}`);
  for (const frame of client.frames.splice(0)) checkAnswer(frame, `after ${line.slice(0, 300)}`);
  if (client.garbage.length > 0) throw new Error(`the server sent a line that is not a JSON object: ${show(client.garbage)}`);
  fuzzHub.checkErrors(line.slice(0, 300));
}

export const controlSocketBoundary: FuzzBoundary = {
  name: 'control-socket',
  title: 'Control socket: every command over a real socket to a real Hub (src/node/control)',
  testRuns: 1000,
  fullRuns: 200_000,
  asyncTimeoutMs: 10_000,
  async open() {
    const fuzzHub = await startFuzzHub();
    const client = await connectRaw(fuzzHub.socketPath);
    let sequence = 0;
    const input = fc.oneof(
      { weight: 8, arbitrary: controlRequest().map((request) => ({ kind: 'request' as const, request })) },
      // Lines that are not requests at all: bad JSON, blank, a lone CR, text with no newline inside.
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 64 }).map((text) => ({ kind: 'line' as const, line: text.replace(/\n/g, ' ') })) },
    );
    const property = fc.asyncProperty(input, fc.boolean(), async (fuzz, ownId) =>
      withinTimeLimitAsync(
        'a control request',
        async () => {
          const n = ++sequence;
          let line: string;
          let awaitedId: string | null = null;
          if (fuzz.kind === 'line') line = fuzz.line;
          else {
            const { cmd, fields } = fuzz.request;
            if (isObject(fields)) {
              const request = ownId ? { ...fields, cmd, id: `f${n}` } : { ...fields, cmd };
              const schema = Object.hasOwn(controlCommands, cmd) ? controlCommands[cmd as ControlCommandName].params : undefined;
              if (notSentWhenValid.has(cmd) && schema?.safeParse(request).success) return true;
              if (ownId) awaitedId = `f${n}`;
              line = JSON.stringify(request);
            } else line = JSON.stringify(fields);
          }
          client.write(`${line}\n`);
          if (awaitedId !== null) await expectAnswer(client, (frame) => frame.rid === awaitedId, line);
          await expectStillServing(client, fuzzHub, n, line);
          return true;
        },
        8_000,
      ),
    );
    return {
      property,
      async dispose() {
        client.close();
        await fuzzHub.dispose();
      },
    };
  },
};
