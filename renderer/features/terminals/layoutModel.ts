/**
 * Pure operations on the window layout (tabs, each holding a tree of splits whose leaves are
 * terminal panes). The Hub stores the layout verbatim, so every function here returns a new,
 * normalized layout and never mutates its input. A terminal appears in at most one pane.
 */
import type { Layout, LayoutNode } from '../../../src/common/api/contract.ts';

export type LayoutTab = Layout['tabs'][number];
/** `right` puts the new pane beside the old one (a row split), `down` below it (a column split). */
export type SplitDirection = 'right' | 'down';

export const emptyLayout: Layout = { tabs: [], activeTabId: null, focusedTerminalId: null };

export function paneNode(terminalId: string): LayoutNode {
  return { type: 'pane', terminalId };
}

/** Terminal ids of a subtree, in reading order (left to right, top to bottom). */
export function terminalIdsOf(node: LayoutNode): string[] {
  if (node.type === 'pane') return [node.terminalId];
  return node.children.flatMap(terminalIdsOf);
}

export function allTerminalIds(layout: Layout): string[] {
  return layout.tabs.flatMap((tab) => terminalIdsOf(tab.root));
}

export function findTabOf(layout: Layout, terminalId: string): LayoutTab | undefined {
  return layout.tabs.find((tab) => terminalIdsOf(tab.root).includes(terminalId));
}

export function activeTab(layout: Layout): LayoutTab | undefined {
  return layout.tabs.find((tab) => tab.id === layout.activeTabId) ?? layout.tabs[0];
}

/** Opens a terminal in a new tab placed after the active one, and makes it active and focused. */
export function addTab(layout: Layout, tabId: string, terminalId: string): Layout {
  const activeIndex = layout.tabs.findIndex((tab) => tab.id === layout.activeTabId);
  const insertAt = activeIndex === -1 ? layout.tabs.length : activeIndex + 1;
  const tabs = [...layout.tabs];
  tabs.splice(insertAt, 0, { id: tabId, root: paneNode(terminalId) });
  return { tabs, activeTabId: tabId, focusedTerminalId: terminalId };
}

/**
 * Splits the pane of `targetId` and puts `newId` beside (right) or below (down) it. Splitting in
 * the direction of the enclosing split adds a sibling that takes half of the target's space, the
 * way VS Code and tmux do, instead of nesting one more level.
 */
export function splitPane(layout: Layout, targetId: string, newId: string, direction: SplitDirection): Layout {
  const tab = findTabOf(layout, targetId);
  if (!tab) return layout;
  const splitDirection = direction === 'right' ? 'row' : 'column';
  const split = (node: LayoutNode): LayoutNode => {
    if (node.type === 'pane') {
      if (node.terminalId !== targetId) return node;
      return { type: 'split', direction: splitDirection, sizes: [50, 50], children: [node, paneNode(newId)] };
    }
    const index = node.children.findIndex((child) => child.type === 'pane' && child.terminalId === targetId);
    if (index !== -1 && node.direction === splitDirection) {
      const sizes = normalizedSizes(node.sizes, node.children.length);
      const half = (sizes[index] ?? 0) / 2;
      const children = [...node.children];
      children.splice(index + 1, 0, paneNode(newId));
      const newSizes = [...sizes];
      newSizes.splice(index, 1, half, half);
      return { ...node, children, sizes: newSizes };
    }
    return { ...node, children: node.children.map(split) };
  };
  return {
    ...layout,
    tabs: layout.tabs.map((candidate) => (candidate === tab ? { ...candidate, root: split(candidate.root) } : candidate)),
    activeTabId: tab.id,
    focusedTerminalId: newId,
  };
}

/** Removes a terminal's pane; empty splits collapse and an empty tab disappears. */
export function removeTerminal(layout: Layout, terminalId: string): Layout {
  const tab = findTabOf(layout, terminalId);
  if (!tab) return layout;
  const orderBefore = terminalIdsOf(tab.root);
  const root = removeFromNode(tab.root, terminalId);
  let tabs: LayoutTab[];
  let activeTabId = layout.activeTabId;
  let focusedTerminalId = layout.focusedTerminalId;
  if (root) {
    tabs = layout.tabs.map((candidate) => (candidate === tab ? { ...candidate, root } : candidate));
    if (focusedTerminalId === terminalId) {
      // Focus the pane that took the closed pane's place: the next one in reading order, else the previous.
      const index = orderBefore.indexOf(terminalId);
      const remaining = terminalIdsOf(root);
      focusedTerminalId = remaining[Math.min(index, remaining.length - 1)] ?? null;
    }
  } else {
    const index = layout.tabs.indexOf(tab);
    tabs = layout.tabs.filter((candidate) => candidate !== tab);
    if (activeTabId === tab.id) {
      const neighbour = tabs[Math.min(index, tabs.length - 1)];
      activeTabId = neighbour?.id ?? null;
      focusedTerminalId = neighbour ? (terminalIdsOf(neighbour.root)[0] ?? null) : null;
    } else if (focusedTerminalId === terminalId) {
      focusedTerminalId = null;
    }
  }
  return { tabs, activeTabId, focusedTerminalId };
}

function removeFromNode(node: LayoutNode, terminalId: string): LayoutNode | null {
  if (node.type === 'pane') return node.terminalId === terminalId ? null : node;
  const sizes = normalizedSizes(node.sizes, node.children.length);
  const children: LayoutNode[] = [];
  const keptSizes: number[] = [];
  node.children.forEach((child, index) => {
    const kept = removeFromNode(child, terminalId);
    if (!kept) return;
    children.push(kept);
    keptSizes.push(sizes[index] ?? 0);
  });
  if (children.length === 0) return null;
  if (children.length === 1) return children[0] ?? null;
  return { ...node, children, sizes: normalizedSizes(keptSizes, children.length) };
}

/** Makes the tab holding the terminal active and the terminal focused. */
export function focusTerminal(layout: Layout, terminalId: string): Layout {
  const tab = findTabOf(layout, terminalId);
  if (!tab) return layout;
  if (layout.activeTabId === tab.id && layout.focusedTerminalId === terminalId) return layout;
  return { ...layout, activeTabId: tab.id, focusedTerminalId: terminalId };
}

export function setActiveTab(layout: Layout, tabId: string, focusedTerminalId?: string): Layout {
  const tab = layout.tabs.find((candidate) => candidate.id === tabId);
  if (!tab) return layout;
  const ids = terminalIdsOf(tab.root);
  const focus = focusedTerminalId && ids.includes(focusedTerminalId) ? focusedTerminalId : (ids[0] ?? null);
  if (layout.activeTabId === tabId && layout.focusedTerminalId === focus) return layout;
  return { ...layout, activeTabId: tabId, focusedTerminalId: focus };
}

/** Moves a tab to `toIndex` (clamped). */
export function moveTab(layout: Layout, tabId: string, toIndex: number): Layout {
  const from = layout.tabs.findIndex((tab) => tab.id === tabId);
  if (from === -1) return layout;
  const tabs = [...layout.tabs];
  const [tab] = tabs.splice(from, 1);
  if (!tab) return layout;
  tabs.splice(Math.max(0, Math.min(toIndex, tabs.length)), 0, tab);
  return { ...layout, tabs };
}

/** Replaces the sizes of the split at `path` (child indices from the tab's root). */
export function setSplitSizes(layout: Layout, tabId: string, path: readonly number[], sizes: readonly number[]): Layout {
  const update = (node: LayoutNode, depth: number): LayoutNode => {
    if (node.type === 'pane') return node;
    if (depth === path.length) {
      if (sizes.length !== node.children.length) return node;
      return { ...node, sizes: normalizedSizes(sizes, node.children.length) };
    }
    const index = path[depth] ?? -1;
    const child = node.children[index];
    if (!child) return node;
    const children = [...node.children];
    children[index] = update(child, depth + 1);
    return { ...node, children };
  };
  return { ...layout, tabs: layout.tabs.map((tab) => (tab.id === tabId ? { ...tab, root: update(tab.root, 0) } : tab)) };
}

/**
 * Drops panes whose terminal no longer exists, a terminal's second appearance (a layout written
 * by an older or concurrent window could hold one twice), and repairs the active tab and focus.
 */
export function pruneLayout(layout: Layout, exists: (terminalId: string) => boolean): Layout {
  const seen = new Set<string>();
  const prune = (node: LayoutNode): LayoutNode | null => {
    if (node.type === 'pane') {
      if (!exists(node.terminalId) || seen.has(node.terminalId)) return null;
      seen.add(node.terminalId);
      return node;
    }
    const sizes = normalizedSizes(node.sizes, node.children.length);
    const children: LayoutNode[] = [];
    const keptSizes: number[] = [];
    node.children.forEach((child, index) => {
      const kept = prune(child);
      if (!kept) return;
      children.push(kept);
      keptSizes.push(sizes[index] ?? 0);
    });
    if (children.length === 0) return null;
    if (children.length === 1) return children[0] ?? null;
    return { ...node, children, sizes: normalizedSizes(keptSizes, children.length) };
  };
  const tabs: LayoutTab[] = [];
  for (const tab of layout.tabs) {
    const root = prune(tab.root);
    if (root) tabs.push({ ...tab, root });
  }
  const active = tabs.find((tab) => tab.id === layout.activeTabId) ?? tabs[0];
  const activeIds = active ? terminalIdsOf(active.root) : [];
  const focusedTerminalId =
    layout.focusedTerminalId && activeIds.includes(layout.focusedTerminalId) ? layout.focusedTerminalId : (activeIds[0] ?? null);
  return { tabs, activeTabId: active?.id ?? null, focusedTerminalId };
}

/** Sizes that match the child count and add up to 100 (equal shares when they cannot be repaired). */
export function normalizedSizes(sizes: readonly number[], count: number): number[] {
  if (count <= 0) return [];
  const usable = sizes.length === count && sizes.every((size) => Number.isFinite(size) && size > 0);
  if (!usable) return Array.from({ length: count }, () => 100 / count);
  const total = sizes.reduce((sum, size) => sum + size, 0);
  return sizes.map((size) => (size / total) * 100);
}

export function sameLayout(a: Layout | null, b: Layout | null): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Puts `newId` where `oldId` was (e.g. a restarted terminal takes its predecessor's pane). */
export function replacePane(layout: Layout, oldId: string, newId: string): Layout {
  const tab = findTabOf(layout, oldId);
  if (!tab) return layout;
  const replace = (node: LayoutNode): LayoutNode => {
    if (node.type === 'pane') return node.terminalId === oldId ? paneNode(newId) : node;
    return { ...node, children: node.children.map(replace) };
  };
  return {
    ...layout,
    tabs: layout.tabs.map((candidate) => (candidate === tab ? { ...candidate, root: replace(candidate.root) } : candidate)),
    focusedTerminalId: layout.focusedTerminalId === oldId ? newId : layout.focusedTerminalId,
  };
}
