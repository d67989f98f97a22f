/**
 * The browser the page's tests and benchmarks drive: Debian's Chromium (never one a tool
 * downloads), headless, with nothing of its own running in the background (no first-run
 * screens, no component updates, no background networking).
 */
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
];
