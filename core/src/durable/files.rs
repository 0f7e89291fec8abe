//! The segment files of a collection directory behind [`SegmentDir`] (presence, removal,
//! orphans), so that no other part of `durable` touches the file system.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::segment::{parse_segment_file_name, segment_file_name, sync_dir, TEMP_SUFFIX};

/// The segment files of a collection directory.
#[derive(Clone, Debug)]
pub(crate) struct SegmentDir {
    dir: PathBuf,
}

impl SegmentDir {
    /// The files in `dir`.
    pub(crate) fn new(dir: PathBuf) -> SegmentDir {
        SegmentDir { dir }
    }

    /// The directory.
    pub(crate) fn path(&self) -> &Path {
        &self.dir
    }

    /// True when the file of segment `generation` exists.
    pub(crate) fn exists(&self, generation: u64) -> bool {
        self.dir.join(segment_file_name(generation)).exists()
    }

    /// Removes the file of segment `generation`, best effort (one left behind is an orphan,
    /// removed at the next open; a mapping of it stays valid until its last reader).
    pub(crate) fn remove(&self, generation: u64) {
        let _ = std::fs::remove_file(self.dir.join(segment_file_name(generation)));
    }

    /// Removes the file at `path`, best effort.
    pub(crate) fn remove_path(&self, path: &Path) {
        let _ = std::fs::remove_file(path);
    }

    /// Removes segment files (and temporary files) whose generation is not in `live`: left by
    /// a crash during a seal or compaction, or after a compaction's commit; then syncs the
    /// directory if any was removed.
    ///
    /// # Errors
    /// `HV_IO`.
    pub(crate) fn remove_orphans(&self, live: &HashSet<u64>) -> Result<()> {
        let dir = &self.dir;
        let entries = std::fs::read_dir(dir)
            .map_err(|e| Error::Io(format!("cannot list {}: {e}", dir.display())))?;
        let mut removed = false;
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if let Some(g) = parse_segment_file_name(name) {
                if name.ends_with(TEMP_SUFFIX) || !live.contains(&g) {
                    std::fs::remove_file(entry.path()).map_err(|e| {
                        Error::Io(format!(
                            "cannot remove orphan {}: {e}",
                            entry.path().display()
                        ))
                    })?;
                    removed = true;
                }
            }
        }
        if removed {
            sync_dir(dir)?;
        }
        Ok(())
    }
}
