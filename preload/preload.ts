/**
 * Runs sandboxed before the renderer, with contextIsolation: exposes exactly one object,
 * `window.switchboard`, and nothing of Electron or Node.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { BridgeChannels, type SwitchboardBridge } from '../src/common/api/bridge.ts';
import type { CallOutcome } from '../src/common/api/wire.ts';

const callChannel = BridgeChannels.call;
const eventChannel = BridgeChannels.event;

const bridge: SwitchboardBridge = {
  call(method: string, params: unknown): Promise<CallOutcome> {
    return ipcRenderer.invoke(callChannel, String(method), params) as Promise<CallOutcome>;
  },
  onEvent(listener: (event: string, payload: unknown) => void): () => void {
    const handler = (_event: IpcRendererEvent, name: string, payload: unknown) => listener(name, payload);
    ipcRenderer.on(eventChannel, handler);
    return () => {
      ipcRenderer.removeListener(eventChannel, handler);
    };
  },
};

contextBridge.exposeInMainWorld('switchboard', bridge);
