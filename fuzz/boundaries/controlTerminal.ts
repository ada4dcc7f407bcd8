/**
 * The control socket's terminal commands against a live terminal (src/node/control: send, exec,
 * readLog, poll, read, readScreen, wait, resize, signal, rename, show, audit, and claws' worker
 * commands): near-valid params aimed at a real bash in a real Hub, so the handlers run — offsets
 * past the end, odd sizes, text that leaves the shell in a continuation line, signals, `exit`.
 * The shell runs with a temp HOME in a temp workspace (`bash --norc --noprofile`); a terminal the
 * input ended is replaced. Timeouts are capped at 400 ms so a wait that is never met ends quickly.
 * One input in ten hangs up right after its request (and the next connection goes on). Properties
 * as for `control-socket`: every answer well-formed, no INTERNAL, the connection stays, a `ping`
 * after each input is answered, no unhandled rejection.
 */
import fc from 'fast-check';
import { controlCommands, type ControlCommandName } from '../../src/common/protocol/control/commands.ts';
import { shapedBy } from '../arbitraries.ts';
import { type FuzzBoundary, show, withinTimeLimitAsync } from '../boundary.ts';
import { connectRaw, frameWaitMs, type FuzzHub, startFuzzHub } from '../hub.ts';
import { expectAnswer, expectStillServing } from './control.ts';

const terminalVerbs: ControlCommandName[] = [
  'send',
  'exec',
  'readLog',
  'poll',
  'read',
  'readScreen',
  'wait',
  'resize',
  'signal',
  'rename',
  'show',
  'audit',
  'list',
  'lifecycle.register-spawn',
  'lifecycle.register-monitor',
  'lifecycle.mark-worker-status',
  'monitors.register-intent',
];

const request = fc.constantFrom(...terminalVerbs).chain((cmd) =>
  fc.record({ cmd: fc.constant(cmd), fields: shapedBy(controlCommands[cmd].params), aimed: fc.boolean(), vanish: fc.nat({ max: 9 }).map((n) => n === 0) }),
);

/** The fields that name a terminal, set to the live one. */
const terminalFields = ['terminalId', 'terminal', 'id'];

export const controlTerminalBoundary: FuzzBoundary = {
  name: 'control-terminal',
  title: 'Control socket: terminal commands aimed at a live bash in a real Hub (src/node/control)',
  testRuns: 150,
  fullRuns: 5_000,
  asyncTimeoutMs: 20_000,
  async open() {
    const fuzzHub: FuzzHub = await startFuzzHub();
    let client = await connectRaw(fuzzHub.socketPath);
    let sequence = 0;
    let terminalId: string | null = null;
    const ensureTerminal = async (): Promise<string> => {
      if (terminalId !== null && fuzzHub.hub.ptyHost.get(terminalId)?.info.state === 'running') return terminalId;
      // An input ended it (a signal, `exit`): close what is left of it and start another.
      if (terminalId !== null) {
        const closing = `close${++sequence}`;
        client.write(`${JSON.stringify({ id: closing, cmd: 'close', terminalId })}\n`);
        await client.waitFor((frame) => frame.rid === closing, frameWaitMs, 'closing an ended terminal');
      }
      const id = `create${++sequence}`;
      client.write(
        `${JSON.stringify({ id, cmd: 'create', shellPath: 'bash', shellArgs: ['--norc', '--noprofile'], shellIntegration: false, cwd: fuzzHub.workspace, env: { HOME: fuzzHub.home, PS1: '$ ' } })}\n`,
      );
      const created = await client.waitFor((frame) => frame.rid === id, frameWaitMs, 'a new terminal');
      if (created.ok !== true) throw new Error(`could not start the terminal the fuzzing aims at: ${show(created)}`);
      terminalId = created.id as string;
      return terminalId;
    };
    const property = fc.asyncProperty(request, async ({ cmd, fields, aimed, vanish }) =>
      withinTimeLimitAsync(
        'a terminal command',
        async () => {
          const target = await ensureTerminal();
          const n = ++sequence;
          const body: Record<string, unknown> = typeof fields === 'object' && fields !== null && !Array.isArray(fields) ? { ...fields } : { value: fields };
          if (aimed) for (const field of terminalFields) if (field !== 'id' || !('terminalId' in body)) body[field] = target;
          if (typeof body.timeoutMs !== 'number' || body.timeoutMs > 400) body.timeoutMs = 400;
          // `id` is the request's own id, and for claws commands also the terminal when no field names one.
          const id = aimed && !('terminalId' in body) && !('terminal' in body) ? target : `f${n}`;
          const line = JSON.stringify({ ...body, id, cmd });
          client.write(`${line}\n`);
          if (vanish) {
            // The client goes away before its answer: the Hub must not mind (no rejection, no error logged), and serves the next one.
            client.close();
            client = await connectRaw(fuzzHub.socketPath);
          } else {
            await expectAnswer(client, (frame) => frame.rid === id && frame.push === undefined, line);
          }
          await expectStillServing(client, fuzzHub, n, line);
          return true;
        },
        15_000,
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
