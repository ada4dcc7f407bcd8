export type PaneDirection = 'left' | 'right' | 'up' | 'down';

/**
 * The pane next to `terminalId` in a direction, found from where the panes are on screen: the
 * split tree alone cannot tell which of two nested panes is "above" a given one.
 */
export function neighbourPane(terminalId: string, direction: PaneDirection): string | undefined {
  const container = document.querySelector('[data-tab-panel][data-active="true"]');
  if (!container) return undefined;
  const panes = [...container.querySelectorAll<HTMLElement>('[data-terminal-id]')];
  const from = panes.find((pane) => pane.dataset.terminalId === terminalId)?.getBoundingClientRect();
  if (!from) return undefined;
  const fromX = from.left + from.width / 2;
  const fromY = from.top + from.height / 2;
  let best: { id: string; score: number } | undefined;
  for (const pane of panes) {
    const id = pane.dataset.terminalId;
    if (!id || id === terminalId) continue;
    const rect = pane.getBoundingClientRect();
    const x = rect.left + rect.width / 2;
    const y = rect.top + rect.height / 2;
    const ahead =
      direction === 'left' ? rect.right <= from.left + 1 :
      direction === 'right' ? rect.left >= from.right - 1 :
      direction === 'up' ? rect.bottom <= from.top + 1 :
      rect.top >= from.bottom - 1;
    if (!ahead) continue;
    // Prefer panes straight ahead: distance along the direction plus twice the sideways offset.
    const along = direction === 'left' || direction === 'right' ? Math.abs(x - fromX) : Math.abs(y - fromY);
    const across = direction === 'left' || direction === 'right' ? Math.abs(y - fromY) : Math.abs(x - fromX);
    const score = along + 2 * across;
    if (!best || score < best.score) best = { id, score };
  }
  return best?.id;
}
