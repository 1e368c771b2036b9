// Times the page of a running `thehook ui` in headless Chromium, for
// bench/ui.py: for each view, a fresh load of its URL, from the start of the
// navigation to the page's first contentful paint and to the moment the view
// has rendered its data (the `view-ready:<view>` mark the page sets).
// Usage: node bench/ui_views.mjs URL RUNS VIEW... -> one JSON object on stdout.
import { launchChromium, viewOf } from '../tests/ui/measure.mjs';

const [url, runsArg, ...views] = process.argv.slice(2);
const runs = Number(runsArg);
const browser = await launchChromium();
const out = {};
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  // One load first: Chromium's own start-up is not the page's.
  await page.goto(url, { waitUntil: 'load' });
  for (let run = 0; run < runs; run++) {
    // Views in turn, run after run: drift of the machine spreads evenly.
    for (const view of views) {
      const name = viewOf(view);
      await page.goto('about:blank');
      await page.goto(`${url.split('#')[0]}#/${view}`, { waitUntil: 'domcontentloaded' });
      await page.waitForFunction((n) => document.body.dataset.ready === n, { timeout: 60000 }, name);
      const t = await page.evaluate((n) => {
        const mark = performance.getEntriesByName(`view-ready:${n}`).at(-1);
        const paint = performance.getEntriesByName('first-contentful-paint')[0];
        return { ready: mark ? mark.startTime : null, paint: paint ? paint.startTime : null };
      }, name);
      (out[view] ??= { ready: [], paint: [] });
      out[view].ready.push(t.ready);
      out[view].paint.push(t.paint);
    }
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
