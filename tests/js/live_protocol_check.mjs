// The live view's Foxglove WebSocket protocol, checked with independent implementations:
// @foxglove/ws-protocol's FoxgloveClient on the `ws` package, and protobufjs decoding the
// messages from the FileDescriptorSets the server advertises. Against live_demo_server.
//
//   node tests/js/live_protocol_check.mjs <live_demo_server> <config.yaml> <web root>
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Checks, fail, loadPackages, sleep, startDemoServer, withTimeout } from "./live_harness.mjs";

const [binary, config, webRoot] = process.argv.slice(2);
if (!webRoot) fail("usage: live_protocol_check.mjs <live_demo_server> <config.yaml> <web root>");
const packages = await loadPackages(["@foxglove/ws-protocol", "ws", "protobufjs",
                                     "protobufjs/ext/descriptor.js"]);
const { FoxgloveClient } = packages["@foxglove/ws-protocol"].default;  // CommonJS
const WebSocket = packages.ws.default;
const protobuf = packages.protobufjs.default;
const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { Schema } = await import(join(repo, "live", "web", "protobuf.mjs"));

const TOKEN = "viewer-token";
const OPERATOR_TOKEN = "operator-token";
const checks = new Checks();
const demo = await startDemoServer(binary, ["--config", config, "--web-root", webRoot,
                                            "--token", TOKEN, "--operator-token", OPERATOR_TOKEN]);
const url = (query) => `ws://127.0.0.1:${demo.port}/?${query}`;

// A connection's whole conversation: serverInfo, channels, services, messages, service answers.
function connect(query) {
  const client = new FoxgloveClient({
    ws: new WebSocket(url(query), [FoxgloveClient.SUPPORTED_SUBPROTOCOL]),
  });
  const session = { client, channels: new Map(), services: new Map(), messages: [], statuses: [] };
  session.serverInfo = new Promise((resolve) => client.on("serverInfo", resolve));
  session.advertised = new Promise((resolve) => client.on("advertise", (channels) => {
    for (const c of channels) session.channels.set(c.topic, c);
    if (session.channels.size >= 3) resolve();
  }));
  session.servicesAdvertised = new Promise((resolve) => client.on("advertiseServices", (services) => {
    for (const s of services) session.services.set(s.name, s);
    resolve();
  }));
  client.on("message", (m) => session.messages.push({ ...m, arrived: performance.now() }));
  client.on("status", (s) => session.statuses.push(s));
  client.on("error", () => {});
  session.call = (serviceName, callId) => {
    const service = session.services.get(serviceName);
    const answer = new Promise((resolve) => {
      client.on("serviceCallResponse", (r) => r.callId === callId && resolve({ ok: true, r }));
      client.on("serviceCallFailure", (f) => f.callId === callId && resolve({ ok: false, f }));
    });
    client.sendServiceCallRequest({ serviceId: service.id, callId, encoding: "json",
                                    data: new TextEncoder().encode("{}") });
    return withTimeout(answer, 3000, `${serviceName} call ${callId}`);
  };
  return session;
}

// What the upgrade is answered with when it is refused (ws reports the HTTP status).
function refusedStatus(query) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url(query), [FoxgloveClient.SUPPORTED_SUBPROTOCOL]);
    ws.on("unexpected-response", (_req, res) => { resolve(res.statusCode); ws.terminate(); });
    ws.on("open", () => { resolve(101); ws.close(); });
    ws.on("error", () => resolve(0));
  });
}

function typeOf(channel) {
  const root = protobuf.Root.fromDescriptor(Buffer.from(channel.schema, "base64"));
  return root.lookupType(channel.schemaName);
}

try {
  checks.ok(await refusedStatus("token=wrong") === 401, "a wrong token is refused with 401");
  checks.ok(await refusedStatus("") === 401, "no token is refused with 401");

  const viewer = connect(`token=${TOKEN}`);
  const info = await withTimeout(viewer.serverInfo, 5000, "serverInfo");
  checks.ok(info.name === "robot-edge" && info.capabilities.includes("services") &&
            info.supportedEncodings?.includes("json"), "serverInfo: name, services, json",
            JSON.stringify(info));
  await withTimeout(viewer.advertised, 5000, "advertise");
  const wanted = { "/joint_state": "edge.JointState", "/telemetry": "edge.EdgeTelemetry",
                   "/events": "edge.EdgeEvent" };
  for (const [topic, schemaName] of Object.entries(wanted)) {
    const c = viewer.channels.get(topic);
    checks.ok(c && c.schemaName === schemaName && c.encoding === "protobuf" &&
              c.schemaEncoding === "protobuf" && c.schema.length > 100,
              `${topic} advertised as ${schemaName} with its schema`);
  }
  const jointChannel = viewer.channels.get("/joint_state");
  const JointState = typeOf(jointChannel);
  const EdgeTelemetry = typeOf(viewer.channels.get("/telemetry"));
  const jointFields = ["q", "dq", "tau", "q_des", "kp", "imu_quat", "imu_accel", "imu_ypr",
                       "motor_status", "user_command_key", "timing"];
  checks.ok(jointFields.every((f) => JointState.fields[f] !== undefined) &&
            JointState.fields.motor_status.resolvedType?.values?.MOTOR_STATUS_SILENT === 2 &&
            EdgeTelemetry.fieldsArray.length === 16,
            "protobufjs rebuilds the types from the advertised FileDescriptorSets");

  // /joint_state for 2 s.
  const jointSub = viewer.client.subscribe(jointChannel.id);
  const telemetrySub = viewer.client.subscribe(viewer.channels.get("/telemetry").id);
  await sleep(300);  // let the stream settle
  viewer.messages.length = 0;
  const start = performance.now();
  await sleep(2000);
  const seconds = (performance.now() - start) / 1000;
  const joints = viewer.messages.filter((m) => m.subscriptionId === jointSub);
  const rate = joints.length / seconds;
  checks.ok(rate >= 400, `/joint_state arrives at ≥ 400 msgs/s (${rate.toFixed(0)}/s)`);
  const bytes = (m) => new Uint8Array(m.data.buffer, m.data.byteOffset, m.data.byteLength);
  const decoded = joints.map((m) => JointState.toObject(JointState.decode(bytes(m)),
                                                          { longs: Number, enums: Number, defaults: true }));
  const field = (o, snake) => o[snake] ?? o[snake.replace(/_(.)/g, (_, c) => c.toUpperCase())];
  checks.ok(decoded.every((s) => s.q.length === 25 && s.tau.length === 25 &&
                                 field(s, "q_des").length === 25 && field(s, "imu_quat").length === 4),
            "every JointState has 25 joints and the IMU");
  checks.ok(decoded.every((s) => field(s, "control_mode") === 1 && field(s, "fw_mode") === 1),
            "control_mode STAND, fw_mode STAND");
  const ticks = decoded.map((s) => s.tick);
  checks.ok(ticks.every((t, i) => i === 0 || t === ticks[i - 1] + 1), "ticks consecutive: nothing lost",
            `${ticks.slice(0, 5)}…`);
  const stamps = joints.map((m) => m.timestamp);
  checks.ok(stamps.every((t, i) => i === 0 || t >= stamps[i - 1]) &&
            Math.abs(Number(stamps[0] / 1000000n) - Date.now()) < 10000,
            "messageData timestamps: wall clock ns, non-decreasing");
  const s0 = decoded[0];
  const t0 = s0.tick / 500;
  const expected = -0.3 + 0.05 * Math.sin(2 * Math.PI / 2.0 * t0);  // L_Hip_Pitch's q_des
  checks.ok(Math.abs(field(s0, "q_des")[0] - expected) < 1e-6, "q_des is the demo's sinusoid",
            `${field(s0, "q_des")[0]} vs ${expected}`);
  checks.ok(Math.abs(field(s0, "temperature_c")[3] - 72) < 1e-6, "L_Knee at 72 °C");

  // The dashboard's decoder reads the same bytes the same way.
  const ours = Schema.fromBase64(jointChannel.schema);
  const same = joints.slice(0, 200).every((m, i) => {
    const o = ours.decode("edge.JointState", bytes(m));
    return o.tick === decoded[i].tick && o.q.every((v, j) => v === decoded[i].q[j]) &&
           o.control_mode === 1 && o.timing.period_us === field(decoded[i].timing, "period_us");
  });
  checks.ok(same, "live/web/protobuf.mjs decodes 200 real JointStates as protobufjs does");

  const telemetry = viewer.messages.filter((m) => m.subscriptionId === telemetrySub)
      .map((m) => EdgeTelemetry.toObject(EdgeTelemetry.decode(bytes(m)), { longs: Number, defaults: true }));
  const trate = telemetry.length / seconds;
  checks.ok(trate >= 7 && trate <= 13, `/telemetry at about 10 Hz (${trate.toFixed(1)}/s)`);
  const alerts = telemetry.length ? field(telemetry.at(-1), "active_alerts") : [];
  checks.ok(alerts.length === 1 && alerts[0].id === 4 && field(alerts[0], "source_id") === 2,
            "one active alert: CAN_BUS_OFF on bus 2", JSON.stringify(alerts));

  viewer.client.unsubscribe(jointSub);
  await sleep(300);
  const before = viewer.messages.filter((m) => m.subscriptionId === jointSub).length;
  await sleep(300);
  const after = viewer.messages.filter((m) => m.subscriptionId === jointSub).length;
  checks.ok(before === after, "unsubscribe stops /joint_state");
  checks.ok(viewer.statuses.every((s) => s.level === 0), "no warning or error status",
            JSON.stringify(viewer.statuses));

  // DAMP: refused without the operator token, saying why; done with it.
  await withTimeout(viewer.servicesAdvertised, 3000, "advertiseServices");
  const damp = viewer.services.get("/robot_edge/damp");
  checks.ok(damp && damp.request?.encoding === "json", "/robot_edge/damp advertised (json)");
  const refused = await viewer.call("/robot_edge/damp", 1);
  checks.ok(!refused.ok && /operator_token/.test(refused.f.message),
            "DAMP without the operator token fails with the reason", refused.f?.message);
  const wrong = connect(`token=${TOKEN}&operator_token=guess`);
  await withTimeout(wrong.servicesAdvertised, 3000, "advertiseServices");
  const wrongAnswer = await wrong.call("/robot_edge/damp", 1);
  checks.ok(!wrongAnswer.ok && /wrong/.test(wrongAnswer.f.message),
            "DAMP with a wrong operator token fails: wrong", wrongAnswer.f?.message);
  checks.ok(demo.damps === 0, "the refused calls never reached the handler");

  const operator = connect(`token=${TOKEN}&operator_token=${OPERATOR_TOKEN}`);
  await withTimeout(operator.servicesAdvertised, 3000, "advertiseServices");
  const done = await operator.call("/robot_edge/damp", 2);
  const body = done.ok ? JSON.parse(new TextDecoder().decode(done.r.data)) : {};
  checks.ok(done.ok && done.r.encoding === "json" && body.accepted === true,
            "DAMP with the operator token succeeds", JSON.stringify(body));
  await demo.waitForDamps(1);
  checks.ok(demo.damps === 1, "the demo server counted the DAMP");

  for (const s of [viewer, wrong, operator]) s.client.close();
} catch (error) {
  checks.ok(false, "no exception", error.stack);
} finally {
  await demo.stop();
}
checks.report();
