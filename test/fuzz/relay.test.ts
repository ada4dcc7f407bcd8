import { describe } from 'node:test';
import { relayBinaryFramesBoundary, relayEnvelopeBoundary, relayMessagesBoundary } from '../../fuzz/boundaries/relay.ts';
import { fuzzTest } from '../../fuzz/testing.ts';

describe('fuzz: the relay link', () => {
  fuzzTest(relayEnvelopeBoundary);
  fuzzTest(relayMessagesBoundary);
  fuzzTest(relayBinaryFramesBoundary);
});
