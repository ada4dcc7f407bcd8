import { describe } from 'node:test';
import { controlTerminalBoundary } from '../../fuzz/boundaries/controlTerminal.ts';
import { fuzzTest } from '../../fuzz/testing.ts';

describe('fuzz: terminal commands on a live terminal', () => {
  fuzzTest(controlTerminalBoundary, { timeoutMs: 120_000 });
});
