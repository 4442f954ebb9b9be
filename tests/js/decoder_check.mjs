// The dashboard's protobuf decoder (live/web/protobuf.mjs) against protobufjs, an independent
// implementation, on the same bytes. protobufjs parses the .proto text, writes the
// FileDescriptorSet (so the decoder also reads a descriptor encoder other than protoc's), and
// encodes pseudo-random messages of every field type; both decode them; the results must match.
//
//   node tests/js/decoder_check.mjs
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Checks, loadPackages } from "./live_harness.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const packages = await loadPackages(["protobufjs", "protobufjs/ext/descriptor.js"]);
const protobuf = packages.protobufjs.default;
const descriptor = packages["protobufjs/ext/descriptor.js"].default;
const { Schema } = await import(join(repo, "live", "web", "protobuf.mjs"));

// Every field type, packed and unpacked repeated, nested types, enums, oneofs, maps, optional.
const ALL_TYPES = `
syntax = "proto3";
package check;
enum Color { RED = 0; GREEN = 1; BLUE = -2; }
message Inner { int32 a = 1; string s = 2; repeated Inner children = 3; }
message AllTypes {
  double f_double = 1;   float f_float = 2;     int64 f_int64 = 3;     uint64 f_uint64 = 4;
  int32 f_int32 = 5;     fixed64 f_fixed64 = 6; fixed32 f_fixed32 = 7; bool f_bool = 8;
  string f_string = 9;   bytes f_bytes = 12;    uint32 f_uint32 = 13;  Color f_enum = 14;
  sfixed32 f_sfixed32 = 15; sfixed64 f_sfixed64 = 16; sint32 f_sint32 = 17; sint64 f_sint64 = 18;
  Inner inner = 19;
  repeated float r_float = 20;  repeated int32 r_int32 = 21;  repeated double r_double = 22;
  repeated sint64 r_sint64 = 23; repeated bool r_bool = 24;   repeated Color r_enum = 25;
  repeated uint64 r_uint64 = 26; repeated fixed32 r_fixed32 = 27;
  repeated float u_float = 28 [packed = false];
  repeated int32 u_int32 = 29 [packed = false];
  repeated string r_string = 30; repeated Inner r_inner = 31; repeated bytes r_bytes = 32;
  map<string, int32> m_counts = 33;
  map<uint32, Inner> m_inner = 34;
  oneof choice { string c_text = 40; Inner c_inner = 41; uint32 c_number = 42; }
  optional int32 o_int32 = 50;
  message Nested { enum Kind { K0 = 0; K1 = 1; } Kind kind = 1; }
  Nested nested = 51;
  uint32 f_uint32_big = 536870911;
}`;

// Deterministic pseudo-random numbers (mulberry32).
let seed = 0x5eed;
function random() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (items) => items[Math.floor(random() * items.length)];
const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));

function randomScalar(type, resolved) {
  if (resolved instanceof protobuf.Enum) return pick(Object.values(resolved.values));
  switch (type) {
    case "double": return pick([0, -1.5, 1e300, -2.5e-300, random() * 1e6 - 5e5, NaN, Infinity]);
    case "float": return Math.fround(pick([0, -0.25, 3.5e38, random() * 200 - 100, NaN, -Infinity]));
    case "int32": case "sfixed32": case "sint32": return pick([0, -1, 2147483647, -2147483648, int(-1e6, 1e6)]);
    case "uint32": case "fixed32": return pick([0, 1, 4294967295, int(0, 4e9)]);
    case "int64": case "sfixed64": case "sint64":
      return pick([0, -1, 2 ** 53 - 1, -(2 ** 53) + 1, int(-1e12, 1e12), -4294967296]);
    case "uint64": case "fixed64": return pick([0, 1, 2 ** 53 - 1, 4294967296, int(0, 1e12)]);
    case "bool": return random() < 0.5;
    case "string": return pick(["", "joint", "héllo ✓ 🤖", "x".repeat(int(0, 300))]);
    case "bytes": return Uint8Array.from({ length: int(0, 40) }, () => int(0, 255));
    default: throw new Error(`no generator for ${type}`);
  }
}

function randomValue(field, depth) {
  if (field.resolvedType instanceof protobuf.Type) return depth > 2 ? {} : randomMessage(field.resolvedType, depth + 1);
  return randomScalar(field.type, field.resolvedType);
}

function randomMessage(type, depth = 0) {
  const out = {};
  const oneofMembers = new Set(type.oneofsArray.flatMap((o) => o.fieldsArray.map((f) => f.name)));
  for (const field of type.fieldsArray) {
    if (oneofMembers.has(field.name) && !field.name.startsWith("o_")) continue;
    if (random() < 0.2) continue;  // absent
    if (field.map) {
      const keyType = field.keyType;
      out[field.name] = Object.fromEntries(Array.from({ length: int(0, 3) }, () => [
        keyType === "string" ? pick(["a", "b", "knee", ""]) : int(0, 100),
        randomValue(field, depth),
      ]));
    } else if (field.repeated) {
      out[field.name] = Array.from({ length: int(0, 5) }, () => randomValue(field, depth));
    } else {
      out[field.name] = randomValue(field, depth);
    }
  }
  for (const oneof of type.oneofsArray) {
    const members = oneof.fieldsArray.filter((f) => !f.name.startsWith("o_"));
    if (members.length > 0 && random() < 0.8) {
      const member = pick(members);
      out[member.name] = randomValue(member, depth);
    }
  }
  return out;
}

// Comparable form: Longs and bytes as plain values, null as absent, -0 as 0.
function normalize(value) {
  if (value === null || value === undefined) return undefined;
  if (value instanceof Uint8Array) return Array.from(value);
  if (typeof value === "object" && typeof value.toNumber === "function") return value.toNumber();
  if (Array.isArray(value)) return value.map(normalize);
  if (typeof value === "object") {
    const out = {};
    for (const [k, v] of Object.entries(value)) {
      const n = normalize(v);
      if (n !== undefined) out[k] = n;
    }
    return out;
  }
  return Object.is(value, -0) ? 0 : value;
}

// First difference between two normalized values, or "".
function difference(a, b, path = "") {
  if (typeof a === "number" && typeof b === "number") {
    return Object.is(a, b) || a === b ? "" : `${path}: ${a} != ${b}`;
  }
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b)) {
    return `${path}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`;
  }
  if (a && typeof a === "object") {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      const d = difference(a[k], b[k], `${path}.${k}`);
      if (d) return d;
    }
    return "";
  }
  return a === b ? "" : `${path}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`;
}

const TO_OBJECT = { longs: Number, enums: Number, bytes: Array, defaults: true, arrays: true,
                    objects: true, oneofs: true };

// Decodes `count` random messages of `typeName` both ways; returns the first mismatch or "".
function compareRandom(root, schema, typeName, count) {
  const type = root.lookupType(typeName);
  for (let i = 0; i < count; ++i) {
    const bytes = type.encode(type.fromObject(randomMessage(type))).finish();
    const theirs = normalize(type.toObject(type.decode(bytes), TO_OBJECT));
    const ours = normalize(schema.decode(typeName, bytes));
    const d = difference(ours, theirs);
    if (d) return `message ${i} (${Buffer.from(bytes).toString("hex").slice(0, 80)}…): ${d}`;
  }
  return "";
}

function schemaOf(root) {
  const set = root.toDescriptor("proto3");
  return Schema.fromFileDescriptorSet(descriptor.FileDescriptorSet.encode(set).finish());
}

const checks = new Checks();

const allTypesRoot = protobuf.parse(ALL_TYPES, { keepCase: true }).root.resolveAll();
const allTypes = schemaOf(allTypesRoot);
checks.ok(allTypes.enumName("check.Color", -2) === "BLUE", "enum names from the schema, negative values too");
checks.ok(allTypes.enumName(".check.AllTypes.Nested.Kind", 1) === "K1", "nested enums");
checks.ok(allTypes.type("check.AllTypes").byNumber.get(9).name === "f_string", "field names from the schema");
let d = compareRandom(allTypesRoot, allTypes, "check.AllTypes", 2000);
checks.ok(d === "", "2000 random AllTypes decode as protobufjs decodes them", d);

const empty = allTypes.decode("check.AllTypes", new Uint8Array(0));
checks.ok(empty.f_int32 === 0 && empty.f_string === "" && empty.r_float.length === 0 &&
          empty.inner === undefined && empty.o_int32 === undefined && empty.choice === undefined,
          "absent fields: defaults, [] and undefined where presence counts");

const Inner = allTypesRoot.lookupType("check.Inner");
const withUnknown = new Uint8Array([...Inner.encode({ a: 7 }).finish(), 0xf8, 0x06, 0x01, 0x92, 0x07, 0x02, 0x61, 0x62]);
checks.ok(allTypes.decode("check.Inner", withUnknown).a === 7, "unknown fields are skipped");
let threw = false;
try { allTypes.decode("check.Inner", new Uint8Array([0x08, 0x80])); } catch { threw = true; }
checks.ok(threw, "a truncated varint throws");
threw = false;
try { allTypes.decode("check.Inner", new Uint8Array([0x0d, 1, 2, 3, 4])); } catch { threw = true; }
checks.ok(threw, "a wire type that contradicts the schema throws");

// The project's own messages, from its .proto files.
const edgeRoot = new protobuf.Root();
edgeRoot.resolvePath = (_origin, target) => join(repo, "proto", target.replace(/^.*\//, ""));
edgeRoot.loadSync("edge_api.proto", { keepCase: true });
edgeRoot.resolveAll();
const edge = schemaOf(edgeRoot);
for (const typeName of ["edge.JointState", "edge.EdgeTelemetry", "edge.EdgeEvent", "edge.ServerMessage"]) {
  d = compareRandom(edgeRoot, edge, typeName, 300);
  checks.ok(d === "", `300 random ${typeName} decode as protobufjs decodes them`, d);
}
checks.ok(edge.enumName("edge.ControlMode", 1) === "CONTROL_MODE_STAND", "edge.ControlMode names");

checks.report();
