//! MDPs as MDPToolbox's and QuantEcon's dense arrays, in JSON and in `.npy` files: the forest
//! example solved from every layout, a QuantEcon model with an infeasible action, round trips, and
//! malformed inputs (clear errors naming the file and the place, never panics).
//!
//! The `.npy` fixtures in `tests/data/arrays/` were written by `make_arrays.py` beside them (numpy
//! 1.26, pymdptoolbox 4.0b3, quantecon 0.11), which also checks them against those libraries.

use kolmo::io::{Format, Model, ReadOptions, read_model, write_model};
use kolmo::mdp::{MdpOptions, Method, Optimum, discounted};
use kolmo::model::Mdp;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/arrays")
        .join(name)
}

fn mdp(model: Model) -> Mdp {
    match model {
        Model::Mdp(m) => m,
        Model::Dtmc(_) => panic!("expected an MDP"),
    }
}

fn read(path: &Path) -> kolmo::Result<kolmo::io::ModelFile> {
    read_model(path, &ReadOptions::default())
}

fn err(path: &Path) -> String {
    match read(path) {
        Ok(_) => panic!("{} was accepted", path.display()),
        Err(e) => e.to_string(),
    }
}

/// Solves the forest example at γ = 0.9 and checks the published optimum (MDPToolbox's
/// PolicyIteration docstring; exactly (6561, 7371, 8371)/250), always waiting (action 0), by
/// both methods; the policy is reported in the file's action numbering.
fn assert_forest_optimum(m: &Mdp) {
    let rewards = m.reward_models()["reward"].expected_per_choice(m.matrix());
    for method in [Method::PolicyIteration, Method::ValueIteration] {
        let options = MdpOptions {
            method,
            ..MdpOptions::default()
        };
        let sol = discounted(m, &rewards, 0.9, Optimum::Max, &options).unwrap();
        for (v, want) in sol.values.iter().zip([26.244, 29.484, 33.484]) {
            assert!((v - want).abs() < 1e-9, "{method:?}: {:?}", sol.values);
        }
        let names = m.action_names().unwrap();
        let actions: Vec<&str> = (0..m.n())
            .map(|s| names[m.matrix().group_rows(s).start + sol.policy[s] as usize].as_str())
            .collect();
        assert_eq!(actions, ["0", "0", "0"], "{method:?}");
    }
}

#[test]
fn forest_json_example_is_mdptoolbox_layout() {
    let f = read(&root().join("examples/models/forest.json")).unwrap();
    assert_eq!(f.format, Format::Arrays);
    assert_eq!(f.discount, Some(0.9));
    let m = mdp(f.model);
    assert_eq!((m.n(), m.choices()), (3, 6));
    assert_forest_optimum(&m);
}

#[test]
fn forest_from_npy_in_c_and_fortran_order() {
    let f = read(&data("forest.P.npy")).unwrap();
    assert_eq!(f.format, Format::Arrays);
    assert_eq!(f.files, vec![data("forest.P.npy"), data("forest.R.npy")]);
    let c = mdp(f.model);
    assert_forest_optimum(&c);
    // Naming the reward file, or the directory of a P.npy/R.npy pair, reads the same model.
    let by_r = mdp(read(&data("forest.R.npy")).unwrap().model);
    let fortran = mdp(read(&data("fortran")).unwrap().model);
    for other in [&by_r, &fortran] {
        assert_eq!(other.matrix().as_parts(), c.matrix().as_parts());
        assert_eq!(other.reward_models(), c.reward_models());
    }
    let json = mdp(read(&root().join("examples/models/forest.json")).unwrap().model);
    assert_eq!(json.matrix().as_parts(), c.matrix().as_parts());
    assert_eq!(json.reward_models(), c.reward_models());
}

#[test]
fn quantecon_layout_with_an_infeasible_action() {
    let f = read(&data("quantecon.Q.npy")).unwrap();
    assert!(
        f.notes.iter().any(|n| n.contains("dropped 1 infeasible")),
        "{:?}",
        f.notes
    );
    let m = mdp(f.model);
    assert_eq!(m.choices(), 5);
    assert_eq!(m.action_names().unwrap(), ["0", "0", "1", "0", "1"]);
    assert_forest_optimum(&m);

    // The same in JSON, as QuantEcon's DiscreteDP(R, Q, beta) takes it.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("qe.json");
    std::fs::write(
        &path,
        r#"{"R": [[0, null], [0, 1], [4, 2]], "beta": 0.9,
            "Q": [[[0.1, 0.9, 0], [0, 0, 0]], [[0.1, 0, 0.9], [1, 0, 0]], [[0.1, 0, 0.9], [1, 0, 0]]]}"#,
    )
    .unwrap();
    let f = read(&path).unwrap();
    assert_eq!(f.discount, Some(0.9));
    let j = mdp(f.model);
    assert_eq!(j.matrix().as_parts(), m.matrix().as_parts());
    assert_eq!(j.reward_models(), m.reward_models());
}

#[test]
fn writing_and_reading_back() {
    let dir = tempfile::tempdir().unwrap();
    for (source, layout_key) in [
        (root().join("examples/models/forest.json"), "\"P\""),
        (data("quantecon.Q.npy"), "\"Q\""),
    ] {
        let m = read(&source).unwrap().model;
        let out = dir.path().join("out.json");
        write_model(&m, &out, Format::Arrays).unwrap();
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(text.contains(layout_key), "{text}");
        let back = mdp(read(&out).unwrap().model);
        let m = mdp(m);
        assert_eq!(back.matrix().as_parts(), m.matrix().as_parts());
        assert_eq!(back.action_names(), m.action_names());
        assert_eq!(back.reward_models(), m.reward_models());
    }
    // A model from kolmo's own JSON (named actions) is written with the actions numbered.
    let m = read(&root().join("examples/models/shortcut-mdp.json"))
        .unwrap()
        .model;
    let out = dir.path().join("shortcut.json");
    write_model(&m, &out, Format::Arrays).unwrap();
    let back = mdp(read(&out).unwrap().model);
    assert_eq!(back.matrix().as_parts(), mdp(m).matrix().as_parts());
    let e = write_model(&Model::Mdp(back), &dir.path().join("x.npy"), Format::Arrays).unwrap_err();
    assert!(e.to_string().contains("written as JSON"), "{e}");
}

#[test]
fn malformed_npy_files_are_errors_naming_file_and_place() {
    let e = err(&data("int64.P.npy"));
    assert!(
        e.contains("int64.R.npy:1:") && e.contains("64-bit integers ('<i8')") && e.contains("astype"),
        "{e}"
    );

    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let p = std::fs::read(data("forest.P.npy")).unwrap();
    let r = std::fs::read(data("forest.R.npy")).unwrap();
    let put = |name: &str, bytes: &[u8]| std::fs::write(d.join(name), bytes).unwrap();

    // Truncated.
    put("t.P.npy", &p[..p.len() - 5]);
    put("t.R.npy", &r);
    let e = err(&d.join("t.P.npy"));
    assert!(e.contains("t.P.npy:1:") && e.contains("truncated"), "{e}");

    // NaN, and a row that does not sum to 1, named by index and byte.
    let data_start = p.len() - 18 * 8;
    let mut nan = p.clone();
    nan[data_start + 8 * 4..data_start + 8 * 5].copy_from_slice(&f64::NAN.to_le_bytes());
    put("nan.P.npy", &nan);
    put("nan.R.npy", &r);
    let e = err(&d.join("nan.P.npy"));
    assert!(
        e.contains(&format!(
            "nan.P.npy:1:{}: P[0][1][1]: NaN is not a probability",
            data_start + 33
        )),
        "{e}"
    );
    let mut off = p.clone();
    off[data_start..data_start + 8].copy_from_slice(&0.2f64.to_le_bytes());
    put("off.P.npy", &off);
    put("off.R.npy", &r);
    let e = err(&d.join("off.P.npy"));
    assert!(
        e.contains(&format!(
            "off.P.npy:1:{}: P[0][0] (state 0, action 0) sums to 1.1",
            data_start + 1
        )),
        "{e}"
    );
    let normalized = read_model(
        &d.join("off.P.npy"),
        &ReadOptions {
            normalize: true,
            ..ReadOptions::default()
        },
    )
    .unwrap();
    assert!(
        normalized.notes[0].contains("normalized 1 row(s)"),
        "{:?}",
        normalized.notes
    );

    // Not an .npy file at all.
    put("empty.P.npy", &p);
    put("empty.R.npy", b"");
    let e = err(&d.join("empty.P.npy"));
    assert!(
        e.contains("empty.R.npy:1:1:") && e.contains("not a NumPy .npy file"),
        "{e}"
    );

    // A missing partner, and a file name that says nothing.
    put("lonely.P.npy", &p);
    assert!(err(&d.join("lonely.P.npy")).contains("lonely.R.npy does not exist"));
    put("model.npy", &p);
    assert!(err(&d.join("model.npy")).contains("cannot tell which array"));
    let empty = tempfile::tempdir().unwrap();
    assert!(err(empty.path()).contains("no transition array"));
}

#[test]
fn malformed_json_is_an_error_at_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, &str)] = &[
        (
            "{\"P\": [[[0.5, 0.5], [0, 1]]],\n \"R\": [[0, 0], [1, 1]]}",
            "m.json:2:7: R: has shape (2, 2); with 2 states and 1 actions it must be (2, 1), (2,) or (1, 2, 2)",
        ),
        (
            "{\"P\": [[[0.5, 0.5],\n  [0, 0.9]]], \"R\": [0, 0]}",
            "m.json:2:4: P[0][1] (state 1, action 0) sums to 0.9",
        ),
        (
            "{\"P\": [[[0.5, 0.5], [0, \"NaN\"]]], \"R\": [0, 0]}",
            "m.json:1:25: P[0][1][1]: expected a number, found the string \"NaN\"",
        ),
        (
            "{\"P\": [[[0.5, 0.5], [0, NaN]]], \"R\": [0, 0]}",
            "m.json:1:25: not valid JSON",
        ),
        (
            "{\"P\": [[[0.5, 0.5], [0, 1]]], \"R\": [[0], [null]]}",
            "m.json:1:43: R[1][0]: state 1 has no feasible action",
        ),
        (
            "{\"P\": [[0.5, 0.5], [0, 1]], \"R\": [0, 0]}",
            "m.json:1:7: P: has shape (2, 2); it must be (A, S, S)",
        ),
    ];
    for (text, want) in cases {
        let path = dir.path().join("m.json");
        std::fs::write(&path, text).unwrap();
        let e = err(&path);
        assert!(e.contains(want), "{text}\n{e}");
    }
}
