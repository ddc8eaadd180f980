// Inlined from package.json by the build (and by vitest's config), not read at run time.
declare const __TENDERS_VERSION__: string;

export const VERSION: string = __TENDERS_VERSION__;
