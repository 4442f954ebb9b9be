// The dashboard: connects to the live view that served it, decodes every message from the
// advertised schemas, and redraws at most 30 times a second. The DAMP button calls the operator
// service over a second connection that presents the operator token (kept in sessionStorage).
import { FoxgloveConnection, serverUrl } from "./foxglove.mjs";
import { History, colorOf, drawPlot } from "./plot.mjs";
import { Schema } from "./protobuf.mjs";
import * as views from "./views.mjs";

const TOPICS = { "/joint_state": onJointState, "/telemetry": onTelemetry, "/events": onEvent };
const WINDOW_S = 10;
const FRAME_MS = 1000 / 30;
const MAX_EVENTS = 50;
const MAX_JOINTS = 64;
const OPERATOR_KEY = "robot_edge_operator_token";
const DAMP_SERVICE = "/robot_edge/damp";

const state = {
  robot: undefined,        // /robot.json
  schema: new Schema(),    // every advertised channel's types
  types: new Map(),        // channel id -> message type name
  joint: undefined,        // latest JointState
  telemetry: undefined, telemetryAt: undefined,
  controller: undefined,
  events: [],
  eventsChanged: false,
  connection: { state: "connecting" },
  selected: new Set([0, 3, 12]),
  rateHz: 0,
  decoded: 0,
  decodeErrors: 0,
  frames: 0,               // redraws so far
};
window.liveDashboard = state;  // for the browser test and the curious

// q and q_des of every joint (series 2i, 2i+1), 10 s at 500 Hz; the IMU's w x y z, gyro x y z.
const jointHistory = new History(2 * MAX_JOINTS, 5000);
const imuHistory = new History(7, 5000);
let jointRows = [];
let rateCount = 0, rateSince = performance.now();

function onJointState(message) {
  state.joint = message;
  const t = message.robot_time_us / 1e6;
  const qq = new Array(2 * MAX_JOINTS).fill(0);
  for (let i = 0; i < message.q.length && i < MAX_JOINTS; ++i) {
    qq[2 * i] = message.q[i];
    qq[2 * i + 1] = message.q_des[i] ?? NaN;
  }
  jointHistory.push(t, qq);
  imuHistory.push(t, [...message.imu_quat, ...message.imu_gyro]);
  rateCount++;
  if (jointRows.length === 0 && !state.robot) jointRows = views.buildJointTable(state, toggleJoint);
}

function onTelemetry(telemetry) {
  state.telemetry = telemetry;
  state.telemetryAt = performance.now();
}

function onEvent(event) {
  if (event.event === "diagnostics") state.controller = event.diagnostics.controller;
  if (event.event === "controller") state.controller = event.controller.current;
  const line = views.describeEvent(state.schema, event);
  if (!line) return;
  state.events.unshift(line);
  state.events.length = Math.min(state.events.length, MAX_EVENTS);
  state.eventsChanged = true;
}

const connection = new FoxgloveConnection(serverUrl(), {
  onState(s, detail) {
    state.connection = { state: s, detail };
    views.renderConnection(state.connection);
  },
  onAdvertise(channels) {
    for (const channel of channels) {
      if (!(channel.topic in TOPICS) || channel.encoding !== "protobuf") continue;
      try {
        state.schema.merge(Schema.fromBase64(channel.schema));
        state.types.set(channel.id, channel.schemaName);
        connection.subscribe(channel.id);
      } catch (error) {
        console.error(`cannot read the schema of ${channel.topic}:`, error);
      }
    }
  },
  onMessage(channel, _logTimeNs, bytes) {
    try {
      const message = state.schema.decode(channel.schemaName, bytes);
      state.decoded++;
      TOPICS[channel.topic](message);
    } catch (error) {
      if (state.decodeErrors++ === 0) console.error(`cannot decode ${channel.topic}:`, error);
    }
  },
  onStatus(status) {
    if (status.level > 0) console.warn(`live view: ${status.message}`);
  },
});

function toggleJoint(index, on) {
  if (on) state.selected.add(index); else state.selected.delete(index);
  renderLegend();
}

function renderLegend() {
  const legend = document.getElementById("plot-legend");
  legend.replaceChildren(...[...state.selected].sort((a, b) => a - b).map((j, k) => {
    const item = document.createElement("span");
    item.className = `legend c${k % 6}`;
    item.textContent = state.robot?.joints[j]?.name ?? `joint ${j}`;
    return item;
  }));
}

// ---- Redraw: at most 30 frames a second, whatever the message rate.
let lastFrame = 0;
function frame(now) {
  requestAnimationFrame(frame);
  if (now - lastFrame < FRAME_MS) return;
  lastFrame = now;
  state.frames++;
  if (now - rateSince >= 1000) {
    state.rateHz = rateCount * 1000 / (now - rateSince);
    rateCount = 0;
    rateSince = now;
  }
  views.renderHeader(state);
  views.updateJointTable(jointRows, state);
  views.renderAlerts(state, now);
  if (state.eventsChanged) {
    views.renderEvents(state);
    state.eventsChanged = false;
  }
  drawPlots();
}

function drawPlots() {
  const latest = jointHistory.size ? jointHistory.times[jointHistory.at(jointHistory.size - 1)] : 0;
  const options = { now: latest, windowS: WINDOW_S };
  const lines = [...state.selected].sort((a, b) => a - b).flatMap((j, k) => [
    { series: 2 * j, color: colorOf(k) },
    { series: 2 * j + 1, color: colorOf(k), dashed: true },
  ]);
  drawPlot(document.getElementById("plot-q"), jointHistory, lines, options);
  drawPlot(document.getElementById("plot-quat"), imuHistory,
           [0, 1, 2, 3].map((s) => ({ series: s, color: colorOf(s) })), { ...options, range: [-1, 1] });
  drawPlot(document.getElementById("plot-gyro"), imuHistory,
           [4, 5, 6].map((s) => ({ series: s, color: colorOf(s - 4) })), options);
}

// ---- DAMP.
let operator;  // {token, connection}

function askOperatorToken() {
  const dialog = document.getElementById("operator-dialog");
  const input = document.getElementById("operator-token");
  input.value = "";
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok" && input.value
                                                      ? input.value : null), { once: true });
  });
}

function operatorConnection(token) {
  if (operator?.token !== token) {
    operator?.connection.close();
    operator = { token, connection: new FoxgloveConnection(serverUrl(token)) };
  }
  return operator.connection;
}

function showDampResult(kind, text) {
  const result = document.getElementById("damp-result");
  result.className = kind;
  result.textContent = text;
}

async function damp() {
  const token = sessionStorage.getItem(OPERATOR_KEY) ?? await askOperatorToken();
  if (!token) return;
  sessionStorage.setItem(OPERATOR_KEY, token);
  showDampResult("pending", "DAMP sent…");
  try {
    await operatorConnection(token).call(DAMP_SERVICE, {});
    showDampResult("ok", `DAMP accepted at ${new Date().toLocaleTimeString([], { hour12: false })}`);
  } catch (error) {
    showDampResult("error", `DAMP failed: ${error.message}`);
    if (/operator/.test(error.message)) {  // a wrong token: ask again next time
      sessionStorage.removeItem(OPERATOR_KEY);
      operator?.connection.close();
      operator = undefined;
    }
  }
}

document.getElementById("damp").addEventListener("click", damp);
const stored = sessionStorage.getItem(OPERATOR_KEY);
if (stored) operatorConnection(stored);  // ready before the first click

// ---- /robot.json: names, limits and thresholds (the page's cookie carries the token).
fetch(`robot.json${window.location.search}`, { cache: "no-store" })
  .then((response) => (response.ok ? response.json() : Promise.reject(response.status)))
  .then((robot) => {
    state.robot = robot;
    document.title = `${robot.name} · live`;
    jointRows = views.buildJointTable(state, toggleJoint);
    renderLegend();
  })
  .catch((error) => console.error("no /robot.json:", error));

views.renderConnection(state.connection);
renderLegend();
requestAnimationFrame(frame);
