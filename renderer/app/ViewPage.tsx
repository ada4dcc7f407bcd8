import { useEffect, useRef, type ReactNode } from 'react';
import { useWorkbench } from './WorkbenchContext.tsx';
import { CloseIcon } from './icons.tsx';

/** A full-size view over the terminal area (Settings, History, Review). Escape goes back. */
export function ViewPage({ label, title, description, children }: { label: string; title: string; description?: string; children: ReactNode }) {
  const workbench = useWorkbench();
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return (
    <section
      ref={ref}
      className="view-page"
      aria-label={label}
      tabIndex={-1}
      onKeyDown={(event) => {
        if (event.key === 'Escape' && !(event.target as HTMLElement).matches('select')) {
          event.preventDefault();
          workbench.showView('terminals');
        }
      }}
    >
      <header className="view-header">
        <div>
          <h1>{title}</h1>
          {description && <p className="view-description">{description}</p>}
        </div>
        <button type="button" className="icon-button" aria-label="Back to terminals" title="Back to terminals (Escape)" onClick={() => workbench.showView('terminals')}>
          <CloseIcon />
        </button>
      </header>
      <div className="view-body">{children}</div>
    </section>
  );
}
