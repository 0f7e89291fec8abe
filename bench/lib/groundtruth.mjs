// Ground truth and recall for the benchmarks (bench/ef-sweep.mjs and the matrix in bench/): exact
// top-k by brute force in float64, independent of horosvec's kernels; the distances file beside a
// dataset's ground truth; recall@k (and a tie-tolerant variant) of result ids against it.
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { readVecs } from '../../npm/cli/vecs.js';

/** A returned row counts for the tie-tolerant recall when within this relative margin of the k-th true distance. */
export const TIE_EPS = 1e-5;

/**
 * Exact top-k by brute force in float64 (independent of horosvec): ids and distances (lower is
 * closer, horosvec's convention), ties broken by the lower row number.
 */
export function bruteForce(base, n, dim, queries, nq, k, metric, bar) {
  const ids = new Int32Array(nq * k).fill(-1);
  const dists = new Float64Array(nq * k).fill(Infinity);
  let norms = null;
  if (metric === 'cosine') {
    norms = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0, o = i * dim; j < dim; j++, o++) s += base[o] * base[o];
      norms[i] = Math.sqrt(s);
    }
  }
  const q = new Float64Array(dim);
  for (let qi = 0; qi < nq; qi++) {
    let qn = 0;
    for (let j = 0; j < dim; j++) {
      q[j] = queries[qi * dim + j];
      qn += q[j] * q[j];
    }
    qn = Math.sqrt(qn);
    const off = qi * k;
    let count = 0;
    for (let i = 0; i < n; i++) {
      const o = i * dim;
      // float64, four partial sums per row
      let d;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let j = 0;
      if (metric === 'l2') {
        for (; j + 3 < dim; j += 4) {
          const t0 = q[j] - base[o + j];
          const t1 = q[j + 1] - base[o + j + 1];
          const t2 = q[j + 2] - base[o + j + 2];
          const t3 = q[j + 3] - base[o + j + 3];
          s0 += t0 * t0;
          s1 += t1 * t1;
          s2 += t2 * t2;
          s3 += t3 * t3;
        }
        for (; j < dim; j++) {
          const t = q[j] - base[o + j];
          s0 += t * t;
        }
        d = s0 + s1 + s2 + s3;
      } else if (metric === 'l1') {
        for (; j < dim; j++) s0 += Math.abs(q[j] - base[o + j]);
        d = s0;
      } else {
        for (; j + 3 < dim; j += 4) {
          s0 += q[j] * base[o + j];
          s1 += q[j + 1] * base[o + j + 1];
          s2 += q[j + 2] * base[o + j + 2];
          s3 += q[j + 3] * base[o + j + 3];
        }
        for (; j < dim; j++) s0 += q[j] * base[o + j];
        const dot = s0 + s1 + s2 + s3;
        d = metric === 'ip' ? -dot : 1 - dot / (qn * norms[i]);
      }
      if (!(d < dists[off + k - 1]) && count === k) continue;
      if (Number.isNaN(d)) continue;
      // insert after every entry with distance ≤ d (earlier rows win ties)
      let p = count < k ? count : k - 1;
      while (p > 0 && dists[off + p - 1] > d) {
        dists[off + p] = dists[off + p - 1];
        ids[off + p] = ids[off + p - 1];
        p--;
      }
      dists[off + p] = d;
      ids[off + p] = i;
      if (count < k) count++;
    }
    bar?.update(qi + 1);
  }
  return { ids, dists, width: k };
}

/**
 * Reads `<gt>_dist.fvecs` next to a ground truth file, as distances (lower is closer). Files that
 * hold similarities (first value of a row larger than the last, as in ../shared/data) are
 * converted: 1 − s for cosine, −s for ip. Returns null when absent or not usable.
 */
export function readGtDistances(gtPath, gt, metric) {
  const p = gtPath.replace(/\.ivecs$/i, '_dist.fvecs');
  if (p === gtPath || !existsSync(p)) return { dists: null, note: 'no groundtruth_dist file' };
  const f = readVecs(p);
  if (f.n !== gt.n || f.dim !== gt.dim) {
    return { dists: null, note: `${basename(p)} is ${f.n}×${f.dim}, ground truth is ${gt.n}×${gt.dim}: ignored` };
  }
  let asc = 0;
  let desc = 0;
  for (let i = 0; i < f.n; i++) {
    const a = f.data[i * f.dim];
    const b = f.data[i * f.dim + f.dim - 1];
    if (a < b) asc++;
    else if (a > b) desc++;
  }
  const dists = new Float64Array(f.data.length);
  if (desc > asc) {
    if (metric !== 'cosine' && metric !== 'ip') {
      return { dists: null, note: `${basename(p)} holds similarities, not ${metric} distances: ignored` };
    }
    for (let i = 0; i < dists.length; i++) dists[i] = metric === 'cosine' ? 1 - f.data[i] : -f.data[i];
    return { dists, note: `${basename(p)} (similarities, converted to ${metric === 'cosine' ? '1 − s' : '−s'})` };
  }
  dists.set(f.data);
  return { dists, note: `${basename(p)} (distances)` };
}

/** An Error with the `HV_*` code the CLI prints (`horosvec: CODE: message`). */
function coded(code, message) {
  return Object.assign(new Error(message), { code });
}

/**
 * The ground truth file `path` (.ivecs, best first) for the first `nq` queries over an `n`-row
 * base, checked (rows, width ≥ `k`, ids < `n`), with the distances file beside it when usable
 * (readGtDistances). `{ ids, dists, width, note }`. Errors: HV_INVALID_ARGUMENT, HV_CORRUPT.
 */
export function readGroundTruth(path, { nq, k, n, metric }) {
  const g = readVecs(path);
  if (!(g.data instanceof Int32Array)) throw coded('HV_INVALID_ARGUMENT', `--gt must be an .ivecs file, got ${path}`);
  if (g.n < nq) throw coded('HV_CORRUPT', `${path} has ${g.n} rows for ${nq} queries`);
  if (g.dim < k) throw coded('HV_INVALID_ARGUMENT', `--k ${k} exceeds the ${g.dim} neighbours per query of ${path}`);
  for (let q = 0; q < nq; q++) {
    for (let j = 0; j < k; j++) {
      const id = g.data[q * g.dim + j];
      if (id < 0 || id >= n) throw coded('HV_CORRUPT', `${path} row ${q} names base row ${id}, but the base has ${n} rows`);
    }
  }
  const d = readGtDistances(path, g, metric);
  return { ids: g.data, dists: d.dists, width: g.dim, note: d.note };
}

/**
 * Recall@k of result ids (flat nq × k, −1 for missing) against the ground truth; the tie-tolerant
 * variant also counts a returned row whose distance is ≤ the k-th ground-truth distance + eps.
 */
export function recallOf(resIds, resDists, nq, k, gt, n) {
  const stamp = new Int32Array(n);
  let sum = 0;
  let min = Infinity;
  let tieSum = 0;
  for (let q = 0; q < nq; q++) {
    const g = q * gt.width;
    for (let j = 0; j < k; j++) stamp[gt.ids[g + j]] = q + 1;
    const thr = gt.dists ? gt.dists[g + k - 1] : NaN;
    const eps = TIE_EPS * Math.max(1, Math.abs(thr));
    let hit = 0;
    let tie = 0;
    for (let j = 0; j < k; j++) {
      const id = resIds[q * k + j];
      if (id < 0) continue;
      const inGt = stamp[id] === q + 1;
      if (inGt) hit++;
      if (inGt || resDists[q * k + j] <= thr + eps) tie++;
    }
    const r = hit / k;
    sum += r;
    if (r < min) min = r;
    tieSum += Math.min(tie, k) / k;
  }
  return { mean: sum / nq, min, tie: gt.dists ? tieSum / nq : null };
}

/** recallOf of hit lists (one `{ id, distance }[]` per query, in query order; missing hits count as misses). */
export function recallOfHits(hits, k, gt, n) {
  const nq = hits.length;
  const ids = new Int32Array(nq * k).fill(-1);
  const dists = new Float64Array(nq * k).fill(Infinity);
  hits.forEach((h, q) => {
    for (let j = 0; j < Math.min(k, h.length); j++) {
      ids[q * k + j] = h[j].id;
      dists[q * k + j] = h[j].distance;
    }
  });
  return recallOf(ids, dists, nq, k, gt, n);
}

/**
 * The ground truth of `data` (`{ base, n, dim, queries, nq }`) under `metric` for top-`k`: the
 * file `gtPath` when given (readGroundTruth), else a float64 brute force (bruteForce; `why` says
 * why no file, `bar` its progress). `{ gt, note, source }`, `source` 'file' or 'brute-force-f64'.
 */
export function groundTruthFor(data, { gtPath, k, metric, why, bar }) {
  if (gtPath !== undefined) {
    const gt = readGroundTruth(gtPath, { nq: data.nq, k, n: data.n, metric });
    return { gt, note: `from ${basename(gtPath)}; tie-tolerant: ${gt.note}`, source: 'file' };
  }
  const b = bar('ground truth', data.nq, 'queries');
  const t0 = performance.now();
  const gt = bruteForce(data.base, data.n, data.dim, data.queries, data.nq, k, metric, b);
  b.stop();
  const s = ((performance.now() - t0) / 1000).toFixed(1);
  return { gt, note: `recomputed (${why}): float64 brute force in JS over the first ${data.n} rows, ${s} s (slow for a large n)`, source: 'brute-force-f64' };
}
