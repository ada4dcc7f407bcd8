/** asciicast v2 export (valid header and event lines, bytes reproduced) and import validation (the line at fault is named). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../../src/common/api/errors.ts';
import type { HistorySession } from '../../../../src/common/api/historyContract.ts';
import { exportCast, type ExportEvent, parseCast, PlainTextExporter } from '../../../../src/node/history/asciicast.ts';

const session: HistorySession = {
  id: 's-test',
  terminalId: 't-1',
  name: 'build',
  cwd: '/work',
  file: '/bin/bash',
  args: [],
  createdBy: { kind: 'person', name: 'you' },
  startedAt: Date.UTC(2026, 11, 2, 14, 3, 0),
  endedAt: Date.UTC(2026, 11, 2, 14, 3, 5),
  exitCode: 0,
  signal: null,
  cols: 100,
  rows: 30,
  receivedInput: true,
  byteCount: 0,
  truncated: false,
  firstOffset: 0,
  commandCount: 0,
  live: false,
  source: 'recorded',
  interrupted: false,
};

describe('asciicast export', () => {
  it('writes a v2 header and one valid event line per output and resize; replaying the output gives the bytes back', () => {
    const text = 'héllo \x1b[31mwörld\x1b[0m ✓ 🎉\r\n';
    const bytes = Buffer.from(text);
    // Chunks cut inside multi-byte characters (é, ✓, 🎉) and inside the escape sequence.
    const cuts = [2, 9, 20, bytes.indexOf(0xe2) + 1, bytes.indexOf(0xf0) + 2, bytes.length];
    const events: ExportEvent[] = [];
    let start = 0;
    for (const [index, cut] of cuts.sort((a, b) => a - b).entries()) {
      events.push({ kind: 'output', at: index * 250, bytes: bytes.subarray(start, cut) });
      start = cut;
      if (index === 2) events.push({ kind: 'resize', at: 600, cols: 120, rows: 40 });
      if (index === 3) events.push({ kind: 'input', at: 700 });
    }
    const cast = exportCast(session, events);
    assert.ok(cast.endsWith('\n'));
    const lines = cast.slice(0, -1).split('\n');
    const header = JSON.parse(lines[0]!);
    assert.deepEqual(header, {
      version: 2,
      width: 100,
      height: 30,
      timestamp: Math.floor(session.startedAt / 1000),
      duration: 5,
      command: '/bin/bash',
      title: 'build',
      env: { TERM: 'xterm-256color', SHELL: '/bin/bash' },
    });
    const parsed = lines.slice(1).map((line) => JSON.parse(line) as [number, string, string]);
    for (const event of parsed) {
      assert.equal(event.length, 3);
      assert.equal(typeof event[0], 'number');
      assert.ok(['o', 'r'].includes(event[1]), 'no input events: input content is never stored');
      assert.equal(typeof event[2], 'string');
    }
    assert.ok(parsed.every((event, index) => index === 0 || event[0] >= parsed[index - 1]![0]), 'times never go back');
    assert.deepEqual(parsed.find((event) => event[1] === 'r'), [0.6, 'r', '120x40']);
    const replayed = parsed.filter((event) => event[1] === 'o').map((event) => event[2]).join('');
    assert.deepEqual(Buffer.from(replayed), bytes);
    assert.ok(!replayed.includes('\ufffd'), 'no character was broken by a chunk boundary');

    // And it imports back as the same events.
    const reimported = parseCast(cast);
    assert.equal(reimported.header.width, 100);
    assert.deepEqual(reimported.events.filter((event) => event.kind === 'output').map((event) => (event.kind === 'output' ? event.data : '')).join(''), text);
    assert.deepEqual(reimported.events.find((event) => event.kind === 'resize'), { kind: 'resize', time: 0.6, cols: 120, rows: 40 });
  });

  it('plain text: escape sequences stripped, CR LF becomes LF, a CR goes back over the line, across chunk boundaries', () => {
    const exporter = new PlainTextExporter();
    const parts = ['\x1b[1mbold\x1b', '[0m line\r', '\nprogress 10%\rprogress 100%\r\n', '\x1b]0;title\x07done\r'];
    const text = parts.map((part) => exporter.push(Buffer.from(part))).join('') + exporter.end();
    // Each line as the screen showed it last: the progress line ends at 100%.
    assert.equal(text, 'bold line\nprogress 100%\ndone\n');
  });

  it('plain text: a prompt bash redraws at each window resize shows once', () => {
    // What bash --norc wrote (recorded from a real PTY): a typed line, two resizes, Enter, one more resize at the next prompt.
    const recorded =
      '\x1b[?2004hroot@h:/tmp$ echo hi\r\x1b[K\rroot@h:/tmp$ echo hi\r\x1b[K\rroot@h:/tmp$ echo hi\r\n\x1b[?2004l\rhi\r\n\x1b[?2004hroot@h:/tmp$ \r\x1b[K\rroot@h:/tmp$ ';
    const bytes = Buffer.from(recorded);
    // Whole, and cut at every byte (inside the escape sequences too).
    const whole = new PlainTextExporter();
    assert.equal(whole.push(bytes) + whole.end(), 'root@h:/tmp$ echo hi\nhi\nroot@h:/tmp$ ');
    for (let cut = 1; cut < bytes.length; cut++) {
      const exporter = new PlainTextExporter();
      const text = exporter.push(bytes.subarray(0, cut)) + exporter.push(bytes.subarray(cut)) + exporter.end();
      assert.equal(text, 'root@h:/tmp$ echo hi\nhi\nroot@h:/tmp$ ', `cut at ${cut}`);
    }
  });

  it('plain text: erase in line and cursor-to-column edit the line as a terminal does', () => {
    const exporter = new PlainTextExporter();
    const parts = [
      'Downloading… 35%\r\x1b[KDone\r\n', // a shorter line over a longer one, erased first
      'abcdef\x1b[3G\x1b[1KX\r\n', // ESC[3G moves to column 3, ESC[1K blanks up to it, X lands there
      'old text\x1b[2K\rnew\r\n', // ESC[2K erases the whole line
      '[  ] step\x1b[2GOK\r\n', // Node's readline.cursorTo: ESC[nG
    ];
    const text = parts.map((part) => exporter.push(Buffer.from(part))).join('') + exporter.end();
    assert.equal(text, 'Done\n  Xdef\nnew\n[OK] step\n');
  });

  it('plain text: a CR that starts a line adds no blank line (bash after each command line)', () => {
    const exporter = new PlainTextExporter();
    // What bash writes around a command: the typed line's CR LF, bracketed paste off, CR; then output.
    const parts = ['~/proj$ ls\r', '\n\x1b[?2004l\r', 'a.txt  b.txt\r\n', '\r', '~/proj$ '];
    const text = parts.map((part) => exporter.push(Buffer.from(part))).join('') + exporter.end();
    assert.equal(text, '~/proj$ ls\na.txt  b.txt\n~/proj$ ');
  });
});

describe('asciicast import validation', () => {
  const header = '{"version": 2, "width": 80, "height": 24, "timestamp": 1700000000, "title": "demo"}';
  const refused = (contents: string, message: RegExp) =>
    assert.throws(
      () => parseCast(contents),
      (error: unknown) => error instanceof ApiError && error.code === 'INVALID_PARAMS' && message.test(error.message),
      `expected ${message} for ${JSON.stringify(contents.slice(0, 80))}`,
    );

  it('accepts a valid file (blank lines, markers, input and resize events)', () => {
    const cast = parseCast(`${header}\n[0.1, "o", "hi\\r\\n"]\n\n[0.2, "i", "x"]\n[0.3, "m", "chapter"]\n[0.4, "r", "100x30"]\n`);
    assert.equal(cast.header.title, 'demo');
    assert.deepEqual(cast.events, [
      { kind: 'output', time: 0.1, data: 'hi\r\n' },
      { kind: 'input', time: 0.2 },
      { kind: 'resize', time: 0.4, cols: 100, rows: 30 },
    ]);
  });

  it('names the line at fault and what is wrong with it', () => {
    refused('', /line 1: the file is empty/);
    refused('not json\n', /line 1: not valid JSON/);
    refused('[1, "o", "x"]\n', /line 1: expected the header/);
    refused('{"version": 1, "width": 80, "height": 24}\n', /line 1: bad header: version: version must be 2/);
    refused('{"version": 2, "height": 24}\n', /line 1: bad header: width/);
    refused('{"version": 2, "width": 0, "height": 24}\n', /line 1: bad header: width: Too small/);
    refused(`${header}\n[0.5, "o", "ok"]\n[1, "o"]\n`, /line 3: expected \[time, code, data\]/);
    refused(`${header}\n{"t": 1}\n`, /line 2: expected \[time, code, data\]/);
    refused(`${header}\n["1", "o", "x"]\n`, /line 2: expected \[time, code, data\]/);
    refused(`${header}\n[-1, "o", "x"]\n`, /line 2: expected \[time, code, data\]/);
    refused(`${header}\n[1, "o", "x"]\n[2, "o", {"a": 1}]\n`, /line 3: expected \[time, code, data\]/);
    refused(`${header}\n[1, "o", "x"]\n[0.5, "o", "y"]\n`, /line 3: time 0.5 is before the previous event's \(1\)/);
    refused(`${header}\n[1, "x", "y"]\n`, /line 2: unknown event code "x"/);
    refused(`${header}\n[1, "r", "wide"]\n`, /line 2: resize data must be "COLSxROWS"/);
    refused(`${header}\n[1, "r", "5000x24"]\n`, /line 2: resize data must be "COLSxROWS"/);
    refused(`${header}\n[1, "o", "x"\n`, /line 2: not valid JSON/);
  });

  // Found by fuzzing (fuzz/boundaries/asciicast.ts): such a cast imported, and every later list of History then threw.
  it('refuses times that are no dates: a timestamp past the year 9999, an event or a duration more than 100 years after the start', () => {
    refused('{"version": 2, "width": 2, "height": 1, "timestamp": 1e16}\n[1, "o", "x"]\n', /line 1: bad header: timestamp: timestamp must be a Unix time in seconds before the year 10000/);
    refused('{"version": 2, "width": 2, "height": 1, "duration": 1e300}\n', /line 1: bad header: duration: duration must be at most 100 years/);
    refused('{"version": 2, "width": 2, "height": 1}\n[0, "o", "a"]\n[1e15, "o", "x"]\n', /line 3: time 1000000000000000 is more than 100 years \(3155760000 seconds\) after the start/);
    const latest = parseCast('{"version": 2, "width": 2, "height": 1, "timestamp": 253402300799, "duration": 3155760000}\n[3155760000, "o", "x"]\n');
    assert.deepEqual(latest.events, [{ kind: 'output', time: 3155760000, data: 'x' }], 'the bounds themselves are accepted');
  });
});
