//! RobustPrune (DiskANN paper, Algorithm 2): choose at most R diverse out-neighbours.

use super::{AlphaRule, NodeDistance};

/// Reusable buffers of [`robust_prune`].
#[derive(Clone, Debug, Default)]
pub(crate) struct PruneScratch {
    /// Candidates `(d(p, v), v)`.
    pub(crate) cand: Vec<(f32, u32)>,
    /// Per candidate: still eligible.
    alive: Vec<bool>,
    /// Per candidate: kept.
    taken: Vec<bool>,
}

/// The occlusion test of RobustPrune for one rule: with `c` just kept, candidate `v` is dropped
/// when `occludes(d(c, v), d(p, v))`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Occlusion {
    rule: AlphaRule,
    /// α (linear, negated similarity) or α² (squared).
    factor: f32,
}

impl Occlusion {
    pub(crate) fn new(rule: AlphaRule, alpha: f32) -> Self {
        let factor = match rule {
            AlphaRule::Squared => alpha * alpha,
            AlphaRule::Linear | AlphaRule::NegatedSimilarity => alpha,
        };
        Occlusion { rule, factor }
    }

    /// The same rule at α = 1.
    fn at_alpha_one(self) -> Self {
        Occlusion {
            rule: self.rule,
            factor: 1.0,
        }
    }

    #[inline]
    fn occludes(self, d_cv: f32, d_pv: f32) -> bool {
        match self.rule {
            // α·d(c,v) ≤ d(p,v) on true distances, α²·d ≤ d on squared ones.
            AlphaRule::Linear | AlphaRule::Squared => self.factor * d_cv <= d_pv,
            // s(c,v) > α·s(p,v) with s = −d  ⇔  d(c,v) < α·d(p,v).
            AlphaRule::NegatedSimilarity => d_cv < self.factor * d_pv,
        }
    }
}

/// RobustPrune(p, C, α, R) over the candidates in `s.cand` (`(d(p, v), v)` pairs, any order,
/// duplicates and `p` itself allowed): sorts them by distance to `p`, then repeatedly keeps the
/// closest remaining candidate c and drops every remaining v that c occludes, until `r` are kept
/// or none remain. The kept ids are written to `out` (cleared first), in the order kept.
/// Under [`AlphaRule::NegatedSimilarity`] with α > 1 a second level at α follows the first at
/// α = 1 (see the comment in the body).
///
/// Cost: at most `r · |C|` calls to `nodes.distance`. Deterministic: ties in distance are broken
/// by id.
pub(crate) fn robust_prune<N: NodeDistance + ?Sized>(
    nodes: &N,
    p: u32,
    s: &mut PruneScratch,
    occ: Occlusion,
    r: usize,
    out: &mut Vec<u32>,
) {
    out.clear();
    let cand = &mut s.cand;
    cand.retain(|c| c.1 != p && !c.0.is_nan());
    // Deduplicate by id (keeping the smaller distance), then order by (distance, id).
    cand.sort_unstable_by(|a, b| a.1.cmp(&b.1).then(a.0.total_cmp(&b.0)));
    cand.dedup_by_key(|c| c.1);
    cand.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let m = cand.len();
    s.alive.clear();
    s.alive.resize(m, true);
    s.taken.clear();
    s.taken.resize(m, false);
    // Negated similarities: first a level at α = 1, then one at α where the candidates occluded
    // at the first level become eligible again (DiskANN's MIPS schedule; a single level at α > 1
    // would occlude almost nothing and leave a k-NN graph).
    let levels: &[Occlusion] = &[occ.at_alpha_one(), occ];
    let levels = if occ.rule == AlphaRule::NegatedSimilarity && occ.factor > 1.0 {
        levels
    } else {
        &levels[1..]
    };
    'levels: for (li, &lv) in levels.iter().enumerate() {
        if li > 0 {
            for (a, &t) in s.alive.iter_mut().zip(&s.taken) {
                *a = !t;
            }
        }
        for i in 0..m {
            if !s.alive[i] {
                continue;
            }
            let c = cand[i].1;
            s.alive[i] = false;
            s.taken[i] = true;
            out.push(c);
            if out.len() >= r {
                break 'levels;
            }
            for j in i + 1..m {
                if let Some(&(_, ahead)) = cand.get(j + 2) {
                    nodes.prefetch(ahead);
                }
                if s.alive[j] && lv.occludes(nodes.distance(c, cand[j].1), cand[j].0) {
                    s.alive[j] = false;
                }
            }
        }
    }
}
