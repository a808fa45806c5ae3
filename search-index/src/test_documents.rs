//! Entries made up for tests: a slug and its signatures, the rest plain.

use crate::Document;

/// An entry `slug` of category `c` whose signature is `signature`.
pub(crate) fn document(slug: &str, signature: &str) -> Document {
    Document {
        slug: slug.into(),
        title: slug.into(),
        url: format!("c/{slug}/"),
        category: "c".into(),
        severity: "high".into(),
        signatures: vec![signature.into()],
        ..Default::default()
    }
}
