// The lab page's API on window (client/main.js pageApi): typed once, for the page that sets it and
// for the runner's and benchmarks' page.evaluate callbacks, which run in the page. The runner waits
// for it (runner/browsers/chromium.js labReady) before any other call.
export {};

declare global {
  interface Window {
    h2lab: import('./main.js').PageApi;
  }
}
