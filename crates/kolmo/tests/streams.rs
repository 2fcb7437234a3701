//! Input from anywhere (issue 14, item 7): `read_model_from` reads any `impl Read` and
//! `write_model_to` writes any `impl Write`, in every format, the same models as the file
//! functions, with errors named `<input>:line:column`.

use kolmo::io::{Format, INPUT_NAME, Model, ReadOptions, read_model, read_model_from, write_model_to};
use std::path::Path;

fn example(name: &str) -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/models")
        .join(name);
    read_model(&path, &ReadOptions::default()).unwrap().model
}

fn parts(model: &Model) -> (Vec<usize>, Vec<u32>, Vec<f64>, usize) {
    let m = match model {
        Model::Dtmc(d) => d.matrix(),
        Model::Mdp(m) => m.matrix(),
    };
    let (row_ptr, cols, vals) = m.as_parts();
    (row_ptr.to_vec(), cols.to_vec(), vals.to_vec(), m.row_groups())
}

fn through_memory(model: &Model, format: Format) -> Model {
    let mut bytes = Vec::new();
    write_model_to(model, &mut bytes, format).unwrap();
    read_model_from(&bytes[..], format, &ReadOptions::default())
        .unwrap_or_else(|e| panic!("{format:?}: {e}\n{}", String::from_utf8_lossy(&bytes)))
        .model
}

#[test]
fn every_format_round_trips_through_memory() {
    let oz = example("land-of-oz.json");
    for format in [
        Format::Drn,
        Format::Prism,
        Format::Json,
        Format::Csv,
        Format::MatrixMarket,
    ] {
        let back = through_memory(&oz, format);
        assert!(matches!(back, Model::Dtmc(_)), "{format:?}");
        assert_eq!(parts(&back), parts(&oz), "{format:?}");
    }
    let mdp = example("shortcut-mdp.json");
    for format in [Format::Drn, Format::Prism, Format::Json] {
        let back = through_memory(&mdp, format);
        assert!(matches!(back, Model::Mdp(_)), "{format:?}");
        assert_eq!(parts(&back), parts(&mdp), "{format:?}");
    }
    let forest = example("forest.json");
    assert_eq!(parts(&through_memory(&forest, Format::Arrays)), parts(&forest));
}

#[test]
fn errors_in_a_stream_name_the_input_line_and_column() {
    let text = "0.5,0.5\n0.25,0.5\n";
    let e = read_model_from(text.as_bytes(), Format::Csv, &ReadOptions::default()).unwrap_err();
    let message = e.to_string();
    assert!(message.starts_with(&format!("{INPUT_NAME}:2:1")), "{message}");
    let drn = "@type: DTMC\n@nr_states\n1\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n";
    let e = read_model_from(drn.as_bytes(), Format::Drn, &ReadOptions::default()).unwrap_err();
    assert!(e.to_string().starts_with(&format!("{INPUT_NAME}:")), "{e}");
    let e = read_model_from(&b""[..], Format::Json, &ReadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("empty"), "{e}");
}

#[test]
fn a_tra_stream_starts_in_state_0_and_may_come_in_any_order() {
    // Transitions not grouped by source: the stream is sorted as a file would be.
    let tra = "2 3\n1 1 1\n0 1 0.5\n0 0 0.5\n";
    let file = read_model_from(tra.as_bytes(), Format::Prism, &ReadOptions::default()).unwrap();
    let Model::Dtmc(d) = &file.model else {
        panic!("a chain")
    };
    assert_eq!(d.initial(), [0]);
    assert_eq!(d.matrix().row(0).1, [0.5, 0.5]);
    assert!(file.files.is_empty());
    assert!(
        file.notes
            .iter()
            .any(|n| n.contains("state 0 is the initial state")),
        "{:?}",
        file.notes
    );
}

#[test]
fn a_lone_surrogate_escape_keeps_its_spelling_in_a_state_name() {
    // Valid JSON, but no Unicode text: the name must not silently become "" (found by a break-it
    // pass: two such names then clashed as the same empty name).
    let text = r#"{"states": ["\ud800x", "\ud800y"], "transitions": [[0, 1, 1], [1, 1, 1]]}"#;
    let file = read_model_from(text.as_bytes(), Format::Json, &ReadOptions::default()).unwrap();
    let Model::Dtmc(d) = &file.model else {
        panic!("a chain")
    };
    assert_eq!(d.names().unwrap(), [r"\ud800x", r"\ud800y"]);
}
