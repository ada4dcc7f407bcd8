import { describe } from 'node:test';
import { controlParamsBoundary, controlSocketBoundary } from '../../fuzz/boundaries/control.ts';
import { fuzzTest } from '../../fuzz/testing.ts';

describe('fuzz: control commands', () => {
  fuzzTest(controlParamsBoundary);
  fuzzTest(controlSocketBoundary);
});
