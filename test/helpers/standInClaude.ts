/**
 * A stand-in for the Claude Code CLI, for UI tests on machines without the real one: a program
 * named `claude` (run by node, as the real CLI's npm package is) that draws Claude Code 2.1.x's
 * screens as captured in test/fixtures/agents/claude-code/ — the input box between two rules when
 * its turn is over, "esc to interrupt" while working, the Bash permission dialog with numbered
 * options — and answers keys as the real one does: `1` approves, Esc denies. The Hub's real agent
 * detection (process, then screen) reads it like the real CLI; the app's tests then drive the UI.
 *
 * Scripted by what the person types at its prompt:
 * - `run <command>`: works a moment, then asks permission for `Bash: <command>`; approving runs it
 *   (through /bin/sh) and finishes the turn, denying finishes it at once.
 * - `ask <question>? | <option> | <option> …`: works a moment, then asks the question with a
 *   selector over the options (as Claude Code's AskUserQuestion does); ↑/↓ move, Enter picks
 *   (the turn ends with "You picked: <option>"), Esc dismisses it.
 * - `/exit <code>`: ends with that exit code.
 * - anything else: works a moment, then finishes the turn.
 * Keys typed while it works go into the box as a draft (Enter waits for the turn's end); its status
 * line then drops "esc to interrupt", as the real one does, and its spinner line says it works.
 *
 * With `STAND_IN_SPLIT_FRAMES_MS` set in its environment it writes each screen in two pieces, that
 * many ms apart (the last three lines second), as a frame that reaches the terminal in two reads.
 * `STAND_IN_FIRST_DRAW_MS` holds its first screen back that long, as the real CLI loads a moment.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const program = String.raw`
const { execSync } = require('node:child_process');
const out = process.stdout;
const cols = () => Math.max(10, out.columns || 80);
const rows = () => Math.max(12, out.rows || 24);
const transcript = ['Claude Code (stand-in for tests)', ''];
let state = 'idle';
let typed = '';
let pending = null;
let question = null;
const splitMs = Number(process.env.STAND_IN_SPLIT_FRAMES_MS || 0);
let tail = null;

function draw() {
  const rule = '\u2500'.repeat(cols());
  let bottom;
  if (state === 'permission') {
    const frame = '\u254c'.repeat(cols());
    bottom = [rule, ' Bash command', ' Run the command', frame, ' ' + pending, frame, ' Do you want to proceed?', ' \u276f 1. Yes', '   2. Yes, and don\u2019t ask again for this command', '   3. No', '', ' Esc to cancel \u00b7 Tab to amend'];
  } else if (state === 'question') {
    const options = question.options.map((option, index) => (index === question.selected ? '  \u276f ' : '    ') + (index + 1) + '. ' + option);
    bottom = [rule, '  ' + question.text, '', ...options, '', '  Enter to select \u00b7 \u2191/\u2193 to navigate \u00b7 Esc to cancel'];
  } else if (state === 'working') {
    // As the real CLI: the spinner over the box; the status line drops "esc to interrupt" while the box holds a draft.
    bottom = ['\u2733 Working\u2026', rule, '\u276f\u00a0' + typed, rule, typed ? '  \u23f8 manual mode on' : '  \u23f8 manual mode on \u00b7 esc to interrupt'];
  } else {
    bottom = [rule, '\u276f\u00a0' + typed, rule, '  ? for shortcuts'];
  }
  const room = rows() - bottom.length;
  const top = transcript.slice(-room);
  while (top.length < room) top.push('');
  const lines = [...top, ...bottom].map((line) => line.slice(0, cols()));
  if (!splitMs) return out.write('\x1b[H\x1b[2J' + lines.join('\r\n'));
  // A frame that reaches the terminal in two pieces: all but its last three lines, then those.
  flushTail();
  out.write('\x1b[H\x1b[2J' + lines.slice(0, -3).join('\r\n'));
  tail = { text: '\r\n' + lines.slice(-3).join('\r\n'), timer: setTimeout(flushTail, splitMs) };
}

function flushTail() {
  if (!tail) return;
  clearTimeout(tail.timer);
  out.write(tail.text);
  tail = null;
}

function work(then) {
  state = 'working';
  draw();
  setTimeout(then, 700);
}

function finishTurn(text) {
  transcript.push('\u25cf ' + text, '');
  state = 'idle';
  draw();
}

function submit(line) {
  transcript.push('\u276f ' + line, '');
  const exit = /^\/exit(?:\s+(\d+))?$/.exec(line);
  if (exit) {
    out.write('\x1b[H\x1b[2J');
    process.exit(Number(exit[1] || 0));
  }
  const run = /^run\s+(.+)$/.exec(line);
  const ask = /^ask\s+(.+)$/.exec(line);
  work(() => {
    if (ask) {
      const [text, ...options] = ask[1].split('|').map((part) => part.trim());
      question = { text, options, selected: 0 };
      state = 'question';
      return draw();
    }
    if (!run) return finishTurn('Done.');
    pending = run[1];
    state = 'permission';
    draw();
  });
}

process.stdin.setRawMode(true);
process.stdin.setEncoding('utf8');
process.stdin.on('data', (keys) => {
  if (state === 'question') return answerQuestion(keys);
  for (const key of keys) {
    if (key === '\x03') process.exit(130);
    if (state === 'permission') {
      if (key === '1') {
        const command = pending;
        pending = null;
        work(() => {
          let result = 'ran';
          try { execSync(command, { stdio: 'ignore', shell: '/bin/sh' }); } catch { result = 'failed'; }
          finishTurn('Ran ' + command + ' (' + result + ').');
        });
      } else if (key === '\x1b' || key === '3') {
        pending = null;
        finishTurn('Denied; not run.');
      }
      continue;
    }
    if (state !== 'idle' && state !== 'working') continue;
    if (key === '\r') {
      // Typed ahead while it works, the request waits in the box until the turn is over.
      if (state === 'working') continue;
      const line = typed.trim();
      typed = '';
      if (line) submit(line);
      else draw();
    } else if (key === '\x7f') {
      typed = typed.slice(0, -1);
      draw();
    } else if (key >= ' ' && key !== '\x7f') {
      typed += key;
      draw();
    }
    // Esc (and other control keys) at the prompt change nothing, as in the real CLI.
  }
});
function answerQuestion(keys) {
  let rest = keys;
  while (rest && state === 'question') {
    if (rest.startsWith('\x1b[B')) {
      question.selected = Math.min(question.selected + 1, question.options.length - 1);
      rest = rest.slice(3);
    } else if (rest.startsWith('\x1b[A')) {
      question.selected = Math.max(question.selected - 1, 0);
      rest = rest.slice(3);
    } else if (rest[0] === '\r') {
      const picked = question.options[question.selected];
      question = null;
      return finishTurn('You picked: ' + picked);
    } else if (rest[0] === '\x1b') {
      question = null;
      return finishTurn('Question dismissed.');
    } else if (rest[0] === '\x03') {
      process.exit(130);
    } else {
      rest = rest.slice(1);
    }
  }
  draw();
}

out.on('resize', draw);
setTimeout(draw, Number(process.env.STAND_IN_FIRST_DRAW_MS || 0));
`;

/**
 * Writes the stand-in as `<dir>/bin/claude` (its shebang runs this Node) and returns that bin
 * directory, to put first on a pane's PATH or to run by path.
 */
export function installStandInClaude(dir: string): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const file = join(bin, 'claude');
  writeFileSync(file, `#!${process.execPath}\n${program}`);
  chmodSync(file, 0o755);
  return bin;
}
