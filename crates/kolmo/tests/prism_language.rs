//! The PRISM language front end on the field's own files: every model and property file of the
//! PRISM benchmark suite and the PRISM-games examples in ../shared/prism-suite (read in place; see
//! its README for the sources) parses.

use kolmo::lang::{ast::ModelType, parse_model, parse_properties};
use std::path::{Path, PathBuf};

fn suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/prism-suite")
}

/// Every file under `dir` whose name ends in one of `endings`, sorted.
fn files(dir: &Path, endings: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if endings.iter().any(|e| p.to_string_lossy().ends_with(e)) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_suite_model_parses() {
    let models = files(&suite(), &[".pm", ".nm", ".prism"]);
    // 39 DTMC files, 34 MDP files, 4 games (the suite's README).
    assert_eq!(models.len(), 77, "{models:?}");
    let mut kinds = [0; 3];
    for path in &models {
        let text = std::fs::read_to_string(path).unwrap();
        let m = parse_model(&text, path).unwrap_or_else(|e| panic!("{e}"));
        assert!(!m.modules.is_empty(), "{}", path.display());
        match m.model_type.map(|t| t.0) {
            Some(ModelType::Dtmc) => kinds[0] += 1,
            Some(ModelType::Mdp) => kinds[1] += 1,
            Some(ModelType::Smg) => kinds[2] += 1,
            None => panic!("{}: no model type", path.display()),
        }
    }
    assert_eq!(kinds, [39, 34, 4]);
}

#[test]
fn every_suite_property_file_parses() {
    // The games' rPATL properties (`<<p1>> ...`) belong to the games' front end (issue 17).
    let mut props = files(&suite().join("dtmcs"), &[".pctl", ".props", ".prctl"]);
    props.extend(files(&suite().join("mdps"), &[".pctl", ".props", ".prctl"]));
    assert_eq!(props.len(), 45);
    let mut count = 0;
    for path in &props {
        let text = std::fs::read_to_string(path).unwrap();
        let f = parse_properties(&text, path).unwrap_or_else(|e| panic!("{e}"));
        count += f.properties.len();
    }
    assert_eq!(count, 45, "one property per file (the suite's README)");
}
