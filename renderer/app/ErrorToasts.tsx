import type { ErrorList } from './errorList.ts';
import { CloseIcon, WarningIcon } from './icons.tsx';
import { useObservable } from './observable.ts';

/** Errors from the Hub, each a dismissible alert in the corner; nothing else on screen changes. */
export function ErrorToasts({ errors }: { errors: ErrorList }) {
  const items = useObservable(errors.items);
  if (items.length === 0) return null;
  return (
    <div className="toasts">
      {items.map((item) => (
        <div key={item.id} className="toast" role="alert">
          <WarningIcon className="toast-icon" />
          <div className="toast-text">
            <strong>{item.title}</strong>
            <span>{item.message}</span>
            {item.code && <code className="toast-code">{item.code}</code>}
          </div>
          <button type="button" className="icon-button" aria-label="Dismiss" title="Dismiss" onClick={() => errors.dismiss(item.id)}>
            <CloseIcon />
          </button>
        </div>
      ))}
    </div>
  );
}
