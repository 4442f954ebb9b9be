// node tests/js/live_tls_check.mjs HTTPS_URL CA_FILE: robot-edge-live with live.tls, from outside.
// The dashboard over https and a Foxglove WebSocket over wss with the CA; refused without it
// (certificate not trusted); plain http, plain ws and a silent TCP peer to the TLS port fail or are
// closed, and the server goes on serving https afterwards. Prints the figure of each check.
// (The data over wss, and DAMP, are live_daemon_check.mjs's, run with the CA.)
import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { Checks, fail, loadPackages, withTimeout } from "./live_harness.mjs";

const [base, caFile] = process.argv.slice(2);
if (!caFile) fail("usage: live_tls_check.mjs HTTPS_URL CA_FILE");
const ca = readFileSync(caFile);
const { ws } = await loadPackages(["ws"]);
const WebSocket = ws.default;
const url = new URL(base);
const checks = new Checks();

// GET `target` with `options`: { status, body } or { error } (its code).
function get(module, target, options = {}) {
  return new Promise((resolve) => {
    const request = module.get(target, { ...options, agent: false, timeout: 5000 }, (response) => {
      let body = "";
      response.on("data", (d) => { body += d; });
      response.on("end", () => resolve({ status: response.statusCode, body }));
    });
    request.on("timeout", () => request.destroy(new Error("timed out")));
    request.on("error", (e) => resolve({ error: e.code ?? e.message }));
  });
}

// Opens a WebSocket with `options`: "open" or the error's code / message.
function openWs(target, options = {}) {
  return new Promise((resolve) => {
    const socket = new WebSocket(target, ["foxglove.websocket.v1"], { ...options, handshakeTimeout: 5000 });
    socket.on("open", () => { socket.close(); resolve("open"); });
    socket.on("error", (e) => resolve(e.code ?? e.message));
  });
}

const notTrusted = (code) => ["SELF_SIGNED_CERT_IN_CHAIN", "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
                              "UNABLE_TO_VERIFY_LEAF_SIGNATURE"].includes(code);
const wssUrl = `wss://${url.host}/`;

try {
  const page = await get(https, base, { ca });
  checks.ok(page.status === 200 && page.body.includes("<html"), "the dashboard over https with the CA",
            `${page.status ?? page.error}`);
  const robot = await get(https, new URL("/robot.json", base), { ca });
  checks.ok(robot.status === 200 && JSON.parse(robot.body).joints?.length === 25,
            "/robot.json over https", `${robot.status ?? robot.error}`);
  const untrusted = await get(https, base);
  checks.ok(notTrusted(untrusted.error), "https without the CA: certificate not trusted",
            `${untrusted.status ?? untrusted.error}`);
  const plain = await get(http, `http://${url.host}/`);
  checks.ok(plain.status === undefined, "plain http to the TLS port gets no page",
            `${plain.status ?? plain.error}`);

  checks.ok((await openWs(wssUrl, { ca })) === "open", "wss with the CA opens");
  const wssUntrusted = await openWs(wssUrl);
  checks.ok(notTrusted(wssUntrusted), "wss without the CA: certificate not trusted", wssUntrusted);
  const wsPlain = await openWs(`ws://${url.host}/`);
  checks.ok(wsPlain !== "open", "plain ws to the TLS port does not open", wsPlain);

  // A peer that connects and says nothing: closed by the server within its handshake timeout
  // (3 s) and sweep (0.5 s), not held.
  const started = Date.now();
  const silent = await withTimeout(new Promise((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname);
    socket.on("error", () => {});
    socket.on("close", () => resolve(Date.now() - started));
  }), 15000, "the silent peer closed");
  checks.ok(silent >= 2500 && silent < 4800, "a silent TCP peer is closed after the handshake timeout",
            `${silent} ms`);

  const after = await get(https, base, { ca });
  checks.ok(after.status === 200, "https still served after the failed handshakes",
            `${after.status ?? after.error}`);
} catch (error) {
  checks.ok(false, "the check ran to its end", error.message);
}
checks.report();
