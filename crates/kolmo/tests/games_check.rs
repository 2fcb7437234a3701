//! `kolmo::check` on turn-based stochastic games (PRISM-games' `smg`) with rPATL properties: the
//! RESULT lines of the handed-out PRISM-games examples in ../shared/prism-suite/smgs, read in
//! place, and the model errors a game adds.

mod common;

use common::{check, check_exact};
use kolmo::check::Answer;
use std::path::{Path, PathBuf};

fn smgs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/prism-suite/smgs")
}

/// The (constants, expected) pairs of each property in a PRISM-games property file: its
/// `// RESULT: v` and `// RESULT (k=3): v` lines, then the property's line.
fn results(props: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut out = Vec::new();
    let mut pending = Vec::new();
    for line in props.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("// RESULT") {
            let (consts, value) = rest.split_once(':').unwrap();
            let consts = consts.trim().trim_start_matches('(').trim_end_matches(')');
            pending.push((consts.to_string(), value.trim().to_string()));
        } else if line.starts_with("<<") {
            out.push((line.to_string(), std::mem::take(&mut pending)));
        }
    }
    out
}

/// Every RESULT line of the handed-out examples with them, within 1e-6 relative (fractions as
/// written, `Infinity`, booleans), with the reference inside the certified interval.
#[test]
fn result_lines_of_the_prism_games_examples() {
    let mut tally = common::Tally::default();
    for (model, props) in [
        ("smg_example.prism", "smg_example.prism.props"),
        ("game.prism", "game.prism.props"),
        ("step-bounded.prism", "step-bounded.prism.props"),
    ] {
        let text = std::fs::read_to_string(smgs().join(props)).unwrap();
        // The file's constant declarations go with each property.
        let declarations: String = text
            .lines()
            .filter(|l| l.trim_start().starts_with("const "))
            .map(|l| format!("{l}\n"))
            .collect();
        for (prop, expected) in results(&text) {
            for (consts, want) in expected {
                let label = format!("{model} [{consts}] {prop}");
                let report = check(&smgs().join(model), &[&format!("{declarations}{prop}")], &consts);
                tally.record(&label, report, &want, Some(1e-9), "");
            }
        }
    }
    tally.assert_no_misses();
    // smg_example 19 (k = 0..5 among them), game 8 (Rmax [F] = Infinity among them),
    // step-bounded 46.
    assert_eq!(tally.right, 73, "RESULT lines checked");
}

/// Thresholds 0 and 1 decided exactly by the game's graph analysis (the values' ±1e-16 would
/// straddle them): smg_example's `<<1>> Pmax=? [F c=2]` is 1, `<<1>> Pmin=? [F (h=2 & c=0)]` 0.
#[test]
fn qualitative_thresholds_of_games_are_decided() {
    let r = check(
        &smgs().join("smg_example.prism"),
        &[
            "<<p1>> P>=1 [F c=2]",
            "<<p1>> P>0 [F c=2]",
            "<<p1>> P<=0 [F (h=2 & c=0)]",
            "<<p2>> P<1 [F (h=2 & c=0)]",
        ],
        "",
    )
    .unwrap();
    let got: Vec<Answer> = r.results.iter().map(|x| x.value).collect();
    assert_eq!(got, [true, true, true, true].map(Answer::Bool).to_vec());
}

/// The dice game (`dice.prism`, N = 10: 5,755 states, the issue's figure): each player's best
/// chance of winning against the other's best play; one of them wins, so the two values sum to 1.
#[test]
fn dice_game_values_are_complementary() {
    let r = check(
        &smgs().join("dice.prism"),
        &[
            "<<P1>> Pmax=? [ F \"p1win\" ]",
            "<<P2>> Pmax=? [ F \"p2win\" ]",
            "<<P2>> Pmin=? [ F \"p1win\" ]",
        ],
        "N=10",
    )
    .unwrap();
    let kolmo::io::Model::Mdp(m) = &r.model else {
        panic!("a game")
    };
    assert_eq!(m.n(), 5755);
    assert_eq!(r.model_type, "smg");
    let v: Vec<f64> = r
        .results
        .iter()
        .map(|x| match x.value {
            Answer::Number(v) => v,
            Answer::Bool(_) => panic!("a number"),
        })
        .collect();
    assert!((v[0] + v[1] - 1.0).abs() < 1e-12, "{v:?}");
    // The same game seen from P2 minimising P1's win.
    assert!((v[0] - v[2]).abs() < 1e-12, "{v:?}");
    assert!(r.results[0].upper.unwrap() - r.results[0].lower.unwrap() < 1e-10);
    // Written as DRN and as JSON, read back: the same game (owners and players) and values.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for (file, format) in [
        ("dice.drn", kolmo::io::Format::Drn),
        ("dice.json", kolmo::io::Format::Json),
    ] {
        let path = dir.join(file);
        kolmo::io::write_model(&r.model, &path, format).unwrap();
        let again = check(
            &path,
            &["<<P1>> Pmax=? [ F \"p1win\" ]", "<<2>> Pmax=? [ F \"p2win\" ]"],
            "",
        )
        .unwrap();
        let kolmo::io::Model::Mdp(back) = &again.model else {
            panic!("a game")
        };
        assert_eq!(back.players(), m.players(), "{file}");
        assert_eq!(again.model_type, "smg", "{file}");
        for (i, x) in again.results.iter().enumerate() {
            let Answer::Number(w) = x.value else {
                panic!("a number")
            };
            assert!((w - v[i]).abs() < 1e-12, "{file}: {w} against {}", v[i]);
        }
    }
}

/// Expected total rewards until a target on the dice game (N = 10) with a reward of 1 per throw:
/// Player 1 seeking many throws and player 2 few, P1 throws all 10 and P2 once (11); the other
/// way round, one throw each (2, P2 may not throw again when P1 threw once). With everyone in
/// the coalition, or no one, the game is the MDP of the same text: Rmax and Rmin there agree
/// (the MDP solver is a second method). Until a state that is not always reached: +∞.
#[test]
fn reward_games_until_a_target() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let text = std::fs::read_to_string(smgs().join("dice.prism")).unwrap()
        + "\nrewards \"throws\"\n [toss1] true : 1;\n [toss2] true : 1;\nendrewards\n";
    let game = dir.join("dice.prism");
    std::fs::write(&game, &text).unwrap();
    let as_mdp: String = text
        .replacen("\nsmg\n", "\nmdp\n", 1)
        .lines()
        .filter(|l| !l.starts_with("player "))
        .map(|l| format!("{l}\n"))
        .collect();
    let mdp = dir.join("dice-mdp.prism");
    std::fs::write(&mdp, as_mdp).unwrap();
    let value = |model: &Path, prop: &str| {
        let r = check(model, &[prop], "N=10").unwrap();
        let r = &r.results[0];
        let Answer::Number(v) = r.value else {
            panic!("{prop}: {:?}", r.value)
        };
        (v, r.lower.unwrap_or(v), r.upper.unwrap_or(v))
    };
    let within = |(v, lo, hi): (f64, f64, f64), want: f64, what: &str| {
        assert!(
            (v - want).abs() <= 1e-9 * want.max(1.0) && lo <= want + 1e-9 && want <= hi + 1e-9,
            "{what}: {v} in [{lo}, {hi}], want {want}"
        );
    };
    within(
        value(&game, "<<P1>> R{\"throws\"}max=? [F \"done\"]"),
        11.0,
        "P1 max",
    );
    within(
        value(&game, "<<P2>> R{\"throws\"}max=? [F \"done\"]"),
        2.0,
        "P2 max",
    );
    for (coalition, opt) in [
        ("<<P1, P2>>", "max"),
        ("<<P1, P2>>", "min"),
        ("<<>>", "max"),
        ("<<>>", "min"),
    ] {
        let g = value(&game, &format!("{coalition} R{{\"throws\"}}{opt}=? [F \"done\"]"));
        // Everyone against the coalition's aim: the other optimum of the MDP.
        let mdp_opt = if coalition == "<<>>" {
            if opt == "max" { "min" } else { "max" }
        } else {
            opt
        };
        let m = value(&mdp, &format!("R{{\"throws\"}}{mdp_opt}=? [F \"done\"]"));
        within(g, m.0, &format!("{coalition} {opt}"));
    }
    // Over all time, and until "p1win" keeping what was earned if it is missed (Fc): the
    // throws stop at "done" either way, so both are the same totals, 11 and 2.
    for (prop, want) in [
        ("<<P1>> R{\"throws\"}max=? [C]", 11.0),
        ("<<P2>> R{\"throws\"}max=? [C]", 2.0),
        ("<<P1>> R{\"throws\"}max=? [Fc \"p1win\"]", 11.0),
        ("<<P1>> R{\"throws\"}min=? [Fc \"p1win\"]", 2.0),
    ] {
        within(value(&game, prop), want, prop);
    }
    // "p1win" is missed whenever P2 throws at least P1's number: P1 cannot force it, so +∞.
    let (v, _, _) = value(&game, "<<P1>> R{\"throws\"}min=? [F \"p1win\"]");
    assert_eq!(v, f64::INFINITY);
}

/// The strategies `kolmo check` returns attain the values: with every state's owner playing its
/// choice, the dice game (N = 10) becomes a Markov chain whose probability of "p1win" (and, with
/// a reward of 1 per throw, whose expected throws until "done") is the game's value, within the
/// bounds; the first move names player 1's action.
#[test]
fn strategies_attain_the_values() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let text = std::fs::read_to_string(smgs().join("dice.prism")).unwrap()
        + "\nrewards \"throws\"\n [toss1] true : 1;\n [toss2] true : 1;\nendrewards\n";
    let game = dir.join("dice.prism");
    std::fs::write(&game, &text).unwrap();
    let props = [
        "<<P1>> Pmax=? [ F \"p1win\" ]",
        "<<P2>> R{\"throws\"}min=? [ F \"done\" ]",
    ];
    let r = check(&game, &props, "N=10").unwrap();
    let kolmo::io::Model::Mdp(m) = &r.model else {
        panic!("a game")
    };
    for (i, res) in r.results.iter().enumerate() {
        let st = res.strategy.as_ref().expect("a strategy");
        assert!(st.memoryless);
        let rows: Vec<usize> = (0..m.n())
            .map(|s| m.matrix().group_rows(s).start + st.choices[s] as usize)
            .collect();
        let chain = kolmo::model::Dtmc::new(m.matrix().select_rows(&rows), m.initial().to_vec()).unwrap();
        let Answer::Number(v) = res.value else { panic!() };
        let s0 = m.initial()[0] as usize;
        let (got, bound) = if i == 0 {
            let p = kolmo::analysis::reach_probability(&chain, m.label("p1win").unwrap()).unwrap();
            (p.values[s0], p.error_bound)
        } else {
            let reward = m.reward_models()["throws"].expected_per_choice(m.matrix());
            let per_state: Vec<f64> = rows.iter().map(|&row| reward[row]).collect();
            let a = kolmo::analysis::AbsorbingChain::new(&chain, m.label("done").unwrap()).unwrap();
            let (values, _, bound) = a.expected_reward(&per_state).unwrap();
            (values[s0], bound)
        };
        assert!(
            (got - v).abs() <= res.error_bound + bound + 1e-12,
            "{}: the strategies give {got}, the value is {v}",
            props[i]
        );
        let first = res.first_move(&r.model).unwrap();
        assert_eq!(first.player.as_deref(), Some("P1"), "{}", props[i]);
        assert!(
            first.action.starts_with("toss1") || first.action.starts_with("choice"),
            "{first:?}"
        );
    }
    // P2 minimising the throws stops at once, P1 (opposing) throws all 10: 11.
    let Answer::Number(v) = r.results[1].value else {
        panic!()
    };
    assert!((v - 11.0).abs() < 1e-9, "{v}");
}

/// `--exact` on games, each value certified in rationals: the card game's long-run value per
/// move is ρ/2 with ρ = 1247820247/1766559075 (shared/cases/02-rps-3card.md), its total over 5
/// rounds 15280/6561 (the built-in game's exact backward induction); game.prism's
/// `<<p1>> Pmax=? [F t=1]` is 1/5 (its RESULT 0.2); the dice game's throws 11 and 2 (by hand,
/// see `reward_games_until_a_target`), and `+∞` where the target may be missed.
#[test]
fn exact_game_values() {
    let cards = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/models/rps-cards.prism");
    let r = check_exact(
        &cards,
        &[
            "<<alice>> R{\"score\"}max=? [ S ]",
            "<<alice>> R{\"score\"}max=? [ C<=10 ]",
        ],
        "",
    )
    .unwrap();
    assert_eq!(r.results[0].exact.as_deref(), Some("1247820247/3533118150"));
    assert_eq!(r.results[1].exact.as_deref(), Some("15280/6561"));
    let r = check_exact(
        &smgs().join("game.prism"),
        &["<<p1>> Pmax=? [ F t=1 ]", "<<p1>> Rmax=? [ F t=1 ]"],
        "",
    )
    .unwrap();
    assert_eq!(r.results[0].exact.as_deref(), Some("1/5"));
    assert_eq!(r.results[1].exact.as_deref(), Some("inf"));
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let game = dir.join("dice.prism");
    std::fs::write(
        &game,
        std::fs::read_to_string(smgs().join("dice.prism")).unwrap()
            + "\nrewards \"throws\"\n [toss1] true : 1;\n [toss2] true : 1;\nendrewards\n",
    )
    .unwrap();
    let r = check_exact(
        &game,
        &[
            "<<P1>> R{\"throws\"}max=? [F \"done\"]",
            "<<P2>> R{\"throws\"}max=? [F \"done\"]",
            "<<P1>> Pmax=? [ F \"p1win\" ]",
        ],
        "N=4",
    )
    .unwrap();
    assert_eq!(r.results[0].exact.as_deref(), Some("5"));
    assert_eq!(r.results[1].exact.as_deref(), Some("2"));
    // The win probability is a fraction with a power of 6 below: within the certified interval.
    let x = r.results[2].exact.clone().unwrap();
    let (a, b) = x.split_once('/').unwrap();
    let v = a.parse::<f64>().unwrap() / b.parse::<f64>().unwrap();
    let f = check(&game, &["<<P1>> Pmax=? [ F \"p1win\" ]"], "N=4").unwrap();
    assert!(
        f.results[0].lower.unwrap() <= v && v <= f.results[0].upper.unwrap(),
        "{x}"
    );
    assert!(b.parse::<u64>().unwrap() % 6 == 0, "{x}");
}

/// Small games that strategy iteration once refused (a break-it run's, values by hand and from
/// the MDP of the same rows): a minimiser whose greedy choices cycled through a paying choice
/// and a free one (improper: 6 by hand, a then stop: v = 3 + v/2); an infinite successor's
/// value that the kernel's compensated sum turned into NaN (0: the minimiser's free choice);
/// strategies switching back and forth on rounding noise in the total over all time (45, and
/// 975/32 for the 6-state game, the MDP's and brute force's values).
#[test]
fn small_games_once_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let head = |players: &str, states: usize| {
        format!(
            "@type: SMG\n@parameters\n\n@reward_models\nr\n@players\n{players}\n@nr_states\n{states}\n@model\n"
        )
    };
    let cases = [
        (
            "rm.drn",
            head("p", 3) + "state 0 <p> [0] init\n\taction a [3]\n\t\t0 : 1/2\n\t\t1 : 1/2\n\taction b [1]\n\t\t2 : 1\nstate 1 <p> [0] goal\n\taction a [0]\n\t\t1 : 1\nstate 2 <p> [0]\n\taction back [0]\n\t\t0 : 1\n\taction idle [0]\n\t\t2 : 1\n",
            "<<p>> Rmin=? [F \"goal\"]",
            6.0,
        ),
        (
            "rx.drn",
            head("p q", 3) + "state 0 <q> [0] init\n\taction a0 [0]\n\t\t1 : 1/2\n\t\t2 : 1/2\n\taction a1 [1]\n\t\t2 : 1\n\taction a2 [0]\n\t\t2 : 1\nstate 1 <p> [0]\n\taction s [0]\n\t\t1 : 1\nstate 2 <p> [0] goal\n\taction s [0]\n\t\t2 : 1\n",
            "<<p>> Rmax=? [F \"goal\"]",
            0.0,
        ),
        (
            "fc2.drn",
            head("p", 5) + "state 0 <p> [0] goal\n\taction a [0]\n\t\t1 : 1\nstate 1 <p> [0] init\n\taction stay [0]\n\t\t1 : 1\n\taction go [0]\n\t\t4 : 1/3\n\t\t2 : 2/3\nstate 2 <p> [0]\n\taction a [0]\n\t\t3 : 1\nstate 3 <p> [0]\n\taction a [3]\n\t\t3 : 4/5\n\t\t1 : 1/5\nstate 4 <p> [0]\n\taction a [0]\n\t\t0 : 3/4\n\t\t2 : 1/4\n",
            "<<p>> Rmax=? [Fc \"goal\"]",
            45.0,
        ),
        (
            "c13.json",
            r#"{"type": "smg", "states": ["s0", "s1", "s2", "s3", "s4", "s5"], "transitions": {"s0": {"a2": {"s0": "1/5", "s2": "4/5"}}, "s1": {"a0": {"s1": "1/1"}, "a1": {"s5": "4/7", "s1": "3/7"}}, "s2": {"a1": {"s0": "1/5", "s3": "4/5"}}, "s3": {"a1": {"s1": "3/11", "s0": "4/11", "s2": "4/11"}}, "s4": {"a2": {"s4": "1/1"}}, "s5": {"a0": {"s4": "2/5", "s0": "3/5"}}}, "rewards": {"r": {"action": {"s0": {"a2": 3}}}}, "players": {"P0": ["s2", "s4", "s5"], "P1": ["s0", "s1", "s3"]}}"#.to_string(),
            "<<P1>> Rmax=? [C]",
            975.0 / 32.0,
        ),
    ];
    for (name, text, prop, want) in cases {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let r = check(&path, &[prop], "").unwrap_or_else(|e| panic!("{name}: {e}"));
        let res = &r.results[0];
        let Answer::Number(v) = res.value else { panic!() };
        assert!(
            (v - want).abs() <= res.error_bound + 1e-12
                && res.lower.unwrap() <= want + 1e-12
                && want <= res.upper.unwrap() + 1e-12,
            "{name} {prop}: {v} in [{:?}, {:?}], want {want}",
            res.lower,
            res.upper
        );
    }
}

/// Errors a game adds, each naming the place: a coalition on an MDP, a P without coalition on a
/// game, an unknown player, a player number out of range, a state where two players can move, a
/// module without a player.
#[test]
fn game_errors_name_the_place() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let game = smgs().join("smg_example.prism");
    let e = |model: &Path, prop: &str| check(model, &[prop], "").unwrap_err().to_string();
    assert!(e(&game, "Pmax=? [F c=2]").contains("needs a coalition"));
    assert!(e(&game, "<<p3>> Pmax=? [F c=2]").contains("no player p3 (the game's players: p1, p2)"));
    assert!(e(&game, "<<3>> Pmax=? [F c=2]").contains("players 1 to 2"));
    let mdp = write(
        "m.nm",
        "mdp\nmodule m\n x : [0..1];\n [] x=0 -> (x'=1);\nendmodule\n",
    );
    assert!(e(&mdp, "<<1>> Pmax=? [F x=1]").contains("needs a game"));
    let both = write(
        "both.prism",
        "smg\nplayer a m1 endplayer\nplayer b m2 endplayer\nmodule m1\n x : [0..1];\n [] x=0 -> (x'=1);\nendmodule\nmodule m2\n y : [0..1];\n [] y=0 -> (y'=1);\nendmodule\n",
    );
    let msg = e(&both, "<<a>> Pmax=? [F x=1]");
    assert!(
        msg.contains("player a") && msg.contains("player b") && msg.contains("x=0"),
        "{msg}"
    );
    let orphan = write(
        "orphan.prism",
        "smg\nplayer a m1 endplayer\nmodule m1\n x : [0..1];\n [] x=0 -> (x'=1);\nendmodule\nmodule m2\n y : [0..1];\n [] x=1 & y=0 -> (y'=1);\nendmodule\n",
    );
    let msg = e(&orphan, "<<a>> Pmax=? [F y=1]");
    assert!(
        msg.contains("orphan.prism:9:") && msg.contains("no player owns module m2's unlabelled commands"),
        "{msg}"
    );
}

/// The card game written as an smg (examples/models/rps-cards.prism): 100 positions of Alice and
/// 180 of Bob as `kolmo cards` explores them, and Alice's optimal total over k rounds (2k moves)
/// equal to the built-in game's backward induction for k = 1..20, from both sides of the table.
#[test]
fn card_game_model_matches_kolmo_cards() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/models/rps-cards.prism");
    let cards = kolmo::games::rps_cards::CardGame::new().unwrap();
    let start = cards.alice_state(
        kolmo::games::rps_cards::Hand::parse("RPS").unwrap(),
        kolmo::games::rps_cards::Hand::parse("RPS").unwrap(),
    );
    for k in 1..=20u64 {
        let r = check(
            &model,
            &[
                "const int k;\n<<alice>> R{\"score\"}max=? [ C<=2*k ]",
                "const int k;\n<<bob>> R{\"score\"}min=? [ C<=2*k ]",
            ],
            &format!("k={k}"),
        );
        let r = match r {
            Ok(r) => r,
            Err(e) => panic!("k = {k}: {e}"),
        };
        if k == 1 {
            let kolmo::io::Model::Mdp(m) = &r.model else {
                panic!("a game")
            };
            assert_eq!(m.n(), 280);
        }
        let want = cards.finite(k).unwrap().values[start];
        for res in &r.results {
            let Answer::Number(v) = res.value else {
                panic!("a number")
            };
            assert!(
                (v - want).abs() <= 1e-12 * want,
                "k = {k}: {v} against kolmo cards' {want}"
            );
            assert!(
                res.lower.unwrap() <= want && want <= res.upper.unwrap(),
                "k = {k}"
            );
        }
    }
}

/// The card game over 10^9 rounds (2·10^9 moves, too many to step through): the increments'
/// bracket gives Alice's total with a certified bound that overlaps `kolmo cards`' own, and the
/// long-run reward per move is half the gain per round ρ = 1247820247/1766559075 (the exact
/// fraction `kolmo cards` derives), inside the certified interval.
#[test]
fn card_game_model_over_a_billion_rounds_and_in_the_long_run() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/models/rps-cards.prism");
    let r = check(
        &model,
        &[
            "const int k;\n<<alice>> R{\"score\"}max=? [ C<=2*k ]",
            "<<alice>> R{\"score\"}max=? [ S ]",
        ],
        "k=1000000000",
    )
    .unwrap();
    let cards = kolmo::games::rps_cards::CardGame::new().unwrap();
    let start = cards.alice_state(
        kolmo::games::rps_cards::Hand::parse("RPS").unwrap(),
        kolmo::games::rps_cards::Hand::parse("RPS").unwrap(),
    );
    let solution = cards.solve().unwrap();
    let (want, want_bound) = solution.value(1_000_000_000, start);
    let total = &r.results[0];
    assert!(
        total.lower.unwrap() <= want + want_bound && want - want_bound <= total.upper.unwrap(),
        "[{:?}, {:?}] against kolmo cards' {want} ± {want_bound}",
        total.lower,
        total.upper
    );
    // The interval carries the rounding of the last two steps over 10^9 stages (≈ 5e-13 each).
    assert!(total.upper.unwrap() - total.lower.unwrap() < 2e-3);
    let rho = 1_247_820_247.0 / 1_766_559_075.0;
    let per_move = &r.results[1];
    assert!(
        per_move.lower.unwrap() <= rho / 2.0 && rho / 2.0 <= per_move.upper.unwrap(),
        "{per_move:?}"
    );
    assert!(per_move.upper.unwrap() - per_move.lower.unwrap() < 1e-11);
}
