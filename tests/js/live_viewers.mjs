// node tests/js/live_viewers.mjs WS_URL N SECONDS: N viewers of a live view (Foxglove's own
// FoxgloveClient each), every advertised channel subscribed, for SECONDS; then one line of JSON:
// {"viewers": N, "connected": n, "messages": total, "bytes": total, "seconds": s}. bench_e2e's
// load of viewers beside the control loop.
import { fail, loadPackages, sleep } from "./live_harness.mjs";

const [url, count, seconds] = process.argv.slice(2);
if (!seconds) fail("usage: live_viewers.mjs WS_URL N SECONDS");
const packages = await loadPackages(["@foxglove/ws-protocol", "ws"]);
const { FoxgloveClient } = packages["@foxglove/ws-protocol"].default;
const WebSocket = packages.ws.default;

let messages = 0, bytes = 0, connected = 0;
const clients = [];
for (let i = 0; i < Number(count); i++) {
  const client = new FoxgloveClient({ ws: new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]) });
  client.on("open", () => { connected++; });
  client.on("error", () => {});
  client.on("advertise", (channels) => { for (const c of channels) client.subscribe(c.id); });
  client.on("message", (m) => { messages++; bytes += m.data.byteLength; });
  clients.push(client);
}
await sleep(Number(seconds) * 1000);
for (const c of clients) c.close();
console.log(JSON.stringify({ viewers: Number(count), connected, messages, bytes, seconds: Number(seconds) }));
process.exit(0);
