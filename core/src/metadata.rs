//! Record metadata: at most one JSON value per record, stored as its text. The one check of
//! that text, shared by the writes (`collection/validate.rs`) and the segment reader
//! (`segment/read.rs`).

/// True when `text` is exactly one JSON value (RFC 8259; surrounding whitespace allowed).
pub(crate) fn is_json(text: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

#[cfg(test)]
mod tests {
    use super::is_json;

    #[test]
    fn table() {
        for (text, want) in [
            (r#"{"a":1}"#, true),
            (" [1, 2] ", true),
            ("null", true),
            ("\"s\"", true),
            ("", false),
            ("{", false),
            ("1 2", false),
            ("{'a':1}", false),
        ] {
            assert_eq!(is_json(text), want, "{text:?}");
        }
    }
}
