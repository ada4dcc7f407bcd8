import { describe } from 'node:test';
import { asciicastBoundary } from '../../fuzz/boundaries/asciicast.ts';
import { fuzzTest } from '../../fuzz/testing.ts';

describe('fuzz: asciicast import', () => {
  fuzzTest(asciicastBoundary);
});
