import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ControlConstants } from '../../../../src/common/constants.ts';
import { EchoGate } from '../../../../src/node/control/echoGate.ts';
import { echoPieces, type SentInput } from '../../../../src/node/control/sentInput.ts';

const nonce = '0123456789abcdef';
const mark = (code: string) => `\x1b]633;${code};${nonce}\x07`;

function sent(typed: string, at = 0): SentInput {
  return { offset: 0, at, pieces: echoPieces(typed), enter: /[\r\n]$/.test(typed) };
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
