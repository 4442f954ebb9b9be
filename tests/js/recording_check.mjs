// node tests/js/recording_check.mjs FILE: opens a recording robot-edged wrote with an independent
// reader, @mcap/core's McapIndexedReader (the summary and its CRC, the chunk and message indexes
// Foxglove seeks with), reads every message through the index, decodes the first of each channel
// with protobufjs from the file's own schema (a FileDescriptorSet), and prints one JSON line:
// {"complete":true,"counts":{"/joint_state":N,...},"start_ns":"...","end_ns":"...",
//  "first":{"/joint_state":{...},...}}. Exits 1 on any failure.
import { readFile } from "node:fs/promises";
import { fail, loadPackages } from "./live_harness.mjs";

const [path] = process.argv.slice(2);
if (!path) fail("usage: recording_check.mjs FILE.mcap");
const packages = await loadPackages(["@mcap/core", "@foxglove/wasm-zstd", "@foxglove/wasm-lz4",
                                     "protobufjs", "protobufjs/ext/descriptor.js"]);
const { McapIndexedReader } = packages["@mcap/core"];
const zstd = packages["@foxglove/wasm-zstd"];
const lz4 = packages["@foxglove/wasm-lz4"].default;
const protobuf = packages.protobufjs.default;

try {
  const bytes = await readFile(path);
  await zstd.isLoaded;
  await lz4.isLoaded;
  const reader = await McapIndexedReader.Initialize({
    readable: {
      size: async () => BigInt(bytes.length),
      read: async (offset, length) => bytes.subarray(Number(offset), Number(offset + length)),
    },
    decompressHandlers: {
      zstd: (buffer, size) => zstd.decompress(buffer, Number(size)),
      lz4: (buffer, size) => lz4(buffer, Number(size)),
    },
  });
  const types = new Map();
  for (const [id, channel] of reader.channelsById) {
    const schema = reader.schemasById.get(channel.schemaId);
    const root = protobuf.Root.fromDescriptor(Buffer.from(schema.data));
    types.set(id, { topic: channel.topic, type: root.lookupType(schema.name) });
  }
  const counts = {}, first = {};
  let previous = -1n;
  for await (const m of reader.readMessages()) {
    const { topic, type } = types.get(m.channelId);
    counts[topic] = (counts[topic] ?? 0) + 1;
    if (m.logTime < previous) throw new Error(`messages out of order at ${m.logTime}`);
    previous = m.logTime;
    if (!(topic in first)) {
      first[topic] = type.toObject(type.decode(m.data), { longs: String, enums: String });
    }
  }
  const stats = reader.statistics;
  for (const [id, count] of stats.channelMessageCounts) {
    const topic = types.get(id).topic;
    if (BigInt(counts[topic] ?? 0) !== count) {
      throw new Error(`${topic}: the statistics say ${count}, the index gave ${counts[topic]}`);
    }
  }
  console.log(JSON.stringify({ complete: true, counts,
    start_ns: String(stats.messageStartTime), end_ns: String(stats.messageEndTime), first }));
} catch (error) {
  fail(`${path}: ${error.message}`);
}
