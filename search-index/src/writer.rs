//! Indexing [`Document`]s into a bundle, natively (the tantivy writer needs threads).
//!
//! Takes the documents in a stable order; yields the bundle bytes. One writer thread with a
//! large memory budget, then a merge into a single segment, so the bundle is compact and the
//! searcher has one segment to read.

use std::collections::BTreeMap;
use std::path::Path;

use tantivy::directory::RamDirectory;
use tantivy::{doc, Directory, Index, IndexWriter};

use crate::bundle::{self, DOCS_FILE};
use crate::schema::schema;
use crate::tokenizer::{ErrorTokenizer, TOKENIZER_NAME};
use crate::Document;

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("indexing failed: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    #[error("cannot read index file {name}: {reason}")]
    Read { name: String, reason: String },
    #[error("cannot encode the entries' metadata: {0}")]
    Json(#[from] serde_json::Error),
}

const WRITER_MEMORY: usize = 200_000_000;

/// Indexes the documents and packs the index into one bundle.
pub fn build_bundle(documents: &[Document]) -> Result<Vec<u8>, WriteError> {
    let (index_schema, fields) = schema();
    let directory = RamDirectory::create();
    let index = Index::create(
        directory.clone(),
        index_schema,
        tantivy::IndexSettings::default(),
    )?;
    index
        .tokenizers()
        .register(TOKENIZER_NAME, ErrorTokenizer::default());
    let mut writer: IndexWriter = index.writer_with_num_threads(1, WRITER_MEMORY)?;
    for (ord, d) in documents.iter().enumerate() {
        let mut document = doc!(
            fields.ord => ord as u64,
            fields.slug => d.slug.as_str(),
            fields.title => d.title.as_str(),
            fields.category => d.category.as_str(),
            fields.summary => d.summary.as_str(),
            fields.body => d.body.as_str(),
        );
        for t in &d.tags {
            document.add_text(fields.tags, t.replace('-', " "));
        }
        for s in &d.signatures {
            document.add_text(fields.signatures, s);
        }
        for s in &d.symptoms {
            document.add_text(fields.symptoms, s);
        }
        writer.add_document(document)?;
    }
    writer.commit()?;
    let segments = index.searchable_segment_ids()?;
    if segments.len() > 1 {
        writer.merge(&segments).wait()?;
    }
    writer.wait_merging_threads()?;

    let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut names: Vec<String> = vec!["meta.json".into()];
    let metas = index.searchable_segment_metas()?;
    for meta in &metas {
        use tantivy::index::SegmentComponent as C;
        for component in [
            C::Postings,
            C::Positions,
            C::FastFields,
            C::FieldNorms,
            C::Terms,
            C::Store,
            C::Delete,
        ] {
            names.push(meta.relative_path(component).to_string_lossy().into_owned());
        }
    }
    names.sort();
    names.dedup();
    for name in names {
        match directory.open_read(Path::new(&name)) {
            Ok(file) => {
                let bytes = file.read_bytes().map_err(|e| WriteError::Read {
                    name: name.clone(),
                    reason: e.to_string(),
                })?;
                files.insert(name, bytes.as_slice().to_vec());
            }
            Err(tantivy::directory::error::OpenReadError::FileDoesNotExist(_)) => {}
            Err(e) => {
                return Err(WriteError::Read {
                    name,
                    reason: e.to_string(),
                })
            }
        }
    }
    let docs_json = serde_json::to_vec(
        &documents
            .iter()
            .map(crate::searcher::DocMeta::of)
            .collect::<Vec<_>>(),
    )?;
    let segment_ids: Vec<String> = metas.iter().map(|m| m.id().uuid_string()).collect();
    let mut files = stable_segment_ids(files, &segment_ids, &docs_json);
    files.insert(".managed.json".into(), managed_list(&files)?);
    files.insert(DOCS_FILE.into(), docs_json);
    Ok(bundle::pack(&files))
}

/// tantivy names segments with random UUIDs; renames them to ids derived from the content
/// (in file names and in `meta.json`), so the same documents give a byte-identical bundle.
fn stable_segment_ids(
    files: BTreeMap<String, Vec<u8>>,
    segment_ids: &[String],
    seed: &[u8],
) -> BTreeMap<String, Vec<u8>> {
    let mut renames: Vec<(String, String)> = Vec::new();
    for (n, old) in segment_ids.iter().enumerate() {
        let mut id = String::with_capacity(32);
        for k in 0..4u32 {
            let mut hasher =
                crc32fast::Hasher::new_with_initial(k.wrapping_mul(0x9e37_79b9) ^ n as u32);
            hasher.update(seed);
            id.push_str(&format!("{:08x}", hasher.finalize()));
        }
        renames.push((old.clone(), id));
    }
    let hyphenated = |s: &str| {
        format!(
            "{}-{}-{}-{}-{}",
            &s[0..8],
            &s[8..12],
            &s[12..16],
            &s[16..20],
            &s[20..32]
        )
    };
    files
        .into_iter()
        .map(|(mut name, mut data)| {
            for (old, new) in &renames {
                name = name.replace(old.as_str(), new);
                if name == "meta.json" {
                    let text = String::from_utf8_lossy(&data)
                        .replace(&hyphenated(old), &hyphenated(new))
                        .replace(old.as_str(), new);
                    data = text.into_bytes();
                }
            }
            (name, data)
        })
        .collect()
}

/// tantivy's list of the files it manages, for the directory the bundle is opened into.
fn managed_list(files: &BTreeMap<String, Vec<u8>>) -> Result<Vec<u8>, serde_json::Error> {
    let names: Vec<&String> = files.keys().collect();
    serde_json::to_vec(&names)
}
