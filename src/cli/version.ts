import packageJson from '../../package.json' with { type: 'json' };

/** The version from package.json (bundled with the code, so no file I/O at run time). */
export const switchboardVersion: string = packageJson.version;
