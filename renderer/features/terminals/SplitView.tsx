import { Fragment, useEffect, useMemo } from 'react';
import { Group, Panel, Separator, useGroupRef, type Layout as PanelLayout } from 'react-resizable-panels';
import type { LayoutNode } from '../../../src/common/api/contract.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { normalizedSizes } from './layoutModel.ts';
import { TerminalPane } from './TerminalPane.tsx';

interface NodeViewProps {
  node: LayoutNode;
  tabId: string;
  /** Child indices from the tab's root to this node. */
  path: readonly number[];
  tabActive: boolean;
}

/** A stable identity for a subtree: the first terminal in it can only be in one subtree. */
function nodeKey(node: LayoutNode): string {
  if (node.type === 'pane') return `pane-${node.terminalId}`;
  const first = node.children[0];
  return `split-${first ? nodeKey(first) : 'empty'}`;
}

export function LayoutNodeView({ node, tabId, path, tabActive }: NodeViewProps) {
  if (node.type === 'pane') {
    return <TerminalPane terminalId={node.terminalId} tabActive={tabActive} inSplit={path.length > 0} />;
  }
  // A new set of children is a new group: the library takes sizes only when a group mounts.
  const key = node.children.map(nodeKey).join('|');
  return <SplitGroup key={key} node={node} tabId={tabId} path={path} tabActive={tabActive} />;
}

/** Smallest a pane can be dragged to, in pixels: enough for a prompt and a few columns. */
const minPanePx = 72;

function SplitGroup({ node, tabId, path, tabActive }: NodeViewProps & { node: Extract<LayoutNode, { type: 'split' }> }) {
  const workbench = useWorkbench();
  const groupRef = useGroupRef();
  const keys = node.children.map(nodeKey);
  const sizes = normalizedSizes(node.sizes, node.children.length);
  const sizesKey = sizes.map((size) => size.toFixed(2)).join(',');

  const defaultLayout = useMemo<PanelLayout>(
    () => Object.fromEntries(keys.map((key, index) => [key, sizes[index] ?? 0])),
    // Only read at mount; later changes arrive through the effect below.
    [],
  );

  // Sizes changed elsewhere (another window, a pane closed): apply them without remounting.
  useEffect(() => {
    const group = groupRef.current;
    if (!group) return;
    const current = group.getLayout();
    const differs = keys.some((key, index) => Math.abs((current[key] ?? 0) - (sizes[index] ?? 0)) > 0.5);
    if (differs) group.setLayout(Object.fromEntries(keys.map((key, index) => [key, sizes[index] ?? 0])));
  }, [sizesKey]);

  return (
    <Group
      groupRef={groupRef}
      className="split-group"
      orientation={node.direction === 'row' ? 'horizontal' : 'vertical'}
      defaultLayout={defaultLayout}
      onLayoutChanged={(layout, meta) => {
        if (!meta.isUserInteraction) return;
        workbench.setSplitSizes(tabId, path, keys.map((key) => layout[key] ?? 0));
      }}
    >
      {node.children.map((child, index) => (
        <Fragment key={keys[index]}>
          {index > 0 && <Separator className="split-handle" data-direction={node.direction} />}
          <Panel id={keys[index]} minSize={minPanePx} className="split-panel" style={{ overflow: 'hidden' }}>
            <LayoutNodeView node={child} tabId={tabId} path={[...path, index]} tabActive={tabActive} />
          </Panel>
        </Fragment>
      ))}
    </Group>
  );
}
