use super::topological::Topological;
use super::{DenseSolve, Solvable};
use super::{KrylovMethod, KrylovOptions, Preconditioner, TriangularWoodbury};
use crate::Result;
use crate::account::LinearSolver;

/// Largest system solved by dense LU in `f64` (about 1 GiB of matrix and a minute of work).
pub const MAX_DENSE: usize = <f64 as Solvable>::DENSE_LIMIT;

/// Systems larger than this go to a sparse LU (when the arithmetic has one) rather than dense LU,
/// unless the triangular-plus-Woodbury method is cheaper still.
pub const SPARSE_FROM: usize = 600;

/// Largest system factored by sparse LU whatever its structure. Beyond it sparse LU is used only
/// when a reverse Cuthill–McKee ordering shows a narrow band (local transitions: rings, walks,
/// grids of modest width), whose factors stay small; for long-range structure its fill-in can
/// take hours and all memory, so a preconditioned Krylov method ([`Iterative`](super::Iterative))
/// solves instead.
pub const SPARSE_ANY_UP_TO: usize = 20_000;

/// Which method solves a system: chosen by structure ([`SolveMethod::Auto`]) or forced (the
/// command line's `--method`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SolveMethod {
    /// Chosen by [`Factored::new`]'s rules.
    #[default]
    Auto,
    /// Dense LU with partial pivoting.
    DenseLu,
    /// Sparse LU with a fill-reducing ordering (`f64` only).
    SparseLu,
    /// Sparse triangular solve plus a low-rank Woodbury correction.
    Woodbury,
    /// BiCGSTAB with a block Gauss–Seidel preconditioner (`f64` only).
    BiCgStab,
    /// Restarted GMRES(50) with a block Gauss–Seidel preconditioner (`f64` only).
    Gmres,
}

impl SolveMethod {
    /// The names accepted by [`parse`](Self::parse), in order.
    pub const NAMES: [&'static str; 6] = ["auto", "dense-lu", "sparse-lu", "woodbury", "bicgstab", "gmres"];

    /// The method named `name` (one of [`NAMES`](Self::NAMES)).
    #[must_use]
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "auto" => Self::Auto,
            "dense-lu" => Self::DenseLu,
            "sparse-lu" => Self::SparseLu,
            "woodbury" => Self::Woodbury,
            "bicgstab" => Self::BiCgStab,
            "gmres" => Self::Gmres,
            _ => return None,
        })
    }

    fn krylov(self) -> KrylovOptions {
        KrylovOptions {
            method: if self == Self::Gmres {
                KrylovMethod::Gmres(50)
            } else {
                KrylovMethod::BiCgStab
            },
            preconditioner: Preconditioner::GaussSeidel,
            ..KrylovOptions::default()
        }
    }
}

/// Systems with long-range structure from this size on are solved by the Krylov method (unless the
/// triangular-plus-Woodbury method is cheap): on the peer harness's board of 10⁴ cells BiCGSTAB
/// took 10 ms where the rank-1,000 Woodbury correction took 160 ms.
pub const KRYLOV_FROM: usize = 5_000;

/// Below [`KRYLOV_FROM`], the smallest system on which a costly Woodbury correction gives way to
/// the Krylov method (smaller ones are solved directly whatever the structure, which also keeps
/// policy iteration's low-rank updates of its evaluations on small MDPs: the random chain of 10³
/// states took 21-70 ms by its rank-692 correction, BiCGSTAB 1 ms).
const KRYLOV_SMALL_FROM: usize = 512;

/// The Krylov method's work in units of `nnz`, for comparing it with a direct method: about 40
/// preconditioned products and the refinement's residuals, with room to spare.
const KRYLOV_WORK: f64 = 1_000.0;

/// Largest `n × k` (the Woodbury correction's `n × k` block, in values) accepted.
const MAX_WOODBURY_VALUES: usize = 50_000_000;

/// Operations of a band factorisation (`n · b²`) per stored entry up to which the automatic
/// choice prefers it to a Krylov solve: a band of 200 on a chain with 3 entries per row
/// (13,000 per entry) took 12 s per solve at 10⁵ unknowns where BiCGSTAB takes well under one.
const BAND_WORK_PER_ENTRY: f64 = 500.0;

/// Largest `n × bandwidth` accepted beyond [`SPARSE_ANY_UP_TO`] (about the entries of band
/// factors: 2·10⁸ is 1.6 GB of `f64`).
const MAX_BAND_WORK: usize = 200_000_000;

/// A factored sparse matrix, by the method that suits its structure, in any [`Solvable`].
#[derive(Debug)]
pub enum Factored<T: Solvable = f64> {
    /// Dense LU (faer's for `f64`, Gaussian elimination for rationals).
    Dense(Box<dyn DenseSolve<T>>, usize),
    /// Triangular solve plus a rank-`k` Woodbury correction.
    Woodbury(TriangularWoodbury<T>),
    /// Sparse LU ([`SparseLu`](super::SparseLu) for `f64`).
    Sparse(Box<dyn DenseSolve<T>>, usize),
    /// A preconditioned Krylov method ([`Iterative`](super::Iterative) for `f64`): solves are
    /// approximate and must be refined against a residual.
    Iterative(Box<dyn DenseSolve<T>>, usize),
    /// Block triangular form by strongly connected components, each block by its own method.
    Topological(Box<Topological<T>>),
}

impl<T: Solvable> Factored<T> {
    /// Factors the `n × n` matrix whose row `i` is `rows(i)` (pairs `(column, value)`). Uses
    /// [`TriangularWoodbury`] when its feedback columns are few enough that `k · nnz + k³` beats the
    /// dense `n³` and `n · k` values fit in memory; otherwise a sparse LU from [`SPARSE_FROM`]
    /// unknowns on (if the arithmetic has one), dense LU below that.
    ///
    /// # Errors
    /// [`crate::Error::Singular`] on numerical breakdown; [`crate::Error::TooLarge`] if the method
    /// that applies exceeds [`Solvable::DENSE_LIMIT`] (for the dense method, or the Woodbury
    /// correction's `k × k` system).
    pub fn new<I>(n: usize, what: &'static str, rows: impl Fn(usize) -> I) -> Result<Self>
    where
        I: Iterator<Item = (u32, T)>,
    {
        Self::with_method(n, what, SolveMethod::Auto, rows)
    }

    /// As [`new`](Self::new), with the method forced unless it is [`SolveMethod::Auto`]. Methods
    /// the arithmetic lacks (sparse LU and Krylov methods in exact rationals) fall back to the
    /// automatic choice.
    ///
    /// # Errors
    /// As [`new`](Self::new).
    pub fn with_method<I>(
        n: usize,
        what: &'static str,
        method: SolveMethod,
        rows: impl Fn(usize) -> I,
    ) -> Result<Self>
    where
        I: Iterator<Item = (u32, T)>,
    {
        Self::choose(n, what, method, rows, None, true)
    }

    /// As [`with_method`](Self::with_method) for the matrix given in CSR form
    /// `a = (row_ptr, cols, vals)` (sorted rows without repeats), which the iterative methods and
    /// the split into components read directly instead of copying it.
    ///
    /// # Errors
    /// As [`new`](Self::new).
    pub fn for_csr(
        n: usize,
        what: &'static str,
        method: SolveMethod,
        a: (&[usize], &[u32], &[T]),
    ) -> Result<Self> {
        let (row_ptr, cols, vals) = a;
        let rows = |i: usize| {
            let r = row_ptr[i]..row_ptr[i + 1];
            cols[r.clone()].iter().copied().zip(vals[r].iter().cloned())
        };
        Self::choose(n, what, method, rows, Some(a), true)
    }

    /// The automatic choice (or the forced `method`) for the matrix with rows `rows`, also given
    /// in CSR form by `csr` when present; with `split`, first by strongly connected components
    /// ([`Topological`]) when that pays.
    fn choose<I>(
        n: usize,
        what: &'static str,
        method: SolveMethod,
        rows: impl Fn(usize) -> I,
        csr: Option<(&[usize], &[u32], &[T])>,
        split: bool,
    ) -> Result<Self>
    where
        I: Iterator<Item = (u32, T)>,
    {
        let auto = method == SolveMethod::Auto
            || (T::EXACT
                && matches!(
                    method,
                    SolveMethod::SparseLu | SolveMethod::BiCgStab | SolveMethod::Gmres
                ));
        if split
            && auto
            && n >= SPARSE_FROM
            && let Some(t) = Topological::new(n, what, &rows, csr)?
        {
            return Ok(Self::Topological(Box::new(t)));
        }
        Self::choose_whole(n, what, method, rows, csr, auto)
    }

    /// [`choose`](Self::choose) without the split: one method for the whole matrix (`auto`:
    /// whether the method is chosen automatically).
    pub(super) fn choose_whole<I>(
        n: usize,
        what: &'static str,
        method: SolveMethod,
        rows: impl Fn(usize) -> I,
        csr: Option<(&[usize], &[u32], &[T])>,
        auto: bool,
    ) -> Result<Self>
    where
        I: Iterator<Item = (u32, T)>,
    {
        let mut woodbury = method == SolveMethod::Woodbury || (auto && Self::woodbury_pays(n, &rows));
        let krylov = match method {
            SolveMethod::BiCgStab | SolveMethod::Gmres => !T::EXACT,
            // From KRYLOV_FROM unknowns with long-range structure: the Krylov method, unless the
            // Woodbury correction is cheap (a few dozen products' worth of work).
            SolveMethod::Auto if !T::EXACT && n >= KRYLOV_FROM && !band_pays(n, &rows) => {
                let go = !woodbury || Self::woodbury_work(n, &rows) > KRYLOV_WORK;
                woodbury &= !go;
                go
            }
            // Below that, a Woodbury correction of high rank (a random chain's: rank 0.7 n,
            // its k³/3 dominating) gives way to the Krylov method when it would cost more than
            // the Krylov solve's budget; dense and sparse LU keep the small systems.
            SolveMethod::Auto if !T::EXACT && woodbury && n >= KRYLOV_SMALL_FROM => {
                let go = Self::woodbury_work(n, &rows) > KRYLOV_WORK;
                woodbury &= !go;
                go
            }
            _ => false,
        };
        if krylov {
            let options = method.krylov();
            let solver = match csr {
                Some(csr) => T::iterative(n, what, options, csr),
                None => {
                    let (row_ptr, cols, vals) = sorted_csr(n, &rows);
                    T::iterative(n, what, options, (&row_ptr, &cols, &vals))
                }
            };
            return Ok(Self::Iterative(solver.expect("f64 has Krylov solvers")?, n));
        }
        // A forced method gets the same guards as the automatic choice: no hour-long runs.
        if method == SolveMethod::Woodbury {
            let (k, _) = TriangularWoodbury::<T>::shape(n, &rows);
            if n.saturating_mul(k) > MAX_WOODBURY_VALUES || k > T::DENSE_LIMIT {
                return Err(crate::Error::arg(
                    "method",
                    format!(
                        "woodbury on {what}: the correction would have rank {k} over {n} unknowns \
                         ({} values, limit {MAX_WOODBURY_VALUES}); use auto{}",
                        n.saturating_mul(k),
                        if T::EXACT { "" } else { " or bicgstab" }
                    ),
                ));
            }
        }
        if method == SolveMethod::DenseLu && n > T::DENSE_LIMIT {
            return Err(crate::Error::arg(
                "method",
                format!(
                    "dense-lu on {what}: {n} unknowns, more than the {} a dense factorisation handles; use auto{}",
                    T::DENSE_LIMIT,
                    if T::EXACT { "" } else { " or bicgstab" }
                ),
            ));
        }
        if method == SolveMethod::SparseLu && !T::EXACT && n > SPARSE_ANY_UP_TO && !band_is_narrow(n, &rows) {
            return Err(crate::Error::arg(
                "method",
                format!(
                    "sparse-lu on {what}: {n} unknowns with long-range transitions would fill in \
                     (limit {SPARSE_ANY_UP_TO} unless the band is narrow); use auto or bicgstab"
                ),
            ));
        }
        if woodbury {
            Ok(Self::Woodbury(TriangularWoodbury::new(n, what, rows)?))
        } else if method != SolveMethod::DenseLu
            && (n >= SPARSE_FROM || method == SolveMethod::SparseLu)
            && let Some(lu) = T::sparse_factor(
                n,
                what,
                &(0..n)
                    .flat_map(|i| rows(i).map(move |(j, v)| (i as u32, j, v)))
                    .collect::<Vec<_>>(),
            )
        {
            Ok(Self::Sparse(lu?, n))
        } else {
            let mut a = vec![T::zero(); if n <= T::DENSE_LIMIT { n * n } else { 0 }];
            if n <= T::DENSE_LIMIT {
                for i in 0..n {
                    for (j, v) in rows(i) {
                        let e = &mut a[i * n + j as usize];
                        *e = e.plus(&v);
                    }
                }
            }
            Ok(Self::Dense(T::dense_factor(n, what, a)?, n))
        }
    }

    /// The triangular-plus-Woodbury method's work on the matrix with rows `rows`, in units of its
    /// stored entries: `(k (nnz + n) + k³/3) / nnz` for a correction of rank `k`.
    fn woodbury_work<I>(n: usize, rows: &impl Fn(usize) -> I) -> f64
    where
        I: Iterator<Item = (u32, T)>,
    {
        let (k, nnz) = TriangularWoodbury::<T>::shape(n, rows);
        let (kf, nf, zf) = (k as f64, n as f64, nnz.max(1) as f64);
        (kf * (zf + nf) + kf * kf * kf / 3.0) / zf
    }

    /// Whether the triangular-plus-Woodbury method beats dense LU on the matrix with rows `rows`:
    /// `k · nnz + k³` below the dense `n³`, and `n · k` values fit in memory.
    fn woodbury_pays<I>(n: usize, rows: &impl Fn(usize) -> I) -> bool
    where
        I: Iterator<Item = (u32, T)>,
    {
        let (k, nnz) = TriangularWoodbury::<T>::shape(n, rows);
        let (nf, kf) = (n as f64, k as f64);
        let woodbury_cost = kf * (nnz as f64 + nf) + kf * kf * kf / 3.0;
        // Against dense LU, and from SPARSE_FROM against a band factorisation when the band
        // is narrow (n · b²).
        let mut other = nf * nf * nf / 3.0;
        if n >= SPARSE_FROM
            && !T::EXACT
            && woodbury_cost < other
            && let Some(b) = band_width(n, rows)
        {
            other = other.min(nf * (b as f64) * (b as f64));
        }
        woodbury_cost < other && n * k <= MAX_WOODBURY_VALUES
    }

    /// As [`new`](Self::new), unless that would take a general sparse LU or a Krylov method (no
    /// triangular structure, no small dense system): `None` then, for callers that have a
    /// cheaper alternative to a solve whose fill-in is unpredictable (value iteration, for
    /// instance). A matrix whose strongly connected components are all below [`SPARSE_FROM`]
    /// is cheap whatever its band (the split solves each densely, in one pass); otherwise it is
    /// cheap when the triangular-plus-Woodbury method pays on the whole. The decomposition is
    /// computed once, for the decision and the factorisation. The matrix is given in CSR form
    /// `csr = (row_ptr, cols, vals)` (sorted rows without repeats), as for
    /// [`for_csr`](Self::for_csr).
    ///
    /// # Errors
    /// As [`new`](Self::new).
    pub fn new_if_cheap(n: usize, what: &'static str, csr: (&[usize], &[u32], &[T])) -> Result<Option<Self>> {
        let (row_ptr, cols, vals) = csr;
        let rows = |i: usize| {
            let r = row_ptr[i]..row_ptr[i + 1];
            cols[r.clone()].iter().copied().zip(vals[r].iter().cloned())
        };
        if n < SPARSE_FROM || T::EXACT {
            return Self::for_csr(n, what, SolveMethod::Auto, csr).map(Some);
        }
        let sccs = crate::graph::sccs_of(n, |v| &cols[row_ptr[v]..row_ptr[v + 1]]);
        if sccs.largest() >= SPARSE_FROM && !Self::woodbury_pays(n, &rows) {
            return Ok(None);
        }
        if let Some(t) = Topological::with_components(n, what, csr, &sccs)? {
            return Ok(Some(Self::Topological(Box::new(t))));
        }
        Self::choose_whole(n, what, SolveMethod::Auto, rows, Some(csr), true).map(Some)
    }

    /// Solves `A x = b` in place (approximately for [`Factored::Iterative`]: to its default
    /// tolerance).
    ///
    /// # Panics
    /// - panics if `b` has the wrong length.
    #[track_caller]
    pub fn solve_in_place(&self, b: &mut [T]) {
        match self {
            Self::Dense(lu, _) | Self::Sparse(lu, _) | Self::Iterative(lu, _) => lu.solve_in_place(b),
            Self::Woodbury(w) => w.solve_in_place(b),
            Self::Topological(t) => t.solve(b, None, false),
        }
    }

    /// Solves `Aᵀ x = b` in place (approximately for [`Factored::Iterative`]).
    ///
    /// # Panics
    /// - panics if `b` has the wrong length.
    #[track_caller]
    pub fn solve_transpose_in_place(&self, b: &mut [T]) {
        match self {
            Self::Dense(lu, _) | Self::Sparse(lu, _) | Self::Iterative(lu, _) => {
                lu.solve_transpose_in_place(b)
            }
            Self::Woodbury(w) => w.solve_transpose_in_place(b),
            Self::Topological(t) => t.solve(b, None, true),
        }
    }

    /// Solves `A x = b` (or `Aᵀ x = b`) in place; an iterative method stops at the relative 2-norm
    /// residual `tolerance`, a factorisation ignores it.
    ///
    /// # Panics
    /// - panics if `b` has the wrong length.
    #[track_caller]
    pub fn solve_to(&self, b: &mut [T], tolerance: f64, transpose: bool) {
        match self {
            Self::Iterative(s, _) => s.solve_to(b, tolerance, transpose),
            Self::Topological(t) => t.solve(b, Some(tolerance), transpose),
            _ if transpose => self.solve_transpose_in_place(b),
            _ => self.solve_in_place(b),
        }
    }

    /// Whether callers must refine solves with the solution carried as a pair of `f64`: a Krylov
    /// method (its solves are approximate) or [`GthLu`](super::GthLu) (accurate, but on systems
    /// so close to singular that only a residual in more than `f64` certifies the result).
    #[must_use]
    pub fn is_iterative(&self) -> bool {
        match self {
            Self::Iterative(..) => true,
            Self::Dense(lu, _) => lu.is_iterative(),
            Self::Topological(t) => t.is_iterative(),
            _ => false,
        }
    }

    /// The number of unknowns.
    #[must_use]
    pub fn n(&self) -> usize {
        match self {
            Self::Dense(_, n) | Self::Sparse(_, n) | Self::Iterative(_, n) => *n,
            Self::Woodbury(w) => w.n(),
            Self::Topological(t) => t.n(),
        }
    }

    /// The method, with its size (and work so far, for a Krylov method), for reports; its
    /// `Display` is the one-line description.
    #[must_use]
    pub fn solver(&self) -> LinearSolver {
        match self {
            Self::Dense(lu, n) | Self::Sparse(lu, n) => LinearSolver::Factorization {
                name: lu.method(),
                n: *n,
                exact: T::EXACT,
            },
            Self::Iterative(s, n) => LinearSolver::Krylov {
                name: s.method(),
                n: *n,
                work: s.work(),
            },
            Self::Topological(t) => t.solver(),
            Self::Woodbury(w) => LinearSolver::Triangular {
                n: w.n(),
                rank: w.rank(),
                exact: T::EXACT,
            },
        }
    }

    /// A one-line description of the method, for reports: [`solver`](Self::solver) as text.
    #[must_use]
    pub fn method(&self) -> String {
        self.solver().to_string()
    }
}

/// Whether sparse LU's factors stay small: the band of the matrix with rows `rows(i)` is narrow
/// (`n × bandwidth ≤ MAX_BAND_WORK` and at most 1,000) in the natural order or after reverse
/// Cuthill–McKee.
///
/// Before the ordering, a cheap proof of a wide band: the states within `d` steps of a state (a
/// breadth-first ball `B_d` along the rows) lie within distance `2d` of each other in the
/// undirected graph, so any ordering spreads them over at least `|B_d| − 1` positions joined by
/// paths of at most `2d` edges, and some edge spans `(|B_d| − 1)/(2d)` or more. Chains with
/// long-range transitions (random portals) prove wide within a few levels.
fn band_is_narrow<T: Solvable, I: Iterator<Item = (u32, T)>>(n: usize, rows: &impl Fn(usize) -> I) -> bool {
    band_width(n, rows).is_some()
}

/// The band's width (in the natural order, or after reverse Cuthill–McKee) when it is narrow in
/// the sense of [`band_is_narrow`].
fn band_width<T: Solvable, I: Iterator<Item = (u32, T)>>(
    n: usize,
    rows: &impl Fn(usize) -> I,
) -> Option<usize> {
    // Also at most 1,000 wide: sparse LU on a band of width b costs about n·b² operations.
    let limit = (MAX_BAND_WORK / n.max(1)).min(1_000);
    let natural = (0..n)
        .flat_map(|i| rows(i).map(move |(j, _)| (j as usize).abs_diff(i)))
        .try_fold(0usize, |w, d| (d <= limit).then_some(w.max(d)));
    if natural.is_some() {
        return natural;
    }
    if [0, n / 2].iter().any(|&s| ball_proves_wide(n, rows, s, limit)) {
        return None;
    }
    let w = rcm_bandwidth(n, rows, limit);
    (w <= limit).then_some(w)
}

/// Whether a band factorisation is cheaper than a Krylov solve: its `n · b²` operations within
/// [`BAND_WORK_PER_ENTRY`] per stored entry (a preconditioned Krylov solve takes some tens of
/// products, each a few passes over the entries).
fn band_pays<T: Solvable, I: Iterator<Item = (u32, T)>>(n: usize, rows: &impl Fn(usize) -> I) -> bool {
    band_width(n, rows).is_some_and(|b| {
        let nnz: usize = (0..n).map(|i| rows(i).count()).sum();
        (n as f64) * (b as f64) * (b as f64) <= BAND_WORK_PER_ENTRY * nnz as f64
    })
}

/// Whether the breadth-first ball around `start` along the rows proves a bandwidth above `limit`
/// (see [`band_is_narrow`]); gives up after 64 levels or 2¹⁶ states.
fn ball_proves_wide<T: Solvable, I: Iterator<Item = (u32, T)>>(
    n: usize,
    rows: &impl Fn(usize) -> I,
    start: usize,
    limit: usize,
) -> bool {
    if start >= n {
        return false;
    }
    let mut seen = std::collections::HashSet::from([start as u32]);
    let mut frontier = vec![start as u32];
    for d in 1..=64usize {
        let mut next = Vec::new();
        for &v in &frontier {
            for (w, _) in rows(v as usize) {
                if (w as usize) < n && seen.insert(w) {
                    next.push(w);
                }
            }
        }
        if next.is_empty() {
            return false;
        }
        if (seen.len() - 1) / (2 * d) > limit {
            return true;
        }
        if seen.len() > 1 << 16 {
            return false;
        }
        frontier = next;
    }
    false
}

/// The matrix with rows `rows(i)` in CSR form, each row sorted by column with repeats summed.
pub(super) fn sorted_csr<T: Solvable, I: Iterator<Item = (u32, T)>>(
    n: usize,
    rows: &impl Fn(usize) -> I,
) -> (Vec<usize>, Vec<u32>, Vec<T>) {
    let mut row_ptr = Vec::with_capacity(n + 1);
    row_ptr.push(0);
    let (mut cols, mut vals) = (Vec::new(), Vec::<T>::new());
    let mut row: Vec<(u32, T)> = Vec::new();
    for i in 0..n {
        row.clear();
        row.extend(rows(i));
        if !row.is_sorted_by_key(|e| e.0) {
            row.sort_by_key(|e| e.0);
        }
        let start = cols.len();
        for (j, v) in row.drain(..) {
            if cols.len() > start && cols.last() == Some(&j) {
                let last = vals.last_mut().expect("a value per column");
                *last = last.plus(&v);
            } else {
                cols.push(j);
                vals.push(v);
            }
        }
        row_ptr.push(cols.len());
    }
    (row_ptr, cols, vals)
}

/// The bandwidth of the symmetric pattern of the `n × n` matrix with rows `rows(i)` after a
/// reverse Cuthill–McKee ordering (Cuthill & McKee, "Reducing the bandwidth of sparse symmetric
/// matrices", 1969; George & Liu, *Computer Solution of Large Sparse Positive Definite Systems*,
/// 1981, §4.3): breadth-first from a low-degree vertex, neighbours by increasing degree, each
/// component in turn. Reversal does not change the bandwidth, so it is skipped.
///
/// Stops early, returning a value above `limit`, once the bandwidth is known to exceed `limit`.
fn rcm_bandwidth<T: Solvable, I: Iterator<Item = (u32, T)>>(
    n: usize,
    rows: &impl Fn(usize) -> I,
    limit: usize,
) -> usize {
    // Symmetric adjacency in CSR.
    let mut degree = vec![0usize; n + 1];
    for i in 0..n {
        for (j, _) in rows(i) {
            if j as usize != i {
                degree[i + 1] += 1;
                degree[j as usize + 1] += 1;
            }
        }
    }
    for i in 0..n {
        degree[i + 1] += degree[i];
    }
    let mut adj = vec![0u32; degree[n]];
    let mut next = degree.clone();
    for i in 0..n {
        for (j, _) in rows(i) {
            let j = j as usize;
            if j != i {
                adj[next[i]] = j as u32;
                next[i] += 1;
                adj[next[j]] = i as u32;
                next[j] += 1;
            }
        }
    }
    let deg = |v: usize| degree[v + 1] - degree[v];
    let mut order = vec![u32::MAX; n];
    let mut position = 0usize;
    let mut by_degree: Vec<usize> = (0..n).collect();
    by_degree.sort_by_key(|&v| deg(v));
    let mut queue = std::collections::VecDeque::new();
    let mut neighbours = Vec::new();
    for &start in &by_degree {
        if order[start] != u32::MAX {
            continue;
        }
        order[start] = position as u32;
        position += 1;
        queue.push_back(start);
        while let Some(v) = queue.pop_front() {
            neighbours.clear();
            neighbours.extend(
                adj[degree[v]..degree[v + 1]]
                    .iter()
                    .map(|&w| w as usize)
                    .filter(|&w| order[w] == u32::MAX),
            );
            neighbours.sort_by_key(|&w| deg(w));
            neighbours.dedup();
            for &w in &neighbours {
                if order[w] == u32::MAX {
                    order[w] = position as u32;
                    position += 1;
                    queue.push_back(w);
                }
            }
            // Every neighbour of v is now numbered: its edges' spans are final.
            let span = adj[degree[v]..degree[v + 1]]
                .iter()
                .map(|&w| order[v].abs_diff(order[w as usize]) as usize)
                .max()
                .unwrap_or(0);
            if span > limit {
                return span;
            }
        }
    }
    (0..n)
        .flat_map(|v| {
            adj[degree[v]..degree[v + 1]]
                .iter()
                .map(move |&w| (v, w as usize))
        })
        .map(|(v, w)| order[v].abs_diff(order[w]) as usize)
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rcm_finds_the_narrow_band_of_a_ring() {
        // A ring 0 − 1 − … − 999 − 0 has bandwidth 999 in the natural order, 2 after RCM.
        let n = 1000;
        let rows = |i: usize| {
            let (a, b) = (((i + n - 1) % n) as u32, ((i + 1) % n) as u32);
            [(i as u32, 1.0), (a, -0.5), (b, -0.5)].into_iter()
        };
        assert_eq!(rcm_bandwidth::<f64, _>(n, &rows, n), 2);
        assert!(band_is_narrow::<f64, _>(n, &rows));
    }
}
