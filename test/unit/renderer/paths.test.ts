import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compactPath, expandHome, shortenPath } from '../../../renderer/app/paths.ts';

describe('renderer paths', () => {
  it('shows the home directory as ~ and only at a path boundary', () => {
    assert.equal(shortenPath('/home/ada/src/app', '/home/ada'), '~/src/app');
    assert.equal(shortenPath('/home/ada', '/home/ada/'), '~');
    assert.equal(shortenPath('/home/adam/src', '/home/ada'), '/home/adam/src');
    assert.equal(shortenPath('/srv', undefined), '/srv');
  });

  it('expands a typed ~ and leaves other paths alone', () => {
    assert.equal(expandHome('~/src', '/home/ada'), '/home/ada/src');
    assert.equal(expandHome('~', '/home/ada'), '/home/ada');
    assert.equal(expandHome('~bob/src', '/home/ada'), '~bob/src');
    assert.equal(expandHome('/tmp', '/home/ada'), '/tmp');
  });

  it('compacts long paths from the left, keeping the last folders', () => {
    assert.equal(compactPath('~/src/app', 30), '~/src/app');
    assert.equal(compactPath('/very/long/path/to/the/project/src', 20), '…/to/the/project/src');
    assert.equal(compactPath('/a/extraordinarily-long-folder-name', 10), '…/extraordinarily-long-folder-name');
  });
});
