//! Model files in kolmo JSON, dense CSV and Matrix Market: round trips through real files, the
//! documented examples, one test per kind of malformed input, and inputs that must not panic.

use kolmo::io::{Format, Model, ReadOptions, read_model, write_model};
use kolmo::model::{Dtmc, RewardModel, StateSet};
use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &Path) -> kolmo::Result<Model> {
    read_model(path, &ReadOptions::default()).map(|f| f.model)
}

/// Writes `text` to `name` in `dir` and reads it back as a model.
fn read_text(dir: &Path, name: &str, text: &str) -> kolmo::Result<Model> {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    read(&path)
}

fn dtmc(model: Model) -> Dtmc {
    match model {
        Model::Dtmc(d) => d,
        Model::Mdp(_) => panic!("expected a Markov chain"),
    }
}

/// The Land of Oz matrix, row by row as (column, probability).
fn assert_oz(d: &Dtmc) {
    let rows: [&[(u32, f64)]; 3] = [
        &[(0, 0.5), (1, 0.25), (2, 0.25)],
        &[(0, 0.5), (2, 0.5)],
        &[(0, 0.25), (1, 0.25), (2, 0.5)],
    ];
    assert_eq!(d.n(), 3);
    for (s, want) in rows.iter().enumerate() {
        let (cols, vals) = d.matrix().row(s);
        let got: Vec<(u32, f64)> = cols.iter().copied().zip(vals.iter().copied()).collect();
        assert_eq!(got, *want, "row {s}");
    }
}

#[test]
fn example_models_read() {
    let dir = repo_root().join("examples/models");
    let oz = dtmc(read(&dir.join("land-of-oz.json")).unwrap());
    assert_oz(&oz);
    assert_eq!(oz.names().unwrap(), &["R", "N", "S"]);
    assert_eq!(oz.initial(), &[0]);
    assert_eq!(oz.label("nice").unwrap().to_vec(), vec![1]);
    assert_eq!(
        oz.reward_models()["nice_days"],
        RewardModel::from_state_rewards(vec![0.0, 1.0, 0.0])
    );

    let walk = dtmc(read(&dir.join("drunkard.json")).unwrap());
    assert_eq!(walk.n(), 5);
    assert_eq!(walk.initial(), &[2]);
    assert_eq!(walk.absorbing_states().to_vec(), vec![0, 4]);
    assert_eq!(walk.matrix().row(2), (&[1, 3][..], &[0.5, 0.5][..]));
    assert_eq!(walk.label("bar").unwrap().to_vec(), vec![4]);

    let Model::Mdp(mdp) = read(&dir.join("shortcut-mdp.json")).unwrap() else {
        panic!("expected an MDP")
    };
    assert_eq!((mdp.n(), mdp.choices()), (4, 5));
    assert_eq!(
        mdp.action_names().unwrap(),
        &["walk", "shortcut", "walk", "stay", "stay"]
    );
    assert_eq!(mdp.matrix().row(1), (&[2, 3][..], &[0.75, 0.25][..]));
    let minutes = &mdp.reward_models()["minutes"];
    assert_eq!(minutes.action.as_deref(), Some(&[5.0, 3.0, 5.0, 0.0, 0.0][..]));
}

#[test]
fn documented_examples_read() {
    let doc = std::fs::read_to_string(repo_root().join("docs/model-json.md")).unwrap();
    let blocks: Vec<&str> = doc
        .split("```json\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .filter(|b| b.trim_start().starts_with('{') && b.contains("\"transitions\""))
        .filter(|b| b.contains("\"states\""))
        .collect();
    assert!(blocks.len() >= 2, "the schema's complete examples");
    let dir = tempfile::tempdir().unwrap();
    for (i, block) in blocks.iter().enumerate() {
        let model = read_text(dir.path(), &format!("doc{i}.json"), block).unwrap();
        if block.contains("\"smg\"") {
            // The game example: Alice owns her state and the two ends, Bob his.
            let Model::Mdp(m) = model else { panic!("a game") };
            let p = m.players().expect("players");
            assert_eq!(
                (p.names.as_slice(), p.owner.as_slice()),
                (&["alice".to_string(), "bob".to_string()][..], &[0, 1, 0, 0][..])
            );
            continue;
        }
        assert_oz(&dtmc(model));
    }
}

fn sample_chain() -> Dtmc {
    let mut b = kolmo::sparse::CsrBuilder::new(3);
    for row in [
        &[(1, 1.0 / 3.0), (2, 2.0 / 3.0)][..],
        &[(0, 0.1), (1, 0.2), (2, 0.7)],
        &[(2, 1.0)],
    ] {
        for &(c, p) in row {
            b.add(c, p);
        }
        b.finish_row();
    }
    Dtmc::new(b.build(), vec![0]).unwrap()
}

#[test]
fn round_trips_through_files() {
    let dir = tempfile::tempdir().unwrap();
    let mut d = sample_chain().with_names(vec!["a b".into(), "1".into(), "c\"".into()]);
    d.set_label("end", StateSet::from_states(3, [2]));
    d.set_reward_model(
        "r",
        RewardModel {
            state: Some(vec![1.0, 0.5, 0.0]),
            action: None,
            transition: Some(vec![0.0, 2.0, 1e-9, 0.0, 0.0, 3.0]),
        },
    )
    .unwrap();
    let model = Model::Dtmc(d.clone());
    for (name, format) in [
        ("m.json", Format::Json),
        ("m.csv", Format::Csv),
        ("m.mtx", Format::MatrixMarket),
    ] {
        let path = dir.path().join(name);
        assert_eq!(write_model(&model, &path, format).unwrap(), vec![path.clone()]);
        let back = dtmc(read(&path).unwrap());
        assert_eq!(back.matrix(), d.matrix(), "{name}");
        assert_eq!(back.initial(), d.initial(), "{name}");
        match format {
            Format::Json => {
                assert_eq!(back.names(), d.names());
                assert_eq!(back.labels(), d.labels());
                assert_eq!(back.reward_models(), d.reward_models());
            }
            Format::Csv => assert_eq!(back.names(), d.names()),
            _ => assert!(back.names().is_none()),
        }
    }
    // An unnamed chain through CSV has no header.
    let path = dir.path().join("plain.csv");
    write_model(&Model::Dtmc(sample_chain()), &path, Format::Csv).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with("0,0.3333333333333333,0.6666666666666666\n"),
        "{text}"
    );

    // An MDP through JSON; CSV and Matrix Market refuse it.
    let mdp = read(&repo_root().join("examples/models/shortcut-mdp.json")).unwrap();
    let path = dir.path().join("mdp.json");
    write_model(&mdp, &path, Format::Json).unwrap();
    let (Model::Mdp(a), Model::Mdp(b)) = (&mdp, read(&path).unwrap()) else {
        panic!("expected MDPs")
    };
    assert_eq!(a.matrix(), b.matrix());
    assert_eq!(a.action_names(), b.action_names());
    assert_eq!(a.names(), b.names());
    assert_eq!(a.labels(), b.labels());
    assert_eq!(a.reward_models(), b.reward_models());
    for format in [Format::Csv, Format::MatrixMarket] {
        let e = write_model(&mdp, &dir.path().join("mdp.out"), format).unwrap_err();
        assert!(matches!(e, kolmo::Error::InvalidArgument { .. }), "{e}");
    }
}

/// Each malformed file: its name, contents, the expected `line:column:` and words in the message.
#[test]
fn malformed_files_are_refused_at_their_place() {
    let dir = tempfile::tempdir().unwrap();
    let oz_head = "{\n  \"states\": [\"R\", \"N\", \"S\"],\n  \"transitions\": {\n";
    let cases: &[(&str, String, &str, &[&str])] = &[
        (
            "unknown-state.json",
            format!(
                "{oz_head}    \"R\": {{\"R\": 1}},\n    \"N\": {{\"X\": 1}},\n    \"S\": {{\"S\": 1}}\n  }}\n}}"
            ),
            "5:11",
            &["unknown state \"X\"", "transitions.N"],
        ),
        (
            "unknown-key.json",
            "{\"states\": 1,\n \"transitions\": [[0, 0, 1]],\n \"lables\": {}}".into(),
            "3:2",
            &["unknown key \"lables\""],
        ),
        (
            "row-sum.json",
            format!(
                "{oz_head}    \"R\": {{\"R\": 1}},\n    \"N\": {{\"R\": 0.5, \"S\": 0.4}},\n    \"S\": {{\"S\": 1}}\n  }}\n}}"
            ),
            "5:11",
            &["sum to 0.9", "transitions.N.R", "\"N\""],
        ),
        (
            "negative.json",
            "{\"states\": 2,\n \"transitions\": [[0, 0, 1], [1, 0, 1.5],\n  [1, 1, -0.5]]}".into(),
            "3:3",
            &["-0.5", "[0, 1]"],
        ),
        (
            "duplicate.json",
            "{\"states\": 2,\n \"transitions\": [[0, 1, 1], [1, 1, 1],\n  [0, 1, 1]]}".into(),
            "3:3",
            &["twice", "first on line 2", "transitions[2]"],
        ),
        (
            "non-number.json",
            "{\"states\": 1,\n \"transitions\": [[0, 0, \"one\"]]}".into(),
            "2:25",
            &["transitions[0][2]", "expected a number"],
        ),
        (
            "syntax.json",
            "{\"states\": 1,\n \"transitions\": [[0, 0, 1]]\n".into(),
            "3:1",
            &["not valid JSON"],
        ),
        ("empty.json", "  \n".into(), "1:1", &["empty"]),
        (
            "ragged.csv",
            "# P\n0.5,0.5\n0.5,0.25,0.25\n".into(),
            "3:10",
            &["3 fields", "needs 2"],
        ),
        (
            "non-number.csv",
            "0.5,0.5\n0.5,half\n".into(),
            "2:5",
            &["\"half\" is not a number"],
        ),
        ("row-sum.csv", "0.5,0.5\n0.5,0.4\n".into(), "2:1", &["sum to 0.9"]),
        ("negative.csv", "0.5,0.5\n1.5,-0.5\n".into(), "2:5", &["-0.5"]),
        (
            "non-square.csv",
            "0.5,0.5\n0.5,0.5\n0.5,0.5\n".into(),
            "3:1",
            &["square"],
        ),
        ("empty.csv", "".into(), "1:1", &["empty"]),
        (
            "header.mtx",
            "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n".into(),
            "1:34",
            &["real or integer"],
        ),
        (
            "no-banner.mtx",
            "1 1 1\n1 1 1\n".into(),
            "1:1",
            &["%%MatrixMarket"],
        ),
        (
            "nnz.mtx",
            "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n2 2 1\n".into(),
            "5:1",
            &["gives 3 entries", "has 2"],
        ),
        (
            "duplicate.mtx",
            "%%MatrixMarket matrix coordinate real general\n1 1 2\n1 1 0.5\n1 1 0.5\n".into(),
            "4:1",
            &["twice", "first on line 3"],
        ),
        (
            "non-number.mtx",
            "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 NaN\n".into(),
            "3:5",
            &["not a number"],
        ),
    ];
    for (name, text, place, words) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let e = read(&path).unwrap_err().to_string();
        let prefix = format!("{}:{place}:", path.display());
        assert!(e.starts_with(&prefix), "{name}: expected {prefix}\n{e}");
        for w in *words {
            assert!(e.contains(w), "{name}: expected {w:?} in\n{e}");
        }
    }
}

/// A small deterministic generator for garbage (xorshift; no RNG crate needed here).
fn garbage(seed: u64, len: usize, alphabet: &[u8]) -> String {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            alphabet[(x % alphabet.len() as u64) as usize] as char
        })
        .collect()
}

#[test]
fn hostile_inputs_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let root = repo_root();
    let oz_json = std::fs::read_to_string(root.join("examples/models/land-of-oz.json")).unwrap();
    let mdp_json = std::fs::read_to_string(root.join("examples/models/shortcut-mdp.json")).unwrap();
    let oz_csv = ",R,N,S\nR,1/2,1/4,1/4\nN,1/2,0,1/2\nS,1/4,1/4,1/2\n";
    let oz_mtx = "%%MatrixMarket matrix coordinate real general\n3 3 8\n1 1 0.5\n1 2 0.25\n1 3 0.25\n2 1 0.5\n2 3 0.5\n3 1 0.25\n3 2 0.25\n3 3 0.5\n";
    let mut inputs: Vec<(&str, String)> = Vec::new();
    for (ext, text) in [
        ("json", oz_json.as_str()),
        ("json", mdp_json.as_str()),
        ("csv", oz_csv),
        ("mtx", oz_mtx),
    ] {
        // Every truncation, with LF and with CRLF line ends, with and without a byte-order mark.
        for cut in (0..=text.len()).filter(|&c| text.is_char_boundary(c)) {
            inputs.push((ext, text[..cut].to_string()));
        }
        inputs.push((ext, text.replace('\n', "\r\n")));
        inputs.push((ext, format!("\u{feff}{text}")));
        inputs.push((ext, text.replace("0.5", "NaN").replace("1/2", "1e999")));
        inputs.push((ext, text.replace("0.25", "1e-400").replace("1/4", "-0")));
        inputs.push((ext, text.replace("0.5", "123456789012345678901234567890")));
    }
    for ext in ["json", "csv", "mtx"] {
        for seed in 0..40 {
            inputs.push((ext, garbage(seed, 200, b"{}[]\":,0123456789.e-/ \n\r\tRNSabc%;#")));
        }
        inputs.push((ext, "\u{0}\u{1}\u{7f}\u{fffd}".repeat(50)));
    }
    let deep = 100_000;
    inputs.push(("json", format!("{}{}", "[".repeat(deep), "]".repeat(deep))));
    inputs.push((
        "json",
        format!("{{\"states\": {}1{}}}", "[".repeat(deep), "]".repeat(deep)),
    ));
    inputs.push((
        "json",
        "{\"states\": 4294967295, \"transitions\": [[4294967294, 0, 1]]}".into(),
    ));
    inputs.push((
        "json",
        "{\"states\": 99999999999999999999999, \"transitions\": []}".into(),
    ));
    inputs.push(("json", "{\"states\": 1, \"transitions\": [[0, 0, 1e400]]}".into()));
    inputs.push((
        "json",
        "{\"type\": \"mdp\", \"states\": 1, \"transitions\": [[0, 99999999999, 0, 1]]}".into(),
    ));
    inputs.push((
        "mtx",
        "%%MatrixMarket matrix array real general\n4294967295 4294967295\n1\n".into(),
    ));
    inputs.push((
        "mtx",
        "%%MatrixMarket matrix coordinate real general\n4000000000 4000000000 18446744073709551615\n".into(),
    ));
    inputs.push(("csv", "\"unterminated,1\n1,0\n".into()));
    for (i, (ext, text)) in inputs.iter().enumerate() {
        let path = dir.path().join(format!("in{i}.{ext}"));
        std::fs::write(&path, text).unwrap();
        let _ = read(&path);
    }
    // Binary garbage that is not UTF-8 is an I/O error, not a panic.
    let path = dir.path().join("binary.json");
    std::fs::write(&path, [0xff, 0xfe, 0x00, 0x80, 0xc3]).unwrap();
    assert!(read(&path).is_err());
}

#[test]
fn large_files_read_in_linear_time() {
    let n = 50_000;
    let dir = tempfile::tempdir().unwrap();
    let rows: Vec<String> = (0..n)
        .map(|s| {
            format!(
                "  \"s{s}\": {{\"s{}\": \"1/2\", \"s{}\": 0.5}}",
                (s + 1) % n,
                (s + 2) % n
            )
        })
        .collect();
    let names: Vec<String> = (0..n).map(|s| format!("\"s{s}\"")).collect();
    let text = format!(
        "{{\"states\": [{}],\n\"transitions\": {{\n{}\n}}}}",
        names.join(", "),
        rows.join(",\n")
    );
    let started = std::time::Instant::now();
    let d = dtmc(read_text(dir.path(), "ring.json", &text).unwrap());
    assert_eq!((d.n(), d.matrix().nnz()), (n, 2 * n));
    let path = dir.path().join("ring.mtx");
    write_model(&Model::Dtmc(d), &path, Format::MatrixMarket).unwrap();
    assert_eq!(dtmc(read(&path).unwrap()).n(), n);
    // Generous even for a debug build on a slow machine; quadratic work would take minutes.
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
}

/// A refused or failed write leaves an existing file as it was and no partial file behind (the
/// model is written beside it and renamed once complete).
#[test]
fn refused_write_keeps_the_existing_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keep.drn");
    std::fs::write(&path, "precious\n").unwrap();
    let mut d = sample_chain();
    d.set_reward_model(
        "two words",
        RewardModel {
            state: Some(vec![1.0, 0.0, 0.0]),
            ..RewardModel::default()
        },
    )
    .unwrap();
    let e = write_model(&Model::Dtmc(d), &path, Format::Drn).unwrap_err();
    assert!(e.to_string().contains("white space"), "{e}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "precious\n");
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");
    // A successful write replaces it.
    write_model(&Model::Dtmc(sample_chain()), &path, Format::Drn).unwrap();
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .starts_with("// Written by kolmo")
    );
}
