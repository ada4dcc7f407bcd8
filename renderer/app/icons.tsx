/**
 * The handful of line icons the UI needs, drawn on a 16×16 grid in the current text colour.
 * Hand-drawn rather than an icon package: a dozen paths do not justify a dependency.
 */
import type { SVGProps } from 'react';

export type IconProps = SVGProps<SVGSVGElement>;

/** The shared frame of every line icon (feature icon files draw inside it too). */
export function Icon({ children, ...props }: IconProps) {
  return (
    <svg
      width="16"
      height="16"
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.4"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
      {...props}
    >
      {children}
    </svg>
  );
}

export const CheckIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M3.5 8.5l3 3 6-7" />
  </Icon>
);

export const PlusIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M8 3v10M3 8h10" />
  </Icon>
);

export const FolderIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M2 4.5A1.5 1.5 0 0 1 3.5 3h2.6l1.4 1.5h5A1.5 1.5 0 0 1 14 6v5.5a1.5 1.5 0 0 1-1.5 1.5h-9A1.5 1.5 0 0 1 2 11.5z" />
  </Icon>
);

export const SidebarIcon = (props: IconProps) => (
  <Icon {...props}>
    <rect x="2" y="2.5" width="12" height="11" rx="1.5" />
    <path d="M6 2.5v11" />
  </Icon>
);

export const SplitRightIcon = (props: IconProps) => (
  <Icon {...props}>
    <rect x="2" y="2.5" width="12" height="11" rx="1.5" />
    <path d="M8 2.5v11" />
  </Icon>
);

export const SplitDownIcon = (props: IconProps) => (
  <Icon {...props}>
    <rect x="2" y="2.5" width="12" height="11" rx="1.5" />
    <path d="M2 8h12" />
  </Icon>
);

export const CloseIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M4 4l8 8M12 4l-8 8" />
  </Icon>
);

export const TrashIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M3 4.5h10M6.5 4.5V3h3v1.5M4.5 4.5l.6 8.2a1 1 0 0 0 1 .8h3.8a1 1 0 0 0 1-.8l.6-8.2" />
  </Icon>
);

export const TerminalIcon = (props: IconProps) => (
  <Icon {...props}>
    <rect x="1.75" y="2.5" width="12.5" height="11" rx="1.5" />
    <path d="M4.5 6l2 2-2 2M8 10.5h3.5" />
  </Icon>
);

export const HistoryIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M2.5 8a5.5 5.5 0 1 0 1.6-3.9" />
    <path d="M2.5 2.5v2.5H5" />
    <path d="M8 5v3l2 1.5" />
  </Icon>
);

export const ReviewIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M4 2.5h5.5L12.5 5.5v8H4z" />
    <path d="M6 8.5h4.5M8.25 6.25v4.5M6 12h4.5" />
  </Icon>
);

export const SettingsIcon = (props: IconProps) => (
  <Icon {...props}>
    <circle cx="8" cy="8" r="2" />
    <path d="M8 1.5v2M8 12.5v2M1.5 8h2M12.5 8h2M3.4 3.4l1.4 1.4M11.2 11.2l1.4 1.4M3.4 12.6l1.4-1.4M11.2 4.8l1.4-1.4" />
  </Icon>
);

export const KeyboardIcon = (props: IconProps) => (
  <Icon {...props}>
    <rect x="1.5" y="4" width="13" height="8" rx="1.5" />
    <path d="M4 6.5h.01M6.5 6.5h.01M9 6.5h.01M11.5 6.5h.01M5 9.5h6" />
  </Icon>
);

export const SearchIcon = (props: IconProps) => (
  <Icon {...props}>
    <circle cx="7" cy="7" r="4" />
    <path d="M10 10l3.5 3.5" />
  </Icon>
);

export const ArrowUpIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M4 10l4-4 4 4" />
  </Icon>
);

export const ArrowDownIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M4 6l4 4 4-4" />
  </Icon>
);

export const RestartIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M13 8a5 5 0 1 1-1.5-3.6" />
    <path d="M13 2.5V5h-2.5" />
  </Icon>
);

export const ChevronDownIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M5 6.5l3 3 3-3" />
  </Icon>
);

export const WarningIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M8 2.5l6 10.5H2z" />
    <path d="M8 6.5v3M8 11.25h.01" />
  </Icon>
);

export const LogoIcon = (props: IconProps) => (
  <svg width="18" height="18" viewBox="0 0 18 18" aria-hidden="true" focusable="false" {...props}>
    <rect x="1" y="1" width="16" height="16" rx="4" fill="var(--accent)" />
    <path d="M5 6.5l2.5 2.5L5 11.5M9.5 11.5H13" fill="none" stroke="#fff" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round" />
  </svg>
);

/** A pulse line: what agents did (the Activity view). */
export const ActivityIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M1.5 8.5h3l1.8-4.5 3.4 8 1.8-3.5h3" />
  </Icon>
);

/** A small robot head: an agent CLI (Claude Code, Codex…) running in a pane, or handing something to one. */
export const AgentIcon = (props: IconProps) => (
  <Icon {...props}>
    <rect x="3" y="5" width="10" height="8" rx="2" />
    <path d="M8 5V2.8M6 9h.01M10 9h.01" />
  </Icon>
);

/** The robot head with a plus: start a new agent (New agent dialog). */
export const NewAgentIcon = (props: IconProps) => (
  <Icon {...props}>
    <rect x="1.5" y="6" width="9" height="7.5" rx="2" />
    <path d="M6 6V3.8M4.5 9.8h.01M7.5 9.8h.01M13 2v5M10.5 4.5h5" />
  </Icon>
);

/** A git branch: an agent's worktree and its branch. */
export const BranchIcon = (props: IconProps) => (
  <Icon {...props}>
    <circle cx="4.5" cy="3.5" r="1.5" />
    <circle cx="4.5" cy="12.5" r="1.5" />
    <circle cx="11.5" cy="5.5" r="1.5" />
    <path d="M4.5 5v6M11.5 7c0 2.5-2 3-7 4" />
  </Icon>
);
