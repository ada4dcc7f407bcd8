import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../../src/common/api/errors.ts';
import { HubConnection, type HubMethodHandlers } from '../../../../src/node/api/hubConnection.ts';
import { createLogger } from '../../../../src/node/logger.ts';

/** Handlers for the tests: only a few methods do something; the rest are never reached. */
function handlers(overrides: Partial<Record<keyof HubMethodHandlers, (...args: any[]) => unknown>>): HubMethodHandlers {
  const unreachable = () => {
    throw new Error('not part of this test');
  };
  return new Proxy({} as HubMethodHandlers, { get: (_target, name: string) => (overrides as any)[name] ?? unreachable });
}

function connection(overrides: Parameters<typeof handlers>[0], sendEvent: (event: string, payload: unknown) => void = () => {}) {
  const logs: string[] = [];
  const logger = createLogger({ level: 'debug', sink: (line) => logs.push(line) });
  return { connection: new HubConnection({ id: 7, peer: { kind: 'person', name: 'p' }, sink: { sendEvent }, handlers: handlers(overrides), logger }), logs };
}

describe('HubConnection', () => {
  it('validates before running: the handler never sees bad params', async () => {
    let calls = 0;
    const { connection: c } = connection({ 'terminal.resize': () => (calls++, { ok: true }) });
    const outcome = await c.call('terminal.resize', { id: 't', cols: 1, rows: 1 });
    assert.deepEqual(outcome, { ok: false, error: { code: 'INVALID_PARAMS', message: 'terminal.resize: cols: Too small: expected number to be >=2' } });
    assert.equal(calls, 0);
    assert.deepEqual(await c.call('terminal.resize', { id: 't', cols: 2, rows: 1 }), { ok: true, result: { ok: true } });
    assert.equal(calls, 1);
  });

  it('refuses a hostile 20 000-level layout with INVALID_PARAMS instead of overflowing the stack', async () => {
    let calls = 0;
    const { connection: c } = connection({ 'layout.set': () => (calls++, { ok: true }) });
    let root: unknown = { type: 'pane', terminalId: 't1' };
    for (let level = 0; level < 20_000; level++) root = { type: 'split', direction: 'row', sizes: [100], children: [root] };
    const outcome = await c.call('layout.set', { tabs: [{ id: 'a', root }], activeTabId: 'a', focusedTerminalId: null });
    assert.deepEqual(outcome, { ok: false, error: { code: 'INVALID_PARAMS', message: 'layout.set: params nest deeper than 64 levels' } });
    assert.equal(calls, 0);
    // A normal nested layout still passes.
    const nested = { type: 'split', direction: 'row', sizes: [50, 50], children: [{ type: 'pane', terminalId: 't1' }, { type: 'split', direction: 'column', sizes: [50, 50], children: [{ type: 'pane', terminalId: 't2' }, { type: 'pane', terminalId: 't3' }] }] };
    assert.deepEqual(await c.call('layout.set', { tabs: [{ id: 'a', root: nested }], activeTabId: 'a', focusedTerminalId: 't2' }), { ok: true, result: { ok: true } });
  });

  it('treats missing params of a parameterless method as {}', async () => {
    const { connection: c } = connection({ 'terminal.list': () => [] });
    assert.deepEqual(await c.call('terminal.list', undefined), { ok: true, result: [] });
  });

  it('answers unknown methods, including Object.prototype names, with UNKNOWN_METHOD', async () => {
    const { connection: c } = connection({});
    for (const method of ['nope', 'constructor', 'toString', '__proto__', 42 as unknown as string]) {
      const outcome = await c.call(method, {});
      assert.equal(outcome.ok, false);
      assert.equal((outcome as { error: { code: string } }).error.code, 'UNKNOWN_METHOD', String(method));
    }
  });

  it('passes ApiErrors through and turns anything else into a logged INTERNAL without the details', async () => {
    const { connection: c, logs } = connection({
      'terminal.close': () => {
        throw new ApiError('NOT_FOUND', 'no terminal with id x');
      },
      'terminal.markSeen': async () => {
        throw new TypeError('secret internals');
      },
    });
    assert.deepEqual(await c.call('terminal.close', { id: 'x' }), { ok: false, error: { code: 'NOT_FOUND', message: 'no terminal with id x' } });
    const internal = await c.call('terminal.markSeen', { id: 'x' });
    assert.deepEqual(internal, { ok: false, error: { code: 'INTERNAL', message: 'internal error in terminal.markSeen' } });
    assert.match(logs.join('\n'), /ERROR .*unexpected failure in a hub method.*secret internals/);
  });

  it('owns attachments: replacing releases the old one, dispose releases all, late ones are released at once', async () => {
    const { connection: c } = connection({});
    const released: string[] = [];
    const attachment = (name: string) => ({ ack() {}, dispose: () => released.push(name) });
    c.setAttachment('t1', attachment('a'));
    c.setAttachment('t1', attachment('b'));
    c.setAttachment('t2', attachment('c'));
    assert.deepEqual(released, ['a']);
    assert.equal(c.releaseAttachment('t2'), true);
    assert.equal(c.releaseAttachment('t2'), false);
    c.dispose();
    assert.deepEqual(released, ['a', 'c', 'b']);
    assert.throws(() => c.setAttachment('t3', attachment('late')), (error: unknown) => error instanceof ApiError && error.code === 'CONNECTION_CLOSED');
    assert.deepEqual(released, ['a', 'c', 'b', 'late']);
    assert.deepEqual(await c.call('terminal.list', {}), { ok: false, error: { code: 'CONNECTION_CLOSED', message: 'the connection to the Hub is closed' } });
  });

  it('contains a throwing event sink', () => {
    const { connection: c, logs } = connection({}, () => {
      throw new Error('socket gone');
    });
    c.sendEvent('terminal.removed', { id: 'x' });
    assert.match(logs.join('\n'), /failed to deliver an event/);
  });
});
