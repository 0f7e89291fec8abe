//! A collection whose writes are durable, with group commit (feature `durable`, native only).
//!
//! [`DurableCollection::open`] loads the records of a [`RecordStore`] into an in-memory
//! [`Collection`] shared behind a lock ([`SharedCollection`]), and starts one committer thread
//! that owns the store. Writers [`submit`](DurableCollection::submit) requests into a channel, in
//! call order, with a callback. The committer takes every request waiting in the channel as one
//! group and:
//!
//! 1. applies them in order to the in-memory collection under the write lock, each all or nothing
//!    (a request that fails validation, e.g. `HV_DUPLICATE_ID`, is answered at once and leaves no
//!    trace), recording the resulting mutations;
//! 2. releases the lock, so searches run while
//! 3. the store commits the whole group as one transaction with one sync (group commit: N
//!    concurrent writers pay for one sync, not N);
//! 4. answers every request of the group: success only now, after the sync.
//!
//! If the commit fails, the collection is reloaded from the store (which holds none of the
//! group) and every request of the group gets the error: an acknowledged write is always durable
//! and an unacknowledged group never reaches the store. The store's transaction is atomic, so a
//! crash at any moment leaves each request wholly present or wholly absent.
//!
//! Readers never wait for the sync (it happens outside the lock); a reader may observe a write
//! of the group being synced before the writer is told it is durable.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex, RwLock};
use std::thread::JoinHandle;

use crate::collection::{Collection, WriteKind};
use crate::error::{Error, Result};
use crate::store::{Mutation, RecordStore};
use crate::types::VectorId;

/// The in-memory collection shared between the binding (searches), the committer and builds;
/// `None` once closed.
pub type SharedCollection = Arc<RwLock<Option<Collection>>>;

/// Answer to a write: the number of records written (or deleted) or the error.
pub type Reply = Box<dyn FnOnce(Result<usize>) + Send>;

/// One write request.
#[derive(Debug)]
pub enum WriteRequest {
    /// Insert (`Add`) or insert-or-replace (`Upsert`) records: `n × dim` vectors, row-major.
    Put {
        /// Add or upsert.
        kind: WriteKind,
        /// The ids.
        ids: Vec<VectorId>,
        /// `n × dim` values.
        vectors: Vec<f32>,
        /// Optional metadata JSON per record.
        metadata: Option<Vec<Option<String>>>,
    },
    /// Delete records (absent ids are ignored).
    Delete {
        /// The ids.
        ids: Vec<VectorId>,
    },
}

/// Most requests committed as one group.
pub const MAX_GROUP: usize = 4096;

/// A queued write and its answer.
type Msg = (WriteRequest, Reply);

/// A durable collection: the shared in-memory state plus the committer thread.
pub struct DurableCollection {
    shared: SharedCollection,
    tx: Mutex<Option<Sender<Msg>>>,
    worker: Mutex<Option<JoinHandle<()>>>,
    read_only: bool,
    commits: Arc<AtomicU64>,
}

impl DurableCollection {
    /// Loads every record of `store` into memory and starts the committer (not for a read-only
    /// store, whose writes fail with `HV_READ_ONLY`).
    ///
    /// # Errors
    /// The store's `load` errors (`HV_IO`, `HV_CORRUPT`), `HV_OUT_OF_MEMORY`.
    pub fn open<S: RecordStore + 'static>(mut store: S, read_only: bool) -> Result<DurableCollection> {
        let col = load(&mut store)?;
        let shared: SharedCollection = Arc::new(RwLock::new(Some(col)));
        let commits = Arc::new(AtomicU64::new(0));
        let (tx, worker) = if read_only {
            (None, None)
        } else {
            let (tx, rx) = channel::<Msg>();
            let s = shared.clone();
            let c = commits.clone();
            let handle = std::thread::Builder::new()
                .name("horosvec-commit".into())
                .spawn(move || committer(store, s, rx, &c))
                .map_err(|e| Error::Io(format!("cannot start the commit thread: {e}")))?;
            (Some(tx), Some(handle))
        };
        Ok(DurableCollection { shared, tx: Mutex::new(tx), worker: Mutex::new(worker), read_only, commits })
    }

    /// The shared in-memory collection (searches take its read lock).
    pub fn shared(&self) -> &SharedCollection {
        &self.shared
    }

    /// True when opened read-only.
    pub fn read_only(&self) -> bool {
        self.read_only
    }

    /// Transactions committed since open (one sync each under `Durability::Full`); with group
    /// commit, fewer than the writes acknowledged.
    pub fn commits(&self) -> u64 {
        self.commits.load(Ordering::Relaxed)
    }

    /// Queues a write; `reply` is called (on the committer thread) once it is durable, or with
    /// its error. Requests are applied in the order of `submit` calls.
    pub fn submit(&self, req: WriteRequest, reply: Reply) {
        if self.read_only {
            return reply(Err(Error::ReadOnly));
        }
        let tx = self.tx.lock().ok().and_then(|t| t.clone());
        match tx {
            Some(tx) => {
                if let Err(std::sync::mpsc::SendError((_, reply))) = tx.send((req, reply)) {
                    reply(Err(Error::Closed));
                }
            }
            None => reply(Err(Error::Closed)),
        }
    }

    /// Stops taking writes, waits until every queued write is committed and answered, stops the
    /// committer and drops the in-memory collection (releasing the writer's lock). Idempotent.
    pub fn close(&self) {
        if let Ok(mut t) = self.tx.lock() {
            t.take();
        }
        let handle = self.worker.lock().ok().and_then(|mut w| w.take());
        if let Some(h) = handle {
            let _ = h.join();
        }
        if let Ok(mut g) = self.shared.write() {
            g.take();
        }
    }
}

impl Drop for DurableCollection {
    fn drop(&mut self) {
        self.close();
    }
}

/// Builds the in-memory collection from the store's records.
fn load(store: &mut dyn RecordStore) -> Result<Collection> {
    let (dim, metric) = store.shape();
    let mut col = Collection::new(dim, metric)?;
    store.load(&mut |r| col.restore_row(r.id, r.seq, &r.vector, r.metadata))?;
    Ok(col)
}

/// What one applied request changed, for the store.
enum Applied {
    Put { ids: Vec<VectorId>, seqs: Vec<u64>, vectors: Vec<f32>, metadata: Vec<Option<String>>, dim: usize },
    Delete { ids: Vec<VectorId> },
}

fn committer<S: RecordStore>(mut store: S, shared: SharedCollection, rx: Receiver<Msg>, commits: &AtomicU64) {
    while let Ok(first) = rx.recv() {
        let mut msgs = vec![first];
        while msgs.len() < MAX_GROUP {
            match rx.try_recv() {
                Ok(m) => msgs.push(m),
                Err(_) => break,
            }
        }
        // 1. apply in memory, in order
        let mut done: Vec<(Applied, Reply, usize)> = Vec::with_capacity(msgs.len());
        {
            let mut guard = match shared.write() {
                Ok(g) => g,
                Err(p) => p.into_inner(),
            };
            for (req, reply) in msgs {
                match guard.as_mut() {
                    None => reply(Err(Error::Closed)),
                    Some(col) => match apply(col, req) {
                        Ok((applied, n)) => done.push((applied, reply, n)),
                        Err(e) => reply(Err(e)),
                    },
                }
            }
        }
        // 2. one transaction, one sync, outside the lock
        let result = if done.is_empty() {
            Ok(())
        } else {
            let mut muts = Vec::new();
            for (a, _, _) in &done {
                match a {
                    Applied::Put { ids, seqs, vectors, metadata, dim } => {
                        for (i, id) in ids.iter().enumerate() {
                            muts.push(Mutation::Put {
                                id,
                                seq: seqs[i],
                                vector: &vectors[i * dim..(i + 1) * dim],
                                metadata: metadata[i].as_deref(),
                            });
                        }
                    }
                    Applied::Delete { ids } => muts.extend(ids.iter().map(|id| Mutation::Delete { id })),
                }
            }
            store.commit(&muts)
        };
        // 3. answer
        match result {
            Ok(()) => {
                if !done.is_empty() {
                    commits.fetch_add(1, Ordering::Relaxed);
                }
                for (_, reply, n) in done {
                    reply(Ok(n));
                }
            }
            Err(e) => {
                // The store holds none of the group: rebuild memory from it so that nothing
                // unacknowledged stays visible.
                let reloaded = load(&mut store);
                if let Ok(mut g) = shared.write() {
                    if g.is_some() {
                        *g = reloaded.ok();
                    }
                }
                for (_, reply, _) in done {
                    reply(Err(e.clone()));
                }
            }
        }
    }
}

/// Applies one request to the collection (all or nothing); returns what changed and the count.
fn apply(col: &mut Collection, req: WriteRequest) -> Result<(Applied, usize)> {
    match req {
        WriteRequest::Put { kind, ids, vectors, metadata } => {
            let w = col.prepare(kind, ids.clone(), vectors, metadata)?;
            let n = w.len();
            let (vectors, metadata) = w.payload();
            let (vectors, metadata) = (vectors.to_vec(), metadata.to_vec());
            col.commit(w)?;
            let seqs = ids.iter().map(|id| col.seq_of(id).unwrap_or(0)).collect();
            Ok((Applied::Put { ids, seqs, vectors, metadata, dim: col.dim() }, n))
        }
        WriteRequest::Delete { ids } => {
            let present: Vec<VectorId> = ids.iter().filter(|id| col.contains(id)).cloned().collect();
            let n = col.delete(&ids);
            Ok((Applied::Delete { ids: present }, n))
        }
    }
}
