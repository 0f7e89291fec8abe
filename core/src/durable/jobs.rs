//! Background builds: a seal's segment, a compaction's segment, an interim index. Each runs on
//! a thread of its own (its index build on the rayon pool) with its swap ticket, and hands
//! what it built back to the committer; a panic is caught here, once for all three kinds.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use super::files::SegmentDir;
use crate::ann::{AnnIndex, IndexParams};
use crate::collection::{
    Collection, CompactionTicket, InterimTicket, SealInput, SealTicket, SwapOutcome,
};
use crate::error::{Error, Result};
use crate::segment::{open_segment_file, write_segment_file, Freshness, Segment};

/// The kinds of background job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JobKind {
    Seal,
    Compact,
    Interim,
}

impl JobKind {
    fn thread_name(self) -> &'static str {
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

/// Where a job builds: the collection directory, index parameters, the cancel flag of close.
pub(crate) struct Workshop {
    pub(crate) dir: SegmentDir,
    pub(crate) params: IndexParams,
    pub(crate) cancel: Arc<AtomicBool>,
}

/// Runs `work` on a thread named for `kind`, catching a panic, and hands the result to
/// `deliver`. `Err` when the thread cannot start: `work` is dropped unrun (so is its ticket,
/// which aborts its swap).
pub(crate) fn spawn(
    kind: JobKind,
    shop: Workshop,
    work: impl FnOnce(&Workshop) -> Built + Send + 'static,
    deliver: impl FnOnce(Built) + Send + 'static,
) -> Result<()> {
    std::thread::Builder::new()
        .name(kind.thread_name().into())
        .spawn(move || {
            let built =
                catch_unwind(AssertUnwindSafe(|| work(&shop))).unwrap_or(Built::Panicked(kind));
            deliver(built);
        })
        .map(|_| ())
        .map_err(|_| Error::Io(format!("cannot start the {} thread", kind.thread_name())))
}

/// The work of a seal: segment `generation` of the ticket's rows.
pub(crate) fn seal(ticket: SealTicket, generation: u64) -> impl FnOnce(&Workshop) -> Built + Send {
    move |shop| {
        let result = build_segment(shop, generation, ticket.input());
        Built::Seal { ticket, result }
    }
}

/// The work of a compaction: segment `generation` of the live rows of the ticket's segments.
pub(crate) fn compact(
    ticket: CompactionTicket,
    generation: u64,
) -> impl FnOnce(&Workshop) -> Built + Send {
    move |shop| {
        let mut origin = Vec::new();
        let result = SealInput::from_parts(ticket.parts()).and_then(|(input, o)| {
            origin = o;
            if input.is_empty() {
                return Ok(None);
            }
            build_segment(shop, generation, &input).map(Some)
        });
        Built::Compact {
            ticket,
            origin,
            result,
        }
    }
}

/// The work of an interim index: the index of the ticket's rows.
pub(crate) fn interim(ticket: InterimTicket) -> impl FnOnce(&Workshop) -> Built + Send {
    move |shop| {
        let result = ticket
            .input()
            .build_index(shop.params, &shop.cancel)
            .map(Box::new);
        Built::Interim { result, ticket }
    }
}

/// Builds the index of `input`, writes segment `generation` into the directory (synced and
/// renamed) and maps it; a file that does not read back is removed.
fn build_segment(shop: &Workshop, generation: u64, input: &SealInput) -> Result<Arc<Segment>> {
    let ix = input.build_index(shop.params, &shop.cancel)?;
    let dir: &Path = shop.dir.path();
    let path = write_segment_file(dir, generation, &input.rows(), &ix)?;
    // just written: in the page cache, not cold
    let seg = open_segment_file(
        dir,
        generation,
        input.dim,
        input.metric,
        Freshness::JustWritten,
    );
    if seg.is_err() {
        shop.dir.remove_path(&path);
    }
    seg
}
