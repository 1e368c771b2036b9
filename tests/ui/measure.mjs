// Headless Chromium for the page of `thehook ui`, shared by its tests
// (tests/ui/ui.test.mjs) and benchmarks: how Chromium is launched, and
// measureViews(), the page's times as a benchmark wants them.
import { createRequire } from 'node:module';

// Resolved from tests/ui/, whatever folder the importing script runs from.
const puppeteer = createRequire(new URL('./package.json', import.meta.url))('puppeteer-core');

/** The system's Chromium (THEHOOK_CHROMIUM, or Debian's), headless. `extraArgs` add to
 * `--no-sandbox`, which a run as root needs. */
export function launchChromium(extraArgs = []) {
  return puppeteer.launch({
    executablePath: process.env.THEHOOK_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', ...extraArgs],
  });
}

/** The view a route renders: `session/abc` -> `session`, `search?q=x` -> `search`. */
export const viewOf = (route) => route.split(/[/?]/)[0];

/**
 * Times the page at `url` (as `thehook ui` printed it), `runs` times. Each run
 * loads the page afresh and records its first contentful paint (ms from the
 * start of the navigation); then shows each of `views` (routes such as
 * `sessions`, `session/<id>`, `search?q=jose`; distinct from one another) by
 * setting location.hash, and records the ms from setting it to the page's
 * `view-ready:<view>` mark (the view's data fetched and its DOM built).
 * Pass `browser` to reuse one; otherwise one is launched and closed.
 * Returns { firstPaint: number[], views: { [route]: number[] } }.
 */
export async function measureViews({ url, views, runs, browser }) {
  const own = browser ? null : await launchChromium();
  const page = await (browser ?? own).newPage();
  const out = { firstPaint: [], views: Object.fromEntries(views.map((v) => [v, []])) };
  try {
    await page.setViewport({ width: 1280, height: 900 });
    // The page without a route renders Sessions; every route below is then
    // a change of the hash, so each one fires `hashchange`.
    const bare = url.split('#')[0];
    for (let run = 0; run < runs; run++) {
      await page.goto('about:blank');
      await page.goto(bare);
      await page.waitForFunction(() => document.body.dataset.ready === 'sessions', { timeout: 60000 });
      // The paint entry can be queued a little after the view is ready:
      // a buffered observer gets it either way.
      out.firstPaint.push(await page.evaluate(() => new Promise((done) => {
        new PerformanceObserver((list) => {
          const fcp = list.getEntriesByName('first-contentful-paint')[0];
          if (fcp) done(fcp.startTime);
        }).observe({ type: 'paint', buffered: true });
      })));
      for (const route of views) {
        await page.evaluate((r) => {
          performance.clearMarks();
          document.body.dataset.ready = '';
          window.__navStart = performance.now();
          location.hash = `#/${r}`;
        }, route);
        const name = viewOf(route);
        await page.waitForFunction((n) => document.body.dataset.ready === n, { timeout: 60000 }, name);
        out.views[route].push(await page.evaluate(
          (n) => performance.getEntriesByName(`view-ready:${n}`).at(-1).startTime - window.__navStart, name));
      }
    }
  } finally {
    await page.close();
    await own?.close();
  }
  return out;
}
