import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  CreateTerminalParams,
  defaultSettings,
  hubEvents,
  hubMethods,
  isHubMethod,
  Layout,
  Settings,
} from '../../../../src/common/api/contract.ts';

function issues(result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }): string[] {
  assert.equal(result.success, false, 'expected the schema to refuse the input');
  return result.error!.issues.map((issue) => `${issue.path.map(String).join('.')}: ${issue.message}`);
}

describe('contract: terminal.create params', () => {
  it('accepts an empty object and a full one', () => {
    assert.ok(CreateTerminalParams.safeParse({}).success);
    const full = { file: 'bash', args: ['--norc'], cwd: '/tmp', env: { A: 'b' }, cols: 80, rows: 24, name: 'x', shellIntegration: false };
    assert.deepEqual(CreateTerminalParams.parse(full), full);
  });

  it('refuses unknown keys, so typos are not silently ignored', () => {
    assert.deepEqual(issues(CreateTerminalParams.safeParse({ colz: 80 })), [': Unrecognized key: "colz"']);
  });

  it('refuses sizes outside the bounds with the bound in the message', () => {
    assert.deepEqual(issues(CreateTerminalParams.safeParse({ cols: 0 })), ['cols: Too small: expected number to be >=2']);
    assert.deepEqual(issues(CreateTerminalParams.safeParse({ rows: 501 })), ['rows: Too big: expected number to be <=500']);
    assert.deepEqual(issues(CreateTerminalParams.safeParse({ cols: 80.5 })), ['cols: Invalid input: expected int, received number']);
  });

  it('refuses env values that are not strings', () => {
    assert.deepEqual(issues(CreateTerminalParams.safeParse({ env: { A: 1 } })), ['env.A: Invalid input: expected string, received number']);
  });
});

describe('contract: method params', () => {
  it('refuses a bad terminal id', () => {
    assert.deepEqual(issues(hubMethods['terminal.write'].params.safeParse({ id: 'a b', data: 'x' })), ['id: terminal ids are [A-Za-z0-9_.-]']);
    assert.deepEqual(issues(hubMethods['terminal.close'].params.safeParse({ id: '' })), [
      'id: Too small: expected string to have >=1 characters',
      'id: terminal ids are [A-Za-z0-9_.-]',
    ]);
  });

  it('refuses a 0x0 resize', () => {
    assert.deepEqual(issues(hubMethods['terminal.resize'].params.safeParse({ id: 't1', cols: 0, rows: 0 })), [
      'cols: Too small: expected number to be >=2',
      'rows: Too small: expected number to be >=1',
    ]);
  });

  it('caps the size of a single write', () => {
    const big = 'x'.repeat(1024 * 1024 + 1);
    assert.match(issues(hubMethods['terminal.write'].params.safeParse({ id: 't1', data: big }))[0]!, /^data: Too big/);
  });

  it('takes parameterless methods as {} only', () => {
    assert.ok(hubMethods['terminal.list'].params.safeParse({}).success);
    assert.deepEqual(issues(hubMethods['app.getState'].params.safeParse({ x: 1 })), [': Unrecognized key: "x"']);
  });

  it('knows its method names and nothing inherited from Object', () => {
    assert.ok(isHubMethod('terminal.create'));
    assert.ok(!isHubMethod('toString'));
    assert.ok(!isHubMethod('terminal.nope'));
  });

  it('has a payload schema for every event', () => {
    for (const [name, schema] of Object.entries(hubEvents)) assert.equal(typeof schema.safeParse, 'function', name);
    assert.ok(hubEvents['terminal.output'].safeParse({ id: 't1', data: 'hi', offset: 2 }).success);
    assert.deepEqual(issues(hubEvents['terminal.output'].safeParse({ id: 't1', data: 'hi', offset: -1 })), ['offset: Too small: expected number to be >=0']);
  });
});

describe('contract: settings', () => {
  it('accepts the defaults', () => {
    assert.deepEqual(Settings.parse(defaultSettings), defaultSettings);
  });

  it('accepts a partial update and refuses unknown or out-of-range keys', () => {
    const update = hubMethods['settings.update'].params;
    assert.deepEqual(update.parse({ fontSize: 14 }), { fontSize: 14 });
    assert.deepEqual(issues(update.safeParse({ fontSize: 2 })), ['fontSize: Too small: expected number to be >=6']);
    assert.deepEqual(issues(update.safeParse({ theme: 'pink' })), ['theme: Invalid option: expected one of "system"|"dark"|"light"']);
    assert.deepEqual(issues(update.safeParse({ colour: 'x' })), [': Unrecognized key: "colour"']);
  });
});

describe('contract: layout', () => {
  it('accepts nested splits', () => {
    const layout = {
      tabs: [
        {
          id: 'tab1',
          root: { type: 'split', direction: 'row', sizes: [50, 50], children: [{ type: 'pane', terminalId: 't1' }, { type: 'pane', terminalId: 't2' }] },
        },
      ],
      activeTabId: 'tab1',
      focusedTerminalId: 't2',
    };
    assert.deepEqual(Layout.parse(layout), layout);
  });

  it('refuses an empty split and a pane with a bad id', () => {
    const emptySplit = { tabs: [{ id: 'a', root: { type: 'split', direction: 'row', sizes: [], children: [] } }], activeTabId: null, focusedTerminalId: null };
    assert.equal(Layout.safeParse(emptySplit).success, false);
    const badPane = { tabs: [{ id: 'a', root: { type: 'pane', terminalId: '../x y' } }], activeTabId: null, focusedTerminalId: null };
    assert.equal(Layout.safeParse(badPane).success, false);
  });
});
