//! Preconditioned Krylov solvers for large sparse systems `A x = b`, used where a factorisation
//! would fill in (long-range transitions in chains of 10⁵ states and more).
//!
//! - BiCGSTAB, right-preconditioned (van der Vorst, "Bi-CGSTAB: a fast and smoothly converging
//!   variant of Bi-CG", SIAM J. Sci. Stat. Comput. 13(2), 1992; Saad, *Iterative Methods for
//!   Sparse Linear Systems*, 2nd ed., 2003, §7.4.2 and §9.3);
//! - GMRES(m), restarted, right-preconditioned (Saad & Schultz, SIAM J. Sci. Stat. Comput. 7(3),
//!   1986; Saad §6.5, §9.3.2);
//! - preconditioner: one block Gauss–Seidel sweep — `A` is cut into consecutive row blocks and
//!   within each block the triangle of `A` holding more weight (diagonal included) is solved by
//!   substitution, the blocks in parallel — or the diagonal alone (Jacobi). With `A = M + R` the
//!   preconditioned product is `A M⁻¹ v = v + R (M⁻¹ v)` (Eisenstat, "Efficient implementation of
//!   a class of preconditioned conjugate gradient methods", SIAM J. Sci. Stat. Comput. 2(1), 1981),
//!   so each step costs one sweep plus a product with the remainder `R` only.
//!
//! On the generated Snakes and Ladders boards of ../shared/peers (long-range portals; 10⁴–10⁷
//! cells) BiCGSTAB with the sweep reaches a relative residual of 1e-9 in about 25 products
//! whatever the size; restarted GMRES stagnates there (the near-singular mode of a slowly
//! absorbing chain is lost at each restart) and ILU(0) saved 10 % of the products for 20 % more
//! time, so BiCGSTAB with the sweep is the default.
//!
//! Each product is reported, with the running relative residual, to the observer of
//! [`Work::Krylov`](crate::progress::Work::Krylov) when one is installed (for a progress bar).
//!
//! A solve here is approximate: it stops when the 2-norm residual is below a relative tolerance or
//! after a bounded number of products. Callers never trust it: they evaluate the residual in
//! extended precision and refine (`analysis::subsystem`), so an unconverged solve shows up as a
//! large certified bound, never as a silently wrong number.
//!
//! A stop request ([`crate::interrupt`]) is looked at before every product: the solve then ends at
//! once with every entry of the solution `NaN` and a `NaN` residual (a solve returns no `Result`),
//! so nothing downstream can take it for an answer; the callers that return a `Result` turn it
//! into [`Error::Interrupted`](crate::Error::Interrupted).

use super::DenseSolve;
use crate::Result;
use crate::interrupt;
use crate::progress::{self, Work};
use crate::sparse::{CodedValues, RowSink, ValueAt, par_rows, with_values};
use rayon::prelude::*;
use std::sync::{Mutex, OnceLock};

/// Rows per parallel task in the vector kernels; fixed so that results do not depend on the
/// number of threads.
const CHUNK: usize = 1 << 14;

/// Rows per Gauss–Seidel block (at least one block; the blocks are swept in parallel).
const BLOCK: usize = usize::MAX;

/// The Krylov method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KrylovMethod {
    /// BiCGSTAB.
    BiCgStab,
    /// Restarted GMRES with the given restart length (Krylov basis size).
    Gmres(usize),
}

/// The preconditioner `M`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preconditioner {
    /// The diagonal of `A`.
    Jacobi,
    /// One block Gauss–Seidel sweep (see the module documentation).
    GaussSeidel,
}

/// Settings of an [`Iterative`] solver.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KrylovOptions {
    /// The method.
    pub method: KrylovMethod,
    /// The preconditioner.
    pub preconditioner: Preconditioner,
    /// A solve stops when `‖b − A x‖₂ ≤ tolerance · ‖b‖₂` (unless given its own tolerance).
    pub tolerance: f64,
    /// Largest number of matrix–vector products per solve.
    pub max_products: usize,
}

impl Default for KrylovOptions {
    fn default() -> Self {
        Self {
            method: KrylovMethod::BiCgStab,
            preconditioner: Preconditioner::GaussSeidel,
            tolerance: 1e-9,
            max_products: 5_000,
        }
    }
}

/// Running totals of an [`Iterative`] solver's work, for reports.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct KrylovStats {
    /// Solves (of `A` and `Aᵀ` together).
    pub solves: usize,
    /// Preconditioned matrix–vector products over all solves.
    pub products: usize,
    /// The relative 2-norm residual `‖b − A x‖₂/‖b‖₂` the last solve reached.
    pub last_relative_residual: f64,
    /// Solves that stopped at `max_products` or broke down before reaching their tolerance.
    pub unconverged: usize,
}

/// An `n × n` sparse matrix `A = M + R` (`M` the preconditioner, `R` the remainder), solved by a
/// Krylov method; the transpose `Aᵀ` is set up on first use.
#[derive(Debug)]
pub struct Iterative {
    n: usize,
    /// Block boundaries (`blocks + 1` entries from 0 to `n`).
    blocks: Vec<usize>,
    /// Off-diagonal entries of `M` (the sweep triangle within each block), CSR, each row divided
    /// by its diagonal entry.
    m_ptr: Vec<usize>,
    m_cols: Vec<u32>,
    m_vals: CodedValues,
    /// The diagonal of `A` (length `n`, non-zero).
    diag: Vec<f64>,
    /// Its reciprocals.
    inv_diag: Vec<f64>,
    /// `R = A − M`, CSR.
    r_ptr: Vec<usize>,
    r_cols: Vec<u32>,
    r_vals: CodedValues,
    /// Whether `M` holds the upper triangle (swept backward).
    upper: bool,
    options: KrylovOptions,
    stats: Mutex<KrylovStats>,
    transpose: OnceLock<Box<Iterative>>,
    what: &'static str,
}

impl Iterative {
    /// The solver for `A` given in CSR form: `row_ptr` (length `n + 1`), `cols` and `vals` (length
    /// `nnz`), each row sorted by column without repeats.
    ///
    /// # Errors
    /// [`crate::Error::Singular`] naming `what` and the row if a diagonal entry is missing, zero or
    /// not finite (the sweep divides by it).
    ///
    /// # Panics
    /// - panics if the arrays are inconsistent (lengths, a column `>= n`).
    pub fn new(
        n: usize,
        what: &'static str,
        options: KrylovOptions,
        row_ptr: &[usize],
        cols: &[u32],
        vals: &[f64],
    ) -> Result<Self> {
        assert!(row_ptr.len() == n + 1 && cols.len() == vals.len() && row_ptr[n] == cols.len());
        let nblocks = n.div_ceil(BLOCK).max(1);
        let blocks: Vec<usize> = (0..=nblocks).map(|b| (b * n).div_ceil(nblocks).min(n)).collect();
        let diag: Vec<f64> = (0..n)
            .into_par_iter()
            .with_min_len(CHUNK)
            .map(|i| {
                let r = row_ptr[i]..row_ptr[i + 1];
                cols[r.clone()]
                    .binary_search(&(i as u32))
                    .map_or(0.0, |k| vals[r.start + k])
            })
            .collect();
        // The weight of each triangle, in fixed chunks (the same choice on any thread count).
        let (lower, upper) = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let (mut lo, mut up) = (0.0f64, 0.0f64);
                for i in c * CHUNK..((c + 1) * CHUNK).min(n) {
                    for p in row_ptr[i]..row_ptr[i + 1] {
                        let j = cols[p] as usize;
                        if j < i {
                            lo += vals[p].abs();
                        } else if j > i {
                            up += vals[p].abs();
                        }
                    }
                }
                (lo, up)
            })
            .collect::<Vec<_>>()
            .iter()
            .fold((0.0, 0.0), |(a, b), (c, d)| (a + c, b + d));
        if let Some(row) = diag.iter().position(|d| *d == 0.0 || !d.is_finite()) {
            return Err(crate::Error::Singular {
                what,
                row,
                pivot: diag[row],
            });
        }
        let sweep_upper = upper >= lower;
        let sweep = options.preconditioner == Preconditioner::GaussSeidel;
        let block_of = |i: usize| blocks.partition_point(|&b| b <= i) - 1;
        let in_m = |i: usize, j: usize, b: usize| {
            sweep && j != i && (j > i) == sweep_upper && j >= blocks[b] && j < blocks[b + 1]
        };
        // M (divided by the diagonal) and R, row by row on all cores.
        let [m, r] = par_rows(
            n,
            0.0,
            || (),
            |_, i, out: &mut RowSink<f64, 2>| {
                let b = block_of(i);
                for p in row_ptr[i]..row_ptr[i + 1] {
                    let j = cols[p] as usize;
                    assert!(j < n, "column out of range");
                    if j == i {
                        continue;
                    }
                    if in_m(i, j, b) {
                        out.push(0, j as u32, vals[p] / diag[i]);
                    } else {
                        out.push(1, j as u32, vals[p]);
                    }
                }
            },
        );
        let ((m_ptr, m_cols, m_vals), (r_ptr, r_cols, r_vals)) = (m.into_arrays(), r.into_arrays());
        Ok(Self {
            n,
            blocks,
            m_ptr,
            m_cols,
            m_vals: CodedValues::new(m_vals),
            inv_diag: diag.iter().map(|d| 1.0 / d).collect(),
            diag,
            r_ptr,
            r_cols,
            r_vals: CodedValues::new(r_vals),
            upper: sweep_upper,
            options,
            stats: Mutex::new(KrylovStats::default()),
            transpose: OnceLock::new(),
            what,
        })
    }

    /// Number of unknowns.
    #[must_use]
    pub fn n(&self) -> usize {
        self.n
    }

    /// The settings.
    #[must_use]
    pub fn options(&self) -> KrylovOptions {
        self.options
    }

    /// The work done so far, by solves with `A` and with `Aᵀ` together.
    #[must_use]
    pub fn stats(&self) -> KrylovStats {
        let mut s = *self.stats.lock().unwrap();
        if let Some(t) = self.transpose.get() {
            let u = t.stats();
            s.solves += u.solves;
            s.products += u.products;
            s.unconverged += u.unconverged;
        }
        s
    }

    /// `z ← M⁻¹ src`: the sweep within each block, blocks in parallel.
    fn precondition_from(&self, src: &[f64], z: &mut [f64]) {
        if self.options.preconditioner == Preconditioner::Jacobi {
            z.par_chunks_mut(CHUNK).enumerate().for_each(|(c, zs)| {
                for (k, zi) in zs.iter_mut().enumerate() {
                    *zi = src[c * CHUNK + k] / self.diag[c * CHUNK + k];
                }
            });
            return;
        }
        let mut parts = Vec::with_capacity(self.blocks.len() - 1);
        let mut rest = z;
        for w in self.blocks.windows(2) {
            let (head, tail) = rest.split_at_mut(w[1] - w[0]);
            parts.push((w[0], head));
            rest = tail;
        }
        with_values!(&self.m_vals, mv => self.sweep(mv, src, parts));
    }

    /// The sweep over the blocks `parts` (start, values), with `M`'s values read by `mv`.
    fn sweep<V: ValueAt>(&self, mv: V, src: &[f64], parts: Vec<(usize, &mut [f64])>) {
        // Each unknown waits for the one just computed (its neighbour in a forward-moving chain):
        // that term is added last, so the dependency chain per row is one multiply-add and one
        // multiply by the stored reciprocal — the other terms are summed while it is computed.
        // `M`'s rows are stored divided by the diagonal, and the value just computed is kept in a
        // register rather than read back from memory.
        parts.into_par_iter().for_each(|(lo, zb)| {
            let hi = lo + zb.len();
            let mut last = 0.0;
            if self.upper {
                for i in (lo..hi).rev() {
                    let mut s = src[i] * self.inv_diag[i];
                    for p in (self.m_ptr[i]..self.m_ptr[i + 1]).rev() {
                        if p >= PREFETCH {
                            prefetch(zb, (self.m_cols[p - PREFETCH] as usize).wrapping_sub(lo));
                        }
                        let j = self.m_cols[p] as usize;
                        let zj = if j == i + 1 { last } else { zb[j - lo] };
                        s -= mv.at(p) * zj;
                    }
                    zb[i - lo] = s;
                    last = s;
                }
            } else {
                for i in lo..hi {
                    let mut s = src[i] * self.inv_diag[i];
                    for p in self.m_ptr[i]..self.m_ptr[i + 1] {
                        if let Some(&c) = self.m_cols.get(p + PREFETCH) {
                            prefetch(zb, (c as usize).wrapping_sub(lo));
                        }
                        let j = self.m_cols[p] as usize;
                        let zj = if j + 1 == i { last } else { zb[j - lo] };
                        s -= mv.at(p) * zj;
                    }
                    zb[i - lo] = s;
                    last = s;
                }
            }
        });
    }

    /// `out ← v + R z`, rows in parallel; returns `(Σ out·w, Σ out²)` (fused dot products, in
    /// fixed chunks).
    fn remainder(&self, v: &[f64], z: &[f64], out: &mut [f64], w: &[f64]) -> (f64, f64) {
        with_values!(&self.r_vals, rv => self.remainder_with(rv, v, z, out, w))
    }

    fn remainder_with<V: ValueAt>(
        &self,
        rv: V,
        v: &[f64],
        z: &[f64],
        out: &mut [f64],
        w: &[f64],
    ) -> (f64, f64) {
        out.par_chunks_mut(CHUNK)
            .enumerate()
            .map(|(c, os)| {
                let (mut d1, mut d2) = (0.0, 0.0);
                for (k, oi) in os.iter_mut().enumerate() {
                    let i = c * CHUNK + k;
                    let mut s = v[i];
                    for p in self.r_ptr[i]..self.r_ptr[i + 1] {
                        if let Some(&c) = self.r_cols.get(p + PREFETCH) {
                            prefetch(z, c as usize);
                        }
                        s += rv.at(p) * z[self.r_cols[p] as usize];
                    }
                    *oi = s;
                    d1 += s * w[i];
                    d2 += s * s;
                }
                (d1, d2)
            })
            .collect::<Vec<_>>()
            .iter()
            .fold((0.0, 0.0), |(a, b), (c, d)| (a + c, b + d))
    }

    /// `out ← v + R z` without the dot products.
    fn remainder_plain(&self, v: &[f64], z: &[f64], out: &mut [f64]) {
        with_values!(&self.r_vals, rv => out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, os)| {
            for (k, oi) in os.iter_mut().enumerate() {
                let i = c * CHUNK + k;
                let mut s = v[i];
                for p in self.r_ptr[i]..self.r_ptr[i + 1] {
                    s += rv.at(p) * z[self.r_cols[p] as usize];
                }
                *oi = s;
            }
        }))
    }

    /// `out ← b − A x`: with `M x` re-formed from the sweep triangle and the diagonal.
    fn residual(&self, x: &[f64], b: &[f64], out: &mut [f64]) {
        let kernel = |mv: &dyn Fn(usize) -> f64, rv: &dyn Fn(usize) -> f64, c: usize, os: &mut [f64]| {
            for (k, oi) in os.iter_mut().enumerate() {
                let i = c * CHUNK + k;
                let mut m = x[i];
                for p in self.m_ptr[i]..self.m_ptr[i + 1] {
                    m += mv(p) * x[self.m_cols[p] as usize];
                }
                let mut s = self.diag[i] * m;
                for p in self.r_ptr[i]..self.r_ptr[i + 1] {
                    s += rv(p) * x[self.r_cols[p] as usize];
                }
                *oi = b[i] - s;
            }
        };
        out.par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(c, os)| kernel(&|p| self.m_vals.get(p), &|p| self.r_vals.get(p), c, os));
    }

    /// Solves `A x = b` approximately from `x = 0` to the relative `tolerance`, overwriting `b`
    /// with `x`; returns the relative 2-norm residual reached.
    fn solve(&self, b: &mut [f64], tolerance: f64) -> f64 {
        solve_counted(self, self.options, &self.stats, b, tolerance)
    }

    /// The solver for `Aᵀ` (set up on first use, same settings).
    fn transposed(&self) -> &Iterative {
        self.transpose.get_or_init(|| {
            let n = self.n;
            let mut ptr = vec![0usize; n + 1];
            for &j in self.m_cols.iter().chain(&self.r_cols) {
                ptr[j as usize + 1] += 1;
            }
            for i in 0..n {
                ptr[i + 1] += ptr[i] + 1; // + the diagonal
            }
            let mut next = ptr.clone();
            let nnz = ptr[n];
            let (mut cols, mut vals) = (vec![0u32; nnz], vec![0.0; nnz]);
            let mut put = |i: usize, j: usize, v: f64| {
                cols[next[j]] = i as u32;
                vals[next[j]] = v;
                next[j] += 1;
            };
            for i in 0..n {
                // Row i of A in column order: (M ∪ R) below i, the diagonal, (M ∪ R) above.
                let mut row: Vec<(usize, f64)> = (self.m_ptr[i]..self.m_ptr[i + 1])
                    .map(|p| (self.m_cols[p] as usize, self.m_vals.get(p) * self.diag[i]))
                    .chain(
                        (self.r_ptr[i]..self.r_ptr[i + 1])
                            .map(|p| (self.r_cols[p] as usize, self.r_vals.get(p))),
                    )
                    .chain(std::iter::once((i, self.diag[i])))
                    .collect();
                row.sort_unstable_by_key(|e| e.0);
                for (j, v) in row {
                    put(i, j, v);
                }
            }
            let t = Self::new(n, self.what, self.options, &ptr, &cols, &vals)
                .expect("the transpose has the same non-zero diagonal");
            Box::new(t)
        })
    }

    /// A one-line description of the method.
    #[must_use]
    pub fn describe(&self) -> &'static str {
        match (self.options.method, self.options.preconditioner) {
            (KrylovMethod::BiCgStab, Preconditioner::GaussSeidel) => {
                "BiCGSTAB, block Gauss-Seidel preconditioned"
            }
            (KrylovMethod::BiCgStab, Preconditioner::Jacobi) => "BiCGSTAB, Jacobi preconditioned",
            (KrylovMethod::Gmres(_), Preconditioner::GaussSeidel) => {
                "GMRES, block Gauss-Seidel preconditioned"
            }
            (KrylovMethod::Gmres(_), Preconditioner::Jacobi) => "GMRES, Jacobi preconditioned",
        }
    }
}

impl SplitOperator for Iterative {
    fn n(&self) -> usize {
        self.n
    }

    fn precondition_from(&self, src: &[f64], z: &mut [f64]) {
        Iterative::precondition_from(self, src, z);
    }

    fn remainder(&self, v: &[f64], z: &[f64], out: &mut [f64], w: &[f64]) -> (f64, f64) {
        Iterative::remainder(self, v, z, out, w)
    }

    fn remainder_plain(&self, v: &[f64], z: &[f64], out: &mut [f64]) {
        Iterative::remainder_plain(self, v, z, out);
    }

    fn residual(&self, x: &[f64], b: &[f64], out: &mut [f64]) {
        Iterative::residual(self, x, b, out);
    }
}

/// An `n × n` matrix `A` split as `A = M + R` for a right-preconditioned Krylov method: `M` is
/// the preconditioner (easy to invert: the diagonal and one triangle of `A`, solved by
/// substitution), `R = A − M` the remainder. With this split the preconditioned product is
/// `A M⁻¹ v = v + R (M⁻¹ v)` (Eisenstat 1981), so one product costs one substitution and one
/// product with `R` — the form [`Iterative`] stores as CSR and a model with a closed form (a
/// board's jump table, `games::snakes::BoardOperator`) computes without a matrix.
///
/// Implementations are deterministic: the kernels split rows into fixed chunks, so results do not
/// depend on the number of threads.
pub trait SplitOperator: Sync {
    /// Number of unknowns `n`.
    fn n(&self) -> usize;

    /// `z ← M⁻¹ src` (both of length `n`; `z`'s previous contents are ignored).
    fn precondition_from(&self, src: &[f64], z: &mut [f64]);

    /// `out ← v + R z` (all of length `n`); returns `(Σ outᵢwᵢ, Σ outᵢ²)`.
    fn remainder(&self, v: &[f64], z: &[f64], out: &mut [f64], w: &[f64]) -> (f64, f64);

    /// `out ← v + R z` without the dot products.
    fn remainder_plain(&self, v: &[f64], z: &[f64], out: &mut [f64]) {
        self.remainder(v, z, out, v);
    }

    /// `out ← b − A x` in working precision (the solver's check of its own recurrence; callers
    /// certify with a residual in extended precision of their own).
    fn residual(&self, x: &[f64], b: &[f64], out: &mut [f64]);
}

/// A Krylov solver for a matrix given as a [`SplitOperator`] (no transposed solves): the same
/// BiCGSTAB and GMRES as [`Iterative`], on an operator that need not store the matrix.
#[derive(Debug)]
pub struct MatrixFree<O> {
    op: O,
    options: KrylovOptions,
    stats: Mutex<KrylovStats>,
}

impl<O: SplitOperator> MatrixFree<O> {
    /// The solver for `op` with `options` (`options.preconditioner` is ignored: `op` brings its
    /// own split).
    pub fn new(op: O, options: KrylovOptions) -> Self {
        Self {
            op,
            options,
            stats: Mutex::new(KrylovStats::default()),
        }
    }

    /// The operator.
    #[must_use]
    pub fn operator(&self) -> &O {
        &self.op
    }

    /// The settings.
    #[must_use]
    pub fn options(&self) -> KrylovOptions {
        self.options
    }

    /// The work done so far.
    #[must_use]
    pub fn stats(&self) -> KrylovStats {
        *self.stats.lock().unwrap()
    }

    /// Solves `A x = b` approximately from `x = 0` until `‖b − A x‖₂ ≤ tolerance · ‖b‖₂` or
    /// `options.max_products` products, overwriting `b` (length `n`) with `x`; returns the relative
    /// 2-norm residual reached (`NaN` after a breakdown).
    ///
    /// # Panics
    /// - panics if `b.len() != n`.
    #[track_caller]
    pub fn solve_to(&self, b: &mut [f64], tolerance: f64) -> f64 {
        solve_counted(&self.op, self.options, &self.stats, b, tolerance)
    }

    /// A one-line description of the method.
    #[must_use]
    pub fn describe(&self) -> &'static str {
        match self.options.method {
            KrylovMethod::BiCgStab => "BiCGSTAB, Gauss-Seidel preconditioned",
            KrylovMethod::Gmres(_) => "GMRES, Gauss-Seidel preconditioned",
        }
    }

    /// The work done so far, for reports.
    #[must_use]
    pub fn work(&self) -> String {
        let s = self.stats();
        let mut text = format!("{} preconditioned products in {} solves", s.products, s.solves);
        if s.unconverged > 0 {
            text.push_str(&format!(", {} short of their tolerance", s.unconverged));
        }
        text
    }
}

/// One solve by `options.method` on `op`, its work added to `stats`.
fn solve_counted<O: SplitOperator + ?Sized>(
    op: &O,
    options: KrylovOptions,
    stats: &Mutex<KrylovStats>,
    b: &mut [f64],
    tolerance: f64,
) -> f64 {
    assert_eq!(b.len(), op.n(), "right-hand side of the wrong length");
    let norm_b = norm2(b);
    let (products, rel) = if norm_b == 0.0 {
        (0, 0.0)
    } else if !norm_b.is_finite() {
        (0, f64::NAN)
    } else {
        match options.method {
            KrylovMethod::Gmres(m) => gmres(op, options.max_products, b, norm_b, m.max(1), tolerance),
            KrylovMethod::BiCgStab => bicgstab(op, options.max_products, b, norm_b, tolerance),
        }
    };
    // Stopped by a stop request: no partial solution.
    let rel = if interrupt::requested() {
        b.fill(f64::NAN);
        f64::NAN
    } else {
        rel
    };
    // The true residual, in place of the last estimate from the recurrence.
    progress::report(Work::Krylov, 0, rel);
    let mut s = stats.lock().unwrap();
    s.solves += 1;
    s.products += products;
    s.last_relative_residual = rel;
    if rel.is_nan() || rel > tolerance {
        s.unconverged += 1;
    }
    rel
}

/// `z ← M⁻¹ z`.
fn precondition_in_place<O: SplitOperator + ?Sized>(op: &O, z: &mut [f64]) {
    let src = z.to_vec();
    op.precondition_from(&src, z);
}

/// Right-preconditioned BiCGSTAB (Saad, Algorithm 7.7 with right preconditioning), the
/// preconditioned product by Eisenstat's splitting and the vector updates fused with the dot
/// products that follow them.
fn bicgstab<O: SplitOperator + ?Sized>(
    op: &O,
    max_products: usize,
    b: &mut [f64],
    norm_b: f64,
    tolerance: f64,
) -> (usize, f64) {
    let n = op.n();
    let tol2 = (tolerance * norm_b).powi(2);
    let mut x = vec![0.0; n];
    let mut r = b.to_vec();
    // The shadow residual: r plus a fixed pseudo-random positive perturbation, so that a sparse
    // right-hand side (a unit vector) does not break the method down at once.
    let size = r.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    let r0: Vec<f64> = r
        .iter()
        .enumerate()
        .map(|(i, ri)| ri + size * shadow(i))
        .collect();
    let (mut p, mut v) = (vec![0.0; n], vec![0.0; n]);
    let (mut ph, mut sh, mut t) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let (mut rho, mut alpha, mut omega) = (1.0, 1.0, 1.0);
    let mut products = 0;
    let mut res2 = norm_b * norm_b;
    let mut rho1 = dot(&r0, &r);
    while res2 > tol2 && products + 2 <= max_products {
        if rho1 == 0.0 || !rho1.is_finite() || interrupt::requested() {
            break;
        }
        let beta = (rho1 / rho) * (alpha / omega);
        rho = rho1;
        zip_chunks(&mut p, &r, &v, |pi, ri, vi| {
            *pi = ri + beta * (*pi - omega * vi);
            0.0
        });
        op.precondition_from(&p, &mut ph);
        let (d, _) = op.remainder(&p, &ph, &mut v, &r0);
        products += 1;
        if d == 0.0 || !d.is_finite() {
            break;
        }
        alpha = rho / d;
        // s = r − αv (overwriting r), x += α·ph, ‖s‖².
        res2 = zip_chunks2(&mut r, &mut x, &v, &ph, |ri, xi, vi, phi| {
            *ri -= alpha * vi;
            *xi += alpha * phi;
            (*ri * *ri, 0.0)
        })
        .0;
        progress::report(Work::Krylov, 1, res2.sqrt() / norm_b);
        if res2 <= tol2 {
            break;
        }
        op.precondition_from(&r, &mut sh);
        let (ts, tt) = op.remainder(&r, &sh, &mut t, &r);
        products += 1;
        if tt == 0.0 || !tt.is_finite() {
            break;
        }
        omega = ts / tt;
        // x += ω·sh, r = s − ω·t, ‖r‖², (r0, r).
        (res2, rho1) = zip_chunks3(&mut r, &mut x, &t, &sh, &r0, |ri, xi, ti, shi, r0i| {
            *xi += omega * shi;
            *ri -= omega * ti;
            (*ri * *ri, *ri * r0i)
        });
        progress::report(Work::Krylov, 1, res2.sqrt() / norm_b);
        if omega == 0.0 {
            break;
        }
    }
    // The recurrence drifts from the true residual: report the true one.
    op.residual(&x, b, &mut t);
    let true_res = norm2(&t);
    b.copy_from_slice(&x);
    (products, true_res / norm_b)
}

/// Restarted right-preconditioned GMRES, modified Gram–Schmidt and Givens rotations.
fn gmres<O: SplitOperator + ?Sized>(
    op: &O,
    max_products: usize,
    b: &mut [f64],
    norm_b: f64,
    m: usize,
    tolerance: f64,
) -> (usize, f64) {
    let n = op.n();
    let tol = tolerance * norm_b;
    let mut x = vec![0.0; n];
    let mut r = b.to_vec();
    let (mut w, mut z) = (vec![0.0; n], vec![0.0; n]);
    let mut basis: Vec<Vec<f64>> = Vec::with_capacity(m + 1);
    let mut h = vec![0.0; (m + 1) * m]; // column-major, column j has m + 1 entries
    let (mut cs, mut sn, mut g) = (vec![0.0; m], vec![0.0; m], vec![0.0; m + 1]);
    let mut products = 0;
    let mut beta = norm_b;
    while beta > tol && products < max_products && beta.is_finite() && !interrupt::requested() {
        basis.clear();
        let mut v0 = r.clone();
        scale(&mut v0, 1.0 / beta);
        basis.push(v0);
        g.iter_mut().for_each(|e| *e = 0.0);
        g[0] = beta;
        let mut k = 0;
        while k < m && products < max_products && !interrupt::requested() {
            z.copy_from_slice(&basis[k]);
            precondition_in_place(op, &mut z);
            op.remainder_plain(&basis[k], &z, &mut w);
            products += 1;
            let col = &mut h[k * (m + 1)..(k + 1) * (m + 1)];
            for (j, v) in basis.iter().enumerate() {
                let hj = dot(&w, v);
                col[j] = hj;
                axpy(&mut w, -hj, v);
            }
            let hn = norm2(&w);
            col[k + 1] = hn;
            for j in 0..k {
                let (a, c) = (col[j], col[j + 1]);
                col[j] = cs[j] * a + sn[j] * c;
                col[j + 1] = -sn[j] * a + cs[j] * c;
            }
            let (a, c) = (col[k], col[k + 1]);
            let d = a.hypot(c);
            (cs[k], sn[k]) = if d == 0.0 { (1.0, 0.0) } else { (a / d, c / d) };
            col[k] = d;
            col[k + 1] = 0.0;
            g[k + 1] = -sn[k] * g[k];
            g[k] *= cs[k];
            k += 1;
            progress::report(Work::Krylov, 1, g[k].abs() / norm_b);
            if g[k].abs() <= tol || hn == 0.0 || !hn.is_finite() {
                break;
            }
            let mut v = w.clone();
            scale(&mut v, 1.0 / hn);
            basis.push(v);
        }
        // y = H⁻¹ g (upper triangular k × k), then x += M⁻¹ (V y).
        let mut y = g[..k].to_vec();
        for i in (0..k).rev() {
            let mut s = y[i];
            for j in i + 1..k {
                s -= h[j * (m + 1) + i] * y[j];
            }
            y[i] = s / h[i * (m + 1) + i];
        }
        z.iter_mut().for_each(|e| *e = 0.0);
        for (v, &yj) in basis.iter().zip(&y) {
            axpy(&mut z, yj, v);
        }
        precondition_in_place(op, &mut z);
        axpy(&mut x, 1.0, &z);
        op.residual(&x, b, &mut r);
        beta = norm2(&r);
        if k == 0 {
            break;
        }
    }
    b.copy_from_slice(&x);
    (products, beta / norm_b)
}

impl DenseSolve<f64> for Iterative {
    fn solve_in_place(&self, b: &mut [f64]) {
        self.solve(b, self.options.tolerance);
    }

    fn solve_transpose_in_place(&self, b: &mut [f64]) {
        self.transposed().solve(b, self.options.tolerance);
    }

    fn solve_to(&self, b: &mut [f64], tolerance: f64, transpose: bool) {
        if transpose {
            self.transposed().solve(b, tolerance);
        } else {
            self.solve(b, tolerance);
        }
    }

    fn is_iterative(&self) -> bool {
        true
    }

    fn method(&self) -> &'static str {
        self.describe()
    }

    fn work(&self) -> String {
        let s = self.stats();
        let mut text = format!("{} preconditioned products in {} solves", s.products, s.solves);
        if s.unconverged > 0 {
            text.push_str(&format!(", {} short of their tolerance", s.unconverged));
        }
        text
    }
}

/// Entries ahead at which the kernels prefetch the vector entry they will read: long-range
/// transitions (portals) miss the cache once the vectors outgrow it (10⁷ states: 80 MB each).
const PREFETCH: usize = 48;

/// Asks the processor to bring `x[j]` into the cache (nothing if `j` is out of range).
#[inline(always)]
pub(crate) fn prefetch(x: &[f64], j: usize) {
    #[cfg(target_arch = "x86_64")]
    if j < x.len() {
        // SAFETY: `j` is in bounds; a prefetch has no effect on memory.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(x.as_ptr().add(j).cast());
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (x, j);
}

/// A fixed pseudo-random number in `[0, 1)` for index `i` (SplitMix64's finaliser).
fn shadow(i: usize) -> f64 {
    let mut z = (i as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// `Σ aᵢbᵢ` in fixed chunks, summed in order (the same result on any number of threads).
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.par_chunks(CHUNK)
        .zip(b.par_chunks(CHUNK))
        .map(|(x, y)| x.iter().zip(y).map(|(p, q)| p * q).sum::<f64>())
        .collect::<Vec<f64>>()
        .iter()
        .sum()
}

fn norm2(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

/// `y += a·x`.
fn axpy(y: &mut [f64], a: f64, x: &[f64]) {
    y.par_chunks_mut(CHUNK)
        .zip(x.par_chunks(CHUNK))
        .for_each(|(ys, xs)| ys.iter_mut().zip(xs).for_each(|(yi, xi)| *yi += a * xi));
}

/// `f(yᵢ, aᵢ, bᵢ)` for every `i` in parallel chunks, summing what it returns (in fixed chunks).
fn zip_chunks(y: &mut [f64], a: &[f64], b: &[f64], f: impl Fn(&mut f64, f64, f64) -> f64 + Sync) -> f64 {
    y.par_chunks_mut(CHUNK)
        .zip(a.par_chunks(CHUNK))
        .zip(b.par_chunks(CHUNK))
        .map(|((ys, xs), zs)| {
            let mut s = 0.0;
            for ((yi, &ai), &bi) in ys.iter_mut().zip(xs).zip(zs) {
                s += f(yi, ai, bi);
            }
            s
        })
        .collect::<Vec<f64>>()
        .iter()
        .sum()
}

/// `f(yᵢ, xᵢ, aᵢ, bᵢ)` updating two vectors, summing the pairs it returns (in fixed chunks).
fn zip_chunks2(
    y: &mut [f64],
    x: &mut [f64],
    a: &[f64],
    b: &[f64],
    f: impl Fn(&mut f64, &mut f64, f64, f64) -> (f64, f64) + Sync,
) -> (f64, f64) {
    y.par_chunks_mut(CHUNK)
        .zip(x.par_chunks_mut(CHUNK))
        .enumerate()
        .map(|(c, (ys, xs))| {
            let base = c * CHUNK;
            let (mut s1, mut s2) = (0.0, 0.0);
            for (k, (yi, xi)) in ys.iter_mut().zip(xs.iter_mut()).enumerate() {
                let (u, v) = f(yi, xi, a[base + k], b[base + k]);
                s1 += u;
                s2 += v;
            }
            (s1, s2)
        })
        .collect::<Vec<_>>()
        .iter()
        .fold((0.0, 0.0), |(p, q), (u, v)| (p + u, q + v))
}

/// As [`zip_chunks2`] with a third input vector.
fn zip_chunks3(
    y: &mut [f64],
    x: &mut [f64],
    a: &[f64],
    b: &[f64],
    c: &[f64],
    f: impl Fn(&mut f64, &mut f64, f64, f64, f64) -> (f64, f64) + Sync,
) -> (f64, f64) {
    y.par_chunks_mut(CHUNK)
        .zip(x.par_chunks_mut(CHUNK))
        .enumerate()
        .map(|(ch, (ys, xs))| {
            let base = ch * CHUNK;
            let (mut s1, mut s2) = (0.0, 0.0);
            for (k, (yi, xi)) in ys.iter_mut().zip(xs.iter_mut()).enumerate() {
                let i = base + k;
                let (u, v) = f(yi, xi, a[i], b[i], c[i]);
                s1 += u;
                s2 += v;
            }
            (s1, s2)
        })
        .collect::<Vec<_>>()
        .iter()
        .fold((0.0, 0.0), |(p, q), (u, v)| (p + u, q + v))
}

fn scale(y: &mut [f64], a: f64) {
    y.par_chunks_mut(CHUNK)
        .for_each(|ys| ys.iter_mut().for_each(|yi| *yi *= a));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `I − Q` of a walk on 0..n with forward steps and backward jumps (a small board), in
    /// sorted CSR form.
    fn board(n: usize) -> (Vec<usize>, Vec<u32>, Vec<f64>) {
        let mut row_ptr = vec![0];
        let (mut cols, mut vals) = (Vec::new(), Vec::new());
        for i in 0..n {
            let mut row = vec![(i as u32, 1.0)];
            for d in 1..=6 {
                let mut t = i + d;
                if t % 97 == 3 {
                    t = t.saturating_sub(1 + (t * 31) % 200); // a snake down by 1 to 200 cells
                }
                if t < n {
                    row.push((t as u32, -1.0 / 6.0));
                }
            }
            row.sort_by_key(|e| e.0);
            let mut merged: Vec<(u32, f64)> = Vec::new();
            for (j, v) in row {
                match merged.last_mut() {
                    Some(last) if last.0 == j => last.1 += v,
                    _ => merged.push((j, v)),
                }
            }
            for (j, v) in merged {
                cols.push(j);
                vals.push(v);
            }
            row_ptr.push(cols.len());
        }
        (row_ptr, cols, vals)
    }

    fn max_residual(a: &(Vec<usize>, Vec<u32>, Vec<f64>), x: &[f64], b: &[f64], transpose: bool) -> f64 {
        let (row_ptr, cols, vals) = a;
        let mut r = b.to_vec();
        for i in 0..b.len() {
            for p in row_ptr[i]..row_ptr[i + 1] {
                let j = cols[p] as usize;
                if transpose {
                    r[j] -= vals[p] * x[i];
                } else {
                    r[i] -= vals[p] * x[j];
                }
            }
        }
        r.iter().fold(0.0f64, |m, v| m.max(v.abs()))
    }

    #[test]
    fn every_method_and_preconditioner_solves_a_small_board_and_its_transpose() {
        let n = 1000;
        let a = board(n);
        // (BiCGSTAB with the diagonal alone diverges on this chain: see the next tests.)
        for (method, preconditioner) in [
            (KrylovMethod::BiCgStab, Preconditioner::GaussSeidel),
            (KrylovMethod::Gmres(60), Preconditioner::GaussSeidel),
            (KrylovMethod::Gmres(60), Preconditioner::Jacobi),
        ] {
            {
                let options = KrylovOptions {
                    method,
                    preconditioner,
                    tolerance: 1e-12,
                    max_products: 20_000,
                };
                let s = Iterative::new(n, "test", options, &a.0, &a.1, &a.2).unwrap();
                let b: Vec<f64> = (0..n).map(|i| 1.0 + (i % 3) as f64).collect();
                for transpose in [false, true] {
                    let mut x = b.clone();
                    s.solve_to(&mut x, 1e-12, transpose);
                    let r = max_residual(&a, &x, &b, transpose);
                    assert!(
                        r <= 1e-9,
                        "{method:?} {preconditioner:?} transpose {transpose}: residual {r}"
                    );
                }
                let stats = s.stats();
                assert_eq!(stats.solves, 2);
                assert!(
                    stats.products > 0 && stats.unconverged == 0,
                    "{method:?} {preconditioner:?}: {stats:?}"
                );
            }
        }
    }

    #[test]
    fn the_preconditioner_pays() {
        // The Gauss–Seidel sweep needs far fewer products than the diagonal alone.
        let n = 1000;
        let a = board(n);
        let products = |preconditioner| {
            let options = KrylovOptions {
                method: KrylovMethod::Gmres(60),
                preconditioner,
                tolerance: 1e-10,
                max_products: 20_000,
            };
            let s = Iterative::new(n, "test", options, &a.0, &a.1, &a.2).unwrap();
            let mut x = vec![1.0; n];
            s.solve_in_place(&mut x);
            assert_eq!(s.stats().unconverged, 0, "{preconditioner:?}");
            s.stats().products
        };
        let (gs, jacobi) = (
            products(Preconditioner::GaussSeidel),
            products(Preconditioner::Jacobi),
        );
        assert!(3 * gs < jacobi, "Gauss-Seidel {gs}, Jacobi {jacobi}");
    }

    #[test]
    fn a_missing_or_zero_diagonal_is_refused() {
        // Rows 0: (1, 1.0); 1: (0, 1.0) — a swap, no diagonal.
        let e = Iterative::new(
            2,
            "swap",
            KrylovOptions::default(),
            &[0, 1, 2],
            &[1, 0],
            &[1.0, 1.0],
        )
        .unwrap_err();
        assert!(matches!(e, crate::Error::Singular { row: 0, .. }), "{e:?}");
        let e = Iterative::new(1, "zero", KrylovOptions::default(), &[0, 1], &[0], &[0.0]).unwrap_err();
        assert!(matches!(e, crate::Error::Singular { row: 0, .. }), "{e:?}");
    }

    #[test]
    fn values_are_tabled_when_few_and_kept_when_many() {
        let n = 1000;
        let mut a = board(n);
        let s = Iterative::new(n, "test", KrylovOptions::default(), &a.0, &a.1, &a.2).unwrap();
        assert!(matches!(s.m_vals, CodedValues::Table(..)) && matches!(s.r_vals, CodedValues::Table(..)));
        // Every entry different (more than 256 values): stored as they are, same answers.
        for (k, v) in a.2.iter_mut().enumerate() {
            if *v < 0.0 {
                *v *= 1.0 - 1e-3 * (k % 997) as f64 / 997.0;
            }
        }
        let s = Iterative::new(n, "test", KrylovOptions::default(), &a.0, &a.1, &a.2).unwrap();
        assert!(matches!(s.m_vals, CodedValues::Full(..)));
        let b = vec![1.0; n];
        let mut x = b.clone();
        s.solve_to(&mut x, 1e-12, false);
        assert!(max_residual(&a, &x, &b, false) <= 1e-9);
    }

    #[test]
    fn a_diverging_solve_says_so() {
        let n = 3000;
        let a = board(n);
        let options = KrylovOptions {
            preconditioner: Preconditioner::Jacobi,
            max_products: 2_000,
            ..KrylovOptions::default()
        };
        let s = Iterative::new(n, "test", options, &a.0, &a.1, &a.2).unwrap();
        let mut x = vec![1.0; n];
        s.solve_to(&mut x, 1e-12, false);
        let stats = s.stats();
        let r = max_residual(&a, &x, &vec![1.0; n], false);
        // Either it converged after all, or it says it did not.
        assert!(
            (stats.unconverged == 0 && r <= 1e-8)
                || (stats.unconverged == 1
                    && (stats.last_relative_residual.is_nan() || stats.last_relative_residual > 1e-12)),
            "{stats:?}, residual {r}"
        );
    }

    #[test]
    fn an_unreachable_tolerance_is_reported_as_unconverged() {
        let n = 500;
        let a = board(n);
        let options = KrylovOptions {
            max_products: 4,
            ..KrylovOptions::default()
        };
        let s = Iterative::new(n, "test", options, &a.0, &a.1, &a.2).unwrap();
        let mut x = vec![1.0; n];
        s.solve_to(&mut x, 1e-15, false);
        assert_eq!(s.stats().unconverged, 1);
        assert!(s.stats().last_relative_residual > 1e-15);
        assert!(s.work().contains("short of their tolerance"), "{}", s.work());
    }
}
