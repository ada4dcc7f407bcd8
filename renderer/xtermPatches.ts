/**
 * Fixes to xterm.js applied while the renderer is bundled, each kept until xterm.js ships its own.
 * Each one names the exact code it replaces; when an upgrade changes that code, the build fails
 * here (it never silently ships without the fix, nor patches something else). Vite's dev server
 * pre-bundles dependencies without plugins, so `npm run dev` runs xterm.js unpatched: these fix
 * speed, never behaviour.
 */
import type { Plugin } from 'vite';

export interface XtermPatch {
  why: string;
  find: string;
  replace: string;
}

export const xtermPatches: readonly XtermPatch[] = [
  {
    // xterm.js issue #4633 ("better handleSelectionChanged in DOM renderer", open). Every scroll
    // refreshes the selection (CoreBrowserTerminal: onScroll → selectionService.refresh()), and the
    // DOM renderer answers each refresh by rebuilding every row of the viewport — on top of the
    // render service's own redraw of the same rows in the same frame. With no selection before and
    // none after, the rows cannot differ: skip the rebuild. Output that scrolls (a flood, forty
    // agents printing, a reattached pane's snapshot) then builds its rows once per frame, not twice.
    why: 'DOM renderer: no full redraw for a selection change from none to none',
    find: 'handleSelectionChanged(e,i,r){if(this._selectionContainer.replaceChildren(),',
    replace:
      'handleSelectionChanged(e,i,r){if(!(e&&i)&&!(this._rowFactory._selectionStart&&this._rowFactory._selectionEnd))return;if(this._selectionContainer.replaceChildren(),',
  },
];

const xtermModule = /[\\/]@xterm[\\/]xterm[\\/]lib[\\/]xterm\.mjs$/;

export function xtermPatchesPlugin(): Plugin {
  return {
    name: 'switchboard:xterm-patches',
    transform(code, id) {
      if (!xtermModule.test(id)) return null;
      let patched = code;
      for (const patch of xtermPatches) {
        const at = patched.indexOf(patch.find);
        if (at === -1 || patched.indexOf(patch.find, at + 1) !== -1) {
          throw new Error(`xterm.js patch "${patch.why}": its code is not found exactly once in ${id} (xterm.js changed: check whether the fix is upstream, then update or drop the patch in renderer/xtermPatches.ts)`);
        }
        patched = patched.replace(patch.find, patch.replace);
      }
      return { code: patched, map: null };
    },
  };
}
