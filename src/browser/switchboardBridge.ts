/** Declares `window.switchboard`, which exists only inside the Electron app (see preload/). */
import type { SwitchboardBridge } from '../common/api/bridge.ts';

export type { SwitchboardBridge };

declare global {
  interface Window {
    /** Present only inside the Electron app. */
    readonly switchboard?: SwitchboardBridge;
  }
}
