//! Record metadata: at most one JSON value per record, stored as its text. The one check of
//! that text, shared by the writes (`collection/validate.rs`) and the segment reader
//! (`segment/read.rs`).

/// Deepest nesting of arrays and objects a write may store: the limit of serde_json's parser,
/// which the metadata index reads with, so every stored value can be filtered on.
pub(crate) const MAX_METADATA_DEPTH: usize = 128;

/// The nesting depth of arrays and objects in JSON text (`1` for `{"a":1}`, 0 for a scalar);
/// brackets inside strings are not counted. Meant for text that [`is_json`] accepts.
pub(crate) fn depth(text: &str) -> usize {
    let (mut depth, mut max, mut in_str, mut escaped) = (0usize, 0usize, false, false);
    for b in text.bytes() {
        if in_str {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// True when `text` is exactly one JSON value (RFC 8259; surrounding whitespace allowed).
pub(crate) fn is_json(text: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

#[cfg(test)]
mod tests {
    use super::{depth, is_json};

    #[test]
    fn depths() {
        for (text, want) in [
            ("1", 0),
            (r#"{"a":1}"#, 1),
            (r#"{"a":[1,{"b":[]}]}"#, 4),
            (r#"{"a":"[[[{{"}"#, 1),
            (r#"{"a":"\\\"[["}"#, 1),
            (r#"[[],[[]]]"#, 3),
        ] {
            assert_eq!(depth(text), want, "{text}");
        }
    }

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
