import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Layout } from '../../../src/common/api/contract.ts';
import { UnsavedLayout } from '../../../renderer/app/unsavedLayout.ts';

const onePane: Layout = { tabs: [{ id: 'tab-1', root: { type: 'pane', terminalId: 't-a' } }], activeTabId: 'tab-1', focusedTerminalId: 't-a' };
const split: Layout = {
  tabs: [
    {
      id: 'tab-1',
      root: {
        type: 'split',
        direction: 'row',
        sizes: [50, 50],
        children: [
          { type: 'pane', terminalId: 't-a' },
          { type: 'pane', terminalId: 't-b' },
        ],
      },
    },
  ],
  activeTabId: 'tab-1',
  focusedTerminalId: 't-b',
};
const otherWindows: Layout = { tabs: [{ id: 'tab-9', root: { type: 'pane', terminalId: 't-z' } }], activeTabId: 'tab-9', focusedTerminalId: 't-z' };

describe('a layout change the Hub has not confirmed', () => {
  it('is taken by the next connection when the Hub still holds the layout it was made on', () => {
    const unsaved = new UnsavedLayout();
    unsaved.noteHubHolds(onePane);
    unsaved.noteChanged(split);
    assert.deepEqual(unsaved.takeIfHubHolds(onePane), split);
    assert.equal(unsaved.takeIfHubHolds(onePane), undefined, 'taken once');
  });

  it('is nothing once the Hub confirmed it', () => {
    const unsaved = new UnsavedLayout();
    unsaved.noteHubHolds(onePane);
    unsaved.noteChanged(split);
    unsaved.noteHubHolds(split);
    assert.equal(unsaved.takeIfHubHolds(split), undefined);
  });

  it('stays when an older save is confirmed after it was made', () => {
    const unsaved = new UnsavedLayout();
    unsaved.noteHubHolds(null);
    unsaved.noteChanged(onePane);
    unsaved.noteChanged(split);
    unsaved.noteHubHolds(onePane);
    assert.deepEqual(unsaved.takeIfHubHolds(onePane), split);
  });

  it('gives way to a layout the Hub got from elsewhere meanwhile (another window, a restarted Hub)', () => {
    const unsaved = new UnsavedLayout();
    unsaved.noteHubHolds(onePane);
    unsaved.noteChanged(split);
    assert.equal(unsaved.takeIfHubHolds(otherWindows), undefined);
    assert.equal(unsaved.takeIfHubHolds(onePane), undefined, 'and is dropped');
  });

  it('is nothing on a first start', () => {
    assert.equal(new UnsavedLayout().takeIfHubHolds(null), undefined);
  });
});
