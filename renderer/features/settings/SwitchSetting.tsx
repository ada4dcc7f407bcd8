import type { ReactNode } from 'react';

/** One on/off setting row: name, help text and a switch, with the label tied to the switch by `id`. */
export function SwitchSetting({
  id,
  label,
  help,
  checked,
  onChange,
}: {
  id: string;
  label: string;
  help: ReactNode;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  return (
    <div className="setting-row">
      <div className="setting-text">
        <label className="setting-name" htmlFor={id}>
          {label}
        </label>
        <span className="setting-help">{help}</span>
      </div>
      <input id={id} type="checkbox" className="switch" checked={checked} onChange={(event) => onChange(event.target.checked)} />
    </div>
  );
}
