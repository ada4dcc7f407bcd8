/**
 * The History browser's own icons (player controls, export, record), drawn like app/icons.tsx:
 * a 16×16 grid in the current text colour.
 */
import { Icon, type IconProps } from '../../app/icons.tsx';

export const PlayIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M5 3.2v9.6L12.8 8z" fill="currentColor" />
  </Icon>
);

export const PauseIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M5 3.5v9M11 3.5v9" strokeWidth="2.2" />
  </Icon>
);

export const PreviousMarkIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M4 3.5v9M12 4l-5.5 4 5.5 4z" />
  </Icon>
);

export const NextMarkIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M12 3.5v9M4 4l5.5 4L4 12z" />
  </Icon>
);

export const BackIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M13 8H3.5M7.5 4L3.5 8l4 4" />
  </Icon>
);

export const DownloadIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M8 2.5v8M4.5 7l3.5 3.5L11.5 7M3 13.5h10" />
  </Icon>
);

export const UploadIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M8 10.5v-8M4.5 6L8 2.5 11.5 6M3 13.5h10" />
  </Icon>
);

/** A recording dot in a ring; with `off`, struck through (this terminal is not recorded). */
export const RecordIcon = ({ off, ...props }: IconProps & { off?: boolean }) => (
  <Icon {...props}>
    <circle cx="8" cy="8" r="5.5" />
    <circle cx="8" cy="8" r="2.3" fill="currentColor" stroke="none" />
    {off && <path d="M3 13L13 3" strokeWidth="1.6" />}
  </Icon>
);
