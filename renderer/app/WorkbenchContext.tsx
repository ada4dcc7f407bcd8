import { createContext, useContext } from 'react';
import type { TerminalInfo } from '../../src/common/api/contract.ts';
import { useObservable } from './observable.ts';
import type { Workbench } from './workbench.ts';

export const WorkbenchContext = createContext<Workbench | null>(null);

export function useWorkbench(): Workbench {
  const workbench = useContext(WorkbenchContext);
  if (!workbench) throw new Error('useWorkbench() used outside <WorkbenchContext.Provider>');
  return workbench;
}

export function useTerminalInfo(terminalId: string): TerminalInfo | undefined {
  return useObservable(useWorkbench().terminals).get(terminalId);
}
