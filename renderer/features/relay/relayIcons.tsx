/**
 * Remote access icons, drawn like app/icons.tsx: a 16×16 grid in the current text colour. The
 * "broadcast" mark (a dot with waves) means "seen through the relay".
 */
import { Icon, type IconProps } from '../../app/icons.tsx';

/** Shared to the relay (`off`: not shared, the waves struck through). */
export const BroadcastIcon = ({ off = false, ...props }: IconProps & { off?: boolean }) => (
  <Icon {...props}>
    <circle cx="8" cy="8" r="1.4" fill="currentColor" stroke="none" />
    <path d="M5.4 5.4a3.7 3.7 0 0 0 0 5.2M10.6 5.4a3.7 3.7 0 0 1 0 5.2" />
    <path d="M3.3 3.3a6.6 6.6 0 0 0 0 9.4M12.7 3.3a6.6 6.6 0 0 1 0 9.4" opacity={off ? 0.55 : 1} />
    {off && <path d="M2.5 13.5l11-11" />}
  </Icon>
);

/** Remote access (a globe). */
export const GlobeIcon = (props: IconProps) => (
  <Icon {...props}>
    <circle cx="8" cy="8" r="5.8" />
    <path d="M2.4 8h11.2M8 2.2c1.7 1.6 2.5 3.6 2.5 5.8S9.7 12.2 8 13.8C6.3 12.2 5.5 10.2 5.5 8S6.3 3.8 8 2.2z" />
  </Icon>
);
