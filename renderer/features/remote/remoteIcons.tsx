/** Icons of the remote view, drawn like app/icons.tsx: a 16×16 grid in the current text colour. */
import { Icon, type IconProps } from '../../app/icons.tsx';

/** The machine being viewed: a screen on a stand. */
export const MachineIcon = (props: IconProps) => (
  <Icon {...props}>
    <rect x="2" y="2.5" width="12" height="8.5" rx="1.3" />
    <path d="M6 13.5h4M8 11v2.5" />
  </Icon>
);

export const CrossIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M4.5 4.5l7 7M11.5 4.5l-7 7" />
  </Icon>
);
