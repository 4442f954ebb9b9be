// The dashboard in Debian's Chromium on robot-edged's own live server: live_daemon_on_sim runs the
// daemon's wiring (RunDaemon) driving the simulated robot in memory. robot-edgectl stands the
// robot and the dashboard follows (the mode, the joints moving to the stand pose); its DAMP
// button refuses a wrong operator token and, with the right one, puts the daemon in DAMP and the
// simulated motors at kp 0; an overtemperature injected into a simulated motor shows as its
// alert. Writes a screenshot.
//
//   node tests/js/dashboard_daemon_check.mjs <live_daemon_on_sim> <robot-edgectl> <config.yaml>
//                                            <web root> <screenshot.png>
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Checks, fail, sleep } from "./live_harness.mjs";
import { drawnPixels, launchChromium, pressDamp, text, until, watchPage } from "./chromium.mjs";

const [daemonBinary, edgectl, config, webRoot, screenshot] = process.argv.slice(2);
if (!screenshot) {
  fail("usage: dashboard_daemon_check.mjs <live_daemon_on_sim> <robot-edgectl> <config.yaml> <web root> <png>");
}
for (const binary of [daemonBinary, edgectl]) {
  if (!existsSync(binary)) fail(`${binary} is missing: build the unit_tests target`);
}

const OPERATOR_TOKEN = "operator-token";
const dir = mkdtempSync(join(tmpdir(), "robot-edge-dashboard-"));
const socket = join(dir, "api.sock");
writeFileSync(join(dir, "operator.token"), OPERATOR_TOKEN + "\n", { mode: 0o600 });

// robot-edgectl against the daemon: its stdout, or throws with its stderr.
const run = promisify(execFile);
const robotEdgectl = async (...args) => (await run(edgectl, ["--socket", socket, ...args])).stdout;

// The daemon, with the simulated motors' count ("motors: H holding, D damped, O off") as it
// reports it, and its fault injection on stdin.
function startDaemon() {
  const child = spawn(daemonBinary, ["--config", config, "--dir", dir, "--web-root", webRoot],
                      { stdio: ["pipe", "pipe", "pipe"] });
  const daemon = { child, stderr: "", motors: "", replies: [], exited: null };
  let buffered = "";
  child.stderr.on("data", (data) => { daemon.stderr += data; });
  child.on("exit", (code, signal) => { daemon.exited = code ?? signal; });
  child.stdout.on("data", (data) => {
    buffered += data;
    let newline;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.startsWith("motors: ")) daemon.motors = line.slice("motors: ".length);
      if (line.startsWith("sim: ")) daemon.replies.push(line.slice("sim: ".length));
    }
  });
  daemon.waitForMotors = async (wanted, ms = 8000) => {
    for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) {
      if (daemon.motors.startsWith(wanted)) return true;
    }
    console.log(`  (waited ${ms} ms for "motors: ${wanted}", last "${daemon.motors}")`);
    return false;
  };
  daemon.inject = (line) => child.stdin.write(line + "\n");
  daemon.stop = () => new Promise((done) => {
    if (daemon.exited !== null) return done(daemon.exited);
    child.on("exit", (code) => done(code));
    child.stdin.end();  // its end of stdin: the daemon's clean shutdown
    setTimeout(() => child.kill("SIGKILL"), 10000);
  });
  return daemon;
}

// `robot-edgectl status` once the daemon answers (it is starting).
async function statusWhenUp(daemon) {
  for (const end = Date.now() + 15000; Date.now() < end; await sleep(100)) {
    if (daemon.exited !== null) throw new Error(`the daemon exited (${daemon.exited}):\n${daemon.stderr}`);
    try {
      return await robotEdgectl("status");
    } catch {
      // not listening yet
    }
  }
  throw new Error(`the daemon did not answer on ${socket} within 15 s:\n${daemon.stderr}`);
}

const modeIn = (status) => /^mode\s+(\S+)/m.exec(status)?.[1];
const kneeQ = (page, row) =>
  page.$eval(`#joints tbody tr:nth-child(${row + 1}) td.q span`, (s) => Number(s.textContent));

const checks = new Checks();
const daemon = startDaemon();
let chromium = null;
try {
  const status = await statusWhenUp(daemon);
  const url = /^live view\s+(\S+)/m.exec(status)?.[1];
  checks.ok(url?.startsWith("http://127.0.0.1:"), `robot-edgectl status names the live view: ${url}`);
  checks.ok(modeIn(status) === "DAMP", "the daemon starts in DAMP");

  chromium = await launchChromium();
  const page = await chromium.browser.newPage();
  await page.setViewport({ width: 1440, height: 760 });
  const { problems, requests } = watchPage(page);
  await page.goto(url, { waitUntil: "load" });
  checks.ok(await until(page, () => document.getElementById("connection").textContent === "live",
                        null, "connection live"), "connects to robot-edged: the pill says live");
  checks.ok(await until(page, () => document.getElementById("mode").textContent === "DAMP",
                        null, "mode DAMP"), "mode DAMP, as the daemon started");
  const names = await page.$$eval("#joints tbody tr td.name", (cells) => cells.map((c) => c.textContent));
  checks.ok(names.length === 25 && names[3] === "L_Knee", "25 joints named from the daemon's config",
            names.join(","));
  const knee = names.indexOf("L_Knee");

  // STAND from robot-edgectl: the dashboard follows the daemon and the robot.
  const before = await kneeQ(page, knee);
  await robotEdgectl("--controller", "cloud", "stand");
  checks.ok(await until(page, () => document.getElementById("mode").textContent === "STAND",
                        null, "mode STAND"), "mode STAND after robot-edgectl stand");
  checks.ok(await daemon.waitForMotors("25 holding"), `the simulated motors hold (${daemon.motors})`);
  checks.ok(await until(page, (k) => Math.abs(Number(document.querySelector(
                          `#joints tbody tr:nth-child(${k + 1}) td.q span`).textContent) - 0.6) < 0.05,
                        knee, "L_Knee at its stand pose"),
            `L_Knee's value moves from ${before} to its stand pose 0.6 rad (${await kneeQ(page, knee)})`);
  // The joints moved; the IMU's lines are flat (the simulated robot stands upright and still).
  for (const [id, least] of [["plot-q", 300], ["plot-quat", 100], ["plot-gyro", 100]]) {
    const n = await page.evaluate(drawnPixels, id);
    checks.ok(n > least, `${id} drawn (${n} coloured pixels)`);
  }

  // DAMP: a wrong operator token is refused and changes nothing; the right one damps the robot.
  checks.ok(await pressDamp(page, "wrong-token", "error"), "a wrong operator token: DAMP refused");
  await sleep(300);
  checks.ok(modeIn(await robotEdgectl("status")) === "STAND" && daemon.motors.startsWith("25 holding"),
            `the refused DAMP changed nothing (motors: ${daemon.motors})`);

  checks.ok(await pressDamp(page, OPERATOR_TOKEN, "ok"), "DAMP accepted with the operator token");
  checks.ok(await daemon.waitForMotors("0 holding, 25 damped"),
            `every simulated motor at kp 0 (motors: ${daemon.motors})`);
  checks.ok(modeIn(await robotEdgectl("status")) === "DAMP", "robot-edgectl status: mode DAMP");
  checks.ok(await until(page, () => document.getElementById("mode").textContent === "DAMP",
                        null, "mode DAMP"), "the dashboard shows DAMP");

  // An alert from the robot: L_Knee's motor overheats in the simulator.
  daemon.inject("temp L_Knee 85");
  checks.ok(await until(page, () => document.querySelector("#alerts .alert")?.textContent.includes("MOTOR OVERTEMP"),
                        null, "the overtemperature alert"), "the alert MOTOR OVERTEMP shows");
  checks.ok((await text(page, "#alerts")).includes("L_Knee"), "the alert names L_Knee");
  checks.ok(await until(page, (k) => document.querySelector(`#joints tbody tr:nth-child(${k + 1}) td:last-child`)
                          .classList.contains("trip"), knee, "L_Knee's temperature at the trip"),
            "L_Knee's 85 °C highlighted as over the trip threshold");
  checks.ok(daemon.replies[0] === "ok", `the simulator took the injection (${daemon.replies[0]})`);

  await sleep(500);
  await page.screenshot({ path: screenshot });
  console.log(`screenshot: ${screenshot}`);
  const origin = new URL(url).host;
  const foreign = requests.filter((u) => new URL(u).host !== origin);
  checks.ok(foreign.length === 0, "nothing fetched from anywhere but the robot", foreign.join(" "));
  checks.ok(problems.length === 0, "no page error, console error or failed request", problems.join(" | "));
} catch (error) {
  checks.ok(false, "no exception", error.stack);
} finally {
  if (chromium) await chromium.close();
  const code = await daemon.stop();
  checks.ok(code === 0, `robot-edged shut down cleanly (exit ${code})`, code === 0 ? "" : daemon.stderr);
  rmSync(dir, { recursive: true, force: true });
}
checks.report();
