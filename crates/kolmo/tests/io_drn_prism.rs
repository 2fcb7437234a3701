//! Model files in Storm's DRN and PRISM's explicit format: files written by Storm, round trips of
//! kolmo's own models, and what is kept or folded on the way.

use kolmo::io::{Format, Model, ReadOptions, read_model, write_model};
use kolmo::model::{Dtmc, Mdp, RewardModel, StateSet};
use kolmo::sparse::{CsrBuilder, CsrMatrix};
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// P(reach `goal`) from every state by value iteration (enough for the small chains here).
fn reach(matrix: &CsrMatrix, goal: &StateSet) -> Vec<f64> {
    let n = matrix.ncols();
    let mut x: Vec<f64> = (0..n as u32).map(|s| f64::from(goal.contains(s))).collect();
    for _ in 0..2000 {
        x = (0..n)
            .map(|s| {
                if goal.contains(s as u32) {
                    return 1.0;
                }
                let (cols, vals) = matrix.row(s);
                cols.iter().zip(vals).map(|(&c, &p)| p * x[c as usize]).sum()
            })
            .collect();
    }
    x
}

/// The die of Knuth and Yao as a PRISM program (13 states: a fair die from coin flips), built by Storm
/// and exported with stormpy 1.x: `stormpy.build_model[stormpy.Rational](program,
/// options=stormpy.BuilderOptions(build_full=True))` then `stormpy.io.export_to_drn(model, path)`.
/// Reward models: `coin_flips` (`[] s<7 : 1`, an action reward) and `done` (`s=7 : 2`, a state reward);
/// labels `one` (`s=7 & d=1`) and `done` (`s=7`).
#[test]
fn storm_dtmc_with_valuations_and_two_reward_models() {
    let file = read_model(&data("storm_die.drn"), &ReadOptions::default()).unwrap();
    assert!(file.notes.is_empty(), "{:?}", file.notes);
    let Model::Dtmc(d) = file.model else {
        panic!("not a DTMC")
    };
    assert_eq!(d.n(), 13);
    assert_eq!(d.matrix().nnz(), 20);
    assert_eq!(d.initial(), &[0]);
    assert_eq!(d.state_name(0), "[s=0\t& d=0]");
    assert_eq!(d.label("done").unwrap().count(), 6);
    let one = d.label("one").unwrap();
    assert_eq!(one.count(), 1);
    let p = reach(d.matrix(), one);
    assert!((p[0] - 1.0 / 6.0).abs() < 1e-12, "{}", p[0]);
    let flips = &d.reward_models()["coin_flips"];
    assert_eq!(flips.state, None);
    assert_eq!(flips.action.as_ref().unwrap().iter().sum::<f64>(), 7.0);
    let done = &d.reward_models()["done"];
    assert_eq!(done.action, None);
    assert_eq!(done.state.as_ref().unwrap().iter().sum::<f64>(), 12.0);
}

/// An MDP built by Storm from this PRISM program and exported like `storm_die.drn`:
/// ```text
/// mdp
/// module m
///   s : [0..3] init 0;
///   [go] s=0 -> 1/3 : (s'=1) + 2/3 : (s'=2);
///   [stay] s=0 -> (s'=0);
///   [go] s=1 -> (s'=3);
///   [back] s=2 -> 0.25 : (s'=0) + 0.75 : (s'=3);
///   [] s=3 -> (s'=3);
/// endmodule
/// rewards "cost" [go] true : 2; s=2 : 1; endrewards
/// label "goal" = s=3;
/// ```
#[test]
fn storm_mdp_with_action_names() {
    let file = read_model(&data("storm_choice.drn"), &ReadOptions::default()).unwrap();
    let Model::Mdp(m) = file.model else {
        panic!("not an MDP")
    };
    assert_eq!((m.n(), m.choices(), m.matrix().nnz()), (4, 5, 7));
    assert_eq!(m.action_names().unwrap(), &["go", "stay", "go", "back", ""]);
    assert_eq!(m.matrix().row(0), (&[1, 2][..], &[1.0 / 3.0, 2.0 / 3.0][..]));
    let cost = &m.reward_models()["cost"];
    assert_eq!(cost.state.as_deref(), Some(&[0.0, 0.0, 1.0, 0.0][..]));
    assert_eq!(cost.action.as_deref(), Some(&[2.0, 0.0, 2.0, 0.0, 0.0][..]));
    assert_eq!(m.label("goal").unwrap().to_vec(), vec![3]);
}

/// A 4-state chain with awkward probabilities, labels, names and two reward models with state and
/// transition rewards (one also with action rewards).
fn chain() -> Dtmc {
    let mut b = CsrBuilder::new(4);
    for row in [
        &[(1, 0.1), (2, 0.7), (3, 0.2)][..],
        &[(0, 1.0 / 3.0), (3, 2.0 / 3.0)],
        &[(2, 1e-20), (3, 1.0 - 1e-20)],
        &[(3, 1.0)],
    ] {
        for &(c, p) in row {
            b.add(c, p);
        }
        b.finish_row();
    }
    let mut d = Dtmc::new(b.build(), vec![0]).unwrap().with_names(vec![
        "start".into(),
        "mid".into(),
        "edge case".into(),
        "end".into(),
    ]);
    d.set_label("goal", StateSet::from_states(4, [3]));
    d.set_label("odd", StateSet::from_states(4, [1, 3]));
    let nnz = d.matrix().nnz();
    d.set_reward_model(
        "steps",
        RewardModel {
            state: Some(vec![1.0, 1.0, 1.0, 0.0]),
            action: None,
            transition: Some((0..nnz).map(|k| k as f64 * 0.3).collect()),
        },
    )
    .unwrap();
    d.set_reward_model(
        "cost",
        RewardModel {
            state: Some(vec![0.5, 0.0, 2.0, 0.0]),
            action: Some(vec![1.0, 0.0, 0.25, 0.0]),
            transition: Some(vec![1.0 / 7.0; nnz]),
        },
    )
    .unwrap();
    d
}

/// An MDP with named actions and action rewards.
fn decisions() -> Mdp {
    let mut b = CsrBuilder::new(3);
    b.new_row_group();
    b.add(1, 0.5);
    b.add(2, 0.5);
    b.finish_row();
    b.add(0, 0.9);
    b.add(2, 0.1);
    b.finish_row();
    b.new_row_group();
    b.add(2, 1.0);
    b.finish_row();
    b.new_row_group();
    b.add(2, 1.0);
    b.finish_row();
    let mut m = Mdp::new(b.build(), vec![0, 1]).unwrap().with_action_names(vec![
        "risky".into(),
        "safe".into(),
        String::new(),
        "loop".into(),
    ]);
    m.set_label("goal", StateSet::from_states(3, [2]));
    m.set_reward_model(
        "time",
        RewardModel {
            state: None,
            action: Some(vec![3.0, 0.1, 0.0, 0.0]),
            transition: None,
        },
    )
    .unwrap();
    m
}

fn expected_rewards(d: &Dtmc, name: &str) -> Vec<f64> {
    d.reward_models()[name].expected_per_choice(d.matrix())
}

fn close(a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= 1e-12 * x.abs().max(1.0), "{a:?} vs {b:?}");
    }
}

#[test]
fn drn_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let d = chain();
    let path = dir.path().join("chain.drn");
    write_model(&Model::Dtmc(d.clone()), &path, Format::Drn).unwrap();
    let back = read_model(&path, &ReadOptions::default()).unwrap();
    let Model::Dtmc(b) = back.model else { panic!() };
    assert_eq!(b.matrix(), d.matrix());
    assert_eq!(b.initial(), d.initial());
    assert_eq!(b.names(), d.names());
    assert_eq!(b.label("goal"), d.label("goal"));
    assert_eq!(b.label("odd"), d.label("odd"));
    assert_eq!(b.label("init").unwrap().to_vec(), vec![0]);
    for name in ["steps", "cost"] {
        // DRN has no transition rewards: they come back folded into the action rewards.
        assert_eq!(b.reward_models()[name].state, d.reward_models()[name].state);
        assert_eq!(b.reward_models()[name].transition, None);
        close(&expected_rewards(&b, name), &expected_rewards(&d, name));
    }

    let m = decisions();
    let path = dir.path().join("mdp.drn");
    write_model(&Model::Mdp(m.clone()), &path, Format::Drn).unwrap();
    let Model::Mdp(b) = read_model(&path, &ReadOptions::default()).unwrap().model else {
        panic!()
    };
    assert_eq!(b.matrix(), m.matrix());
    assert_eq!(b.initial(), m.initial());
    assert_eq!(b.action_names(), m.action_names());
    assert_eq!(b.reward_models(), m.reward_models());
    assert_eq!(b.label("goal"), m.label("goal"));
}

#[test]
fn prism_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let d = chain();
    let path = dir.path().join("chain.tra");
    let files = write_model(&Model::Dtmc(d.clone()), &path, Format::Prism).unwrap();
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    // Two reward models: PRISM's numbered files, in name order ("cost" then "steps").
    assert_eq!(
        names,
        [
            "chain.tra",
            "chain.lab",
            "chain1.srew",
            "chain1.trew",
            "chain2.srew",
            "chain2.trew"
        ]
    );
    let back = read_model(&path, &ReadOptions::default()).unwrap();
    assert_eq!(back.files, files);
    let Model::Dtmc(b) = back.model else { panic!() };
    assert_eq!(b.matrix(), d.matrix());
    assert_eq!(b.initial(), d.initial());
    assert_eq!(b.label("goal"), d.label("goal"));
    assert_eq!(b.label("odd"), d.label("odd"));
    assert_eq!(b.reward_models()["steps"], d.reward_models()["steps"]);
    let cost = &b.reward_models()["cost"];
    assert_eq!(cost.state, d.reward_models()["cost"].state);
    assert_eq!(
        cost.action, None,
        "a DTMC's action rewards are folded into its transition rewards"
    );
    close(&expected_rewards(&b, "cost"), &expected_rewards(&d, "cost"));

    let m = decisions();
    let path = dir.path().join("mdp.tra");
    let files = write_model(&Model::Mdp(m.clone()), &path, Format::Prism).unwrap();
    assert_eq!(files.len(), 3, "{files:?}"); // .tra, .lab, .trew (no state rewards)
    let back = read_model(&path, &ReadOptions::default()).unwrap();
    let Model::Mdp(b) = back.model else { panic!() };
    assert_eq!(b.matrix(), m.matrix());
    assert_eq!(b.initial(), m.initial());
    assert_eq!(b.action_names(), m.action_names());
    assert_eq!(b.label("goal"), m.label("goal"));
    assert_eq!(b.reward_models()["time"], m.reward_models()["time"]);
}

#[test]
fn drn_errors_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.drn");
    std::fs::write(&path, "@type: CTMC\n@nr_states\n1\n@model\n").unwrap();
    let e = read_model(&path, &ReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("bad.drn:1:1:") && e.contains("CTMC"), "{e}");
}
