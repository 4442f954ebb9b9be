// Shared by the live view's Node checks: loading the test-only npm packages (with the fix when
// they are missing), the demo server as a child process, and a tiny check runner whose last line
// CTest-readable ("N passed, M failed").
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

// Imports npm packages from tests/js/node_modules; exits 1 saying what to run when they are not
// installed (never a silent skip).
export async function loadPackages(names) {
  if (!existsSync(join(here, "node_modules"))) {
    fail(`tests/js/node_modules is missing: run scripts/bootstrap (it runs npm ci in tests/js)`);
  }
  const modules = {};
  for (const name of names) {
    try {
      modules[name] = await import(name);
    } catch (error) {
      fail(`cannot load npm package ${name} (${error.message}): run scripts/bootstrap`);
    }
  }
  return modules;
}

export function fail(message) {
  console.error(`FAIL: ${message}`);
  console.log("0 passed, 1 failed");
  process.exit(1);
}

// Runs `live_demo_server` with `args`; resolves once it printed its port.
//   demo.port, demo.damps (DAMP calls it counted so far), demo.waitForDamps(n), demo.stop()
export function startDemoServer(binary, args = []) {
  if (!existsSync(binary)) fail(`no demo server at ${binary}: build the live_demo_server target`);
  const child = spawn(binary, args, { stdio: ["pipe", "pipe", "pipe"] });
  const demo = { port: 0, damps: 0, stderr: "", child };
  const waiters = [];
  let buffered = "";
  child.stderr.on("data", (data) => { demo.stderr += data; });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`demo server printed no port:\n${demo.stderr}`)), 10000);
    child.on("exit", (code) => reject(new Error(`demo server exited (${code}):\n${demo.stderr}`)));
    child.stdout.on("data", (data) => {
      buffered += data;
      let newline;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        const [key, value] = buffered.slice(0, newline).split(" ");
        buffered = buffered.slice(newline + 1);
        if (key === "port") {
          demo.port = Number(value);
          clearTimeout(timer);
          resolve(demo);
        } else if (key === "damp") {
          demo.damps = Number(value);
          waiters.filter((w) => demo.damps >= w.n).forEach((w) => w.resolve());
        }
      }
    });
    demo.waitForDamps = (n, ms = 5000) => new Promise((ok, no) => {
      if (demo.damps >= n) return ok();
      waiters.push({ n, resolve: ok });
      setTimeout(() => no(new Error(`the demo server counted ${demo.damps} DAMP calls, not ${n}`)), ms);
    });
    demo.stop = () => new Promise((done) => {
      if (child.exitCode !== null) return done();
      child.removeAllListeners("exit");
      child.on("exit", () => done());
      child.stdin.end();  // the demo server stops when its stdin closes
      setTimeout(() => child.kill("SIGKILL"), 5000);
    });
  });
}

// Collects named checks; report() prints them and the closing "N passed, M failed" line and
// sets the exit code.
export class Checks {
  constructor() { this.passed = 0; this.failed = 0; }
  ok(condition, name, detail = "") {
    if (condition) {
      this.passed++;
      console.log(`ok   ${name}${detail ? `: ${detail}` : ""}`);
    } else {
      this.failed++;
      console.log(`FAIL ${name}${detail ? `: ${detail}` : ""}`);
    }
    return condition;
  }
  report() {
    console.log(`${this.passed} passed, ${this.failed} failed`);
    process.exitCode = this.failed === 0 && this.passed > 0 ? 0 : 1;
  }
}

export function withTimeout(promise, ms, what) {
  return Promise.race([
    promise,
    new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms)),
  ]);
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
