import { describe } from 'node:test';
import { ideBridgeBoundary } from '../../fuzz/boundaries/ideBridge.ts';
import { fuzzTest } from '../../fuzz/testing.ts';

describe('fuzz: the IDE bridge', () => {
  fuzzTest(ideBridgeBoundary);
});
