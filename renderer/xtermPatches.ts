/**
 * Fixes to xterm.js applied while the renderer is bundled, each kept until xterm.js ships its own.
 * Each one names the exact code it replaces; when an upgrade changes that code, the build fails
 * here (it never silently ships without the fix, nor patches something else). Vite's dev server
 * pre-bundles dependencies without plugins, so `npm run dev` runs xterm.js unpatched: these fix
 * speed, never behaviour.
 */
import type { Plugin } from 'vite';

/** The modules of ours the patches call: features/terminals/domRowReuse.ts and renderPacing.ts. */
export interface XtermPatchModules {
  rowReuseModule: string;
  renderPacingModule: string;
}

/** The code the patches call, imported at the top of xterm.js's module. */
export function xtermPrelude(modules: XtermPatchModules): string {
  return (
    `import { renderRowsReusing as __sbRenderRowsReusing, selectionStaysEmpty as __sbSelectionStaysEmpty } from ${JSON.stringify(modules.rowReuseModule)};\n` +
    `import { requestPacedRender as __sbRequestRender, cancelPacedRender as __sbCancelRender } from ${JSON.stringify(modules.renderPacingModule)};\n`
  );
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
    // none after (none: nothing, or the empty one a click leaves), the rows cannot differ: skip the
    // rebuild. Output that scrolls (a flood, forty agents printing, a reattached pane's snapshot)
    // then builds its rows once per frame, not twice.
    why: 'DOM renderer: no full redraw for a selection change from none to none',
    find: 'handleSelectionChanged(e,i,r){if(this._selectionContainer.replaceChildren(),',
    replace: 'handleSelectionChanged(e,i,r){if(__sbSelectionStaysEmpty(this,e,i))return;if(this._selectionContainer.replaceChildren(),',
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
    // The viewport syncs the scrollbar with the buffer on every line that scrolls (Viewport:
    // bufferService.onScroll → _sync), and until the scrollback is full every such line changes
    // the scroll height and position: the scrollbar recomputed and restyled once per line. Ten
    // reattached panes' thousand lines each spent 40–70 ms of a reload there. Synced once when the
    // write that scrolled is done instead (a microtask: before any other task runs, so a wheel
    // event or a frame still finds the scrollbar where the buffer is).
    why: 'viewport: the scrollbar synced once per write, not once per scrolled line',
    find: 'this._register(this._bufferService.onScroll(()=>this._sync()))',
    replace:
      'this._register({dispose:()=>{this._sbGone=!0}}),this._register(this._bufferService.onScroll(()=>{this._sbSyncQueued||(this._sbSyncQueued=!0,queueMicrotask(()=>{this._sbSyncQueued=!1,this._sbGone||this._sync()}))}))',
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
  {
    // Every line that scrolls asks the selection to be drawn again at the next animation frame
    // (CoreBrowserTerminal: onScroll → selectionService.refresh()), with or without a selection.
    // The redraw itself is skipped above when there is none, but the frame it asked for is not:
    // a flood drew the page 60 times a second through this request alone. With no selection
    // there is nothing to move; a selection made or cleared asks for its own redraw.
    why: 'selection: no redraw asked for on scroll when nothing is selected',
    find: '(()=>{this._selectionService.refresh(),this._viewport?.queueSync()})',
    replace: '(()=>{this._selectionService.hasSelection&&this._selectionService.refresh(),this._viewport?.queueSync()})',
  },
  {
    // The hidden textarea (where IME composition and screen readers look) follows the cursor:
    // xterm moved it on every cursor move, which during output is every parse slice, and each
    // move made Chromium compute style and layout again for a frame of its own. It follows at the
    // terminal's next redraw instead, where the rows it sits over are drawn.
    why: 'textarea: moved to the cursor with the next redraw, not on every cursor move',
    find: 'this.onCursorMove(()=>{this._renderService.handleCursorMove(),this._syncTextArea()})',
    replace:
      'this.onCursorMove(()=>{this._renderService.handleCursorMove(),this._sbTextareaQueued||(this._sbTextareaQueued=!0,this._renderService.addRefreshCallback(()=>{this._sbTextareaQueued=!1,this._syncTextArea()}))})',
  },
  {
    // A flooded pane is redrawn at a pace, not at every frame (features/terminals/renderPacing.ts).
    why: 'render debouncer: redraws asked for through the pacing',
    find: '!this._animationFrame&&(this._animationFrame=this._coreBrowserService.window.requestAnimationFrame(()=>this._innerRefresh()))}_innerRefresh(){if(this._animationFrame=void 0,',
    replace: '!this._animationFrame&&(this._animationFrame=__sbRequestRender(this))}_innerRefresh(){if(this._animationFrame=void 0,',
  },
  {
    why: 'render debouncer: callbacks at the next redraw wait for the paced one',
    find: 'addRefreshCallback(t){return this._refreshCallbacks.push(t),this._animationFrame||(this._animationFrame=this._coreBrowserService.window.requestAnimationFrame(()=>this._innerRefresh())),this._animationFrame}',
    replace: 'addRefreshCallback(t){return this._refreshCallbacks.push(t),this._animationFrame||(this._animationFrame=__sbRequestRender(this)),this._animationFrame}',
  },
  {
    why: 'render debouncer: a paced redraw is cancelled with it',
    find: 'dispose(){this._animationFrame&&(this._coreBrowserService.window.cancelAnimationFrame(this._animationFrame),this._animationFrame=void 0)}addRefreshCallback',
    replace:
      'dispose(){__sbCancelRender(this),this._animationFrame&&(this._coreBrowserService.window.cancelAnimationFrame(this._animationFrame),this._animationFrame=void 0)}addRefreshCallback',
  },
];

const xtermModule = /[\\/]@xterm[\\/]xterm[\\/]lib[\\/]xterm\.mjs$/;

export function xtermPatchesPlugin(modules: XtermPatchModules): Plugin {
  const prelude = xtermPrelude(modules);
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
