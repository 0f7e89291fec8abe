// QPS at a target recall, read off a recall–QPS curve (one point per ef): the one interpolation
// every comparison uses (bench/report.mjs, bench/compare.mjs, scripts/compare.mjs). As in
// ann-benchmarks' plots, between the two consecutive points (by recall) that bracket the target,
// log(QPS) is linear in recall.

/**
 * `{ kind, qps }` at recall `target` of `points` (`{ recall, qps }`, any order; points without a
 * positive finite QPS or a finite recall are ignored):
 * - `exact`: a point has exactly the target recall, or two consecutive points bracket it
 *   (interpolated);
 * - `lower`: the lowest-recall point is already above the target, so its QPS is a lower bound;
 * - `none`: no point reaches the target (`qps` undefined).
 */
export function qpsAtRecall(points, target) {
  const pts = points
    .filter((p) => Number.isFinite(p.recall) && Number.isFinite(p.qps) && p.qps > 0)
    .sort((a, b) => a.recall - b.recall || b.qps - a.qps);
  if (!pts.length) return { kind: 'none' };
  if (pts[0].recall > target) return { kind: 'lower', qps: pts[0].qps };
  for (let i = 0; i < pts.length; i++) {
    if (pts[i].recall === target) return { kind: 'exact', qps: pts[i].qps };
    if (i + 1 < pts.length && pts[i].recall < target && pts[i + 1].recall >= target) {
      const [a, b] = [pts[i], pts[i + 1]];
      const t = (target - a.recall) / (b.recall - a.recall);
      return { kind: 'exact', qps: Math.exp(Math.log(a.qps) + t * (Math.log(b.qps) - Math.log(a.qps))) };
    }
  }
  return { kind: 'none' };
}
