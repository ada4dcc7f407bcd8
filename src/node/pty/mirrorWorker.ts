/**
 * Worker thread that runs the headless mirrors of every terminal of a PtyHost, so that parsing
 * output (the expensive part of the pipeline) runs beside the thread reading the PTYs instead of
 * on it — and never blocks the Hub (in Electron, the main process). Requests are handled in
 * the order they were posted, which keeps writes, resizes and snapshot markers in stream order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type MirrorRing, mirrorBatchDelayMs, MirrorRingReader } from './mirrorChannel.ts';
import { collectAfterReleaseMs, type MirrorRequest, type MirrorResponse } from './mirrorProtocol.ts';
import { createLocalMirror, type LazyMirror, quietMs } from './lazyMirror.ts';
import { mirrorWorkerNice, lowerThreadPriority } from '../threadPriority.ts';
import { collectWhenIdle, collectSoon } from '../idleCollector.ts';

if (!parentPort) throw new Error('mirrorWorker.ts must run as a worker thread');
const port = parentPort;
// Parsing may lag (flow control bounds it); reading the PTYs and the programs writing to them
// should not wait for it — but screen reads and snapshots must not either (threadPriority.ts).
lowerThreadPriority(mirrorWorkerNice);
const ring = new MirrorRingReader((workerData as { ring: MirrorRing }).ring);
const mirrors = new Map<number, LazyMirror>();
// A closed terminal's mirror leaves its scrollback behind as garbage (10–20 MB for a full one),
// and with every terminal quiet this thread allocates nothing that would make V8 collect it.
collectWhenIdle(collectAfterReleaseMs);

function send(response: MirrorResponse): void {
  port.postMessage(response);
}

function fail(requestId: number, error: unknown): void {
  send({ type: 'failed', requestId, message: error instanceof Error ? error.message : String(error) });
}

port.on('message', (request: MirrorRequest) => {
  switch (request.type) {
    case 'create': {
      const { mirrorId } = request;
      mirrors.set(
        mirrorId,
        createLocalMirror({
          cols: request.cols,
          rows: request.rows,
          scrollback: request.scrollback,
          // Output comes in channel batches up to mirrorBatchDelayMs apart: a gap that short is a
          // stream, not a pause. (Shorter, every batch of a flood slower than a batch per delay
          // looked like the end of output, and each such pause parsed a scrollback's worth of it.)
          quietMs: mirrorBatchDelayMs + quietMs,
          onParsed: (chars) => send({ type: 'parsed', mirrorId, chars }),
        }),
      );
      return;
    }
    case 'write':
      // The mirror copies what it keeps, so the ring's bytes can be released at once.
      mirrors.get(request.mirrorId)?.write(ring.view(request.start, request.length), request.chars);
      ring.release(request.start + request.length);
      return;
    case 'writeCopy':
      mirrors.get(request.mirrorId)?.write(request.bytes, request.chars);
      return;
    case 'resize':
      mirrors.get(request.mirrorId)?.resize(request.cols, request.rows);
      return;
    case 'snapshot': {
      const mirror = mirrors.get(request.mirrorId);
      if (!mirror) return fail(request.requestId, new Error('no such mirror'));
      const options = request.scrollback === undefined ? {} : { scrollback: request.scrollback };
      mirror.snapshot(options).then(
        (snapshot) => send({ type: 'snapshot', requestId: request.requestId, snapshot }),
        (error: unknown) => fail(request.requestId, error),
      );
      return;
    }
    case 'readText': {
      const mirror = mirrors.get(request.mirrorId);
      if (!mirror) return fail(request.requestId, new Error('no such mirror'));
      mirror.readText({ scrollback: request.scrollback }).then(
        (text) => send({ type: 'text', requestId: request.requestId, text }),
        (error: unknown) => fail(request.requestId, error),
      );
      return;
    }
    case 'dispose':
      mirrors.get(request.mirrorId)?.dispose();
      mirrors.delete(request.mirrorId);
      collectSoon();
      return;
  }
});
