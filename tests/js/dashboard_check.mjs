// The dashboard in Debian's Chromium (headless, through puppeteer-core), served by
// live_demo_server: it connects with the page's token, decodes the streams, shows the mode, the
// 25 joints with names and highlights, the alert, the events and the plots; DAMP asks for the
// operator token, refuses a wrong one and works with the right one. Writes a screenshot.
//
//   node tests/js/dashboard_check.mjs <live_demo_server> <config.yaml> <web root> <screenshot.png>
import { Checks, fail, sleep, startDemoServer } from "./live_harness.mjs";
import { drawnPixels, launchChromium, pressDamp, text, until, watchPage } from "./chromium.mjs";

const [binary, config, webRoot, screenshot] = process.argv.slice(2);
if (!screenshot) fail("usage: dashboard_check.mjs <live_demo_server> <config.yaml> <web root> <png>");

const TOKEN = "viewer-token";
const OPERATOR_TOKEN = "operator-token";
const checks = new Checks();
const chromium = await launchChromium();
const browser = chromium.browser;
const demo = await startDemoServer(binary, ["--config", config, "--web-root", webRoot,
                                            "--token", TOKEN, "--operator-token", OPERATOR_TOKEN]);

try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1440, height: 760 });
  const { problems, requests } = watchPage(page);

  await page.goto(`http://127.0.0.1:${demo.port}/?token=${TOKEN}`, { waitUntil: "load" });
  checks.ok(await until(page, () => document.getElementById("connection").textContent === "live",
                        null, "connection live"), "connects: the pill says live");
  checks.ok(await until(page, () => document.getElementById("mode").textContent === "STAND",
                        null, "mode STAND"), "mode STAND from /joint_state's control_mode");

  const robot = await (await fetch(`http://127.0.0.1:${demo.port}/robot.json?token=${TOKEN}`)).json();
  const names = await page.$$eval("#joints tbody tr td.name", (cells) => cells.map((c) => c.textContent));
  checks.ok(names.length === 25 && names.every((n, i) => n === robot.joints[i].name),
            "25 joint rows named as /robot.json names them", names.join(","));
  checks.ok(await text(page, "#robot-name") === robot.name, `robot name ${robot.name}`);

  checks.ok(await until(page, () => document.querySelector("#alerts .alert")?.textContent.includes("CAN BUS OFF"),
                        null, "the alert"), "the active alert: CAN BUS OFF");
  checks.ok((await text(page, "#alerts")).includes("bus 2"), "the alert names its bus");
  checks.ok(await until(page, () => document.getElementById("controller").textContent === "cloud",
                        null, "controller"), "controller cloud (from /events diagnostics)");
  checks.ok(await until(page, () => document.querySelector("#events li.error"), null, "an error event"),
            "an EdgeEvent error in the event list");

  const knee = names.indexOf("L_Knee");
  checks.ok(await page.$eval(`#joints tbody tr:nth-child(${knee + 1}) td:last-child`,
                             (td) => td.classList.contains("hot")),
            "L_Knee's 72 °C highlighted (over the 70 °C clear threshold)");
  checks.ok(await until(page, (k) => document.querySelector(`#joints tbody tr:nth-child(${k + 1}) td.q`)
                            .classList.contains("near-limit"), knee, "L_Knee near its limit"),
            "L_Knee highlighted within 0.1 rad of its lower limit");
  checks.ok(await page.$$eval("#joints td.near-limit", (cells) => cells.length) <= 2,
            "only joints near a limit are highlighted");

  // Throughput and redraw rate over 2 s.
  const before = await page.evaluate(() => ({ ...window.liveDashboard, frames: window.liveDashboard.frames }));
  const t0 = Date.now();
  await sleep(2000);
  const after = await page.evaluate(() => ({ decoded: window.liveDashboard.decoded,
                                             errors: window.liveDashboard.decodeErrors,
                                             frames: window.liveDashboard.frames }));
  const seconds = (Date.now() - t0) / 1000;
  const decodedRate = (after.decoded - before.decoded) / seconds;
  const fps = (after.frames - before.frames) / seconds;
  checks.ok(decodedRate >= 400, `decodes every message (${decodedRate.toFixed(0)} msgs/s)`);
  checks.ok(after.errors === 0, "no decode error");
  checks.ok(fps <= 31 && fps >= 5, `redraws at ≤ 30 fps (${fps.toFixed(1)})`);
  const start = Date.now();
  await page.evaluate(() => 1);
  checks.ok(Date.now() - start < 250, `responsive: a round trip takes ${Date.now() - start} ms`);

  for (const id of ["plot-q", "plot-quat", "plot-gyro"]) {
    const n = await page.evaluate(drawnPixels, id);
    checks.ok(n > 300, `${id} drawn (${n} coloured pixels)`);
  }

  // DAMP: a wrong operator token is refused and forgotten; the right one works.
  checks.ok(await pressDamp(page, "wrong-token", "error"), "a wrong operator token: DAMP refused");
  checks.ok((await text(page, "#damp-result")).includes("wrong"),
            `the refusal says why: ${await text(page, "#damp-result")}`);
  checks.ok(demo.damps === 0, "the refused DAMP never reached the service");

  checks.ok(await pressDamp(page, OPERATOR_TOKEN, "ok"), "DAMP accepted with the operator token");
  await demo.waitForDamps(1).catch(() => {});
  checks.ok(demo.damps === 1, `the demo server counted ${demo.damps} DAMP call`);
  checks.ok(await until(page, () => document.getElementById("mode").textContent === "DAMP",
                        null, "mode DAMP"), "the mode shows DAMP afterwards");
  checks.ok(await page.evaluate(() => sessionStorage.getItem("robot_edge_operator_token")) === OPERATOR_TOKEN,
            "the operator token is kept in sessionStorage");

  await sleep(500);
  await page.screenshot({ path: screenshot });
  console.log(`screenshot: ${screenshot}`);

  const foreign = requests.filter((u) => !u.startsWith(`http://127.0.0.1:${demo.port}/`) &&
                                         !u.startsWith(`ws://127.0.0.1:${demo.port}/`));
  checks.ok(foreign.length === 0, "nothing fetched from anywhere but the robot", foreign.join(" "));
  checks.ok(problems.length === 0, "no page error, console error or failed request", problems.join(" | "));
} catch (error) {
  checks.ok(false, "no exception", error.stack);
} finally {
  await chromium.close();
  await demo.stop();
}
checks.report();
