/** Line icons of the Review view, on the same 16×16 grid and stroke as app/icons.tsx. */
import { Icon, type IconProps } from '../../app/icons.tsx';

export const RejectIcon = (props: IconProps) => (
  <Icon {...props}>
    <circle cx="8" cy="8" r="5.5" />
    <path d="M4.2 11.8l7.6-7.6" />
  </Icon>
);

/** Two columns: side by side. */
export const SideBySideIcon = (props: IconProps) => (
  <Icon {...props}>
    <rect x="2" y="3" width="5" height="10" rx="1" />
    <rect x="9" y="3" width="5" height="10" rx="1" />
  </Icon>
);

/** Stacked lines, one minus one plus: unified. */
export const UnifiedIcon = (props: IconProps) => (
  <Icon {...props}>
    <rect x="2" y="3" width="12" height="10" rx="1" />
    <path d="M5 6.5h3M5 9.5h3M11 8.5v2M10 9.5h2" />
  </Icon>
);

/** Arrows pointing together: fold unchanged lines. */
export const FoldIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M5 2.5L8 5.5l3-3M5 13.5l3-3 3 3M2.5 8h11" />
  </Icon>
);

/** A paper plane: send to Claude. */
export const SendIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M14 2L7 9M14 2l-4.5 12-2.5-5-5-2.5z" />
  </Icon>
);

export const FileIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M4 2h5l3 3v9H4z" />
    <path d="M9 2v3h3" />
  </Icon>
);

export const FilePlusIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M4 2h5l3 3v9H4z" />
    <path d="M8 7.5v4M6 9.5h4" />
  </Icon>
);

export const FileMinusIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M4 2h5l3 3v9H4z" />
    <path d="M6 9.5h4" />
  </Icon>
);

export const FileDiffIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M4 2h5l3 3v9H4z" />
    <path d="M8 6v3M6.5 7.5h3M6.5 11.5h3" />
  </Icon>
);

export const BinaryIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M4 2h5l3 3v9H4z" />
    <path d="M6.5 7v3M9.5 7v3" />
  </Icon>
);

/** An arrow leaving a box: open the file in a tab. */
export const OpenFileIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M9 2.5h4.5V7M13.5 2.5L8 8" />
    <path d="M11.5 9.5v3a1 1 0 0 1-1 1h-7a1 1 0 0 1-1-1v-7a1 1 0 0 1 1-1h3" />
  </Icon>
);

export const SaveIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M3 3.5A1 1 0 0 1 4 2.5h6.5l2.5 2.5v7.5a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1z" />
    <path d="M5.5 2.5v3h4v-3M5.5 13.5v-4h5v4" />
  </Icon>
);
