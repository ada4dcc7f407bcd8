import type { Settings } from '../../../src/common/api/contract.ts';

/**
 * Whether xterm's WebGL renderer is worth using here (the `gpuAcceleration` setting). Without a
 * GPU, Chromium still offers WebGL through a software rasteriser (SwiftShader, llvmpipe); xterm's
 * DOM renderer is faster than that, so `auto` uses WebGL only on real hardware. Probed once, with
 * a context that is released at once so it does not count against Chromium's per-page limit.
 *
 * The answer is kept for the window's session (sessionStorage), so a reload does not probe
 * again: creating the context took 9–26 ms of every reload without a GPU. A context lost for real
 * (the GPU reset, a driver update) forgets it, and the next load probes afresh.
 */
type ProbeResult = { webgl2: boolean; hardware: boolean };

let cached: ProbeResult | undefined;

const softwareRenderers = /swiftshader|llvmpipe|softpipe|software|basic render/i;
const probeKey = 'switchboard.webglProbe';

function remembered(): ProbeResult | undefined {
  try {
    const value: unknown = JSON.parse(sessionStorage.getItem(probeKey) ?? 'null');
    if (typeof value !== 'object' || value === null) return undefined;
    const { webgl2, hardware } = value as Record<string, unknown>;
    return typeof webgl2 === 'boolean' && typeof hardware === 'boolean' ? { webgl2, hardware } : undefined;
  } catch {
    return undefined; // storage unavailable or garbled: probe
  }
}

function probe(): ProbeResult {
  cached ??= remembered();
  if (cached !== undefined) return cached;
  cached = { webgl2: false, hardware: false };
  try {
    const canvas = document.createElement('canvas');
    const gl = canvas.getContext('webgl2');
    if (!gl) return cached;
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    const renderer = info ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : String(gl.getParameter(gl.RENDERER));
    cached = { webgl2: true, hardware: !softwareRenderers.test(renderer) };
    gl.getExtension('WEBGL_lose_context')?.loseContext();
  } catch (error) {
    console.info('[switchboard] WebGL probe failed; using the DOM renderer:', error);
    return cached;
  }
  try {
    sessionStorage.setItem(probeKey, JSON.stringify(cached));
  } catch {
    // Storage unavailable: the next load probes again.
  }
  return cached;
}

/** A pane's WebGL context was lost (not released by us): what the probe found may no longer hold. */
export function forgetWebglProbe(): void {
  try {
    sessionStorage.removeItem(probeKey);
  } catch {
    // Storage unavailable: nothing was kept.
  }
}

/** Whether panes use WebGL at all with this setting, here. */
export function webglWanted(mode: Settings['gpuAcceleration']): boolean {
  if (mode === 'off') return false;
  const found = probe();
  return mode === 'on' ? found.webgl2 : found.hardware;
}
