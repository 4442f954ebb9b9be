// node tests/js/replay_check.mjs REPLAY FILE: robot-edge-replay serve, checked with
// @foxglove/ws-protocol's FoxgloveClient (Foxglove's own implementation) and protobufjs. It
// serves the dashboard's robot description from the file (25 joints); it advertises the file's
// channels with their schemas; every /joint_state message of the file reaches a viewer that
// subscribed before the playback started (it waits for one), in order, and decodes; the
// program says when the recording has ended.
import { spawn } from "node:child_process";
import { Checks, fail, loadPackages, withTimeout } from "./live_harness.mjs";

const [replay, file, expected] = process.argv.slice(2);
if (!expected) fail("usage: replay_check.mjs REPLAY FILE JOINT_STATES");
const packages = await loadPackages(["@foxglove/ws-protocol", "ws", "protobufjs",
                                     "protobufjs/ext/descriptor.js"]);
const { FoxgloveClient } = packages["@foxglove/ws-protocol"].default;
const WebSocket = packages.ws.default;
const protobuf = packages.protobufjs.default;
const checks = new Checks();

const child = spawn(replay, ["serve", file, "--address", "127.0.0.1:0", "--speed", "4"],
                    { stdio: ["ignore", "pipe", "pipe"] });
let output = "";
const lines = [];
const waiters = [];
child.stderr.on("data", (d) => { output += d; });
child.stdout.on("data", (d) => {
  output += d;
  lines.push(...String(d).split("\n"));
  for (const w of waiters) if (lines.some((l) => w.re.test(l))) w.resolve(lines.find((l) => w.re.test(l)));
});
const line = (re) => new Promise((resolve) => {
  const found = lines.find((l) => re.test(l));
  if (found) resolve(found); else waiters.push({ re, resolve });
});

try {
  const serving = await withTimeout(line(/serving on http:\/\/127\.0\.0\.1:\d+\//), 10000, "serving");
  const port = serving.match(/127\.0\.0\.1:(\d+)/)[1];
  const doc = await (await fetch(`http://127.0.0.1:${port}/robot.json`)).json();
  checks.ok(doc.joints?.length === 25, "the robot description from the file (25 joints)");

  const client = new FoxgloveClient({
    ws: new WebSocket(`ws://127.0.0.1:${port}/`, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]),
  });
  const channels = new Map();
  const advertised = new Promise((resolve) => client.on("advertise", (list) => {
    for (const c of list) channels.set(c.topic, c);
    if (channels.has("/joint_state")) resolve();
  }));
  const received = [];
  let subscription = -1;
  client.on("message", (m) => { if (m.subscriptionId === subscription) received.push(m); });
  client.on("error", () => {});
  await withTimeout(advertised, 5000, "channels advertised");
  checks.ok(channels.get("/joint_state").schemaName === "edge.JointState",
            "/joint_state advertised with its schema");
  subscription = client.subscribe(channels.get("/joint_state").id);
  await withTimeout(line(/end of the recording/), 120000, "the end of the recording");
  await new Promise((r) => setTimeout(r, 300));
  checks.ok(received.length === Number(expected), "every /joint_state message of the file arrived",
            `${received.length} of ${expected}`);
  const times = received.map((m) => m.timestamp);
  checks.ok(times.every((t, i) => i === 0 || t >= times[i - 1]), "in time order");
  const js = channels.get("/joint_state");
  const type = protobuf.Root.fromDescriptor(Buffer.from(js.schema, "base64")).lookupType(js.schemaName);
  const last = received[received.length - 1].data;
  const state = type.decode(new Uint8Array(last.buffer, last.byteOffset, last.byteLength));
  checks.ok(state.q.length === 25, "a state decodes with its 25 joints");
  client.close();
} catch (error) {
  checks.ok(false, "the check ran to its end", `${error.message}\n${output}`);
}
child.kill("SIGTERM");
checks.report();
process.exit(process.exitCode ?? 0);
