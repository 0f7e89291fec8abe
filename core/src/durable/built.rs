//! What a build hands back: a seal's or a compaction's segment, or an interim index, with the
//! ticket of its swap ([`Built`]), and its installation into the collection. Thread-free: the
//! committer's background jobs and the single-threaded driver (`local.rs`) share it.

use std::sync::Arc;

use crate::ann::AnnIndex;
use crate::collection::{Collection, CompactionTicket, InterimTicket, SealTicket, SwapOutcome};
use crate::error::{Error, Result};
use crate::segment::Segment;

/// The kinds of background job.
#[cfg_attr(not(feature = "durable"), allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JobKind {
    Seal,
    Compact,
    Interim,
}

#[cfg_attr(not(feature = "durable"), allow(dead_code))]
impl JobKind {
    pub(crate) fn thread_name(self) -> &'static str {
        match self {
            JobKind::Seal => "horosvec-seal",
            JobKind::Compact => "horosvec-compact",
            JobKind::Interim => "horosvec-index",
        }
    }

    fn what(self) -> &'static str {
        match self {
            JobKind::Seal => "seal",
            JobKind::Compact => "compaction",
            JobKind::Interim => "interim index",
        }
    }
}

/// A finished background build, with the ticket of its swap.
#[cfg_attr(not(feature = "durable"), allow(dead_code))]
pub(crate) enum Built {
    /// An interim index of the mutable segment (memory only).
    Interim {
        result: Result<Box<AnnIndex>>,
        ticket: InterimTicket,
    },
    /// A sealed segment of the ticket's rows.
    Seal {
        ticket: SealTicket,
        result: Result<Arc<Segment>>,
    },
    /// The merge of the ticket's segments (`None`: no live row left); `origin[i]` is where row
    /// `i` came from.
    Compact {
        ticket: CompactionTicket,
        origin: Vec<(u64, u32)>,
        result: Result<Option<Arc<Segment>>>,
    },
    /// The build panicked; its ticket was dropped (the swap is aborted).
    Panicked(JobKind),
}

/// A swap installed in memory: the new segment (none when a compaction left no live row),
/// what changed, and the count its waiters get (records sealed, segments merged).
pub(crate) type Swapped = (Option<Arc<Segment>>, SwapOutcome, usize);

impl Built {
    /// Installs a seal's or a compaction's result into `col` (memory only; the caller then
    /// commits the manifest transaction). A failed build or install drops the ticket, which
    /// aborts the swap.
    ///
    /// # Errors
    /// The build's error, the install's (`HV_INTERNAL`), `HV_INTERNAL` for a panicked build.
    pub(crate) fn install(self, col: &mut Collection) -> Result<Swapped> {
        match self {
            Built::Seal { ticket, result } => {
                let n = ticket.input().len();
                let seg = result?;
                let out = col.install_sealed(seg.clone(), ticket)?;
                Ok((Some(seg), out, n))
            }
            Built::Compact {
                ticket,
                origin,
                result,
            } => {
                let n = ticket.parts().len();
                let seg = result?;
                let out = col.install_compacted(seg.clone(), &origin, ticket)?;
                Ok((seg, out, n))
            }
            Built::Panicked(kind) => Err(Error::Internal(format!(
                "the {} build panicked",
                kind.what()
            ))),
            Built::Interim { .. } => Err(Error::Internal("interim index in the swap path".into())),
        }
    }
}
