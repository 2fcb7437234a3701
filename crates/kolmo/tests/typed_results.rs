//! Typed results: every analysis and solve serializes (serde) with a typed account of how it was
//! obtained, by the JSON conventions (+∞ as "inf", fractions as "p/q").

use kolmo::account::Guarantee;
use kolmo::games::snakes::{AnalysisOptions, Board};

#[test]
fn results_serialize_with_their_accounts() {
    let board = Board::classic();
    let options = AnalysisOptions {
        distribution_at: vec![2],
        ..Default::default()
    };
    let a = board.analyze(&options).unwrap();
    let json = serde_json::to_value(&a).unwrap();
    assert!((json["expected_rolls"].as_f64().unwrap() - 35.834938413695).abs() < 1e-9);
    assert_eq!(json["solve"]["method"]["kind"], "absorbing_solve");
    assert_eq!(json["distributions"][0][0], 2);
    assert!(json["portal_usage"][0]["portal"]["kind"].is_string());
    let account = a.solve.account();
    assert_eq!(account.guarantee, Guarantee::RelativeError);
    assert_eq!(account.method.to_string(), a.solve.method.to_string());
    let json = serde_json::to_value(&account).unwrap();
    assert_eq!(json["guarantee"]["kind"], "relative_error");
    let x = board.analyze_exact(&options).unwrap();
    let json = serde_json::to_value(&x).unwrap();
    assert_eq!(
        json["expected_rolls"].as_str().unwrap(),
        x.expected_rolls.to_string()
    );
    assert_eq!(json["method"]["kind"], "exact_solve");
}

#[test]
fn a_gain_bracket_is_an_interval() {
    let g = kolmo::games::rps_cards::CardGame::new().unwrap();
    let sol = g.solve().unwrap();
    let account = sol.long_run.account();
    let Guarantee::Interval { lo, hi } = account.guarantee else {
        panic!("{:?}", account.guarantee)
    };
    assert!(lo <= sol.gain() && sol.gain() <= hi && hi - lo < 1e-9);
    assert_eq!(account.iterations, Some(sol.long_run.stages));
}

#[test]
fn mdp_solutions_say_how_they_were_obtained() {
    use kolmo::mdp::{MdpOptions, Optimum, discounted};
    use kolmo::model::Mdp;
    // Two states; in state 0 stay (reward 1) or move to 1 (reward 2); state 1 absorbs (reward 0).
    let m = kolmo::sparse::CsrMatrix::from_grouped_parts(
        2,
        vec![0, 1, 2, 3],
        vec![0, 1, 1],
        vec![1.0, 1.0, 1.0],
        vec![0, 2, 3],
    );
    let mdp = Mdp::new(m, vec![0]).unwrap();
    let s = discounted(&mdp, &[1.0, 2.0, 0.0], 0.5, Optimum::Max, &MdpOptions::default()).unwrap();
    assert!((s.values[0] - 2.0).abs() < 1e-12);
    let account = s.account();
    assert_eq!(account.guarantee, Guarantee::AbsoluteError);
    assert_eq!(account.iterations, Some(s.iterations));
    assert!(
        s.method
            .to_string()
            .ends_with("certified by MacQueen's bounds Tv + γ/(1 − γ)·[min, max](Tv − v)")
    );
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(json["method"]["kind"], "discount_certified");
}
