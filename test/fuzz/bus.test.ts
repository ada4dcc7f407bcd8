import { describe } from 'node:test';
import { busBoundary } from '../../fuzz/boundaries/bus.ts';
import { fuzzTest } from '../../fuzz/testing.ts';

describe('fuzz: the claws/2 bus', () => {
  fuzzTest(busBoundary);
});
