// node tests/js/live_daemon_check.mjs WS_URL OPERATOR_TOKEN: the live view (robot-edge-live), checked
// with @foxglove/ws-protocol's FoxgloveClient (Foxglove's own implementation) and protobufjs:
// the robot's channels are advertised with their schemas, /joint_state arrives at the control
// rate with 25 joints, /telemetry at ~10 Hz; the DAMP service refuses a viewer without the
// operator token and works with it (the test then sees the robot DAMP). Robot standing.
// CA_FILE (optional): a wss:// URL's certificate authority (live.tls), given to every connection.
import { readFileSync } from "node:fs";
import { Checks, fail, loadPackages, sleep, withTimeout } from "./live_harness.mjs";

const [base, operatorToken, caFile] = process.argv.slice(2);
if (!operatorToken) fail("usage: live_daemon_check.mjs WS_URL OPERATOR_TOKEN [CA_FILE]");
const wsOptions = caFile ? { ca: readFileSync(caFile) } : {};
const packages = await loadPackages(["@foxglove/ws-protocol", "ws", "protobufjs",
                                     "protobufjs/ext/descriptor.js"]);
const { FoxgloveClient } = packages["@foxglove/ws-protocol"].default;
const WebSocket = packages.ws.default;
const protobuf = packages.protobufjs.default;
const checks = new Checks();

function connect(query) {
  const client = new FoxgloveClient({
    ws: new WebSocket(`${base}?${query}`, [FoxgloveClient.SUPPORTED_SUBPROTOCOL], wsOptions),
  });
  const s = { client, channels: new Map(), services: new Map(), counts: new Map(), last: new Map() };
  s.advertised = new Promise((resolve) => client.on("advertise", (channels) => {
    for (const c of channels) s.channels.set(c.topic, c);
    if (s.channels.has("/joint_state") && s.channels.has("/telemetry")) resolve();
  }));
  s.servicesAdvertised = new Promise((resolve) => client.on("advertiseServices", (services) => {
    for (const v of services) s.services.set(v.name, v);
    resolve();
  }));
  client.on("error", () => {});
  client.on("message", (m) => {
    s.counts.set(m.subscriptionId, (s.counts.get(m.subscriptionId) ?? 0) + 1);
    s.last.set(m.subscriptionId, m.data);
  });
  s.call = (name, callId) => {
    const service = s.services.get(name);
    const answer = new Promise((resolve) => {
      client.on("serviceCallResponse", (r) => r.callId === callId && resolve({ ok: true }));
      client.on("serviceCallFailure", (f) => f.callId === callId && resolve({ ok: false, f }));
    });
    client.sendServiceCallRequest({ serviceId: service.id, callId, encoding: "json",
                                    data: new TextEncoder().encode("{}") });
    return withTimeout(answer, 3000, `${name} call`);
  };
  return s;
}

try {
  const viewer = connect("");
  await withTimeout(viewer.advertised, 5000, "channels advertised");
  for (const topic of ["/joint_state", "/telemetry", "/events", "/diagnostics"]) {
    checks.ok(viewer.channels.get(topic)?.encoding === "protobuf", `${topic} advertised as protobuf`);
  }
  const js = viewer.channels.get("/joint_state");
  const type = protobuf.Root.fromDescriptor(Buffer.from(js.schema, "base64")).lookupType(js.schemaName);
  const states = viewer.client.subscribe(js.id);
  const telemetry = viewer.client.subscribe(viewer.channels.get("/telemetry").id);
  await sleep(2000);
  const rate = (viewer.counts.get(states) ?? 0) / 2;
  // 500 Hz on a robot; the loop runs at 300-500 Hz under user-mode-linux, where robot-edged, the
  // simulator, robot-edge-live and this script share one CPU, and a starved robot-edge-live
  // loses states its API socket could not take. 150 /s is still fifteen times telemetry's rate.
  checks.ok(rate > 150, "/joint_state arrives at the control rate", `${rate} /s`);
  const t = (viewer.counts.get(telemetry) ?? 0) / 2;
  checks.ok(t >= 5 && t <= 15, "/telemetry at ~10 Hz", `${t} /s`);
  const latest = () => {
    const last = viewer.last.get(states);  // a DataView over the frame
    return type.toObject(
      type.decode(new Uint8Array(last.buffer, last.byteOffset, last.byteLength)), { enums: String });
  };
  const standing = (s) => (s.controlMode ?? s.control_mode) === "CONTROL_MODE_STAND";
  // The caller has stood the robot (live.tls: robot-edgectl stand); on a slow machine the
  // states may say so a little later: up to 10 s.
  let state = latest();
  for (let i = 0; i < 100 && !standing(state); ++i) {
    await sleep(100);
    state = latest();
  }
  checks.ok(state.q?.length === 25 && state.kp?.length === 25, "25 joints measured and commanded");
  checks.ok(standing(state), "the robot stands", `control mode ${state.controlMode ?? state.control_mode}, ` +
            JSON.stringify(state).slice(0, 200));

  await withTimeout(viewer.servicesAdvertised, 3000, "services advertised");
  const refused = await viewer.call("/robot_edge/damp", 1);
  checks.ok(!refused.ok, "DAMP without the operator token is refused");
  const operator = connect(`operator_token=${operatorToken}`);
  await withTimeout(operator.servicesAdvertised, 5000, "services advertised (operator)");
  const damp = await operator.call("/robot_edge/damp", 2);
  checks.ok(damp.ok, "DAMP with the operator token is accepted");
  viewer.client.close();
  operator.client.close();
} catch (error) {
  checks.ok(false, "the check ran to its end", error.message);
}
checks.report();
process.exit(process.exitCode ?? 0);
