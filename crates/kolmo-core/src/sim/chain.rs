use super::SimRng;
use crate::StateId;
use crate::model::Dtmc;
use rand::RngExt;

/// Samples transitions of any Markov chain: per row, cumulative probabilities searched by
/// bisection (O(log degree) per step).
#[derive(Clone, Debug)]
pub struct ChainSampler {
    row_ptr: Vec<usize>,
    cols: Vec<StateId>,
    cumulative: Vec<f64>,
}

impl ChainSampler {
    /// A sampler for `dtmc`'s transition matrix.
    #[must_use]
    pub fn new(dtmc: &Dtmc) -> Self {
        let (row_ptr, cols, vals) = dtmc.matrix().as_parts();
        let mut cumulative = Vec::with_capacity(vals.len());
        for i in 0..row_ptr.len() - 1 {
            let mut c = 0.0;
            for &p in &vals[row_ptr[i]..row_ptr[i + 1]] {
                c += p;
                cumulative.push(c);
            }
        }
        Self {
            row_ptr: row_ptr.to_vec(),
            cols: cols.to_vec(),
            cumulative,
        }
    }

    /// One step from state `s`.
    ///
    /// # Panics
    /// - panics if `s` is not a state of the chain.
    #[inline]
    #[track_caller]
    pub fn step(&self, rng: &mut SimRng, s: StateId) -> StateId {
        let r = self.row_ptr[s as usize]..self.row_ptr[s as usize + 1];
        let cum = &self.cumulative[r.clone()];
        let u: f64 = rng.random::<f64>() * cum[cum.len() - 1];
        let k = cum.partition_point(|&c| c <= u).min(cum.len() - 1);
        self.cols[r.start + k]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::walk;
    use crate::sim::{MonteCarloOptions, absorption_times};

    #[test]
    fn walk_from_the_middle_takes_four_steps() {
        // Grinstead & Snell, Example 11.13: expected steps 4 from the middle of the fair walk.
        let d = walk(0.5);
        let sampler = ChainSampler::new(&d);
        let opts = MonteCarloOptions {
            games: 200_000,
            seed: 3,
            max_steps: 10_000,
        };
        let mc = absorption_times(&opts, None, |rng, max| {
            let mut s = 2;
            for t in 1..=max {
                s = sampler.step(rng, s);
                if s == 0 || s == 4 {
                    return Some(t);
                }
            }
            None
        })
        .unwrap();
        assert!(mc.z_score(4.0).abs() < 4.0, "{mc:?}");
        assert!((mc.std_dev - 8f64.sqrt()).abs() < 0.05);
    }
}
