//! Background builds: a seal's segment, a compaction's segment, an interim index. Each runs on
//! a thread of its own (its index build on the rayon pool; an interim index's on the low-priority
//! pool of `background.rs`) with its swap ticket, and hands
//! what it built back to the committer; a panic is caught here, once for all three kinds.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use super::background;
pub(crate) use super::built::{Built, JobKind};
use super::files::SegmentDir;
use crate::ann::IndexParams;
use crate::collection::{CompactionTicket, InterimTicket, SealInput, SealTicket};
use crate::error::{Error, Result};
use crate::segment::{open_segment_file, write_segment_file, Freshness, Segment};

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
            // an interim index only speeds searches up: it yields to the foreground; a seal or a
            // compaction is what writes held by the mutable bound wait for, so it does not
            let low = kind == JobKind::Interim;
            if low {
                background::lower_this_thread();
            }
            let built = catch_unwind(AssertUnwindSafe(|| {
                if low {
                    background::run(|| work(&shop))
                } else {
                    work(&shop)
                }
            }))
            .unwrap_or(Built::Panicked(kind));
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
