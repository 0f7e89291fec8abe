//! Where background builds run: a rayon pool of their own whose threads (and the job thread
//! that waits for them) run at a lower scheduling priority (Linux: nice [`NICE`]), so that a
//! seal, a compaction or an interim index built on a machine with few cores does not take the
//! CPU from the writes and searches in the foreground (awaited single writes waited behind
//! interim builds: their p99 went from 0.1 ms to several ms on 2 cores). RocksDB lowers its
//! compaction threads' priority for the same reason. Searches keep rayon's global pool. The
//! graph build is deterministic in the thread count, so the pool changes no result.

/// The nice value of the background threads (0 is the default, 19 the lowest).
pub(crate) const NICE: i32 = 10;

/// Lowers the calling thread's priority to [`NICE`] (best effort; Linux only).
pub(crate) fn lower_this_thread() {
    #[cfg(target_os = "linux")]
    {
        let tid = rustix::thread::gettid();
        let _ = rustix::process::setpriority_process(Some(tid), NICE);
    }
}

/// Runs `f` on the background pool (its rayon calls included), on the caller's thread
/// without the `parallel` feature or when the pool cannot start.
pub(crate) fn run<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    #[cfg(feature = "parallel")]
    {
        use std::sync::OnceLock;
        static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
        let pool = POOL.get_or_init(|| {
            rayon::ThreadPoolBuilder::new()
                .thread_name(|i| format!("horosvec-bg-{i}"))
                .start_handler(|_| lower_this_thread())
                .build()
                .ok()
        });
        if let Some(p) = pool {
            return p.install(f);
        }
    }
    f()
}
