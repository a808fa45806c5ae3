//! The committed JSON Schema of the front matter is the one `errata schema` prints.

use super::*;

/// The committed schema is what `errata schema` prints from the front-matter type: adding a
/// field without regenerating it fails here.
#[test]
fn committed_schema_is_current() {
    let mut c = Command::new(ERRATA);
    c.arg("schema");
    let r = run(c);
    r.assert_exit(0);
    let committed =
        read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("content/front-matter.schema.json"));
    assert!(
        r.stdout == committed,
        "content/front-matter.schema.json is stale: run `errata schema > content/front-matter.schema.json`"
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["additionalProperties"], false);
    assert!(
        v["properties"]["severity"]["enum"]
            .as_array()
            .unwrap()
            .len()
            == 4
    );
    let findings = &v["$defs"]["RawCues"]["properties"]["findings"]["items"];
    assert!(
        (findings["enum"].as_array().unwrap().iter()).any(|x| x == "oom-fragmentation"),
        "cues.findings lists the names errata reads: {findings}"
    );
    assert_eq!(
        findings["enum"].as_array().unwrap().len(),
        findings["markdownEnumDescriptions"]
            .as_array()
            .unwrap()
            .len()
    );
    assert!(v["required"]
        .as_array()
        .unwrap()
        .iter()
        .any(|x| x == "summary"));
}
