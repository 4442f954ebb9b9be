// The dashboard's DOM: the header (connection, mode, controller, rate), the joint table, the
// active alerts and the event list. Pure rendering from the state app.mjs keeps; no I/O.

const NEAR_LIMIT_RAD = 0.1;

const $ = (id) => document.getElementById(id);

function element(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

// "CONTROL_MODE_MOVE_POLICY" -> "MOVE POLICY"; a number when the schema has no name for it.
export function shortName(schema, enumType, value, prefix) {
  const name = schema.enumName(enumType, value);
  if (name === undefined) return String(value);
  return (name.startsWith(prefix) ? name.slice(prefix.length) : name).replaceAll("_", " ");
}

const fixed = (v, digits) => (v === undefined || Number.isNaN(v) ? "—" : v.toFixed(digits));

export function renderConnection(connection) {
  const pill = $("connection");
  const text = { connecting: "connecting…", open: "live", closed: "disconnected" }[connection.state];
  pill.textContent = connection.state === "closed" && connection.detail
    ? `disconnected: ${connection.detail}` : text;
  pill.className = `pill ${connection.state}`;
}

export function renderHeader(state) {
  const joint = state.joint;
  if (state.robot) $("robot-name").textContent = state.robot.name;
  if (joint) {
    const mode = shortName(state.schema, "edge.ControlMode", joint.control_mode, "CONTROL_MODE_");
    $("mode").textContent = mode;
    $("mode-box").className = `mode-box mode-${mode.split(" ")[0].toLowerCase()}`;
    $("fw-mode").textContent =
        `firmware ${shortName(state.schema, "edge.FirmwareMode", joint.fw_mode, "FW_MODE_")}`;
  }
  $("controller").textContent = state.controller === undefined ? "—" : state.controller || "none";
  $("rate").textContent = `${state.rateHz.toFixed(0)} Hz`;
  $("tick").textContent = joint ? `tick ${joint.tick}` : "";
}

// Builds the rows once (names from /robot.json); `onToggle(index)` when a plot box changes.
export function buildJointTable(state, onToggle) {
  const body = $("joints").tBodies[0];
  body.replaceChildren();
  const count = state.robot?.joints.length ?? state.joint?.q.length ?? 0;
  const rows = [];
  for (let i = 0; i < count; ++i) {
    const row = element("tr");
    const box = element("input");
    box.type = "checkbox";
    box.checked = state.selected.has(i);
    box.title = "plot q and q_des";
    box.addEventListener("change", () => onToggle(i, box.checked));
    const plot = element("td", "plot");
    plot.append(box);
    const name = state.robot?.joints[i]?.name ?? `joint ${i}`;
    const q = element("td", "num q");
    const bar = element("div", "bar");
    const marker = element("div", "marker");
    bar.append(marker);
    const value = element("span");
    q.append(value, bar);
    const cells = [plot, element("td", "index", String(i)), element("td", "name", name), q,
                   element("td", "num"), element("td", "num"), element("td", "num")];
    row.append(...cells);
    body.append(row);
    rows.push({ row, q, value, marker, dq: cells[4], tau: cells[5], temp: cells[6] });
  }
  return rows;
}

// Values, and the highlights: within NEAR_LIMIT_RAD of a limit, at or above the overtemperature
// clear threshold ("hot") or the trip threshold ("trip").
export function updateJointTable(rows, state) {
  const joint = state.joint;
  if (!joint) return;
  const safety = state.robot?.safety;
  rows.forEach((r, i) => {
    const q = joint.q[i], limits = state.robot?.joints[i];
    r.value.textContent = fixed(q, 3);
    r.dq.textContent = fixed(joint.dq[i], 2);
    r.tau.textContent = fixed(joint.tau[i], 2);
    const temp = joint.temperature_c[i];
    r.temp.textContent = fixed(temp, 1);
    let near = false;
    if (limits && q !== undefined) {
      near = q - limits.min_rad < NEAR_LIMIT_RAD || limits.max_rad - q < NEAR_LIMIT_RAD;
      const f = (q - limits.min_rad) / (limits.max_rad - limits.min_rad);
      r.marker.style.left = `${Math.max(0, Math.min(1, f)) * 100}%`;
    }
    r.q.classList.toggle("near-limit", near);
    r.temp.classList.toggle("hot", safety !== undefined && temp >= safety.overtemp_clear_c);
    r.temp.classList.toggle("trip", safety !== undefined && temp >= safety.overtemp_trip_c);
  });
}

// Where an alert comes from, by the words of its name: a joint, a CAN bus, or the robot.
function sourceOf(alertName, sourceId, robot) {
  if (/MOTOR|JOINT/.test(alertName)) return robot?.joints[sourceId]?.name ?? `joint ${sourceId}`;
  if (/CAN_BUS/.test(alertName)) return `bus ${sourceId}`;
  return "";
}

export function renderAlerts(state, now) {
  const list = $("alerts");
  const stale = state.telemetryAt === undefined || now - state.telemetryAt > 2000;
  const alerts = stale ? [] : state.telemetry.active_alerts;
  const items = alerts.map((a) => {
    const name = shortName(state.schema, "edge.AlertId", a.id, "ALERT_");
    const severity = shortName(state.schema, "edge.AlertSeverity", a.severity, "SEVERITY_");
    const item = element("li", `alert ${severity.toLowerCase()}`);
    item.append(element("span", "severity", severity), element("span", "alert-name", name),
                element("span", "source", sourceOf(name.replaceAll(" ", "_"), a.source_id, state.robot)),
                element("span", "detail", `value ${a.value} · threshold ${a.threshold}`));
    return item;
  });
  if (items.length === 0) {
    items.push(element("li", stale ? "muted" : "none", stale ? "no telemetry" : "no active alert"));
  }
  list.replaceChildren(...items);
}

// The newest events first.
export function renderEvents(state) {
  const list = $("events");
  list.replaceChildren(...state.events.map((e) => {
    const item = element("li", e.kind);
    item.append(element("span", "time", e.time), element("span", "code", e.code),
                element("span", "message", e.message));
    return item;
  }));
}

// An EdgeEvent as a line of the event list; undefined for events not listed (diagnostics).
export function describeEvent(schema, event) {
  const time = new Date(event.timestamp_us / 1000).toLocaleTimeString([], { hour12: false });
  if (event.event === "error") {
    const subsystem = shortName(schema, "edge.Subsystem", event.error.subsystem, "SUBSYSTEM_");
    return { kind: "error", time, code: event.error.code,
             message: `${event.error.message} (${subsystem})` };
  }
  if (event.event === "controller") {
    const c = event.controller;
    return { kind: "controller", time, code: "CONTROLLER",
             message: `${c.previous || "none"} → ${c.current || "none"} (${c.reason})` };
  }
  return undefined;
}
