import { describe } from 'node:test';
import { oscBoundary, utf8BatcherBoundary } from '../../fuzz/boundaries/terminalStream.ts';
import { fuzzTest } from '../../fuzz/testing.ts';

describe('fuzz: reading terminal output', () => {
  fuzzTest(oscBoundary);
  fuzzTest(utf8BatcherBoundary);
});
