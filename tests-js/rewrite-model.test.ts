// scripts/rewrite-model.mjs (the semantic-search page's model: embedding tables dequantized after
// the lookup) on small hand-encoded ONNX graphs: what it rewrites, what it leaves alone, and that
// every other byte of the model is kept. Its effect on the real model (identical outputs) is
// checked by the page's e2e test (embeddings against the sample's) and pinned by the sha256 in
// scripts/prepare-model.sh.
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain JS module without typings
import { rewriteModel } from '../scripts/rewrite-model.mjs';

const rewrite = rewriteModel as (b: Uint8Array) => { bytes: Uint8Array; rewritten: string[] };

// a minimal protobuf encoder and decoder, written apart from the script's own
const varint = (v: number): number[] => {
  const out: number[] = [];
  while (v >= 0x80) {
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
};
const len = (field: number, bytes: number[]): number[] => [...varint(field * 8 + 2), ...varint(bytes.length), ...bytes];
const str = (field: number, s: string): number[] => len(field, [...new TextEncoder().encode(s)]);
const int = (field: number, v: number): number[] => [...varint(field * 8), ...varint(v)];

const attr = (name: string, i: number) => len(5, [...str(1, name), ...int(3, i), ...int(20, 2)]);
const node = (op: string, inputs: string[], outputs: string[], attrs: number[][] = []) =>
  len(1, [...inputs.flatMap((s) => str(1, s)), ...outputs.flatMap((s) => str(2, s)), ...str(3, `n_${outputs[0]}`), ...str(4, op), ...attrs.flat()]);
const tensor = (name: string, dims: number[], type: number, raw: number[]) =>
  len(5, [...dims.flatMap((d) => int(1, d)), ...int(2, type), ...str(8, name), ...len(9, raw)]);

function model(scaleDims: number[], extraUse = false): Uint8Array {
  const graph = [
    ...node('Cast', ['W_q'], ['W_f'], [attr('to', 1)]),
    ...node('Mul', ['W_f', 'W_scale'], ['W']),
    ...node('Gather', ['W', 'ids'], ['emb'], [attr('axis', 0)]),
    ...node('Relu', [extraUse ? 'W' : 'emb'], ['y']),
    ...str(2, 'g'),
    ...tensor('W_q', [4, 3], 3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]),
    ...tensor('W_scale', scaleDims, 1, Array(4 * scaleDims.reduce((a, b) => a * b, 1)).fill(0x3f)),
  ];
  return Uint8Array.from([...int(1, 8), ...len(7, graph), ...str(2, 'producer')]);
}

type Field = { field: number; wire: number; value: number | Uint8Array; raw: Uint8Array };
function fields(buf: Uint8Array): Field[] {
  const out: Field[] = [];
  let pos = 0;
  const read = () => {
    let v = 0;
    let mul = 1;
    for (;;) {
      const b = buf[pos++];
      v += (b & 0x7f) * mul;
      if (b < 0x80) return v;
      mul *= 128;
    }
  };
  while (pos < buf.length) {
    const start = pos;
    const tag = read();
    const wire = tag & 7;
    let value: number | Uint8Array;
    if (wire === 0) value = read();
    else if (wire === 2) {
      const n = read();
      value = buf.subarray(pos, pos + n);
      pos += n;
    } else throw new Error(`wire ${wire}`);
    out.push({ field: tag >> 3, wire, value, raw: buf.subarray(start, pos) });
  }
  return out;
}
const text = (v: number | Uint8Array) => new TextDecoder().decode(v as Uint8Array);
const graphOf = (m: Uint8Array) => fields(fields(m).find((f) => f.field === 7)!.value as Uint8Array);
const nodesOf = (m: Uint8Array) => graphOf(m).filter((f) => f.field === 1).map((f) => {
  const n = fields(f.value as Uint8Array);
  return {
    op: text(n.find((x) => x.field === 4)!.value),
    inputs: n.filter((x) => x.field === 1).map((x) => text(x.value)),
    outputs: n.filter((x) => x.field === 2).map((x) => text(x.value)),
    attrs: Object.fromEntries(n.filter((x) => x.field === 5).map((a) => {
      const af = fields(a.value as Uint8Array);
      return [text(af.find((x) => x.field === 1)!.value), af.find((x) => x.field === 3)!.value];
    })),
  };
});

describe('scripts/rewrite-model.mjs', () => {
  it('moves the dequantization of a per-row-scaled table after its Gather', () => {
    const input = model([4, 1]);
    const { bytes, rewritten } = rewrite(input);
    expect(rewritten).toEqual(['W']);
    const nodes = nodesOf(bytes);
    expect(nodes.map((n) => n.op)).toEqual(['Gather', 'Gather', 'Cast', 'Mul', 'Relu']);
    const [gq, gs, cast, mul, relu] = nodes;
    expect(gq).toMatchObject({ inputs: ['W_q', 'ids'], attrs: { axis: 0 } });
    expect(gs).toMatchObject({ inputs: ['W_scale', 'ids'], attrs: { axis: 0 } });
    expect(cast).toMatchObject({ inputs: gq.outputs, attrs: { to: 1 } });
    expect(mul.inputs).toEqual([cast.outputs[0], gs.outputs[0]]);
    expect(mul.outputs).toEqual(['emb']); // the Gather's output name: its consumers are unchanged
    expect(relu.inputs).toEqual(['emb']);
    // everything but the nodes is kept byte for byte: the model's other fields, the graph's name
    // and initializers
    const kept = (m: Uint8Array) => [
      ...fields(m).filter((f) => f.field !== 7).map((f) => [...f.raw]),
      ...graphOf(m).filter((f) => f.field !== 1).map((f) => [...f.raw]),
    ];
    expect(kept(bytes)).toEqual(kept(input));
  });

  it('leaves a per-column scale, or a table with another consumer, as it is', () => {
    for (const input of [model([1, 3]), model([4, 1], true)]) {
      const { bytes, rewritten } = rewrite(input);
      expect(rewritten).toEqual([]);
      expect([...bytes]).toEqual([...input]);
    }
  });
});
