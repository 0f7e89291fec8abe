//! Where interim-index builds run: a rayon pool of their own whose threads (and the job thread
//! that waits for them) run at a lower scheduling priority (Linux: nice [`NICE`]), so that the
//! interim indexes rebuilt as the mutable segment grows do not take the CPU from the writes and
//! searches in the foreground on a machine with few cores (awaited single writes waited behind
//! them: their p99 went from 0.1 ms to several ms on 2 cores). RocksDB lowers its compaction
//! threads' priority for the same reason. Seals and compactions keep rayon's global pool at
//! normal priority: writes held back by the mutable bound wait for them, and a starved seal
//! (a machine loaded by other processes) held them for tens of seconds. Searches keep the global
//! pool too. The graph build is deterministic in the thread count, so the pool changes no
//! result.

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
