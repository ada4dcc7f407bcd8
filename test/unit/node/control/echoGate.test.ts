import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ControlConstants } from '../../../../src/common/constants.ts';
import { EchoGate } from '../../../../src/node/control/echoGate.ts';
import { echoPieces, type SentInput } from '../../../../src/node/control/sentInput.ts';

const nonce = '0123456789abcdef';
const mark = (code: string) => `\x1b]633;${code};${nonce}\x07`;

function sent(typed: string, at = 0, typedAhead = false): SentInput {
  return { offset: 0, at, pieces: echoPieces(typed), enter: /[\r\n]$/.test(typed), typedAhead };
}

/** A gate on a clock the test moves. */
function gateAt(start = 0): { gate: EchoGate; clock: { now: number } } {
  const clock = { now: start };
  return { gate: new EchoGate({ now: () => clock.now }), clock };
}

describe('echoPieces', () => {
  it('splits typed text at control chars and drops key sequences, keeping the printable runs in order', () => {
    assert.deepEqual(echoPieces('make test\r'), ['make test']);
    assert.deepEqual(echoPieces('for i in 1 2\n  do echo $i\ndone\r'), ['for i in 1 2', 'do echo $i', 'done']);
    assert.deepEqual(echoPieces('git che\tmain\r'), ['git che', 'main']);
    assert.deepEqual(echoPieces('\x1b[A\x1b[200~pasted\x1b[201~\x03'), ['pasted']);
    assert.deepEqual(echoPieces('\x03'), []);
  });

  it('keeps only the last pieces, and the tail of a very long one', () => {
    const lines = Array.from({ length: ControlConstants.echoMaxPieces + 5 }, (_, index) => `line ${index}`);
    const pieces = echoPieces(lines.join('\n'));
    assert.equal(pieces.length, ControlConstants.echoMaxPieces);
    assert.equal(pieces.at(-1), lines.at(-1));
    const long = 'x'.repeat(ControlConstants.echoPieceMaxChars) + 'END';
    assert.equal(echoPieces(long)[0]!.length, ControlConstants.echoPieceMaxChars);
    assert.ok(echoPieces(long)[0]!.endsWith('END'));
  });
});

describe('EchoGate', () => {
  it('lets everything count while nothing was sent', () => {
    const { gate } = gateAt();
    assert.equal(gate.push('\x1b[32mhello\x1b[0m\r\n'), 'hello\r\n');
    assert.equal(gate.deadline, null);
  });

  it('skips from the write to the end of the echo (its line break included), then counts the output', () => {
    const { gate } = gateAt();
    gate.expect(sent('sleep 2; echo done\r'));
    assert.equal(gate.push('sleep 2; echo do'), '', 'held while the echo is incomplete');
    assert.equal(gate.push('ne\r'), '', 'the line break may still come');
    assert.equal(gate.push('\n'), '');
    assert.equal(gate.push('done\r\n$ '), 'done\r\n$ ');
  });

  it('looks for a draw of the line that ends it: an earlier draw without a line break is skipped too', () => {
    const { gate } = gateAt();
    gate.expect(sent('sleep 1\necho two\r'));
    // bash draws a paste highlighted, moves back up, then draws it plain and moves on.
    const echo = '\x1b[7msleep 1\x1b[27m\r\n\r\x1b[7mecho two\x1b[27m\x1b[A\b\b\b\bsleep 1\r\n\recho two\r\n\x1b[?2004l\r';
    assert.equal(gate.push(echo + 'two\r\n'), '\rtwo\r\n');
  });

  it('input sent without Enter: the echo ends with its text', () => {
    const { gate } = gateAt();
    gate.expect(sent(':wq'));
    assert.equal(gate.push(':wq then more'), ' then more');
  });

  it('a command start named after the sent text ends the skipping, however the echo was drawn', () => {
    const { gate } = gateAt();
    gate.expect(sent('echo aaaaaaaa zsh-marker\r'));
    // zsh redraws a line that wraps: the text is never there in one piece.
    const mangled = 'echo aaaa \ra\raaaa zsh-marker \r\r\n';
    assert.equal(gate.push(mangled + `\x1b]633;E;echo aaaaaaaa zsh-marker;${nonce}\x07` + mark('C') + 'zsh-marker\r\n'), 'zsh-marker\r\n');
  });

  it("another command's start (the previous one, still starting) ends nothing", () => {
    const { gate } = gateAt();
    gate.expect(sent('echo mine\r'));
    assert.equal(gate.push(`\x1b]633;E;sleep 1;${nonce}\x07` + mark('C') + 'echo mi'), '');
    assert.equal(gate.push('ne\r\nmine\r\n'), 'mine\r\n');
  });

  it('typed ahead: the echo drawn again after the next prompt is skipped too, the output after the command start counts', () => {
    const { gate } = gateAt();
    gate.expect(sent('sleep 1; echo ahead\r'));
    const kernelEcho = 'sleep 1; echo ahead' + `\x1b]633;E;sleep 1;${nonce}\x07` + mark('C') + '\r\n';
    assert.equal(gate.push(kernelEcho), '');
    assert.equal(gate.push('output of sleep 1\r\n'), 'output of sleep 1\r\n', "the running command's output counts");
    const prompt = mark('D;0') + mark('A') + '$ ' + mark('B');
    assert.equal(gate.push(prompt + 'sleep 1; echo ahead\r\n'), '');
    assert.equal(gate.push(`\x1b]633;E;sleep 1\\x3b echo ahead;${nonce}\x07` + mark('C') + 'ahead\r\n'), 'ahead\r\n');
  });

  it('typed ahead before the kernel could echo it (the shell still starting the previous command): the echo at the next prompt is skipped', () => {
    const { gate, clock } = gateAt(1000);
    gate.expect(sent('sleep 1; echo ahead\r', 1000));
    // The shell starts `sleep 1`; our line came while its line editor still held the terminal: no echo now.
    assert.equal(gate.push(`\x1b]633;E;sleep 1;${nonce}\x07` + mark('C')), '');
    assert.equal(gate.push('output of sleep 1\r\n'), '');
    clock.now = 1000 + ControlConstants.echoWaitMs;
    assert.equal(gate.expire(), 'output of sleep 1\r\n', "the running command's output counts once the wait for an echo ends");
    // After `sleep 1` the shell reads our line and draws it for the first time.
    clock.now += 50;
    const prompt = mark('D;0') + mark('A') + '$ ' + mark('B');
    assert.equal(gate.push(prompt + 'sleep 1; echo ahead\r\n'), '', 'that echo does not count');
    assert.equal(gate.push(`\x1b]633;E;sleep 1\\x3b echo ahead;${nonce}\x07` + mark('C') + 'ahead\r\n'), 'ahead\r\n');
  });

  it('typed ahead, not echoed at the next prompt either: everything counts from then on, later prompts included', () => {
    const { gate, clock } = gateAt(1000);
    gate.expect(sent('hunter2\r', 1000));
    assert.equal(gate.push(`\x1b]633;E;read -s x;${nonce}\x07` + mark('C') + mark('D;0') + mark('A') + '$ '), '');
    clock.now = 1000 + ControlConstants.echoWaitMs;
    assert.equal(gate.expire(), '$ ');
    assert.equal(gate.push(mark('A') + '$ hunter2\r\n'), '$ hunter2\r\n', 'not searched for again');
  });

  it('sent while a command ran (typedAhead), its start before the wait: the echo at the next prompt is skipped, even one drawn late', () => {
    const { gate, clock } = gateAt(1000);
    gate.expect(sent('sleep 1; echo ahead\r', 1000, true));
    clock.now = 1000 + ControlConstants.echoWaitMs;
    assert.equal(gate.expire(), '', 'no echo yet: it is expected at the next prompt');
    const prompt = mark('D;0') + mark('A') + '$ ' + mark('B');
    assert.equal(gate.push(prompt), '');
    // The prompt came; the line is drawn a moment later.
    clock.now += 200;
    assert.equal(gate.expire(), '');
    assert.equal(gate.push('sleep 1; echo ahead\r\n'), '');
    assert.equal(gate.push(`\x1b]633;E;sleep 1\\x3b echo ahead;${nonce}\x07` + mark('C') + 'ahead\r\n'), 'ahead\r\n');
  });

  it('typed ahead and searched for when the prompt comes: the time to find the echo counts from the prompt', () => {
    const { gate, clock } = gateAt(1000);
    gate.expect(sent('make\r', 1000, true));
    clock.now = 1900;
    assert.equal(gate.push(mark('D;0') + mark('A') + '$ '), '');
    clock.now = 1000 + ControlConstants.echoWaitMs + 100;
    assert.equal(gate.expire(), '', 'still looked for: the prompt came 100 ms before the first deadline');
    assert.equal(gate.push('make\r\nbuilt\r\n'), 'built\r\n');
  });

  it('the text drawn but not its line break (echo turned off before the Enter came): at the time limit the text is still skipped', () => {
    const { gate, clock } = gateAt(1000);
    gate.expect(sent('sleep 1; echo ahead\r', 1000, true));
    assert.equal(gate.push('sleep 1; echo ahead'), '');
    clock.now = 1000 + ControlConstants.echoWaitMs;
    assert.equal(gate.expire(), '');
    // The shell reads it after its next prompt and draws it again: skipped too; the output counts.
    const prompt = mark('D;0') + mark('A') + '$ ' + mark('B');
    assert.equal(gate.push(prompt + 'sleep 1; echo ahead\r\n'), '');
    assert.equal(gate.push(`\x1b]633;E;sleep 1\\x3b echo ahead;${nonce}\x07` + mark('C') + 'ahead\r\n'), 'ahead\r\n');
  });

  it('marks split across pushes are still seen', () => {
    const { gate } = gateAt();
    gate.expect(sent('echo aaaa x\r'));
    const whole = 'echo aa \raa x\r\n' + `\x1b]633;E;echo aaaa x;${nonce}\x07` + mark('C') + 'x\r\n';
    const split = whole.indexOf('633;C') - 2;
    assert.equal(gate.push(whole.substring(0, split)) + gate.push(whole.substring(split)), 'x\r\n');
  });

  it('gives up after echoWaitMs from the write: then everything from the write counts', () => {
    const { gate, clock } = gateAt(1000);
    gate.expect(sent('hunter2\r', 1000));
    assert.equal(gate.deadline, 1000 + ControlConstants.echoWaitMs);
    assert.equal(gate.push('\r\ngot 7 chars\r\n'), '');
    assert.equal(gate.expire(), '', 'not yet');
    clock.now = 1000 + ControlConstants.echoWaitMs;
    assert.equal(gate.expire(), '\r\ngot 7 chars\r\n');
    assert.equal(gate.deadline, null);
    assert.equal(gate.push('more'), 'more');
  });

  it('gives up once more than echoSearchMaxChars of output came without the echo', () => {
    const { gate } = gateAt();
    gate.expect(sent('never shown\r'));
    const flood = 'y\r\n'.repeat(ControlConstants.echoSearchMaxChars / 3 + 10);
    assert.equal(gate.push(flood), flood);
  });

  it('drops what came before discardBefore(), held or not', () => {
    const { gate, clock } = gateAt();
    gate.expect(sent('quiet\r', 0));
    gate.push('before the window ');
    gate.discardBefore();
    clock.now = ControlConstants.echoWaitMs;
    assert.equal(gate.push('in the window'), '');
    assert.equal(gate.expire(), 'in the window');
  });

  it('a second send before the first echo came: both echoes are skipped', () => {
    const { gate } = gateAt();
    gate.expect(sent('first\r'));
    gate.expect(sent('second\r'));
    assert.equal(gate.push('first\r\nout 1\r\nsecond\r\nout 2\r\n'), 'out 2\r\n');
  });
});
