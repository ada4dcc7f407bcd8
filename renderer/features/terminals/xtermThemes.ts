import type { ITheme } from '@xterm/xterm';
import type { ColorScheme } from '../../app/theme.ts';

/**
 * Terminal palettes. The backgrounds match the app's surface colours in app.css so a pane reads
 * as part of the window, and the ANSI colours keep readable contrast on them (the dark palette
 * follows the familiar VS Code Dark+ hues, the light one VS Code Light+).
 */
const dark: ITheme = {
  background: '#15171c',
  foreground: '#d7dae0',
  cursor: '#e6e6e6',
  cursorAccent: '#15171c',
  selectionBackground: '#3b5b8c99',
  selectionInactiveBackground: '#3a3f4b80',
  scrollbarSliderBackground: '#ffffff22',
  scrollbarSliderHoverBackground: '#ffffff38',
  scrollbarSliderActiveBackground: '#ffffff50',
  black: '#1e2127',
  red: '#f0625d',
  green: '#5fc78a',
  yellow: '#e5c07b',
  blue: '#61a8ff',
  magenta: '#c678dd',
  cyan: '#4fc1d6',
  white: '#c8ccd4',
  brightBlack: '#6b7280',
  brightRed: '#ff7b72',
  brightGreen: '#7ee2a8',
  brightYellow: '#f2d492',
  brightBlue: '#8cc2ff',
  brightMagenta: '#dd9cf0',
  brightCyan: '#7fd9e8',
  brightWhite: '#f5f6f7',
};

const light: ITheme = {
  background: '#ffffff',
  foreground: '#24292f',
  cursor: '#24292f',
  cursorAccent: '#ffffff',
  selectionBackground: '#add6ff',
  selectionInactiveBackground: '#e5ebf1',
  scrollbarSliderBackground: '#00000022',
  scrollbarSliderHoverBackground: '#00000038',
  scrollbarSliderActiveBackground: '#00000050',
  black: '#24292f',
  red: '#cf222e',
  green: '#116329',
  yellow: '#8a6100',
  blue: '#0969da',
  magenta: '#8250df',
  cyan: '#1b7c83',
  white: '#6e7781',
  brightBlack: '#57606a',
  brightRed: '#a40e26',
  brightGreen: '#1a7f37',
  brightYellow: '#7d4e00',
  brightBlue: '#218bff',
  brightMagenta: '#a475f9',
  brightCyan: '#3192aa',
  brightWhite: '#8c959f',
};

export function xtermTheme(scheme: ColorScheme): ITheme {
  return scheme === 'dark' ? dark : light;
}

/** Search highlight colours (the addon needs #RRGGBB). */
export function searchDecorations(scheme: ColorScheme) {
  return scheme === 'dark'
    ? { matchBackground: '#4b4120', matchOverviewRuler: '#d1a54a', activeMatchBackground: '#a0771b', activeMatchColorOverviewRuler: '#f5c451' }
    : { matchBackground: '#fbe9a6', matchOverviewRuler: '#c59a00', activeMatchBackground: '#f6c343', activeMatchColorOverviewRuler: '#a87c00' };
}

/** The current match while the find bar is open (drawn as the selection, which it is): amber, as the addon's own active match. */
export function currentMatchSelection(scheme: ColorScheme): string {
  return scheme === 'dark' ? '#b8861fcc' : '#f6c343';
}
