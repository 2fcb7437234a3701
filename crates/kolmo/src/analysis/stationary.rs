//! Stationary distributions and the classification of a chain's recurrent part.

use crate::exact::Scalar;
use crate::graph::sccs;
use crate::sparse::CsrMatrix;
use crate::{Error, Result, StateId};

/// The stationary distribution of a chain with a single closed class (unichain).
#[derive(Clone, Debug)]
pub struct Stationary<T = f64> {
    /// `π`, length `n`: 0 on the transient states; `π P = π`, `Σ π = 1`.
    pub pi: Vec<T>,
    /// The states of the closed class, ascending.
    pub class: Vec<StateId>,
    /// The period of the closed class (1 = aperiodic).
    pub period: u64,
    /// Whether the closed class is the whole chain (irreducible).
    pub irreducible: bool,
    /// `‖π P − π‖∞` (0 for exact arithmetic).
    pub residual: f64,
}

/// The stationary distribution of the Markov chain with transition matrix `p` (`n × n`, one row
/// per state), which must have exactly one bottom strongly connected component: `π` restricted to
/// it solves `π (I − P) = 0` with the normalisation `Σ π = 1` replacing one equation (Kemeny &
/// Snell, *Finite Markov Chains*, §4.1; Stewart, *Introduction to the Numerical Solution of Markov
/// Chains*, 1994, §2.3). The period is the gcd of `level(u) + 1 − level(v)` over the class's
/// edges, levels from a breadth-first search.
///
/// # Errors
/// [`Error::InvalidArgument`] if the chain has several closed classes (multichain: no single
/// stationary distribution); [`Error::Singular`] / [`Error::TooLarge`] from the dense solve.
pub fn stationary_distribution<T: Scalar>(p: &CsrMatrix<T>) -> Result<Stationary<T>> {
    let n = p.ncols();
    let s = sccs_of(p);
    let bottoms: Vec<usize> = (0..s.count).filter(|&c| s.bottom[c]).collect();
    if bottoms.len() != 1 {
        return Err(Error::arg(
            "chain",
            format!(
                "{} closed classes: the stationary distribution is not unique (multichain)",
                bottoms.len()
            ),
        ));
    }
    let class: Vec<StateId> = (0..n as StateId)
        .filter(|&v| s.component[v as usize] as usize == bottoms[0])
        .collect();
    let k = class.len();
    let mut position = vec![u32::MAX; n];
    for (i, &v) in class.iter().enumerate() {
        position[v as usize] = i as u32;
    }
    // Aᵀ πᵀ = e_last, with A = I − P_class and its last column replaced by ones.
    let mut a = vec![T::zero(); k * k];
    for (i, &v) in class.iter().enumerate() {
        a[i * k + i] = T::one();
        let (cols, vals) = p.row(v as usize);
        for (&t, x) in cols.iter().zip(vals) {
            let j = position[t as usize] as usize;
            a[i * k + j] = a[i * k + j].minus(x);
        }
        a[i * k + k - 1] = T::one();
    }
    let lu = T::dense_factor(k, "stationary distribution", a)?;
    let mut x = vec![T::zero(); k];
    x[k - 1] = T::one();
    lu.solve_transpose_in_place(&mut x);
    let mut pi = vec![T::zero(); n];
    for (i, &v) in class.iter().enumerate() {
        pi[v as usize] = x[i].clone();
    }
    // Residual ‖πP − π‖∞ in f64.
    let mut r: Vec<f64> = pi.iter().map(|v| -v.to_f64()).collect();
    for (v, pv) in pi.iter().enumerate() {
        let (cols, vals) = p.row(v);
        for (&t, x) in cols.iter().zip(vals) {
            r[t as usize] += pv.to_f64() * x.to_f64();
        }
    }
    let residual = r.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let period = period_of(p, &class, &position);
    Ok(Stationary {
        pi,
        irreducible: k == n,
        class,
        period,
        residual,
    })
}

struct SccInfo {
    component: Vec<u32>,
    count: usize,
    bottom: Vec<bool>,
}

fn sccs_of<T: Scalar>(p: &CsrMatrix<T>) -> SccInfo {
    // The graph algorithms work on the pattern; an f64 copy of it is cheap.
    let (row_ptr, cols, vals) = p.as_parts();
    let pattern = CsrMatrix::from_sorted_parts(
        p.ncols(),
        row_ptr.to_vec(),
        cols.to_vec(),
        vals.iter().map(|v| if v.is_zero() { 0.0 } else { 1.0 }).collect(),
    );
    let s = sccs(&pattern);
    let bottom = s.bottom(&pattern);
    SccInfo {
        component: s.component,
        count: s.count,
        bottom,
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn period_of<T: Scalar>(p: &CsrMatrix<T>, class: &[StateId], position: &[u32]) -> u64 {
    let mut level = vec![u64::MAX; class.len()];
    level[0] = 0;
    let mut queue = std::collections::VecDeque::from([0usize]);
    let mut g = 0u64;
    while let Some(i) = queue.pop_front() {
        let (cols, vals) = p.row(class[i] as usize);
        for (&t, x) in cols.iter().zip(vals) {
            if x.is_zero() {
                continue;
            }
            let j = position[t as usize] as usize;
            if level[j] == u64::MAX {
                level[j] = level[i] + 1;
                queue.push_back(j);
            } else {
                g = gcd(g, (level[i] + 1).abs_diff(level[j]));
            }
        }
    }
    g.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::Rational;
    use crate::sparse::from_rows as matrix;

    // Grinstead & Snell, Example 11.1 (Land of Oz) — published: w = (2/5, 1/5, 2/5).
    #[test]
    fn land_of_oz() {
        let p = matrix(&[
            &[(0, 0.5), (1, 0.25), (2, 0.25)],
            &[(0, 0.5), (2, 0.5)],
            &[(0, 0.25), (1, 0.25), (2, 0.5)],
        ]);
        let s = stationary_distribution(&p).unwrap();
        for (x, y) in s.pi.iter().zip([0.4, 0.2, 0.4]) {
            assert!((x - y).abs() < 1e-15);
        }
        assert_eq!((s.period, s.irreducible), (1, true));
        let exact = crate::exact::rationalize_matrix(&p, true).unwrap();
        let s = stationary_distribution::<Rational>(&exact).unwrap();
        assert_eq!(s.pi[1], Rational::from(1) / Rational::from(5));
    }

    // Grinstead & Snell, Example 11.17 (Ehrenfest urn, 4 balls) — period 2, stationary (1, 4, 6, 4, 1)/16.
    #[test]
    fn ehrenfest_is_periodic() {
        let p = matrix(&[
            &[(1, 1.0)],
            &[(0, 0.25), (2, 0.75)],
            &[(1, 0.5), (3, 0.5)],
            &[(2, 0.75), (4, 0.25)],
            &[(3, 1.0)],
        ]);
        let s = stationary_distribution(&p).unwrap();
        assert_eq!(s.period, 2);
        for (x, y) in s.pi.iter().zip([1.0, 4.0, 6.0, 4.0, 1.0]) {
            assert!((x - y / 16.0).abs() < 1e-15);
        }
        // Two absorbing states: multichain.
        let p = matrix(&[&[(0, 1.0)], &[(0, 0.5), (2, 0.5)], &[(2, 1.0)]]);
        assert!(stationary_distribution(&p).is_err());
    }
}
