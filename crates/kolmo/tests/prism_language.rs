//! The PRISM language front end on the field's own files: every model and property file of the
//! PRISM benchmark suite and the PRISM-games examples in ../shared/prism-suite (read in place; see
//! its README for the sources) parses.

use kolmo::lang::{
    BuildOptions, ast::ModelType, build_model, parse_constants, parse_model, parse_properties,
};
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

/// The rows of every `models.csv` of the suite: (model file, constants, states as PRISM counted).
fn instances() -> Vec<(PathBuf, String, u64)> {
    let mut out = Vec::new();
    for csv in files(&suite(), &["models.csv"]) {
        let dir = csv.parent().unwrap().to_path_buf();
        let text = std::fs::read_to_string(&csv).unwrap();
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').map(str::trim).collect();
        let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
        let (f, c, n) = (col("model_file"), col("model_consts"), col("states"));
        for line in lines.filter(|l| !l.trim().is_empty()) {
            // Fields split on commas outside quotes.
            let mut fields = vec![String::new()];
            let mut quoted = false;
            for ch in line.chars() {
                match ch {
                    '"' => quoted = !quoted,
                    ',' if !quoted => fields.push(String::new()),
                    _ => fields.last_mut().unwrap().push(ch),
                }
            }
            let states: u64 = fields[n].trim().parse().unwrap();
            out.push((dir.join(&fields[f]), fields[c].clone(), states));
        }
    }
    out
}

/// Builds `path` with `consts`; the number of states.
fn build(path: &Path, consts: &str) -> kolmo::Result<usize> {
    let text = std::fs::read_to_string(path).unwrap();
    let ast = parse_model(&text, path)?;
    let options = BuildOptions {
        constants: parse_constants(consts)?,
        fix_deadlocks: true,
        max_states: Some(2_000_000),
        exact: false,
        reward_structures: None,
        action_names: false,
    };
    let built = build_model(&ast, &text, path, &options)?;
    Ok(built.states.len())
}

#[test]
fn built_state_counts_equal_the_suites() {
    // The instances up to 10^5 states (PRISM's counts in models.csv); the larger ones are in
    // the suite script.
    let mut checked = 0;
    let mut misses = Vec::new();
    for (path, consts, states) in instances() {
        // Some rows name preprocessor-generated files the suite does not ship.
        if states > 100_000 || !path.exists() {
            continue;
        }
        match build(&path, &consts) {
            Ok(n) if n as u64 == states => checked += 1,
            Ok(n) => misses.push(format!("{} {consts}: {n} states, PRISM {states}", path.display())),
            Err(e) => misses.push(format!("{} {consts}: {e}", path.display())),
        }
    }
    assert!(
        misses.is_empty(),
        "{} of {} instances differ:\n{}",
        misses.len(),
        checked + misses.len(),
        misses.join("\n")
    );
    // The suite ships 77 of those instances' files (the rest are generated by its preprocessor).
    assert_eq!(checked, 77);
}
