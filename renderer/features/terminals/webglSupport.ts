import type { Settings } from '../../../src/common/api/contract.ts';

/**
 * Whether xterm's WebGL renderer is worth using here (the `gpuAcceleration` setting). Without a
 * GPU, Chromium still offers WebGL through a software rasteriser (SwiftShader, llvmpipe); xterm's
 * DOM renderer is faster than that, so `auto` uses WebGL only on real hardware. Probed once, with
 * a context that is released at once so it does not count against Chromium's per-page limit.
 */
let cached: { webgl2: boolean; hardware: boolean } | undefined;

const softwareRenderers = /swiftshader|llvmpipe|softpipe|software|basic render/i;

function probe(): { webgl2: boolean; hardware: boolean } {
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
  }
  return cached;
}

/** Whether panes use WebGL at all with this setting, here. */
export function webglWanted(mode: Settings['gpuAcceleration']): boolean {
  if (mode === 'off') return false;
  const found = probe();
  return mode === 'on' ? found.webgl2 : found.hardware;
}
