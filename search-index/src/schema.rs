//! The one tantivy schema, and how much each field weighs in a query.
//!
//! Text fields use the error tokenizer with term frequencies but no positions (queries are
//! bags of terms, which keeps the index small). `ord` is a fast field that maps a tantivy
//! document back to its [`crate::Document`] in the bundle's metadata.

use tantivy::schema::{
    Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST, INDEXED,
};

use crate::tokenizer::TOKENIZER_NAME;

/// The fields, looked up once.
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    pub ord: Field,
    pub slug: Field,
    pub title: Field,
    pub category: Field,
    pub tags: Field,
    pub signatures: Field,
    pub symptoms: Field,
    pub summary: Field,
    pub body: Field,
}

/// Each text field's boost in a query, in the order a query adds its clauses. Signatures weigh
/// most: they are the text a user pastes.
pub const BOOSTS: [(&str, f32); 6] = [
    ("signatures", 4.0),
    ("title", 2.0),
    ("tags", 1.5),
    ("symptoms", 1.0),
    ("summary", 1.0),
    ("body", 0.35),
];

/// The signatures field's boost, which [`crate::signature_score`] scores apart.
pub const SIGNATURES_BOOST: f32 = BOOSTS[0].1;

/// The fields a first-search index ranks by (see [`crate::first`]), with their boosts.
pub const FIRST_FIELDS: [(&str, f32); 3] = [BOOSTS[0], BOOSTS[1], BOOSTS[2]];

impl Fields {
    /// The text fields a query searches, with their boosts ([`BOOSTS`]).
    pub fn weighted(&self) -> [(Field, f32); 6] {
        BOOSTS.map(|(name, boost)| (self.text(name), boost))
    }

    fn text(&self, name: &str) -> Field {
        match name {
            "signatures" => self.signatures,
            "title" => self.title,
            "tags" => self.tags,
            "symptoms" => self.symptoms,
            "summary" => self.summary,
            "body" => self.body,
            _ => unreachable!("{name} is not a text field of BOOSTS"),
        }
    }
}

pub fn schema() -> (Schema, Fields) {
    let text = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(TOKENIZER_NAME)
            .set_index_option(IndexRecordOption::WithFreqs),
    );
    let mut builder = Schema::builder();
    let fields = Fields {
        ord: builder.add_u64_field("ord", FAST | INDEXED),
        slug: builder.add_text_field("slug", tantivy::schema::STRING),
        title: builder.add_text_field("title", text.clone()),
        category: builder.add_text_field("category", tantivy::schema::STRING),
        tags: builder.add_text_field("tags", text.clone()),
        signatures: builder.add_text_field("signatures", text.clone()),
        symptoms: builder.add_text_field("symptoms", text.clone()),
        summary: builder.add_text_field("summary", text.clone()),
        body: builder.add_text_field("body", text),
    };
    (builder.build(), fields)
}

/// Looks the fields up in an opened index's schema.
pub fn fields_of(schema: &Schema) -> Result<Fields, tantivy::TantivyError> {
    let f = |name: &str| schema.get_field(name);
    Ok(Fields {
        ord: f("ord")?,
        slug: f("slug")?,
        title: f("title")?,
        category: f("category")?,
        tags: f("tags")?,
        signatures: f("signatures")?,
        symptoms: f("symptoms")?,
        summary: f("summary")?,
        body: f("body")?,
    })
}
