import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Text } from '@codemirror/state';
import { hunkHeaderPosition } from '../../../renderer/features/workspaces/changes/gitHunkHeaders.ts';

const doc = Text.of(['a', 'b', 'c', 'd']);

describe('git hunk headers', () => {
  it('go above the first line of the hunk on each side', () => {
    assert.equal(hunkHeaderPosition(doc, { oldStart: 2, oldLines: 3, newStart: 3, newLines: 2 }, 'a'), doc.line(2).from);
    assert.equal(hunkHeaderPosition(doc, { oldStart: 2, oldLines: 3, newStart: 3, newLines: 2 }, 'b'), doc.line(3).from);
  });

  it('go to the start of an empty side (a file added or deleted whole) and never past the end', () => {
    assert.equal(hunkHeaderPosition(Text.empty, { oldStart: 0, oldLines: 0, newStart: 1, newLines: 4 }, 'a'), 0);
    assert.equal(hunkHeaderPosition(doc, { oldStart: 1, oldLines: 4, newStart: 0, newLines: 0 }, 'b'), 0);
    assert.equal(hunkHeaderPosition(doc, { oldStart: 9, oldLines: 2, newStart: 9, newLines: 2 }, 'b'), doc.length);
  });
});
