import { describe } from 'node:test';
import { agentScreensBoundary } from '../../fuzz/boundaries/agentScreens.ts';
import { fuzzTest } from '../../fuzz/testing.ts';

describe('fuzz: agent screens', () => {
  fuzzTest(agentScreensBoundary);
});
