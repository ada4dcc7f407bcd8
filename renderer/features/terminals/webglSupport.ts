/**
 * Whether xterm's WebGL renderer is worth using here. Without a GPU, Chromium still offers WebGL
 * through a software rasteriser (SwiftShader, llvmpipe); xterm's DOM renderer is faster than
 * that, so WebGL is only used on real hardware. Probed once, with a context that is released at
 * once so it does not count against Chromium's per-page context limit.
 */
let cached: boolean | undefined;

const softwareRenderers = /swiftshader|llvmpipe|softpipe|software|basic render/i;

export function hasHardwareWebgl(): boolean {
  if (cached !== undefined) return cached;
  cached = false;
  try {
    const canvas = document.createElement('canvas');
    const gl = canvas.getContext('webgl2');
    if (!gl) return cached;
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    const renderer = info ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : String(gl.getParameter(gl.RENDERER));
    cached = !softwareRenderers.test(renderer);
    gl.getExtension('WEBGL_lose_context')?.loseContext();
  } catch (error) {
    console.info('[switchboard] WebGL probe failed; using the DOM renderer:', error);
  }
  return cached;
}
