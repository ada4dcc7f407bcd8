/** Every fuzzed boundary, in the order `npm run fuzz` runs them (cheap ones first). */
import type { FuzzBoundary } from '../boundary.ts';
import { agentScreensBoundary } from './agentScreens.ts';
import { asciicastBoundary } from './asciicast.ts';
import { busBoundary } from './bus.ts';
import { controlParamsBoundary, controlSocketBoundary } from './control.ts';
import { controlTerminalBoundary } from './controlTerminal.ts';
import { ideBridgeBoundary } from './ideBridge.ts';
import { lineFramerBoundary } from './lineFramer.ts';
import { relayBinaryFramesBoundary, relayEnvelopeBoundary, relayMessagesBoundary } from './relay.ts';
import { oscBoundary, utf8BatcherBoundary } from './terminalStream.ts';

export const boundaries: readonly FuzzBoundary[] = [
  lineFramerBoundary,
  oscBoundary,
  utf8BatcherBoundary,
  relayEnvelopeBoundary,
  relayMessagesBoundary,
  relayBinaryFramesBoundary,
  controlParamsBoundary,
  asciicastBoundary,
  agentScreensBoundary,
  busBoundary,
  controlSocketBoundary,
  controlTerminalBoundary,
  ideBridgeBoundary,
];
