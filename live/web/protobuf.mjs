// Protobuf decoding driven by a schema received at run time: a google.protobuf.FileDescriptorSet
// (the Foxglove advertise message's schema, base64). No generated code, no dependency.
//
//   const schema = Schema.fromBase64(channel.schema);
//   const state = schema.decode("edge.JointState", bytes);  // {tick: 42, q: [...], ...}
//   schema.enumName("edge.ControlMode", state.control_mode);  // "CONTROL_MODE_STAND"
//
// Decoded messages are plain objects keyed by the .proto field names. Every field of the type is
// present: scalars default to 0 / "" / false, repeated fields to [], enums to their number;
// message fields, oneof members and proto3 `optional` fields are undefined when absent, and a set
// oneof member also names itself in the oneof's property (ev.event === "error"). Map fields are
// objects. 64-bit integers are Numbers (exact up to 2^53), bytes are Uint8Arrays. Unknown fields
// are skipped; a wire type that contradicts the schema throws.

// FieldDescriptorProto.Type and .Label (descriptor.proto).
const T = {
  DOUBLE: 1, FLOAT: 2, INT64: 3, UINT64: 4, INT32: 5, FIXED64: 6, FIXED32: 7, BOOL: 8,
  STRING: 9, GROUP: 10, MESSAGE: 11, BYTES: 12, UINT32: 13, ENUM: 14, SFIXED32: 15,
  SFIXED64: 16, SINT32: 17, SINT64: 18,
};
const LABEL_REPEATED = 3;
const WIRE = { VARINT: 0, I64: 1, LEN: 2, I32: 5 };

// The wire type each field type is written with.
function wireTypeOf(type) {
  switch (type) {
    case T.DOUBLE: case T.FIXED64: case T.SFIXED64: return WIRE.I64;
    case T.FLOAT: case T.FIXED32: case T.SFIXED32: return WIRE.I32;
    case T.STRING: case T.BYTES: case T.MESSAGE: return WIRE.LEN;
    case T.GROUP: return 3;
    default: return WIRE.VARINT;
  }
}

// ---- The bootstrap schema: the part of google/protobuf/descriptor.proto needed to read a
// FileDescriptorSet, written as the decoder's own data. The only field numbers in this file are
// descriptor.proto's; every other message is decoded from the numbers its schema gives.
function field(name, number, type, typeName = "", repeated = false) {
  return { name, number, type, typeName, repeated };
}
const P = ".google.protobuf.";
const BOOTSTRAP = {
  [P + "FileDescriptorSet"]: [field("file", 1, T.MESSAGE, P + "FileDescriptorProto", true)],
  [P + "FileDescriptorProto"]: [
    field("name", 1, T.STRING), field("package", 2, T.STRING),
    field("dependency", 3, T.STRING, "", true),
    field("message_type", 4, T.MESSAGE, P + "DescriptorProto", true),
    field("enum_type", 5, T.MESSAGE, P + "EnumDescriptorProto", true),
    field("syntax", 12, T.STRING),
  ],
  [P + "DescriptorProto"]: [
    field("name", 1, T.STRING),
    field("field", 2, T.MESSAGE, P + "FieldDescriptorProto", true),
    field("nested_type", 3, T.MESSAGE, P + "DescriptorProto", true),
    field("enum_type", 4, T.MESSAGE, P + "EnumDescriptorProto", true),
    field("options", 7, T.MESSAGE, P + "MessageOptions"),
    field("oneof_decl", 8, T.MESSAGE, P + "OneofDescriptorProto", true),
  ],
  [P + "FieldDescriptorProto"]: [
    field("name", 1, T.STRING), field("number", 3, T.INT32), field("label", 4, T.ENUM),
    field("type", 5, T.ENUM), field("type_name", 6, T.STRING),
    field("oneof_index", 9, T.INT32), field("proto3_optional", 17, T.BOOL),
  ],
  [P + "MessageOptions"]: [field("map_entry", 7, T.BOOL)],
  [P + "OneofDescriptorProto"]: [field("name", 1, T.STRING)],
  [P + "EnumDescriptorProto"]: [
    field("name", 1, T.STRING),
    field("value", 2, T.MESSAGE, P + "EnumValueDescriptorProto", true),
  ],
  [P + "EnumValueDescriptorProto"]: [field("name", 1, T.STRING), field("number", 2, T.INT32)],
};
// oneof_index and proto3_optional need presence (undefined when absent), as proto3 `optional`.
for (const f of BOOTSTRAP[P + "FieldDescriptorProto"].slice(5)) {
  f.oneof = "_" + f.name;
  f.synthetic = true;
}

// ---- Reading the wire format.
const utf8 = new TextDecoder("utf-8");

class Reader {
  constructor(bytes, start = 0, end = bytes.length) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = start;
    this.end = end;
  }

  // A varint as [low 32 bits, high 32 bits], both unsigned.
  varint() {
    let lo = 0, hi = 0, shift = 0, byte;
    do {
      if (this.pos >= this.end) throw new Error("protobuf: truncated varint");
      if (shift >= 70) throw new Error("protobuf: varint longer than 10 bytes");
      byte = this.bytes[this.pos++];
      if (shift < 28) lo |= (byte & 0x7f) << shift;
      else if (shift === 28) { lo |= (byte & 0x0f) << 28; hi |= (byte & 0x7f) >> 4; }
      else hi |= (byte & 0x7f) << (shift - 32);
      shift += 7;
    } while (byte & 0x80);
    return [lo >>> 0, hi >>> 0];
  }

  uint32() { return this.varint()[0]; }

  fixed(size) {
    if (this.pos + size > this.end) throw new Error("protobuf: truncated fixed field");
    const at = this.pos;
    this.pos += size;
    return at;
  }

  lengthDelimited() {
    const length = this.uint32();
    if (this.pos + length > this.end) throw new Error("protobuf: truncated length-delimited field");
    const start = this.pos;
    this.pos += length;
    return [start, this.pos];
  }

  skip(wire) {
    switch (wire) {
      case WIRE.VARINT: this.varint(); return;
      case WIRE.I64: this.fixed(8); return;
      case WIRE.I32: this.fixed(4); return;
      case WIRE.LEN: this.lengthDelimited(); return;
      default: throw new Error(`protobuf: wire type ${wire} (groups) not supported`);
    }
  }
}

const TWO_32 = 4294967296;
const toUnsigned64 = ([lo, hi]) => hi * TWO_32 + lo;
const toSigned64 = ([lo, hi]) =>
  hi & 0x80000000 ? -((~hi >>> 0) * TWO_32 + (~lo >>> 0) + 1) : hi * TWO_32 + lo;
function zigzag64([lo, hi]) {
  const sign = lo & 1;
  const mlo = ((lo >>> 1) | (hi << 31)) >>> 0, mhi = hi >>> 1;
  return sign ? -(mhi * TWO_32 + mlo) - 1 : mhi * TWO_32 + mlo;
}

// One value of a scalar field.
function readScalar(reader, type) {
  const view = reader.view;
  switch (type) {
    case T.DOUBLE: return view.getFloat64(reader.fixed(8), true);
    case T.FLOAT: return view.getFloat32(reader.fixed(4), true);
    case T.FIXED32: return view.getUint32(reader.fixed(4), true);
    case T.SFIXED32: return view.getInt32(reader.fixed(4), true);
    case T.FIXED64: { const at = reader.fixed(8); return toUnsigned64([view.getUint32(at, true), view.getUint32(at + 4, true)]); }
    case T.SFIXED64: { const at = reader.fixed(8); return toSigned64([view.getUint32(at, true), view.getUint32(at + 4, true)]); }
    case T.INT32: case T.ENUM: return reader.varint()[0] | 0;
    case T.UINT32: return reader.varint()[0];
    case T.SINT32: { const v = reader.varint()[0]; return (v >>> 1) ^ -(v & 1); }
    case T.INT64: return toSigned64(reader.varint());
    case T.UINT64: return toUnsigned64(reader.varint());
    case T.SINT64: return zigzag64(reader.varint());
    case T.BOOL: { const [lo, hi] = reader.varint(); return lo !== 0 || hi !== 0; }
    default: throw new Error(`protobuf: field type ${type} is not a scalar`);
  }
}

function defaultOf(f) {
  if (f.repeated) return [];
  if (f.oneof !== undefined || f.type === T.MESSAGE || f.type === T.GROUP) return undefined;
  switch (f.type) {
    case T.STRING: return "";
    case T.BYTES: return new Uint8Array(0);
    case T.BOOL: return false;
    default: return 0;
  }
}

// ---- The schema.
export class Schema {
  constructor() {
    this.messages = new Map();  // ".pkg.Name" -> {name, fields, byNumber, mapEntry}
    this.enums = new Map();     // ".pkg.Name" -> Map(number -> name)
  }

  static fromFileDescriptorSet(bytes) {
    const set = BOOTSTRAP_SCHEMA.decode(P + "FileDescriptorSet", bytes);
    const schema = new Schema();
    for (const file of set.file) schema.addFile(file);
    schema.resolveTypeNames();
    return schema;
  }

  static fromBase64(text) {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; ++i) bytes[i] = binary.charCodeAt(i);
    return Schema.fromFileDescriptorSet(bytes);
  }

  // Adds another schema's types (several channels' schemas share files).
  merge(other) {
    for (const [name, type] of other.messages) this.messages.set(name, type);
    for (const [name, values] of other.enums) this.enums.set(name, values);
    return this;
  }

  addFile(file) {
    const scope = file.package ? "." + file.package : "";
    for (const e of file.enum_type) this.addEnum(scope, e);
    for (const m of file.message_type) this.addMessage(scope, m);
  }

  addEnum(scope, e) {
    this.enums.set(`${scope}.${e.name}`, new Map(e.value.map((v) => [v.number, v.name])));
  }

  addMessage(scope, m) {
    const name = `${scope}.${m.name}`;
    for (const e of m.enum_type) this.addEnum(name, e);
    for (const nested of m.nested_type) this.addMessage(name, nested);
    const oneofs = m.oneof_decl.map((o) => o.name);
    const fields = m.field.map((f) => ({
      name: f.name,
      number: f.number,
      type: f.type,
      typeName: f.type_name,
      repeated: f.label === LABEL_REPEATED,
      // proto3 `optional` is a synthetic oneof: presence, but no oneof property to set.
      oneof: f.oneof_index === undefined ? undefined : oneofs[f.oneof_index],
      synthetic: f.proto3_optional === true,
      scope: name,
    }));
    this.defineMessage(name, fields, m.options?.map_entry === true);
  }

  // Makes every field's type name fully qualified. protoc writes them so (".edge.ControlMode");
  // other writers may use C++-like scoping (a bare "Inner"): the innermost enclosing scope that
  // has the name wins.
  resolveTypeNames() {
    for (const type of this.messages.values()) {
      for (const f of type.fields) {
        if (!f.typeName || f.typeName.startsWith(".")) continue;
        for (let scope = f.scope; ; scope = scope.slice(0, scope.lastIndexOf("."))) {
          const candidate = `${scope}.${f.typeName}`;
          if (this.messages.has(candidate) || this.enums.has(candidate)) {
            f.typeName = candidate;
            break;
          }
          if (scope === "") throw new Error(`protobuf: ${type.name}.${f.name}: no type ${f.typeName}`);
        }
      }
    }
  }

  defineMessage(name, fields, mapEntry = false) {
    const byNumber = new Map(fields.map((f) => [f.number, f]));
    this.messages.set(name, { name, fields, byNumber, mapEntry });
  }

  // The type named `typeName` ("edge.JointState" or ".edge.JointState"); throws when unknown.
  type(typeName) {
    const type = this.messages.get(typeName.startsWith(".") ? typeName : "." + typeName);
    if (!type) throw new Error(`protobuf: no message type ${typeName} in the schema`);
    return type;
  }

  // The name of enum value `value` ("edge.ControlMode", 1 -> "CONTROL_MODE_STAND"), undefined
  // when the enum or the value is unknown.
  enumName(enumName, value) {
    return this.enums.get(enumName.startsWith(".") ? enumName : "." + enumName)?.get(value);
  }

  // Decodes `bytes` (a Uint8Array) as message `typeName`.
  decode(typeName, bytes) {
    return this.decodeType(this.type(typeName), new Reader(bytes));
  }

  decodeType(type, reader) {
    const out = {};
    for (const f of type.fields) out[f.name] = defaultOf(f);
    while (reader.pos < reader.end) {
      const tag = reader.uint32();
      const f = type.byNumber.get(tag >>> 3);
      const wire = tag & 7;
      if (f === undefined) {
        reader.skip(wire);
      } else if (f.repeated && wire === WIRE.LEN && wireTypeOf(f.type) !== WIRE.LEN) {
        const [start, end] = reader.lengthDelimited();  // packed scalars
        const packed = new Reader(reader.bytes, start, end);
        while (packed.pos < end) out[f.name].push(readScalar(packed, f.type));
      } else {
        if (wire !== wireTypeOf(f.type)) {
          throw new Error(`protobuf: ${type.name}.${f.name}: wire type ${wire}`);
        }
        const value = this.readValue(f, reader);
        if (f.repeated) out[f.name].push(value);
        else out[f.name] = value;
        if (f.oneof !== undefined && !f.synthetic) out[f.oneof] = f.name;
      }
    }
    for (const f of type.fields) {
      if (f.repeated && f.type === T.MESSAGE && this.type(f.typeName).mapEntry) {
        out[f.name] = Object.fromEntries(out[f.name].map((e) => [e.key, e.value]));
      }
    }
    return out;
  }

  readValue(f, reader) {
    switch (f.type) {
      case T.STRING: { const [s, e] = reader.lengthDelimited(); return utf8.decode(reader.bytes.subarray(s, e)); }
      case T.BYTES: { const [s, e] = reader.lengthDelimited(); return reader.bytes.slice(s, e); }
      case T.MESSAGE: {
        const [s, e] = reader.lengthDelimited();
        return this.decodeType(this.type(f.typeName), new Reader(reader.bytes, s, e));
      }
      default: return readScalar(reader, f.type);
    }
  }
}

const BOOTSTRAP_SCHEMA = new Schema();
for (const [name, fields] of Object.entries(BOOTSTRAP)) BOOTSTRAP_SCHEMA.defineMessage(name, fields);
