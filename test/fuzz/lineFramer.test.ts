import { describe } from 'node:test';
import { lineFramerBoundary } from '../../fuzz/boundaries/lineFramer.ts';
import { fuzzTest } from '../../fuzz/testing.ts';

describe('fuzz: the NDJSON line framer', () => {
  fuzzTest(lineFramerBoundary);
});
