// Measurement probe of the renderer benchmarks, evaluated into both the app's page and the peer's
// (bench/cases/rendererBench.ts), so both sides are timed by the same code on the page's clock.
// "Drawn" is the DOM mutation that puts the text into xterm's rows: the DOM renderer writes rows in
// its animation-frame callback and the frame is painted right after it.
(() => {
  if (window.__probe) return;
  const rowsOf = (root) => Array.from(root.querySelectorAll('.xterm-rows > div'), (row) => row.textContent.replace(/\u00a0/g, ' ').trimEnd());
  const holds = (rows, condition) => {
    switch (condition.kind) {
      case 'rowEquals':
        return rows.includes(condition.text);
      case 'rowEndsWith':
        return rows.some((row) => row.endsWith(condition.text));
      case 'rowStartsWith':
        return rows.some((row) => row.startsWith(condition.text));
      case 'noRowContains':
        return rows.length > 0 && rows.every((row) => !row.includes(condition.text));
      default:
        throw new Error(`unknown condition ${condition.kind}`);
    }
  };
  const probe = {
    longestTask: 0,
    lastKeydown: 0,
    lastClick: 0,
    /** From now on, remember the longest main-thread task (PerformanceObserver 'longtask', ≥ 50 ms). */
    watchLongTasks() {
      probe.longestTask = 0;
      probe.observer?.disconnect();
      probe.observer = new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) probe.longestTask = Math.max(probe.longestTask, entry.duration);
      });
      probe.observer.observe({ type: 'longtask' });
    },
    /** The rows of every terminal under `selector`. */
    rows(selector) {
      return Array.from(document.querySelectorAll(selector), rowsOf);
    },
    /**
     * Resolves with performance.now() at the first DOM change after which the rows of a terminal
     * under `selector` meet `condition` (at once if they already do).
     */
    waitRows(selector, condition, timeoutMs) {
      const check = () => Array.from(document.querySelectorAll(selector)).some((root) => holds(rowsOf(root), condition));
      if (check()) return Promise.resolve(performance.now());
      return new Promise((resolve, reject) => {
        const observer = new MutationObserver(() => {
          if (!check()) return;
          const at = performance.now();
          observer.disconnect();
          clearTimeout(timer);
          resolve(at);
        });
        observer.observe(document.body, { childList: true, subtree: true, characterData: true });
        const timer = setTimeout(() => {
          observer.disconnect();
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${JSON.stringify(condition)} in ${selector}; rows: ${JSON.stringify(probe.rows(selector))}`));
        }, timeoutMs);
      });
    },
  };
  document.addEventListener('keydown', () => (probe.lastKeydown = performance.now()), true);
  document.addEventListener('click', () => (probe.lastClick = performance.now()), true);
  window.__probe = probe;
})();
