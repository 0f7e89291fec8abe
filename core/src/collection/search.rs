//! Search: one query or a batch, over the mutable segment alone or merged across it and every
//! sealed segment. No thread of its own: batches and cold sealed parts use the rayon pool
//! (feature `parallel`), and run one after another without it.

use super::mutable::scaled_ef;
use super::segments::SealedPart;
use super::{Collection, SearchHit, SearchOptions, DEFAULT_EF, FLAT_THRESHOLD};
use crate::ann::AnnSearch;
use crate::error::{Error, Result};
use crate::flat::{self, Hit};

/// The part number of the mutable segment in merged hits.
pub(super) const MUTABLE: usize = usize::MAX;

/// Most runs of sealed parts one search spreads over the pool in cold mode (see `search_all`).
const COLD_RUNS: usize = 4;

/// `f(x)` for every item of `xs`, in order: on the rayon pool natively, one after another
/// without the `parallel` feature.
fn map_pool<X: Sync, T: Send>(xs: &[X], f: impl Fn(&X) -> T + Sync + Send) -> Vec<T> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        xs.par_iter().map(f).collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        xs.iter().map(f).collect()
    }
}

/// Keeps the `k` best of hits gathered from several parts, by (distance, insertion sequence); a
/// NaN distance, which only a damaged file opened without `verify` can give, comes last.
pub(super) fn keep_best(all: &mut Vec<(Hit, usize)>, k: usize) {
    let key = |d: f32| if d.is_nan() { f32::INFINITY } else { d };
    all.sort_unstable_by(|a, b| {
        key(a.0.dist)
            .total_cmp(&key(b.0.dist))
            .then(a.0.seq.cmp(&b.0.seq))
    });
    all.truncate(k);
}

impl Collection {
    /// The `k` nearest records to `query` (`dim` values), best first; ties go to the
    /// earlier-inserted record. Exact without an index or with `opts.exact`; with an index,
    /// approximate (graph walk + exact rerank, so the returned distances are exact). Fewer than
    /// `k` come back when the collection is smaller.
    ///
    /// # Errors
    /// `HV_DIM_MISMATCH`, `HV_INVALID_VECTOR` (NaN/±Infinity; a zero vector under cosine is accepted, at distance 1).
    pub fn search(&self, query: &[f32], opts: &SearchOptions) -> Result<Vec<SearchHit>> {
        self.check_vector(query, 0)?;
        crate::mem::ensure_read_headroom(|| self.search_headroom(opts, 1), "search")?;
        let mut q = Vec::with_capacity(self.dim());
        flat::prepare_query(self.metric(), query, &mut q);
        let k = opts.k.min(self.len().max(1));
        if Collection::restricted(opts) {
            let sel = self.selection_for(opts);
            let hits = self.search_selected(query, &q, k, opts, &sel)?;
            return self.hits(hits, opts);
        }
        if self.merged() {
            let hits = self.search_all(query, &q, k, opts)?;
            return self.hits(hits, opts);
        }
        let view = self.mutable.view();
        let hits = match self.mutable.index_for(opts) {
            Some((ix, a)) => ix.search(&view, query, &q, k, a)?,
            None => flat::search_one(&view, &q, k),
        };
        self.hits(hits.into_iter().map(|h| (h, MUTABLE)).collect(), opts)
    }

    /// Search for `n` queries at once (`queries` is `n × dim` row-major); one result list per
    /// query, in order. Over the mutable segment alone, exact searches read each stored row once
    /// per chunk of queries and indexed searches run the queries in parallel natively; when
    /// results are merged across parts (sealed segments, or an interim index with a tail), each
    /// query is searched on its own (in parallel natively), so exact scans read the rows once
    /// per query.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` (no query), `HV_DIM_MISMATCH`, `HV_INVALID_VECTOR` (`index` = query number).
    pub fn search_batch(
        &self,
        queries: &[f32],
        opts: &SearchOptions,
    ) -> Result<Vec<Vec<SearchHit>>> {
        let dim = self.dim();
        if queries.is_empty() {
            return Err(Error::invalid_argument(
                "empty batch: give at least one query",
            ));
        }
        if !queries.len().is_multiple_of(dim) {
            return Err(Error::BatchShape {
                dim,
                len: queries.len(),
            });
        }
        let nq = queries.len() / dim;
        crate::mem::ensure_read_headroom(|| self.search_headroom(opts, nq), "batch search")?;
        let mut prepared = Vec::with_capacity(queries.len());
        let mut q = Vec::with_capacity(dim);
        for (i, v) in queries.chunks_exact(dim).enumerate() {
            self.check_vector(v, i)?;
            flat::prepare_query(self.metric(), v, &mut q);
            prepared.extend_from_slice(&q);
        }
        let k = opts.k.min(self.len().max(1));
        let rows = |j: usize| j * dim..(j + 1) * dim;
        let numbers: Vec<usize> = (0..nq).collect();
        if Collection::restricted(opts) {
            let sel = self.selection_for(opts);
            return map_pool(&numbers, |&j| {
                self.search_selected(&queries[rows(j)], &prepared[rows(j)], k, opts, &sel)
                    .and_then(|h| self.hits(h, opts))
            })
            .into_iter()
            .collect();
        }
        if self.merged() && opts.exact == Some(true) && !self.mutable.deferred {
            return self.exact_batch_merged(&prepared, nq, k, opts);
        }
        if self.merged() {
            return map_pool(&numbers, |&j| {
                self.search_all(&queries[rows(j)], &prepared[rows(j)], k, opts)
                    .and_then(|h| self.hits(h, opts))
            })
            .into_iter()
            .collect();
        }
        let view = self.mutable.view();
        let all = match self.mutable.index_for(opts) {
            Some((ix, a)) => map_pool(&numbers, |&j| {
                ix.search(&view, &queries[rows(j)], &prepared[rows(j)], k, a)
            })
            .into_iter()
            .collect::<Result<Vec<_>>>()?,
            None => flat::search_batch(&view, &prepared, k),
        };
        all.into_iter()
            .map(|h| self.hits(h.into_iter().map(|h| (h, MUTABLE)).collect(), opts))
            .collect()
    }

    /// Exact batch search of an in-memory collection with sealed parts (a loaded snapshot):
    /// each part scanned once per chunk of queries, as the mutable segment alone is
    /// (`flat::search_batch`, so distances are those of that scan), then merged per query.
    fn exact_batch_merged(
        &self,
        prepared: &[f32],
        nq: usize,
        k: usize,
        opts: &SearchOptions,
    ) -> Result<Vec<Vec<SearchHit>>> {
        let mut per_query: Vec<Vec<(Hit, usize)>> = vec![Vec::new(); nq];
        let mut add = |hits: Vec<Vec<Hit>>, p: usize| {
            for (all, hs) in per_query.iter_mut().zip(hits) {
                all.extend(hs.into_iter().map(|h| (h, p)));
            }
        };
        if self.mutable.rows.live() > 0 {
            add(
                flat::search_batch(&self.mutable.view(), prepared, k),
                MUTABLE,
            );
        }
        for (p, part) in self.segments.parts.iter().enumerate() {
            if part.live() > 0 {
                let view = part.seg.view(&part.deleted, self.kernels());
                add(flat::search_batch(&view, prepared, k), p);
            }
        }
        per_query
            .into_iter()
            .map(|mut all| {
                keep_best(&mut all, k);
                self.hits(all, opts)
            })
            .collect()
    }

    /// True when a search merges parts: sealed segments exist, or the mutable segment has a
    /// tail beyond its interim index.
    fn merged(&self) -> bool {
        !self.segments.parts.is_empty() || self.mutable.has_tail()
    }

    /// An upper bound of the bytes `nq` searches with `opts` allocate: the walks' scratch (one
    /// at a time, reused), the prepared queries, and every query's hits with their metadata.
    fn search_headroom(&self, opts: &SearchOptions, nq: usize) -> usize {
        let k = opts.k.min(self.len());
        let ef = opts.ef.unwrap_or(DEFAULT_EF).max(k);
        let walk = self
            .mutable
            .index
            .as_ref()
            .map_or(0, |ix| ix.search_headroom(k, ef))
            + self
                .segments
                .parts
                .iter()
                .map(|p| p.seg.index().search_headroom(k, ef))
                .max()
                .unwrap_or(0);
        // sealed segments' metadata is not counted: they are native only, where nothing is checked
        let hit = 64
            + if opts.include_metadata {
                self.mutable.rows.metadata_max
            } else {
                0
            };
        walk.saturating_add(nq.saturating_mul(self.dim() * 8 + k.saturating_mul(hit)))
    }

    /// The `k` best hits over the mutable segment and every sealed segment, with the part each
    /// came from ([`MUTABLE`] for the mutable segment).
    fn search_all(
        &self,
        query: &[f32],
        q: &[f32],
        k: usize,
        opts: &SearchOptions,
    ) -> Result<Vec<(Hit, usize)>> {
        let parts = &self.segments.parts;
        let mut all: Vec<(Hit, usize)> = Vec::with_capacity(k * (parts.len() + 1));
        // A part holding a fraction f of the largest part's records is walked with ef·√f (at
        // least k): it holds fewer of the k nearest, and a graph walk costs about ef whatever
        // the graph's size, so equal ef would make a small part cost as much as the largest.
        let live = self.mutable.rows.live();
        let largest = parts
            .iter()
            .map(SealedPart::live)
            .max()
            .unwrap_or(0)
            .max(live)
            .max(1);
        let scale = |n: usize| (n as f64 / largest as f64).sqrt();
        if live > 0 {
            let hits = self.mutable.search(query, q, k, opts, scale(live))?;
            all.extend(hits.into_iter().map(|h| (h, MUTABLE)));
        }
        // Parts whose files were just mapped (cold: their pages are read from the medium as the
        // walk needs them) are searched on the pool, so that their reads overlap: at most
        // COLD_RUNS contiguous runs of parts at once. Otherwise one after another here.
        let search =
            |part: &SealedPart| self.search_part(part, query, q, k, opts, scale(part.live()));
        let cold = parts
            .iter()
            .filter(|p| p.live() > 0 && p.seg.index().is_cold())
            .count();
        let per_part: Vec<Result<Vec<Hit>>> = if cold >= 2 {
            let run = parts.len().div_ceil(cold.min(COLD_RUNS));
            let runs: Vec<&[SealedPart]> = parts.chunks(run).collect();
            map_pool(&runs, |run| run.iter().map(search).collect::<Vec<_>>())
                .into_iter()
                .flatten()
                .collect()
        } else {
            parts.iter().map(search).collect()
        };
        for (p, hits) in per_part.into_iter().enumerate() {
            all.extend(hits?.into_iter().map(|h| (h, p)));
        }
        keep_best(&mut all, k);
        Ok(all)
    }

    /// The `k` best hits of one sealed part (none when all its rows are deleted): an exact scan
    /// when asked for or when the part is small, else its index walked with ef scaled by
    /// `ef_scale` (see [`Collection::search_all`]).
    fn search_part(
        &self,
        part: &SealedPart,
        query: &[f32],
        q: &[f32],
        k: usize,
        opts: &SearchOptions,
        ef_scale: f64,
    ) -> Result<Vec<Hit>> {
        if part.live() == 0 {
            return Ok(Vec::new());
        }
        let kernels = self.kernels();
        if opts
            .exact
            .unwrap_or(part.live() < FLAT_THRESHOLD || k >= part.live())
        {
            return Ok(flat::search_one(
                &part.seg.view(&part.deleted, kernels),
                q,
                k,
            ));
        }
        let view = part.seg.index_view(&part.deleted, kernels);
        let ix = part.seg.index();
        let ef = scaled_ef(opts.ef.unwrap_or(DEFAULT_EF), k, ef_scale);
        let rerank = opts
            .rerank
            .unwrap_or_else(|| ix.default_rerank(k, ef))
            .max(k);
        ix.search(
            &view,
            query,
            q,
            k.min(part.live()),
            AnnSearch { ef, rerank },
        )
    }

    /// Turns hits (with the part each came from) into results.
    ///
    /// # Errors
    /// `HV_CORRUPT` when a sealed segment's id or metadata cannot be read.
    fn hits(&self, hits: Vec<(Hit, usize)>, opts: &SearchOptions) -> Result<Vec<SearchHit>> {
        let rows = &self.mutable.rows;
        hits.into_iter()
            .map(|(h, p)| {
                if p == MUTABLE {
                    let r = h.row as usize;
                    return Ok(SearchHit {
                        id: rows.ids[r].clone(),
                        distance: h.dist,
                        metadata: if opts.include_metadata {
                            rows.metadata[r].clone()
                        } else {
                            None
                        },
                    });
                }
                let seg = &self.segments.parts[p].seg;
                Ok(SearchHit {
                    id: seg.id(h.row)?,
                    distance: h.dist,
                    metadata: if opts.include_metadata {
                        seg.metadata(h.row)?
                    } else {
                        None
                    },
                })
            })
            .collect()
    }
}
