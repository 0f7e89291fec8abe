//! The write requests of a durable collection (the threaded committer's and the
//! single-threaded driver's).

use crate::collection::WriteKind;
use crate::types::VectorId;

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
    /// Delete every record matching a filter (evaluated when the request is applied, in call
    /// order); answered with the number deleted.
    DeleteWhere {
        /// The filter.
        filter: crate::filter::Filter,
    },
}
