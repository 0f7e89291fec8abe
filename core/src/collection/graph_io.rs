//! Import of a graph built elsewhere (e.g. cuVS CAGRA on a GPU) and export of the index graph, as
//! a flat `u32` adjacency of `n × degree` entries padded with `0xFFFFFFFF` (the RAFT/cuVS
//! convention; the predecessor's `arena_import`). Node `i` is the collection's `i`-th live record
//! in insertion order (ascending insertion sequence), on import and on export alike.

use super::Collection;
use crate::ann::{AnnIndex, IndexParams};
use crate::error::{Error, Result};
use crate::graph::{FlatNodes, Graph, NodeDistance};
use crate::types::VectorId;

/// The padding value of an adjacency row.
pub const NO_NEIGHBOR: u32 = u32::MAX;

/// What an import kept and dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// Nodes (= live records).
    pub nodes: usize,
    /// Edges kept.
    pub edges: usize,
    /// `0xFFFFFFFF` padding entries skipped.
    pub padding: usize,
    /// Self loops dropped.
    pub self_loops: usize,
    /// Repeated neighbours dropped (the first copy is kept).
    pub duplicates: usize,
}

/// An exported graph: `adjacency` is `ids.len() × degree`, padded with [`NO_NEIGHBOR`].
#[derive(Clone, Debug, PartialEq)]
pub struct ExportedGraph {
    /// Row `i` = the neighbours of node `i`, then padding.
    pub adjacency: Vec<u32>,
    /// Entries per row (the index's R).
    pub degree: usize,
    /// The entry point (a node number).
    pub entry: u32,
    /// The record id of each node.
    pub ids: Vec<VectorId>,
}

impl Collection {
    /// Rows in ascending insertion sequence: node `i` ↔ row `order[i]`. Callers consolidate
    /// first, so every row is a live record.
    fn node_order(&self) -> Vec<u32> {
        let mut rows: Vec<u32> = (0..self.mutable.rows.ids.len() as u32).collect();
        rows.sort_by_key(|&r| self.mutable.rows.seqs[r as usize]);
        rows
    }

    /// Installs an index whose graph is `adjacency` (`n × degree`, node `i` = the `i`-th live
    /// record in insertion order, `0xFFFFFFFF` padding). Self loops and repeated neighbours are
    /// dropped and counted; `entry` defaults to the record closest to the centroid. R becomes
    /// `degree`; the other `params` (L, α, bits, seed) serve later inserts and the RaBitQ codes,
    /// which are computed here. An existing index is replaced.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT`: an empty collection, `degree` outside 1..=4096, an adjacency whose
    /// length is not `n × degree`, a neighbour or entry ≥ `n` (nothing is changed).
    pub fn import_graph(
        &mut self,
        adjacency: &[u32],
        degree: usize,
        entry: Option<u32>,
        params: IndexParams,
    ) -> Result<ImportReport> {
        self.unseal()?; // a loaded snapshot's parts (in memory) move into the mutable segment
        self.no_sealed("importGraph")?;
        self.consolidate()?; // a no-op without tombstones
        let order = self.node_order();
        let n = order.len();
        if n == 0 {
            return Err(Error::invalid_argument(
                "import_graph: the collection is empty; add the records first",
            ));
        }
        if degree == 0 || degree > 4096 {
            return Err(Error::invalid_argument(format!(
                "degree must be in 1..=4096, got {degree}"
            )));
        }
        if adjacency.len() as u64 != n as u64 * degree as u64 {
            return Err(Error::invalid_argument(format!(
                "the adjacency holds {} entries; {n} records × degree {degree} = {} were expected",
                adjacency.len(),
                n as u64 * degree as u64
            )));
        }
        if let Some(e) = entry {
            if e as usize >= n {
                return Err(Error::invalid_argument(format!(
                    "entry point {e} is not a node (n = {n})"
                )));
            }
        }
        let mut report = ImportReport {
            nodes: n,
            ..ImportReport::default()
        };
        // per row (the graph is in row numbering): degrees and neighbour lists
        let rows = self.mutable.rows.ids.len();
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); rows];
        let mut seen = vec![u32::MAX; n];
        for (node, chunk) in adjacency.chunks_exact(degree).enumerate() {
            let row = order[node];
            let list = &mut lists[row as usize];
            for &v in chunk {
                if v == NO_NEIGHBOR {
                    report.padding += 1;
                } else if v as usize >= n {
                    return Err(Error::invalid_argument(format!(
                        "node {node} lists neighbour {v}, but there are only {n} nodes"
                    )));
                } else if v as usize == node {
                    report.self_loops += 1;
                } else if seen[v as usize] == node as u32 {
                    report.duplicates += 1;
                } else {
                    seen[v as usize] = node as u32;
                    list.push(order[v as usize]);
                }
            }
            report.edges += list.len();
        }
        let degrees: Vec<u32> = lists.iter().map(|l| l.len() as u32).collect();
        let neighbors: Vec<u32> = lists.concat();
        let entry_row = match entry {
            Some(e) => order[e as usize],
            None => {
                let view = self.mutable.rows.view(&[]);
                let nodes = FlatNodes::from_rows(view.vectors, view.dim, view.metric);
                let nodes = if super::validate::keeps_norms(view.metric) {
                    nodes.with_inv_norms(view.inv_norms)
                } else {
                    nodes
                };
                nodes.medoid().unwrap_or(0)
            }
        };
        let graph = Graph::from_parts(degree, &degrees, &neighbors, entry_row)
            .map_err(|e| Error::invalid_argument(format!("imported graph: {e}")))?;
        let params = IndexParams {
            r: degree,
            ..params
        };
        let ix = AnnIndex::from_graph(&self.mutable.rows.view(&[]), params, graph)?;
        self.mutable.index = Some(ix);
        self.version += 1;
        Ok(report)
    }

    /// The index graph as a padded `n × R` adjacency over the live records in insertion order
    /// (tombstones are consolidated first), with each node's id.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` when there is no index.
    pub fn export_graph(&mut self) -> Result<ExportedGraph> {
        self.unseal()?; // a loaded snapshot's parts (in memory) move into the mutable segment
        self.no_sealed("exportGraph")?;
        self.consolidate()?; // a no-op without tombstones
        let Some(ix) = self.mutable.index.as_ref() else {
            return Err(Error::invalid_argument(
                "export_graph: no index; call buildIndex (or importGraph) first",
            ));
        };
        let order = self.node_order();
        let mut node_of_row = vec![u32::MAX; self.mutable.rows.ids.len()];
        for (node, &row) in order.iter().enumerate() {
            node_of_row[row as usize] = node as u32;
        }
        let g = ix.graph();
        let degree = g.max_degree();
        let mut adjacency = Vec::new();
        adjacency
            .try_reserve_exact(order.len() * degree)
            .map_err(|_| Error::OutOfMemory("graph export".into()))?;
        for &row in &order {
            let nb = g.neighbors(row);
            adjacency.extend(nb.iter().map(|&v| node_of_row[v as usize]));
            adjacency.extend(std::iter::repeat_n(NO_NEIGHBOR, degree - nb.len()));
        }
        // an index over no live record exports an empty graph (entry 0 by convention)
        let entry = node_of_row
            .get(g.entry_point() as usize)
            .copied()
            .filter(|&e| e != u32::MAX)
            .unwrap_or(0);
        let ids = order
            .iter()
            .map(|&r| self.mutable.rows.ids[r as usize].clone())
            .collect();
        Ok(ExportedGraph {
            adjacency,
            degree,
            entry,
            ids,
        })
    }
}
