/**
 * Fixes to xterm.js applied while the renderer is bundled, each kept until xterm.js ships its own.
 * Each one names the exact code it replaces; when an upgrade changes that code, the build fails
 * here (it never silently ships without the fix, nor patches something else). Vite's dev server
 * pre-bundles dependencies without plugins, so `npm run dev` runs xterm.js unpatched: these fix
 * speed, never behaviour.
 */
import type { Plugin } from 'vite';

/** Code of ours the patches call (`rowReuseModule`: the path of features/terminals/domRowReuse.ts), imported at the top of xterm.js's module. */
export function xtermPrelude(rowReuseModule: string): string {
  return `import { renderRowsReusing as __sbRenderRowsReusing } from ${JSON.stringify(rowReuseModule)};\n`;
}

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
  {
    // Each terminal's DOM renderer measures every glyph it draws once — a forced layout of the
    // whole page per glyph (WidthCache._measure reads offsetWidth) — in a cache of its own (its
    // FIXME: "a shared API across terminals is needed"). Ten panes reattaching measured the same
    // glyphs ten times. The caches are shared here by what the widths depend on: the font (family,
    // size, weights) and the cell width the renderer measured (a zoom or DPR change gives a new
    // cell width, so a new cache, as xterm's own clear on a char-size change would).
    why: 'DOM renderer: glyph widths measured once per font for all terminals',
    find: 'clear(){this._flat.fill(-9999),this._holey=new Map}',
    replace:
      'clear(){let k=this._font+"|"+this._fontSize+"|"+this._weight+"|"+this._weightBold+"|"+this.sbCellWidth,m=globalThis.__switchboardWidthCaches??=new Map,c=m.get(k);c||(c={flat:new Float32Array(256).fill(-9999),holey:new Map},m.set(k,c)),this._flat=c.flat,this._holey=c.holey}',
  },
  {
    why: 'DOM renderer: the shared glyph widths are keyed by the cell width too',
    find: 'handleCharSizeChanged(){this._updateDimensions(),this._widthCache.clear(),this._setDefaultSpacing()}',
    replace:
      'handleCharSizeChanged(){this._updateDimensions(),this._widthCache.sbCellWidth=this.dimensions.css.cell.width,this._widthCache.clear(),this._setDefaultSpacing()}',
  },
  {
    // The scrollbar (VS Code's ScrollableElement) shows itself on every scroll and hides again
    // HIDE_TIMEOUT (`Ma`) after the last one, by clearing and setting a timer on every scroll
    // event. xterm.js fires one per line that scrolls: a reattached pane's thousand lines were a
    // thousand clearTimeout/setTimeout pairs, ten panes 134 ms of a 600 ms reload (the reattach
    // benchmark's profile). Here the time to hide is moved on, and the one pending timer, when it
    // fires early, waits out the rest: the scrollbar hides at the same moment as before.
    why: 'scrollbar: one hide timer for a run of scroll events, not one per scrolled line',
    find: '_scheduleHide(){!this._mouseIsOver&&!this._isDragging&&this._hideTimeout.cancelAndSet(()=>this._hide(),Ma)}',
    replace:
      '_scheduleHide(){if(this._mouseIsOver||this._isDragging)return;this._sbHideAt=performance.now()+Ma;if(this._hideTimeout._token!==-1)return;let f=()=>{let w=this._sbHideAt-performance.now();w>0?this._hideTimeout.cancelAndSet(f,w):this._hide()};this._hideTimeout.cancelAndSet(f,Ma)}',
  },
  {
    // xterm.js redraws every row of the viewport when the buffer scrolls, and the DOM renderer
    // builds each row's spans anew, which Chromium lays out and shapes again: eight panes of
    // agents printing spent most of each frame there. Rows whose content only moved are moved,
    // unchanged rows kept (features/terminals/domRowReuse.ts says when it declines).
    why: 'DOM renderer: rows that only moved are moved, not built again',
    find: 'renderRows(e,i){let r=this._bufferService.buffer,n=r.ybase+r.y,',
    replace: 'renderRows(e,i){if(__sbRenderRowsReusing(this,e,i))return;let r=this._bufferService.buffer,n=r.ybase+r.y,',
  },
  {
    why: 'DOM renderer: rows underlined for a link outside renderRows are built again after',
    find: '_setCellUnderline(e,i,r,n,o,l){',
    replace: '_setCellUnderline(e,i,r,n,o,l){this._sbStale=!0;',
  },
  {
    why: 'DOM renderer: cleared rows are built again after',
    find: 'clear(){for(let e of this._rowElements)e.replaceChildren()}',
    replace: 'clear(){this._sbStale=!0;for(let e of this._rowElements)e.replaceChildren()}',
  },
];

const xtermModule = /[\\/]@xterm[\\/]xterm[\\/]lib[\\/]xterm\.mjs$/;

export function xtermPatchesPlugin(options: { rowReuseModule: string }): Plugin {
  const prelude = xtermPrelude(options.rowReuseModule);
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
      return { code: prelude + patched, map: null };
    },
  };
}
