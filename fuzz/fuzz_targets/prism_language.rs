//! A PRISM-language model and its properties: the input is the model's text, then (after a NUL
//! byte) a property file's text; `kolmo check`'s pipeline (parse, build at most 20,000 states,
//! check; again in exact arithmetic when the model has at most 300 states: exact solves grow
//! with the state count, a few seconds at 5,000 in a release build) must answer or refuse, never
//! panic, loop or grow without bound.
#![no_main]

use kolmo::check::{CheckOptions, CheckRequest, check_file};
use std::path::PathBuf;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(2, |&b| b == 0);
    let model = parts.next().unwrap_or_default();
    let props = String::from_utf8_lossy(parts.next().unwrap_or(b"P=? [F true]")).into_owned();
    let dir = kolmo_fuzz::scratch(&["m.pm"]);
    let path = dir.join("m.pm");
    std::fs::write(&path, model).expect("a scratch file");
    let mut states = usize::MAX;
    for exact in [false, true] {
        if exact && states > 300 {
            break;
        }
        let report = check_file(&CheckRequest {
            model: path.clone(),
            properties: vec![(PathBuf::from("p.props"), props.clone())],
            constants: Vec::new(),
            fix_deadlocks: true,
            max_states: Some(20_000),
            all_rewards: false,
            action_names: exact,
            options: CheckOptions {
                max_iterations: 10_000,
                max_work: 100_000_000,
                exact,
                ..CheckOptions::default()
            },
        });
        if let Ok(r) = report {
            states = match &r.model {
                kolmo::io::Model::Dtmc(d) => d.n(),
                kolmo::io::Model::Mdp(m) => m.n(),
            };
        }
    }
});
