import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { importFileSizeProblem, importLimitBytes, importSizeProblem } from '../../../renderer/features/history/fileTransfer.ts';
import { historyMethods } from '../../../src/common/api/historyContract.ts';
import { countLineFeeds, decodeBase64, eventsBeforeOffset, toTranscriptEvents, totalOutputBytes } from '../../../renderer/features/history/transcript.ts';
import { AppConstants } from '../../../src/common/constants.ts';

describe('history transcript', () => {
  it('decodes output to the exact bytes, also bytes that are not UTF-8 on their own', () => {
    const bytes = Uint8Array.from([0x00, 0x1b, 0x5b, 0xc3, 0xff, 0x80, 0x0a]);
    assert.deepEqual(decodeBase64(Buffer.from(bytes).toString('base64')), bytes);
  });

  it('keeps a UTF-8 sequence split across two chunks as bytes, so a streaming decoder joins it', () => {
    const text = 'é ✓';
    const encoded = new TextEncoder().encode(text);
    // Cut inside the 3-byte check mark.
    const first = encoded.slice(0, 4);
    const second = encoded.slice(4);
    const events = toTranscriptEvents([
      { kind: 'output', seq: 0, at: 0, offset: 0, data: Buffer.from(first).toString('base64') },
      { kind: 'output', seq: 1, at: 5, offset: 4, data: Buffer.from(second).toString('base64') },
    ]);
    const decoder = new TextDecoder();
    const joined = events.map((event) => (event.kind === 'output' ? decoder.decode(event.bytes, { stream: true }) : '')).join('') + decoder.decode();
    assert.equal(joined, text);
  });

  it('keeps output and resizes in order and leaves typed input out (its echo is in the output)', () => {
    const events = toTranscriptEvents([
      { kind: 'output', seq: 0, at: 0, offset: 0, data: Buffer.from('$ ').toString('base64') },
      { kind: 'input', seq: 1, at: 10, offset: 2, data: Buffer.from('ls\r').toString('base64') },
      { kind: 'resize', seq: 2, at: 20, offset: 2, cols: 100, rows: 30 },
      { kind: 'output', seq: 3, at: 30, offset: 2, data: Buffer.from('ls\r\na\nb\n').toString('base64') },
    ]);
    assert.deepEqual(
      events.map((event) => event.kind),
      ['output', 'resize', 'output'],
    );
    assert.equal(countLineFeeds(events), 3);
    assert.equal(totalOutputBytes(events), 10);
  });

  it('counts the events that end before a byte offset (where a search hit starts)', () => {
    const events = toTranscriptEvents([
      { kind: 'output', seq: 0, at: 0, offset: 0, data: Buffer.from('aaaa').toString('base64') },
      { kind: 'resize', seq: 1, at: 1, offset: 4, cols: 90, rows: 20 },
      { kind: 'output', seq: 2, at: 2, offset: 4, data: Buffer.from('bbbb').toString('base64') },
      { kind: 'output', seq: 3, at: 3, offset: 8, data: Buffer.from('cccc').toString('base64') },
    ]);
    assert.equal(eventsBeforeOffset(events, 0), 0);
    assert.equal(eventsBeforeOffset(events, 3), 0, 'a hit inside the first chunk: nothing before it');
    assert.equal(eventsBeforeOffset(events, 4), 2, 'the resize at the boundary comes first');
    assert.equal(eventsBeforeOffset(events, 9), 3);
    assert.equal(eventsBeforeOffset(events, 100), 4);
  });
});

describe('history import size', () => {
  it('refuses, in browser mode only, a file too large for one WebSocket message', () => {
    const small = '{"version": 2}\n';
    assert.equal(importSizeProblem('browser', 'a.cast', small), null);
    const large = 'x'.repeat(AppConstants.maxWebSocketMessageBytes);
    const limitMiB = (AppConstants.maxWebSocketMessageBytes / 1024 / 1024).toFixed(1).replace('.', '\\.');
    assert.match(importSizeProblem('browser', 'big.cast', large) ?? '', new RegExp(`^big\\.cast is too large to import in browser mode \\(${limitMiB} MiB; the limit is ${limitMiB} MiB\\)`));
    assert.equal(importSizeProblem('electron', 'big.cast', large), null);
  });

  it('refuses a file by its size before it is read: the WebSocket cap in browser mode, the contract\'s cap in Electron', () => {
    const socketLimit = AppConstants.maxWebSocketMessageBytes;
    const contractLimit = historyMethods['history.import'].params.shape.contents.maxLength!;
    assert.equal(contractLimit, 256 * 1024 * 1024);
    assert.equal(importLimitBytes('browser'), socketLimit);
    assert.equal(importLimitBytes('electron'), contractLimit);
    assert.equal(importFileSizeProblem('browser', 'a.cast', socketLimit), null);
    assert.match(importFileSizeProblem('browser', 'a.cast', socketLimit + 1) ?? '', /^a\.cast is too large to import in browser mode .*desktop app/);
    assert.equal(importFileSizeProblem('electron', 'a.cast', socketLimit + 1), null);
    assert.equal(importFileSizeProblem('electron', 'a.cast', contractLimit), null);
    assert.equal(importFileSizeProblem('electron', 'huge.cast', 4 * 1024 ** 3), 'huge.cast is too large to import (4096.0 MiB; the limit is 256.0 MiB).');
  });

  it('counts the JSON escapes and UTF-8 bytes the request will really take', () => {
    // Each newline travels as "\n" (2 bytes), each é as 2 UTF-8 bytes.
    const quarter = Math.ceil(AppConstants.maxWebSocketMessageBytes / 4);
    assert.notEqual(importSizeProblem('browser', 'n.cast', '\n'.repeat(quarter * 3)), null);
    assert.equal(importSizeProblem('browser', 'n.cast', 'a'.repeat(quarter * 3)), null);
  });
});
