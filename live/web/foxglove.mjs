// A Foxglove WebSocket protocol client (foxglove.websocket.v1) for the dashboard: connects,
// reconnects, learns channels and services, subscribes, and calls services. No dependency.
//
//   const conn = new FoxgloveConnection(url, {
//     onState(state, detail),           // "connecting" | "open" | "closed"
//     onAdvertise(channels),            // [{id, topic, schemaName, schema, ...}] (new ones)
//     onMessage(channel, logTimeNs, bytes),  // bytes: a Uint8Array view of the payload
//     onStatus(status),                 // the server's status messages
//   });
//   conn.subscribe(channelId);  conn.call("/robot_edge/damp", {})  // -> Promise of the response
export const SUBPROTOCOL = "foxglove.websocket.v1";

const RECONNECT_MS = [500, 1000, 2000, 5000];
const CALL_TIMEOUT_MS = 5000;

export class FoxgloveConnection {
  constructor(url, handlers = {}) {
    this.url = url;
    this.handlers = handlers;
    this.channels = new Map();       // id -> channel
    this.subscriptions = new Map();  // subscription id -> channel
    this.services = new Map();       // name -> service
    this.calls = new Map();          // call id -> {resolve, reject, timer}
    this.nextSubscription = 1;
    this.nextCall = 1;
    this.attempt = 0;
    this.closedByUs = false;
    this.serviceWaiters = [];
    this.open();
  }

  open() {
    this.handlers.onState?.("connecting");
    const ws = new WebSocket(this.url, [SUBPROTOCOL]);
    ws.binaryType = "arraybuffer";
    let opened = false;
    ws.onopen = () => {
      opened = true;
      this.attempt = 0;
      this.handlers.onState?.("open");
    };
    ws.onmessage = (event) => {
      if (typeof event.data === "string") this.onText(JSON.parse(event.data));
      else this.onBinary(new DataView(event.data));
    };
    ws.onclose = (event) => {
      this.reset();
      const detail = opened ? `closed (${event.code})` : "refused or unreachable (token?)";
      this.handlers.onState?.("closed", detail);
      if (this.closedByUs) return;
      const delay = RECONNECT_MS[Math.min(this.attempt++, RECONNECT_MS.length - 1)];
      this.retry = setTimeout(() => this.open(), delay);
    };
    this.ws = ws;
  }

  close() {
    this.closedByUs = true;
    clearTimeout(this.retry);
    this.ws?.close();
  }

  // Forgets what the server told this connection; a new connection is told again.
  reset() {
    this.channels.clear();
    this.subscriptions.clear();
    this.services.clear();
    for (const call of this.calls.values()) call.reject(new Error("connection closed"));
    this.calls.clear();
  }

  onText(message) {
    switch (message.op) {
      case "serverInfo":
        this.serverInfo = message;
        return;
      case "advertise":
        for (const c of message.channels) this.channels.set(c.id, c);
        this.handlers.onAdvertise?.(message.channels);
        return;
      case "unadvertise":
        for (const id of message.channelIds) this.channels.delete(id);
        return;
      case "advertiseServices":
        for (const s of message.services) this.services.set(s.name, s);
        this.serviceWaiters.splice(0).forEach((wake) => wake());
        return;
      case "status":
        this.handlers.onStatus?.(message);
        return;
      case "serviceCallFailure":
        this.finishCall(message.callId, null, new Error(message.message));
        return;
    }
  }

  onBinary(view) {
    const op = view.getUint8(0);
    if (op === 0x01) {  // messageData: subscription id, log time (ns), payload
      const channel = this.subscriptions.get(view.getUint32(1, true));
      if (!channel) return;
      const bytes = new Uint8Array(view.buffer, view.byteOffset + 13, view.byteLength - 13);
      this.handlers.onMessage?.(channel, view.getBigUint64(5, true), bytes);
    } else if (op === 0x03) {  // serviceCallResponse: service, call, encoding, payload
      const callId = view.getUint32(5, true);
      const encodingLength = view.getUint32(9, true);
      const payload = new Uint8Array(view.buffer, view.byteOffset + 13 + encodingLength);
      this.finishCall(callId, JSON.parse(new TextDecoder().decode(payload) || "null"));
    }
  }

  send(message) {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(message);
  }

  subscribe(channelId) {
    const id = this.nextSubscription++;
    this.subscriptions.set(id, this.channels.get(channelId));
    this.send(JSON.stringify({ op: "subscribe", subscriptions: [{ id, channelId }] }));
    return id;
  }

  // Calls service `name` with JSON `request`; resolves with its JSON response, rejects with the
  // server's reason. Waits for the service to be advertised (up to the timeout).
  async call(name, request) {
    const deadline = Date.now() + CALL_TIMEOUT_MS;
    while (!this.services.has(name)) {
      if (Date.now() > deadline) throw new Error(`no service ${name} on this server`);
      await new Promise((wake) => {
        this.serviceWaiters.push(wake);
        setTimeout(wake, 200);
      });
    }
    const service = this.services.get(name);
    const callId = this.nextCall++;
    const encoding = new TextEncoder().encode("json");
    const payload = new TextEncoder().encode(JSON.stringify(request));
    const bytes = new Uint8Array(13 + encoding.length + payload.length);
    const view = new DataView(bytes.buffer);
    view.setUint8(0, 0x02);
    view.setUint32(1, service.id, true);
    view.setUint32(5, callId, true);
    view.setUint32(9, encoding.length, true);
    bytes.set(encoding, 13);
    bytes.set(payload, 13 + encoding.length);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.finishCall(callId, null, new Error("no answer")),
                               Math.max(0, deadline - Date.now()));
      this.calls.set(callId, { resolve, reject, timer });
      this.send(bytes);
    });
  }

  finishCall(callId, response, error) {
    const call = this.calls.get(callId);
    if (!call) return;
    this.calls.delete(callId);
    clearTimeout(call.timer);
    if (error) call.reject(error);
    else call.resolve(response);
  }
}

// The WebSocket URL of the server that served this page, with the page's own ?token= and, for
// an operator connection, the operator token.
export function serverUrl(operatorToken) {
  const page = new URL(window.location.href);
  const url = new URL("/", page);
  url.protocol = page.protocol === "https:" ? "wss:" : "ws:";
  const token = page.searchParams.get("token");
  if (token !== null) url.searchParams.set("token", token);
  if (operatorToken !== undefined) url.searchParams.set("operator_token", operatorToken);
  return url.toString();
}
