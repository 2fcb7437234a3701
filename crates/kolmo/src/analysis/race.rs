//! Several players race on copies of the same chain, taking turns (seat 1 first); the first to
//! reach the target wins. Players are independent, so everything follows from one player's
//! absorption-time distribution `f(t) = P(T = t)`, `S(t) = P(T > t)`:
//! seat `i` of `N` wins in round `t` when it finishes then, the seats before it have not finished
//! by round `t` and the seats after it had not finished by round `t − 1`:
//! `P(seat i wins in round t) = f(t) · S(t)^(i−1) · S(t−1)^(N−i)` (with `S(−1) = 1`).

use super::TimeDistribution;
use crate::{Error, Result};

/// Most players [`race`] accepts.
pub const MAX_PLAYERS: usize = 10_000;

/// The outcome of a race of `N` independent players.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Race {
    /// Number of players.
    pub players: usize,
    /// `win_probability[i]` is the probability that seat `i + 1` wins. Length `players`.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub win_probability: Vec<f64>,
    /// Expected number of rounds (a round is one roll by each player; the winning round counts
    /// whole): `E[min_j T_j] = Σ_t S(t)^N`.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub expected_rounds: f64,
    /// Expected number of rolls actually made (the game stops at the winning roll).
    #[serde(serialize_with = "crate::account::ser::number")]
    pub expected_total_rolls: f64,
    /// Probability not accounted for because the single-player distribution was truncated (at
    /// most `N ·` its tail).
    #[serde(serialize_with = "crate::account::ser::number")]
    pub unresolved: f64,
}

/// The race of `players` independent copies with absorption-time distribution `dist`.
///
/// # Errors
/// [`Error::InvalidArgument`] if `players` is 0 or more than [`MAX_PLAYERS`].
///
/// # Complexity
/// O(horizon · players).
pub fn race(dist: &TimeDistribution, players: usize) -> Result<Race> {
    if players == 0 || players > MAX_PLAYERS {
        return Err(Error::arg(
            "players",
            format!("{players}: from 1 to {MAX_PLAYERS} players"),
        ));
    }
    let n = players;
    let mut win = vec![0.0; n];
    let mut expected_rolls = 0.0;
    let mut expected_rounds = 0.0;
    for (t, (wins, &s)) in wins_by_round(dist, n).zip(&dist.survival).enumerate() {
        expected_rounds += s.powi(n as i32);
        for (i, (w, p)) in win.iter_mut().zip(wins).enumerate() {
            *w += p;
            if t > 0 {
                expected_rolls += p * (((t - 1) * n + i + 1) as f64);
            }
        }
    }
    let total: f64 = win.iter().sum();
    Ok(Race {
        players,
        win_probability: win,
        expected_rounds,
        expected_total_rolls: expected_rolls,
        unresolved: (1.0 - total).max(0.0),
    })
}

/// For each round `t = 0 ..= horizon` of `dist`, the probability that each of `players` seats
/// wins in round `t`: `f(t) · S(t)^(i−1) · S(t−1)^(N−i)` for seat `i` (the module's formula),
/// `players` values per round. [`race`] sums them; their partial sums are each seat's chance to have
/// won by round `t`.
///
/// # Panics
/// - panics if `players` is 0.
///
/// # Complexity
/// O(players) per round.
#[track_caller]
pub fn wins_by_round(dist: &TimeDistribution, players: usize) -> impl Iterator<Item = Vec<f64>> + '_ {
    assert!(players > 0, "a race needs a player");
    let n = players;
    let mut s_prev = 1.0f64; // S(t − 1)
    let mut prev_pow = vec![1.0; n];
    dist.pmf.iter().zip(&dist.survival).map(move |(&f, &s)| {
        // Seat i + 1 needs S(t)^i · S(t−1)^(n−1−i): walk i upwards, trading one S(t−1) for one
        // S(t) each seat (powers of S(t−1) taken from a table to avoid dividing by it).
        for k in 1..n {
            prev_pow[k] = prev_pow[k - 1] * s_prev;
        }
        let mut s_pow = 1.0;
        let wins = (0..n)
            .map(|i| {
                let p = f * s_pow * prev_pow[n - 1 - i];
                s_pow *= s;
                p
            })
            .collect();
        s_prev = s;
        wins
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A geometric time with success probability `p` per step.
    fn geometric(p: f64, steps: usize) -> TimeDistribution {
        let mut pmf = vec![0.0];
        let mut survival = vec![1.0];
        for t in 1..=steps {
            pmf.push(p * (1.0 - p).powi(t as i32 - 1));
            survival.push((1.0 - p).powi(t as i32));
        }
        let tail = *survival.last().unwrap();
        TimeDistribution {
            pmf,
            survival,
            tail,
            converged: true,
        }
    }

    #[test]
    fn two_players_geometric() {
        // Seat 1 wins with p / (1 − (1−p)²); the game lasts a geometric number of rolls with mean 1/p.
        let p = 0.25;
        let r = race(&geometric(p, 400), 2).unwrap();
        let first = p / (1.0 - (1.0 - p) * (1.0 - p));
        assert!((r.win_probability[0] - first).abs() < 1e-14);
        assert!((r.win_probability[1] - (1.0 - first)).abs() < 1e-14);
        assert!((r.expected_total_rolls - 1.0 / p).abs() < 1e-12);
        // Rounds: min of two geometrics is geometric with 1 − (1−p)² per round.
        assert!((r.expected_rounds - 1.0 / (1.0 - 0.75f64 * 0.75)).abs() < 1e-12);
        assert!(r.unresolved < 1e-12);
        assert!(race(&geometric(p, 10), 0).is_err());
    }
}
