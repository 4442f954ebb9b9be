// Shared by the dashboard's Chromium checks: Debian's Chromium, headless through puppeteer-core,
// with a throwaway profile; waiting on the page; what the page did wrong; drawn plot pixels.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fail, loadPackages } from "./live_harness.mjs";

const CHROMIUM = "/usr/bin/chromium";

// { browser, close() }; exits 1 saying what to run when Chromium or puppeteer-core is missing.
export async function launchChromium() {
  if (!existsSync(CHROMIUM)) fail(`${CHROMIUM} is missing: run scripts/bootstrap (Debian's chromium)`);
  const puppeteer = (await loadPackages(["puppeteer-core"]))["puppeteer-core"].default;
  const profile = mkdtempSync(join(tmpdir(), "robot-edge-chromium-"));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run",
           `--user-data-dir=${profile}`],
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

// True once fn(arg) holds in the page, false (saying what it waited for) after `timeout` ms.
export const until = (page, fn, arg, what, timeout = 8000) =>
  page.waitForFunction(fn, { timeout, polling: 100 }, arg).then(() => true, () => {
    console.log(`  (waited ${timeout} ms for ${what})`);
    return false;
  });

export const text = (page, selector) => page.$eval(selector, (e) => e.textContent.trim());

// Collects the page's errors, console errors and failed requests (`problems`) and every URL it
// requested (`requests`).
export function watchPage(page) {
  const seen = { problems: [], requests: [] };
  page.on("pageerror", (e) => seen.problems.push(`page error: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && seen.problems.push(`console: ${m.text()}`));
  page.on("requestfailed", (r) => seen.problems.push(`request failed: ${r.url()}`));
  page.on("request", (r) => seen.requests.push(r.url()));
  return seen;
}

// In the page: pixels of canvas `id` that are neither its background nor its grey grid.
export function drawnPixels(id) {
  const canvas = document.getElementById(id);
  const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
  let n = 0;
  for (let i = 0; i < data.length; i += 4) {
    const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
    if (Math.max(r, g, b) - Math.min(r, g, b) > 40) n++;  // coloured, not grey
  }
  return n;
}

// Presses the dashboard's DAMP button and gives `token` in its operator dialog; true once the
// result shows `outcome` ("ok" or "error"), false after the wait.
export async function pressDamp(page, token, outcome) {
  await page.click("#damp");
  await page.waitForSelector("#operator-dialog[open]", { timeout: 3000 });
  await page.type("#operator-token", token);
  await page.click("#operator-ok");
  return until(page, (o) => document.getElementById("damp-result").className === o, outcome,
               `DAMP result ${outcome}`);
}
