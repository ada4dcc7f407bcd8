/** The daemon's reading of a viewer's answer to an agent's question (src/node/relay/agentPrompts.ts). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { optionOf } from '../../../../src/node/relay/agentPrompts.ts';

describe('optionOf (the daemon reading a questionResponse)', () => {
  const labels = ['Yes, set auto mode', 'No, keep manual mode'];
  it('takes a label exactly, loosely, by number, or numbered', () => {
    assert.equal(optionOf(labels, 'No, keep manual mode'), 2);
    assert.equal(optionOf(labels, '  no,  KEEP manual mode '), 2);
    assert.equal(optionOf(labels, '1'), 1);
    assert.equal(optionOf(labels, '2. No, keep manual mode'), 2);
  });
  it('refuses anything else', () => {
    assert.equal(optionOf(labels, '3'), undefined);
    assert.equal(optionOf(labels, '0'), undefined);
    assert.equal(optionOf(labels, '1. No, keep manual mode'), undefined, 'a number and another option’s label');
    assert.equal(optionOf(labels, 'maybe'), undefined);
  });
});
