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
      return probe.waitEveryRow(selector, [condition], timeoutMs);
    },
    /**
     * The same for several conditions at once: each met by some terminal under `selector`. Watches
     * the whole document, so it can be armed before the page has a body (an init script, to time
     * a reload from its start: performance.now() counts from the navigation).
     */
    waitEveryRow(selector, conditions, timeoutMs) {
      const check = () => {
        const screens = Array.from(document.querySelectorAll(selector), rowsOf);
        return conditions.every((condition) => screens.some((rows) => holds(rows, condition)));
      };
      if (check()) return Promise.resolve(performance.now());
      return new Promise((resolve, reject) => {
        const observer = new MutationObserver(() => {
          if (!check()) return;
          const at = performance.now();
          observer.disconnect();
          clearTimeout(timer);
          resolve(at);
        });
        observer.observe(document, { childList: true, subtree: true, characterData: true });
        const timer = setTimeout(() => {
          observer.disconnect();
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${JSON.stringify(conditions)} in ${selector}; rows: ${JSON.stringify(probe.rows(selector))}`));
        }, timeoutMs);
      });
    },
    /**
     * From now on, the page's animation frames: the interval between requestAnimationFrame
     * callbacks, and the long animation frames (> 50 ms) Chromium reports with their blocking time.
     */
    watchFrames() {
      probe.frames = { intervals: [], longFrames: [], running: true };
      const frames = probe.frames;
      let last = 0;
      const tick = (now) => {
        if (!frames.running) return;
        if (last) frames.intervals.push(now - last);
        last = now;
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      probe.frameObserver?.disconnect();
      probe.frameObserver = new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) frames.longFrames.push({ duration: entry.duration, blocking: entry.blockingDuration ?? 0 });
      });
      try {
        probe.frameObserver.observe({ type: 'long-animation-frame' });
      } catch {
        frames.longFramesUnsupported = true;
      }
    },
    /** Stops watching; what `watchFrames` saw. */
    stopFrames() {
      const frames = probe.frames;
      frames.running = false;
      probe.frameObserver?.disconnect();
      return { intervals: frames.intervals, longFrames: frames.longFrames, longFramesUnsupported: Boolean(frames.longFramesUnsupported) };
    },
  };
  document.addEventListener('keydown', () => (probe.lastKeydown = performance.now()), true);
  document.addEventListener('click', () => (probe.lastClick = performance.now()), true);
  window.__probe = probe;
})();
