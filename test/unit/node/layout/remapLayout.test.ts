import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Layout } from '../../../../src/common/api/contract.ts';
import { remapLayout, restoredBanner } from '../../../../src/node/layout/sessionRestore.ts';

const layout: Layout = {
  tabs: [
    {
      id: 'a',
      root: {
        type: 'split',
        direction: 'row',
        sizes: [20, 30, 50],
        children: [
          { type: 'pane', terminalId: 'old-1' },
          { type: 'split', direction: 'column', sizes: [50, 50], children: [{ type: 'pane', terminalId: 'old-2' }, { type: 'pane', terminalId: 'old-3' }] },
          { type: 'pane', terminalId: 'old-4' },
        ],
      },
    },
    { id: 'b', root: { type: 'pane', terminalId: 'old-5' } },
  ],
  activeTabId: 'b',
  focusedTerminalId: 'old-5',
};

describe('remapLayout', () => {
  it('replaces every id and keeps the structure when all panes came back', () => {
    const ids = new Map(['old-1', 'old-2', 'old-3', 'old-4', 'old-5'].map((id) => [id, id.replace('old', 'new')]));
    assert.equal(JSON.stringify(remapLayout(layout, ids)), JSON.stringify(layout).replaceAll('old-', 'new-'));
  });

  it('drops panes that did not come back, collapses one-child splits and shares the space evenly', () => {
    const ids = new Map([['old-1', 'n1'], ['old-2', 'n2'], ['old-4', 'n4']]);
    const result = remapLayout(layout, ids);
    assert.deepEqual(result, {
      tabs: [
        {
          id: 'a',
          root: {
            type: 'split',
            direction: 'row',
            sizes: [20, 30, 50],
            children: [{ type: 'pane', terminalId: 'n1' }, { type: 'pane', terminalId: 'n2' }, { type: 'pane', terminalId: 'n4' }],
          },
        },
      ],
      activeTabId: 'a',
      focusedTerminalId: null,
    });
    const two = remapLayout(layout, new Map([['old-1', 'n1'], ['old-4', 'n4']]));
    assert.deepEqual(two?.tabs[0]?.root, { type: 'split', direction: 'row', sizes: [50, 50], children: [{ type: 'pane', terminalId: 'n1' }, { type: 'pane', terminalId: 'n4' }] });
  });

  it('gives null when nothing came back', () => {
    assert.equal(remapLayout(layout, new Map()), null);
  });
});

describe('restoredBanner', () => {
  it('says when the old session ended, or that nothing was recorded', () => {
    assert.match(restoredBanner({ sessionId: 's1', endedAt: new Date(2026, 11, 2, 9, 5).getTime() }), /restored · ended 2026-12-02 09:05/);
    assert.match(restoredBanner({ sessionId: null, endedAt: null }), /nothing of the previous session was recorded/);
  });
});
