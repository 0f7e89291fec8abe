// Exact nearest neighbours for `horosvec bench` and for the sample the package ships
// (scripts/prepack.mjs): a float64 brute force in plain JS, independent of the engine it checks.
// Cost: n × nq × dim multiply-adds (2,000 × 100 × 384: about 0.1 s).

/** Distance under `metric` (lower is closer), in float64, as docs/errors.md's metrics define it. */
function distanceFn(metric, dim) {
  switch (metric) {
    case 'l2':
      return (q, qo, x, xo) => {
        let s = 0;
        for (let j = 0; j < dim; j++) {
          const d = q[qo + j] - x[xo + j];
          s += d * d;
        }
        return s;
      };
    case 'ip':
      return (q, qo, x, xo) => {
        let s = 0;
        for (let j = 0; j < dim; j++) s += q[qo + j] * x[xo + j];
        return -s;
      };
    case 'l1':
      return (q, qo, x, xo) => {
        let s = 0;
        for (let j = 0; j < dim; j++) s += Math.abs(q[qo + j] - x[xo + j]);
        return s;
      };
    case 'cosine':
      return (q, qo, x, xo) => {
        let dot = 0;
        let qq = 0;
        let xx = 0;
        for (let j = 0; j < dim; j++) {
          const a = q[qo + j];
          const b = x[xo + j];
          dot += a * b;
          qq += a * a;
          xx += b * b;
        }
        // a zero vector has no direction: distance 1 from everything (as the core does)
        return qq === 0 || xx === 0 ? 1 : 1 - dot / Math.sqrt(qq * xx);
      };
    default:
      throw new Error(`unknown metric ${metric}`);
  }
}

/**
 * The exact top-`k` base rows of each query: `Int32Array(nq × k)`, best first, ties by the lower
 * row. `base` is `n × dim`, `queries` `nq × dim`, both row-major. `onQuery(i)` after each query.
 */
export function exactTopK(base, n, queries, nq, dim, metric, k, onQuery = () => {}) {
  const dist = distanceFn(metric, dim);
  const kk = Math.min(k, n);
  const out = new Int32Array(nq * kk);
  const ids = new Int32Array(kk);
  const ds = new Float64Array(kk);
  for (let q = 0; q < nq; q++) {
    let len = 0;
    for (let i = 0; i < n; i++) {
      const d = dist(queries, q * dim, base, i * dim);
      if (len === kk && d >= ds[kk - 1]) continue;
      let p = len === kk ? kk - 1 : len++;
      while (p > 0 && ds[p - 1] > d) {
        ds[p] = ds[p - 1];
        ids[p] = ids[p - 1];
        p--;
      }
      ds[p] = d;
      ids[p] = i;
    }
    out.set(ids, q * kk);
    onQuery(q);
  }
  return { ids: out, width: kk };
}
