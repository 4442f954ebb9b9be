// node tests/js/mcap_check.mjs FILE...: checks MCAP files written by tests/recorder/mcap_sample
// with an independent reader, @mcap/core's McapIndexedReader (the indexed path Foxglove uses):
// header, footer and summary (its CRC is checked on open; the data section CRC here), schemas and
// channels, statistics, every payload against the pattern mcap_sample.cpp documents (decoded
// with protobufjs from the file's own FileDescriptorSet), and time-range seeks through the chunk
// and message indexes; then the streaming reader (what a player uses on a file without index)
// on every record, chunk CRCs included; and a black-box dump of the same stream. Exits 1 with the
// first failure.
let McapIndexedReader, McapStreamReader, zstd, lz4, crc32, protobuf;
try {
  ({ McapIndexedReader, McapStreamReader } = await import("@mcap/core"));
  zstd = await import("@foxglove/wasm-zstd");
  lz4 = (await import("@foxglove/wasm-lz4")).default;
  ({ crc32 } = await import("@foxglove/crc"));
  protobuf = (await import("protobufjs")).default;
  await import("protobufjs/ext/descriptor.js");
} catch (error) {
  console.error(`mcap_check: tests/js/node_modules is missing or incomplete (${error.message}): ` +
    "run scripts/bootstrap");
  process.exit(1);
}
import { readFile } from "node:fs/promises";
import assert from "node:assert/strict";

// The sample's pattern (tests/recorder/mcap_sample.cpp).
const T0 = 1_700_000_000_000_000_000n, TICK = 2_000_000n, TICKS = 10_000, JOINTS = 25;
const expected = { "/telemetry": [], "/imu": [], "/log": [] };
for (let i = 0; i < TICKS; ++i) {
  const t = T0 + BigInt(i) * TICK;
  expected["/telemetry"].push({ sequence: i, logTime: t, publishTime: t - 100_000n });
  expected["/imu"].push({
    sequence: i, logTime: t + 500_000n, publishTime: t + 500_000n,
    text: `{"seq":${i},"gyro_mrad_s":[${i % 7},${-(i % 5)},3]}`,
  });
  if (i % 50 === 0) {
    const l = t + 1_000_000n;
    expected["/log"].push({ sequence: i / 50, logTime: l, publishTime: l,
      text: `{"level":"info","text":"tick ${i}"}` });
  }
}
const total = Object.values(expected).reduce((n, list) => n + list.length, 0);

function checkTelemetry(type, data, i) {
  // Field names as in the .proto: fromDescriptor keeps their case.
  const m = type.toObject(type.decode(data), { longs: String, defaults: true });
  const t = T0 + BigInt(i) * TICK;
  assert.equal(m.sequence, i);
  assert.equal(m.timestamp_us, String(t / 1000n));
  assert.equal(m.joint_pos.length, JOINTS);
  for (let j = 0; j < JOINTS; ++j) {
    assert.equal(m.joint_pos[j], j + (i % 64) / 64);
    assert.equal(m.joint_vel[j], (i % 8) - j);
    assert.equal(m.joint_temp[j], 30 + j);
  }
  assert.deepEqual(m.imu_quat, [1, 0, 0, 0]);
}

const decompressHandlers = {
  zstd: (buffer, size) => zstd.decompress(buffer, Number(size)),
  lz4: (buffer, size) => lz4(buffer, Number(size)),
};

async function check(path, compression) {
  const bytes = await readFile(path);
  const readable = {
    size: async () => BigInt(bytes.length),
    read: async (offset, size) => bytes.subarray(Number(offset), Number(offset + size)),
  };
  const reader = await McapIndexedReader.Initialize({ readable, decompressHandlers });
  assert.equal(reader.header.profile, "");
  assert.equal(reader.header.library, "robot-edge recorder");
  assert.ok(reader.footer.summaryStart > 0n && reader.footer.summaryOffsetStart > 0n);
  assert.notEqual(reader.footer.summaryCrc, 0);  // checked by Initialize
  assert.equal(reader.dataSectionCrc, crc32(bytes.subarray(0, Number(reader.dataEndOffset))));
  assert.deepEqual([...reader.summaryOffsetsByOpcode.keys()].sort((a, b) => a - b),
    [0x03, 0x04, 0x08, 0x0b, 0x0d]);

  // Schemas and channels.
  const schemas = [...reader.schemasById.values()];
  assert.deepEqual(schemas.map((s) => [s.id, s.name, s.encoding]),
    [[1, "edge.EdgeTelemetry", "protobuf"], [2, "Imu", "jsonschema"]]);
  const root = protobuf.Root.fromDescriptor(schemas[0].data);
  const telemetryType = root.lookupType("edge.EdgeTelemetry");
  assert.equal(JSON.parse(new TextDecoder().decode(schemas[1].data)).type, "object");
  const channels = [...reader.channelsById.values()];
  assert.deepEqual(channels.map((c) => [c.id, c.schemaId, c.topic, c.messageEncoding]),
    [[1, 1, "/telemetry", "protobuf"], [2, 2, "/imu", "json"], [3, 0, "/log", "json"]]);
  assert.deepEqual([...channels[1].metadata], [["frame_id", "base"]]);
  const topicOf = (id) => reader.channelsById.get(id).topic;

  // Statistics and chunk indexes.
  const stats = reader.statistics;
  assert.equal(stats.messageCount, BigInt(total));
  assert.equal(stats.schemaCount, 2);
  assert.equal(stats.channelCount, 3);
  assert.equal(stats.metadataCount, 1);
  assert.equal(stats.chunkCount, reader.chunkIndexes.length);
  assert.ok(reader.chunkIndexes.length > 50, `${reader.chunkIndexes.length} chunks`);
  assert.deepEqual([...stats.channelMessageCounts], [[1, 10000n], [2, 10000n], [3, 200n]]);
  assert.equal(stats.messageStartTime, T0);
  assert.equal(stats.messageEndTime, T0 + BigInt(TICKS - 1) * TICK + 500_000n);
  for (const ci of reader.chunkIndexes) assert.equal(ci.compression, compression);

  // Metadata, through its index.
  const metadata = [];
  for await (const m of reader.readMetadata()) metadata.push(m);
  assert.equal(metadata.length, 1);
  assert.equal(metadata[0].name, "robot");
  assert.equal(metadata[0].metadata.get("name"), "sample-h1");

  // Every message, in log time order, against the pattern.
  const seen = { "/telemetry": 0, "/imu": 0, "/log": 0 };
  let last = 0n;
  for await (const m of reader.readMessages()) {
    const topic = topicOf(m.channelId);
    const want = expected[topic][seen[topic]];
    assert.ok(m.logTime >= last, "log time order");
    last = m.logTime;
    assert.equal(m.sequence, want.sequence, `${topic} sequence`);
    assert.equal(m.logTime, want.logTime);
    assert.equal(m.publishTime, want.publishTime);
    if (topic === "/telemetry") checkTelemetry(telemetryType, m.data, want.sequence);
    else assert.equal(new TextDecoder().decode(m.data), want.text);
    ++seen[topic];
  }
  assert.deepEqual(seen, { "/telemetry": 10000, "/imu": 10000, "/log": 200 });

  // Seeks: a window in the middle (inclusive bounds), per topic and in reverse.
  const start = T0 + 4321n * TICK, end = T0 + 5678n * TICK + 600_000n;
  const inWindow = (list) => list.filter((e) => e.logTime >= start && e.logTime <= end);
  const window = [];
  for await (const m of reader.readMessages({ startTime: start, endTime: end })) window.push(m);
  const all = Object.values(expected).flatMap(inWindow).sort((a, b) =>
    a.logTime < b.logTime ? -1 : a.logTime > b.logTime ? 1 : 0);
  assert.deepEqual(window.map((m) => m.logTime), all.map((e) => e.logTime));
  const logs = [];
  for await (const m of reader.readMessages({ topics: ["/log"], startTime: start, endTime: end })) {
    logs.push(new TextDecoder().decode(m.data));
  }
  assert.deepEqual(logs, inWindow(expected["/log"]).map((e) => e.text));
  const reversed = [];
  for await (const m of reader.readMessages({ topics: ["/imu"], startTime: start, endTime: end,
    reverse: true })) reversed.push(m.sequence);
  assert.deepEqual(reversed, inWindow(expected["/imu"]).map((e) => e.sequence).reverse());
  // The streaming reader: every record front to back.
  const stream = new McapStreamReader({ decompressHandlers, validateCrcs: true });
  stream.append(bytes);
  const kinds = {};
  for (let r; (r = stream.nextRecord()); ) kinds[r.type] = (kinds[r.type] ?? 0) + 1;
  assert.ok(stream.done(), "stream reader reached the end");
  assert.equal(kinds.Message, total);
  assert.equal(kinds.Header, 1);
  assert.equal(kinds.DataEnd, 1);
  assert.equal(kinds.Footer, 1);
  assert.equal(kinds.MessageIndex, reader.chunkIndexes.reduce(
    (n, ci) => n + ci.messageIndexOffsets.size, 0));
  console.log(`mcap_check: ${path}: ok (${total} messages, ${reader.chunkIndexes.length} ` +
    `${compression || "uncompressed"} chunks, window of ${window.length})`);
}

// A black-box dump of the same stream (mcap_sample.cpp): exactly the messages of
// [T0 + 4 s, T0 + 16 s] (publish = log time), the "robot" then "blackbox" metadata, through the
// indexed reader, then every record and chunk CRC through the streaming reader.
async function checkBlackBox(path) {
  const bytes = await readFile(path);
  const readable = {
    size: async () => BigInt(bytes.length),
    read: async (offset, size) => bytes.subarray(Number(offset), Number(offset + size)),
  };
  const reader = await McapIndexedReader.Initialize({ readable, decompressHandlers });
  const start = T0 + 2000n * TICK, end = T0 + 8000n * TICK;
  const want = {};
  for (const [topic, list] of Object.entries(expected)) {
    want[topic] = list.filter((e) => e.logTime >= start && e.logTime <= end);
  }
  const count = Object.values(want).reduce((n, list) => n + list.length, 0);
  assert.equal(reader.statistics.messageCount, BigInt(count));
  const metadata = [];
  for await (const m of reader.readMetadata()) metadata.push(m);
  assert.deepEqual(metadata.map((m) => m.name), ["robot", "blackbox"]);
  const box = metadata[1].metadata;
  assert.equal(box.get("reason"), "FALL_DETECTED");
  assert.equal(box.get("trigger_time_ns"), String(T0 + 7000n * TICK));
  assert.equal(box.get("window_start_ns"), String(start));
  assert.equal(box.get("window_end_ns"), String(end));
  assert.equal(box.get("messages"), String(count));
  assert.equal(box.get("messages_lost"), "0");
  const telemetryType = protobuf.Root.fromDescriptor(reader.schemasById.get(1).data)
    .lookupType("edge.EdgeTelemetry");
  const seen = { "/telemetry": 0, "/imu": 0, "/log": 0 };
  for await (const m of reader.readMessages()) {
    const topic = reader.channelsById.get(m.channelId).topic;
    const w = want[topic][seen[topic]++];
    assert.equal(m.sequence, w.sequence, `${topic} sequence`);
    assert.equal(m.logTime, w.logTime);
    assert.equal(m.publishTime, m.logTime);
    if (topic === "/telemetry") checkTelemetry(telemetryType, m.data, w.sequence);
    else assert.equal(new TextDecoder().decode(m.data), w.text);
  }
  assert.deepEqual(seen, Object.fromEntries(Object.entries(want).map(([t, l]) => [t, l.length])));
  const stream = new McapStreamReader({ decompressHandlers, validateCrcs: true });
  stream.append(bytes);
  let messages = 0;
  for (let r; (r = stream.nextRecord()); ) messages += r.type === "Message" ? 1 : 0;
  assert.ok(stream.done(), "stream reader reached the end");
  assert.equal(messages, count);
  console.log(`mcap_check: ${path}: ok (black box, ${count} messages, ` +
    `${reader.chunkIndexes.length} chunks)`);
}

await Promise.all([zstd.isLoaded, lz4.isLoaded]);
if (process.argv.length < 3) {
  console.error("usage: node mcap_check.mjs FILE...");
  process.exit(2);
}
try {
  for (const path of process.argv.slice(2)) {
    if (path.includes("blackbox")) {
      await checkBlackBox(path);
      continue;
    }
    const compression = path.includes("zstd") ? "zstd" : path.includes("lz4") ? "lz4" : "";
    await check(path, compression);
  }
} catch (error) {
  console.error(`mcap_check: FAILED: ${error.stack ?? error}`);
  process.exit(1);
}
