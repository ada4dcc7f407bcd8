import { keybindings } from '../../app/keybindings.ts';

export function ShortcutsList() {
  return (
    <table className="shortcuts-table">
      <tbody>
        {keybindings.map((binding) => (
          <tr key={binding.command}>
            <td>{binding.label}</td>
            <td>
              <kbd>{binding.keys}</kbd>
            </td>
          </tr>
        ))}
        <tr>
          <td>Rename the selected terminal in the list</td>
          <td>
            <kbd>F2</kbd> or double-click
          </td>
        </tr>
        <tr>
          <td>Next / previous match in Find</td>
          <td>
            <kbd>Enter</kbd> / <kbd>Shift+Enter</kbd>
          </td>
        </tr>
      </tbody>
    </table>
  );
}
