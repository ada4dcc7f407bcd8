/**
 * The hostile burst (issue 23): many connections sending random and malformed frames as fast as a
 * careless or hostile client would — garbage bytes, huge lines, invalid JSON, JSON that is not an
 * object, bad envelopes, known commands with wrong params, random commands with random params, and
 * `create`/`exec`/`send` with plausible random params so shells really start and commands run.
 *
 * Seeded: the same seed sends the same frames (the answers depend on timing). Each connection reads
 * its answers and counts them; one the server closes (a line past 1 MiB) is replaced at once.
 * Every answer that is not ok must carry a `code` (a clear, coded refusal); those that do not are
 * counted by message so the report can name them.
 */
// The tests' PRNG (mulberry32), as bench/ uses it: one home for it.
import { random as seededRandom } from '../test/helpers/seededRandom.ts';
import { LineClient, type Frame } from './lineClient.ts';

export interface BurstOptions {
  socketPath: string;
  connections: number;
  seconds: number;
  /** Frames to send in all, spread evenly over the connections and the time. */
  frames: number;
  seed: number;
  /** Command names to pick random ones from (introspect's `commands`). */
  commands: readonly string[];
  /** Called about every 250 ms while the burst runs (the caller samples the Hub). */
  onTick?: () => void;
}

export interface BurstResult {
  framesSent: number;
  bytesSent: number;
  byKind: Record<string, number>;
  answers: number;
  answersOk: number;
  /** Refusals by code. */
  refusedByCode: Record<string, number>;
  /** Refusals without a code, by message with numbers and ids blanked. */
  uncoded: Record<string, number>;
  createsSent: number;
  /** Terminals the burst opened (ids answered by `create`). */
  terminalsCreated: number;
  createRefusals: Record<string, number>;
  /** Connections the server closed (a request line past 1 MiB), each replaced. */
  closedByServer: number;
  /** Lines from the server that were not JSON (never expected). */
  badServerLines: number;
}

type Kind = 'garbage' | 'huge' | 'badJson' | 'notObject' | 'badEnvelope' | 'wrongParams' | 'random' | 'create' | 'exec' | 'send' | 'deep';

/** How often each kind is sent (weights); huge lines are rare: each is up to 1.5 MiB. */
const kindWeights: Array<[Kind, number]> = [
  ['garbage', 14],
  ['badJson', 14],
  ['notObject', 5],
  ['badEnvelope', 10],
  ['wrongParams', 15],
  ['random', 20],
  ['create', 7],
  ['exec', 6],
  ['send', 6],
  ['deep', 1],
  ['huge', 0.15],
];

class FrameMaker {
  readonly #random: () => number;
  readonly #commands: readonly string[];
  readonly #terminalIds: string[];
  readonly #totalWeight = kindWeights.reduce((sum, [, weight]) => sum + weight, 0);
  #next = 1;

  constructor(random: () => number, commands: readonly string[], terminalIds: string[]) {
    this.#random = random;
    this.#commands = commands;
    this.#terminalIds = terminalIds;
  }

  int(max: number): number {
    return Math.floor(this.#random() * max);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  chance(p: number): boolean {
    return this.#random() < p;
  }

  kind(): Kind {
    let roll = this.#random() * this.#totalWeight;
    for (const [kind, weight] of kindWeights) {
      roll -= weight;
      if (roll < 0) return kind;
    }
    return 'random';
  }

  /** Printable text that is harmless typed into a shell (no `;`, `|`, `>`, `&`, `$`, backquotes). */
  text(max: number): string {
    const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:-_=+#@%^~é漢\t';
    let out = '';
    for (let i = this.int(max) + 1; i > 0; i--) out += alphabet[this.int(alphabet.length)];
    return out;
  }

  value(depth = 0): unknown {
    switch (this.int(depth > 2 ? 6 : 9)) {
      case 0:
        return this.int(2000) - 1000;
      case 1:
        return this.pick([0, -1, 1.5, 1e308, -0, Number.MAX_SAFE_INTEGER, 2 ** 31]);
      case 2:
        return this.text(40);
      case 3:
        return this.pick([true, false, null]);
      case 4:
        return '';
      case 5:
        return this.terminalId();
      case 6:
        return Array.from({ length: this.int(5) }, () => this.value(depth + 1));
      default:
        return Object.fromEntries(Array.from({ length: this.int(5) }, () => [this.pick(['a', 'terminalId', 'text', 'cmd', 'topic', 'limit', '__proto__', 'constructor']), this.value(depth + 1)]));
    }
  }

  terminalId(): unknown {
    if (this.#terminalIds.length > 0 && this.chance(0.8)) return this.pick(this.#terminalIds);
    return this.pick(['t-00000000', 'nope', 1, 0, -1, '', 'active', this.text(12)]);
  }

  id(): unknown {
    return this.chance(0.9) ? `b${this.#next++}` : this.pick([null, {}, [], true, 1.5, '', 'x'.repeat(300)]);
  }

  frame(kind: Kind): string {
    switch (kind) {
      case 'garbage': {
        const bytes = Buffer.alloc(this.int(512) + 1);
        for (let i = 0; i < bytes.length; i++) bytes[i] = this.int(256);
        return bytes.toString('latin1') + '\n';
      }
      case 'huge':
        // Some just under the 1 MiB line limit (parsed, then refused), some past it (the connection is closed).
        return (this.chance(0.5) ? `{"id":"h","cmd":"send","text":"${'x'.repeat(900_000 + this.int(100_000))}"}` : 'y'.repeat(1_050_000 + this.int(500_000))) + '\n';
      case 'badJson':
        return this.pick(['{"cmd":"ping"', '{cmd:"ping"}', "{'id':1}", '{"id":1,}', '{"a":tru}', '"unterminated', '{"id":1 "cmd":"list"}', 'NaN', '{]', '\u0000{}']) + '\n';
      case 'notObject':
        return JSON.stringify(this.pick([[1, 2], 42, 'ping', null, true, [{ cmd: 'ping' }]])) + '\n';
      case 'badEnvelope':
        return JSON.stringify(this.pick([{ id: {}, cmd: 'ping' }, { cmd: 5 }, { id: 1 }, { id: 1, cmd: 'ping', protocol: 'claws/9' }, { id: [1], cmd: '' }, { id: 1, cmd: 'x'.repeat(5000) }, { id: 1, cmd: 'ping', clientName: 7 }])) + '\n';
      case 'deep': {
        const depth = 1000 + this.int(20_000);
        return this.chance(0.5) ? `${'['.repeat(depth)}${']'.repeat(depth)}\n` : `{"id":"d","cmd":"publish","topic":"a.b","payload":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}\n`;
      }
      case 'wrongParams': {
        const cmd = this.pick(['send', 'exec', 'create', 'readLog', 'wait', 'subscribe', 'resize', 'poll', 'close', 'readScreen', 'publish', 'signal', 'history.search']);
        return JSON.stringify({ id: this.id(), cmd, terminalId: this.pick([{}, [], true, 1.5, null]), text: this.pick([1, {}, null]), command: this.pick(['', 5, []]), limit: -5, offset: 'x', cols: 0, rows: 1e9, topic: this.pick(['', 'A..B', '**.**', 5]), timeoutMs: this.pick([0, -1, 1e12, 'soon']), pattern: this.pick([5, {}]) }) + '\n';
      }
      case 'random': {
        const cmd = this.chance(0.9) ? this.pick(this.#commands) : this.text(20);
        const fields: Frame = { id: this.id(), cmd };
        for (let i = this.int(5); i > 0; i--) fields[this.pick(['terminalId', 'text', 'command', 'name', 'topic', 'limit', 'offset', 'timeoutMs', 'pattern', 'query', 'cwd', 'profile', 'scopes', 'protocol', 'role', 'since'])] = this.value();
        if (this.chance(0.2)) fields.protocol = 'claws/2';
        return JSON.stringify(fields) + '\n';
      }
      case 'create': {
        const fields: Frame = { id: this.id(), cmd: 'create', show: this.chance(0.5) };
        if (this.chance(0.7)) fields.shellPath = this.pick(['/bin/sh', '/bin/sh', 'bash', '/bin/true', '/nonexistent/shell', this.text(10)]);
        if (fields.shellPath === 'bash') fields.shellArgs = ['--norc', '--noprofile'];
        if (this.chance(0.3)) fields.cwd = this.pick(['.', '/', '/nonexistent', 'sub/dir', this.text(10)]);
        if (this.chance(0.3)) fields.env = { [this.pick(['A', 'B_1', 'PATH_X'])]: this.text(20) };
        if (this.chance(0.3)) fields.cols = this.pick([2, 80, 500, 10_000]);
        if (this.chance(0.3)) fields.name = this.text(30);
        if (this.chance(0.2)) fields.shellIntegration = this.chance(0.5);
        return JSON.stringify(fields) + '\n';
      }
      case 'exec':
        return (
          JSON.stringify({
            id: this.id(),
            cmd: 'exec',
            terminalId: this.terminalId(),
            command: this.pick(['echo hi', 'true', 'false', 'sleep 1', 'seq 1 2000', 'exit 3', 'cat', 'printf %s x', 'ls', this.text(30)]),
            timeoutMs: this.pick([1, 50, 500, 3000, undefined]),
          }) + '\n'
        );
      case 'send':
        return JSON.stringify({ id: this.id(), cmd: 'send', terminalId: this.terminalId(), text: this.pick([this.text(80), 'echo hello', '\u0003', 'exit', '\u001b[A', this.text(2000)]), newline: this.chance(0.5), paste: this.chance(0.2), wait: this.chance(0.5) }) + '\n';
    }
  }
}

/** Numbers and ids blanked, so refusals of one kind group together. */
export function errorShape(message: string): string {
  if (message.startsWith('unknown cmd: ')) return 'unknown cmd: …';
  return message
    .replace(/t-[0-9a-f]{8}/g, 'X')
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\d+/g, 'N')
    .slice(0, 120);
}

export async function runBurst(options: BurstOptions): Promise<BurstResult> {
  const random = seededRandom(options.seed);
  const terminalIds: string[] = [];
  const maker = new FrameMaker(random, options.commands, terminalIds);
  const result: BurstResult = {
    framesSent: 0,
    bytesSent: 0,
    byKind: {},
    answers: 0,
    answersOk: 0,
    refusedByCode: {},
    uncoded: {},
    createsSent: 0,
    terminalsCreated: 0,
    createRefusals: {},
    closedByServer: 0,
    badServerLines: 0,
  };
  const count = (table: Record<string, number>, key: string) => (table[key] = (table[key] ?? 0) + 1);
  const onAnswer = (frame: Frame) => {
    if (frame.push !== undefined) return;
    result.answers++;
    const isCreate = typeof frame.terminal === 'object' && frame.terminal !== null && frame.ok === true;
    if (frame.ok === true) {
      result.answersOk++;
      if (isCreate && typeof frame.id === 'string') {
        result.terminalsCreated++;
        terminalIds.push(frame.id);
      }
      return;
    }
    const error = String(frame.error);
    if (typeof frame.code === 'string') {
      count(result.refusedByCode, frame.code);
      if (/^(create|agent\.start): /.test(error)) count(result.createRefusals, frame.code);
    } else count(result.uncoded, errorShape(error));
  };

  const connect = async (index: number): Promise<LineClient> => {
    const client = await LineClient.connect(options.socketPath, `c${index}-`);
    client.onFrame = onAnswer;
    return client;
  };
  const clients = await Promise.all(Array.from({ length: options.connections }, (_, i) => connect(i)));
  const tickMs = 10;
  const ticks = Math.max(1, Math.round((options.seconds * 1000) / tickMs));
  const perTick = options.frames / (ticks * options.connections);
  const owed = clients.map(() => 0);
  const started = performance.now();
  let lastSample = 0;
  for (let tick = 0; tick < ticks; tick++) {
    for (let c = 0; c < clients.length; c++) {
      let client = clients[c]!;
      if (client.closed) {
        result.closedByServer++;
        result.badServerLines += client.badLines;
        client = clients[c] = await connect(c);
      }
      owed[c]! += perTick;
      for (; owed[c]! >= 1; owed[c]!--) {
        const kind = maker.kind();
        const line = maker.frame(kind);
        if (kind === 'create') result.createsSent++;
        count(result.byKind, kind);
        result.framesSent++;
        result.bytesSent += Buffer.byteLength(line);
        client.write(line);
      }
    }
    if (performance.now() - lastSample >= 250) {
      lastSample = performance.now();
      options.onTick?.();
    }
    // Keep the cadence: sleep to the next tick's start (no drift when a tick runs late).
    const wait = started + (tick + 1) * tickMs - performance.now();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait)));
  }
  // Let the answers already on their way arrive, briefly: the burst's clients then leave at once.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  for (const client of clients) result.badServerLines += client.badLines;
  await Promise.all(clients.map((client) => client.close()));
  return result;
}
