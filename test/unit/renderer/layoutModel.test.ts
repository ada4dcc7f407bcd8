import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Layout } from '../../../src/common/api/contract.ts';
import {
  addTab,
  allTerminalIds,
  emptyLayout,
  focusTerminal,
  moveTab,
  normalizedSizes,
  pruneLayout,
  removeTerminal,
  replacePane,
  setActiveTab,
  setSplitSizes,
  splitPane,
} from '../../../renderer/features/terminals/layoutModel.ts';

/** Every layout the model produces must be one the Hub accepts. */
function valid(layout: Layout): Layout {
  const parsed = Layout.safeParse(layout);
  assert.ok(parsed.success, `layout.set would refuse: ${JSON.stringify(layout)}`);
  return layout;
}

describe('layout model', () => {
  it('opens a terminal in a new tab after the active one and focuses it', () => {
    let layout = addTab(emptyLayout, 't1', 'a');
    layout = addTab(layout, 't2', 'b');
    layout = setActiveTab(layout, 't1');
    layout = valid(addTab(layout, 't3', 'c'));
    assert.deepEqual(
      layout.tabs.map((tab) => tab.id),
      ['t1', 't3', 't2'],
    );
    assert.equal(layout.activeTabId, 't3');
    assert.equal(layout.focusedTerminalId, 'c');
  });

  it('splits right into a row and down into a column, focusing the new pane', () => {
    let layout = addTab(emptyLayout, 't1', 'a');
    layout = valid(splitPane(layout, 'a', 'b', 'right'));
    assert.deepEqual(layout.tabs[0]!.root, {
      type: 'split',
      direction: 'row',
      sizes: [50, 50],
      children: [
        { type: 'pane', terminalId: 'a' },
        { type: 'pane', terminalId: 'b' },
      ],
    });
    assert.equal(layout.focusedTerminalId, 'b');
    layout = valid(splitPane(layout, 'b', 'c', 'down'));
    assert.deepEqual(allTerminalIds(layout), ['a', 'b', 'c']);
    const root = layout.tabs[0]!.root;
    assert.ok(root.type === 'split' && root.children[1]!.type === 'split' && root.children[1]!.direction === 'column');
  });

  it('adds a sibling instead of nesting when splitting in the same direction', () => {
    let layout = addTab(emptyLayout, 't1', 'a');
    layout = splitPane(layout, 'a', 'b', 'right');
    layout = valid(splitPane(layout, 'a', 'c', 'right'));
    const root = layout.tabs[0]!.root;
    assert.ok(root.type === 'split');
    assert.deepEqual(
      root.children.map((child) => child.type === 'pane' && child.terminalId),
      ['a', 'c', 'b'],
    );
    assert.deepEqual(root.sizes, [25, 25, 50]);
  });

  it('collapses splits and tabs as panes close, moving focus to a neighbour', () => {
    let layout = addTab(emptyLayout, 't1', 'a');
    layout = splitPane(layout, 'a', 'b', 'right');
    layout = addTab(layout, 't2', 'c');
    layout = focusTerminal(layout, 'a');
    layout = valid(removeTerminal(layout, 'a'));
    assert.deepEqual(layout.tabs[0]!.root, { type: 'pane', terminalId: 'b' });
    assert.equal(layout.focusedTerminalId, 'b');
    layout = valid(removeTerminal(layout, 'b'));
    assert.deepEqual(
      layout.tabs.map((tab) => tab.id),
      ['t2'],
    );
    assert.equal(layout.activeTabId, 't2');
    assert.equal(layout.focusedTerminalId, 'c');
    layout = valid(removeTerminal(layout, 'c'));
    assert.deepEqual(layout, emptyLayout);
  });

  it('gives a closed pane its space back to its siblings in proportion', () => {
    let layout = addTab(emptyLayout, 't1', 'a');
    layout = splitPane(layout, 'a', 'b', 'right');
    layout = splitPane(layout, 'b', 'c', 'right');
    layout = setSplitSizes(layout, 't1', [], [50, 30, 20]);
    layout = valid(removeTerminal(layout, 'b'));
    const root = layout.tabs[0]!.root;
    assert.ok(root.type === 'split');
    assert.deepEqual(
      root.sizes.map((size) => Math.round(size * 100) / 100),
      [71.43, 28.57],
    );
  });

  it('prunes panes of terminals that are gone and terminals shown twice', () => {
    const stored: Layout = {
      tabs: [
        {
          id: 't1',
          root: {
            type: 'split',
            direction: 'row',
            sizes: [50, 50],
            children: [
              { type: 'pane', terminalId: 'gone' },
              { type: 'pane', terminalId: 'a' },
            ],
          },
        },
        { id: 't2', root: { type: 'pane', terminalId: 'a' } },
        { id: 't3', root: { type: 'pane', terminalId: 'b' } },
      ],
      activeTabId: 't2',
      focusedTerminalId: 'a',
    };
    const layout = valid(pruneLayout(stored, (id) => id !== 'gone'));
    assert.deepEqual(
      layout.tabs.map((tab) => tab.id),
      ['t1', 't3'],
    );
    assert.deepEqual(layout.tabs[0]!.root, { type: 'pane', terminalId: 'a' });
    assert.equal(layout.activeTabId, 't1', 'the active tab was dropped, so the first tab is active');
    assert.equal(layout.focusedTerminalId, 'a');
  });

  it('replaces a pane in place and keeps focus on it', () => {
    let layout = addTab(emptyLayout, 't1', 'a');
    layout = splitPane(layout, 'a', 'b', 'down');
    layout = valid(replacePane(layout, 'b', 'b2'));
    assert.deepEqual(allTerminalIds(layout), ['a', 'b2']);
    assert.equal(layout.focusedTerminalId, 'b2');
  });

  it('moves tabs and repairs sizes that do not fit', () => {
    let layout = addTab(emptyLayout, 't1', 'a');
    layout = addTab(layout, 't2', 'b');
    layout = addTab(layout, 't3', 'c');
    assert.deepEqual(
      moveTab(layout, 't3', 0).tabs.map((tab) => tab.id),
      ['t3', 't1', 't2'],
    );
    assert.deepEqual(normalizedSizes([1, 1], 3), [100 / 3, 100 / 3, 100 / 3]);
    assert.deepEqual(normalizedSizes([30, 10], 2), [75, 25]);
    assert.deepEqual(normalizedSizes([0, 10], 2), [50, 50]);
  });
});
