use crate::games::{BoardError, InputError};
use crate::{Error, Result};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// Largest board size accepted (cells `0..=size`).
pub const MAX_SIZE: u32 = 100_000_000;

/// What happens to a roll that would pass the last cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Rule {
    /// Land on the last cell (the game ends).
    #[default]
    Clamp,
    /// The token does not move; the roll still counts (exact landing needed).
    Stay,
    /// Walk back by the excess: from `c` with roll `d` past `size`, land on `2·size − (c + d)`.
    Bounce,
}

impl Rule {
    /// The rule's name as written in board files and on the command line.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Rule::Clamp => "clamp",
            Rule::Stay => "stay",
            Rule::Bounce => "bounce",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Rule {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "clamp" => Ok(Rule::Clamp),
            "stay" => Ok(Rule::Stay),
            "bounce" => Ok(Rule::Bounce),
            _ => Err(format!("unknown rule '{s}' (expected clamp, stay or bounce)")),
        }
    }
}

/// The die: face `d` (`1..=F`) comes up with probability `probabilities[d − 1]`.
#[derive(Clone, Debug, PartialEq)]
pub enum Die {
    /// A fair die with this many faces.
    Fair(usize),
    /// Face weights (any non-negative numbers with a positive sum), normalised on use.
    Weighted(Vec<f64>),
}

impl Default for Die {
    fn default() -> Self {
        Die::Fair(6)
    }
}

impl Die {
    /// Number of faces `F`.
    #[must_use]
    pub fn faces(&self) -> usize {
        match self {
            Die::Fair(f) => *f,
            Die::Weighted(w) => w.len(),
        }
    }

    /// The weight of each face (1 for a fair die), length `F`.
    #[must_use]
    pub fn weights(&self) -> Vec<f64> {
        match self {
            Die::Fair(f) => vec![1.0; *f],
            Die::Weighted(w) => w.clone(),
        }
    }

    /// The probability of each face, length `F`.
    #[must_use]
    pub fn probabilities(&self) -> Vec<f64> {
        match self {
            Die::Fair(f) => vec![1.0 / *f as f64; *f],
            Die::Weighted(w) => {
                let sum: f64 = w.iter().sum();
                w.iter().map(|x| x / sum).collect()
            }
        }
    }

    fn validate(&self) -> Result<(), BoardError> {
        match self {
            Die::Fair(0) => Err(BoardError::Die("a die needs at least one face".into())),
            Die::Fair(f) if *f > 1_000_000 => Err(BoardError::Die(format!(
                "{f} faces is too many (at most 1000000)"
            ))),
            Die::Fair(_) => Ok(()),
            Die::Weighted(w) => {
                if w.is_empty() {
                    return Err(BoardError::Die("the weight list is empty".into()));
                }
                if let Some((i, x)) = w.iter().enumerate().find(|(_, x)| !(x.is_finite() && **x >= 0.0)) {
                    return Err(BoardError::Die(format!(
                        "weight of face {} is {x}; weights must be finite and >= 0",
                        i + 1
                    )));
                }
                let sum = w.iter().sum::<f64>();
                if sum <= 0.0 {
                    return Err(BoardError::Die("the weights sum to 0".into()));
                }
                if !sum.is_finite() {
                    return Err(BoardError::Die(
                        "the weights sum to more than the largest number (scale them down)".into(),
                    ));
                }
                Ok(())
            }
        }
    }
}

/// Snake, ladder, or a portal of either direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PortalKind {
    /// Leads up (`to > from`).
    Ladder,
    /// Leads down (`to < from`).
    Snake,
    /// Either direction (LightOJ's "portals").
    Portal,
}

impl PortalKind {
    /// "ladder", "snake" or "portal".
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            PortalKind::Ladder => "ladder",
            PortalKind::Snake => "snake",
            PortalKind::Portal => "portal",
        }
    }
}

/// A snake or ladder: landing on `from` moves the token to `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Portal {
    /// Entrance cell.
    pub from: u32,
    /// Exit cell.
    pub to: u32,
    /// How it was given.
    pub kind: PortalKind,
}

/// A board as given, before validation: numbers are wide so that out-of-range values can be
/// reported as given; each portal may carry the line of the file it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardSpec {
    /// A name for reports.
    pub name: String,
    /// The last cell (cells are `0..=size`).
    pub size: i64,
    /// The start cell.
    pub start: i64,
    /// The die.
    pub die: Die,
    /// The rule for rolls past the last cell.
    pub rule: Rule,
    /// Portals: (kind, from, to, line in the board file).
    pub portals: Vec<(PortalKind, i64, i64, Option<usize>)>,
    /// The file the spec was read from.
    pub path: Option<PathBuf>,
    /// Lines of the file's keys (`size`, `start`, `die` for `faces` or `die`, `rule`), for errors.
    pub key_lines: std::collections::BTreeMap<&'static str, usize>,
}

impl BoardSpec {
    /// An empty board of `size` (cells `0..=size`), start 0, fair 6-sided die, rule `clamp`.
    #[must_use]
    pub fn empty(size: i64) -> Self {
        Self {
            name: "empty".into(),
            size,
            start: 0,
            die: Die::default(),
            rule: Rule::Clamp,
            portals: Vec::new(),
            path: None,
            key_lines: Default::default(),
        }
    }

    /// Replaces the portals by `count` random ladders and `count` random snakes, the distribution of
    /// the peer harness's generator (shared/peers/gen_board.py): `4·count` distinct cells drawn
    /// uniformly from `1..size` (never the start 0 or the goal), paired at random; in the first
    /// `count` pairs the lower cell leads up to the higher (ladders), in the others the higher leads
    /// down to the lower (snakes). So no portal starts or ends on another's cell and none chains.
    /// Deterministic for a `seed` (Xoshiro256++; the boards differ from numpy's for the same seed,
    /// the distribution is the same).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `4·count > size − 1` (not enough cells).
    pub fn with_random_portals(mut self, count: u32, seed: u64) -> Result<Self> {
        use rand::{RngExt, SeedableRng};
        let cells = self.size.saturating_sub(1).max(0) as u64;
        let needed = 4 * u64::from(count);
        if needed > cells {
            return Err(Error::arg(
                "random portals",
                format!(
                    "{count} ladders and {count} snakes need {needed} distinct cells in 1..{}, the board has {cells}",
                    self.size
                ),
            ));
        }
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        // Floyd's sampling of `needed` distinct cells, then a Fisher–Yates shuffle for the pairing.
        // The chosen set as a bit per cell (not a hash set: 10⁷ insertions on the largest boards).
        let mut chosen = vec![0u64; cells.div_ceil(64) as usize];
        let mut insert = |c: u64| {
            let (word, bit) = ((c / 64) as usize, 1u64 << (c % 64));
            let fresh = chosen[word] & bit == 0;
            chosen[word] |= bit;
            fresh
        };
        let mut picked = Vec::with_capacity(needed as usize);
        for j in cells - needed..cells {
            let t = rng.random_range(0..=j);
            let cell = if insert(t) {
                t
            } else {
                insert(j);
                j
            };
            picked.push(cell as i64 + 1);
        }
        for i in (1..picked.len()).rev() {
            let j = rng.random_range(0..=i);
            picked.swap(i, j);
        }
        self.portals = picked
            .chunks(2)
            .enumerate()
            .map(|(i, pair)| {
                let (lo, hi) = (pair[0].min(pair[1]), pair[0].max(pair[1]));
                if (i as u32) < count {
                    (PortalKind::Ladder, lo, hi, None)
                } else {
                    (PortalKind::Snake, hi, lo, None)
                }
            })
            .collect();
        self.name = format!(
            "random: size {}, {count} ladders, {count} snakes, seed {seed}",
            self.size
        );
        Ok(self)
    }

    /// The Milton Bradley "Chutes and Ladders" board: 100 cells, start 0, ladders 1→38, 4→14,
    /// 9→31, 21→42, 28→84, 36→44, 51→67, 71→91, 80→100; snakes 16→6, 47→26, 49→11, 56→53, 62→19,
    /// 64→60, 87→24, 93→73, 95→75, 98→78.
    #[must_use]
    pub fn classic() -> Self {
        let ladders = [
            (1, 38),
            (4, 14),
            (9, 31),
            (21, 42),
            (28, 84),
            (36, 44),
            (51, 67),
            (71, 91),
            (80, 100),
        ];
        let snakes = [
            (16, 6),
            (47, 26),
            (49, 11),
            (56, 53),
            (62, 19),
            (64, 60),
            (87, 24),
            (93, 73),
            (95, 75),
            (98, 78),
        ];
        let mut s = Self::empty(100);
        s.name = "classic".into();
        s.portals = ladders
            .iter()
            .map(|&(a, b)| (PortalKind::Ladder, a, b, None))
            .chain(snakes.iter().map(|&(a, b)| (PortalKind::Snake, a, b, None)))
            .collect();
        s
    }

    /// The built-in board called `name` (`classic`, `empty`), if there is one.
    #[must_use]
    pub fn builtin(name: &str) -> Option<Self> {
        match name {
            "classic" => Some(Self::classic()),
            "empty" => Some(Self::empty(100)),
            _ => None,
        }
    }

    /// Names of the built-in boards.
    pub const BUILTINS: [&'static str; 2] = ["classic", "empty"];
}

/// A validated Snakes and Ladders board with its jump table.
#[derive(Clone, Debug, PartialEq)]
pub struct Board {
    pub(super) name: String,
    pub(super) size: u32,
    pub(super) start: u32,
    pub(super) die: Die,
    pub(super) probabilities: Vec<f64>,
    /// Face weights (1 for a fair die) and their sum: probabilities are `weights / total_weight`.
    pub(super) weights: Vec<f64>,
    pub(super) total_weight: f64,
    pub(super) rule: Rule,
    pub(super) portals: Vec<Portal>,
    /// `jump[c]` = where a token landing on `c` ends up. Length `size + 1`.
    pub(super) jump: Vec<u32>,
}

impl Board {
    /// Validates `spec`.
    ///
    /// # Errors
    /// [`InputError::Board`] inside [`Error::FrontEnd`] (with the file and line of the offending portal when known) for a size
    /// outside `1..=MAX_SIZE`, a start off the board, an invalid die, a portal end off the board,
    /// a portal from the last cell, two portals from one cell, a portal to itself, a ladder going
    /// down or a snake going up, or a bounce rule with a die larger than `size + 1`.
    pub fn new(spec: &BoardSpec) -> Result<Self> {
        let err = |line: Option<usize>, error: BoardError| {
            Error::from(InputError::Board {
                path: spec.path.clone(),
                line,
                error,
            })
        };
        let key = |k: &str| spec.key_lines.get(k).copied();
        if spec.size < 1 || spec.size > i64::from(MAX_SIZE) {
            let error = BoardError::Size {
                size: spec.size,
                max: MAX_SIZE,
            };
            return Err(err(key("size"), error));
        }
        let size = spec.size as u32;
        if spec.start < 0 || spec.start > spec.size {
            let error = BoardError::Start {
                start: spec.start,
                size,
            };
            return Err(err(key("start"), error));
        }
        spec.die.validate().map_err(|e| err(key("die"), e))?;
        let faces = spec.die.faces();
        if spec.rule == Rule::Bounce && faces > size as usize + 1 {
            return Err(err(key("rule"), BoardError::BounceTooFar { faces, size }));
        }
        let mut jump: Vec<u32> = (0..=size).collect();
        // For each entrance: index of the portal that uses it (`u32::MAX`: none; a board has at
        // most `size` portals).
        let mut owner: Vec<u32> = vec![u32::MAX; size as usize + 1];
        let mut portals = Vec::with_capacity(spec.portals.len());
        for (k, &(kind, from, to, line)) in spec.portals.iter().enumerate() {
            let kname = kind.name();
            for cell in [from, to] {
                if cell < 0 || cell > spec.size {
                    return Err(err(
                        line,
                        BoardError::OutOfRange {
                            kind: kname,
                            from,
                            to,
                            cell,
                            size,
                        },
                    ));
                }
            }
            let (from, to) = (from as u32, to as u32);
            if from == size {
                return Err(err(
                    line,
                    BoardError::FromLastCell {
                        kind: kname,
                        from,
                        to,
                    },
                ));
            }
            if from == to {
                return Err(err(
                    line,
                    BoardError::ToItself {
                        kind: kname,
                        cell: from,
                    },
                ));
            }
            if (kind == PortalKind::Ladder && to < from) || (kind == PortalKind::Snake && to > from) {
                return Err(err(
                    line,
                    BoardError::WrongDirection {
                        kind: kname,
                        from,
                        to,
                    },
                ));
            }
            if owner[from as usize] != u32::MAX {
                let (fk, _, fto, fline) = spec.portals[owner[from as usize] as usize];
                return Err(err(
                    line,
                    BoardError::Duplicate {
                        from,
                        first_kind: fk.name(),
                        first_to: fto as u32,
                        first_line: fline,
                        kind: kname,
                        to,
                    },
                ));
            }
            owner[from as usize] = k as u32;
            jump[from as usize] = to;
            let kind = match kind {
                PortalKind::Portal if to > from => PortalKind::Ladder,
                PortalKind::Portal => PortalKind::Snake,
                k => k,
            };
            portals.push(Portal { from, to, kind });
        }
        portals.sort_by_key(|p| p.from);
        Ok(Self {
            name: spec.name.clone(),
            size,
            start: spec.start as u32,
            probabilities: spec.die.probabilities(),
            weights: spec.die.weights(),
            total_weight: spec.die.weights().iter().sum(),
            die: spec.die.clone(),
            rule: spec.rule,
            portals,
            jump,
        })
    }

    /// The classic Milton Bradley board (see [`BoardSpec::classic`]).
    #[must_use]
    pub fn classic() -> Self {
        Self::new(&BoardSpec::classic()).expect("the classic board is valid")
    }

    /// The board's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The last cell; cells are `0..=size`.
    #[must_use]
    pub fn size(&self) -> u32 {
        self.size
    }

    /// The start cell (before its portal, if any).
    #[must_use]
    pub fn start(&self) -> u32 {
        self.start
    }

    /// The cell the token stands on before its first roll: the start cell after its portal.
    #[must_use]
    pub fn initial_cell(&self) -> u32 {
        self.jump[self.start as usize]
    }

    /// The die.
    #[must_use]
    pub fn die(&self) -> &Die {
        &self.die
    }

    /// The probability of each face `1..=F`, length `F`.
    #[must_use]
    pub fn face_probabilities(&self) -> &[f64] {
        &self.probabilities
    }

    /// The rule for rolls past the last cell.
    #[must_use]
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// The snakes and ladders, by entrance (portals given without a direction are classified by
    /// it).
    #[must_use]
    pub fn portals(&self) -> &[Portal] {
        &self.portals
    }

    /// The jump table: `jump()[c]` is where a token landing on `c` ends up. Length `size + 1`.
    #[must_use]
    pub fn jump(&self) -> &[u32] {
        &self.jump
    }

    /// Where the roll `d` (`1..=F`) from standing cell `c` lands, before any portal; `None` when
    /// the token does not move (rule `stay`, or `c` is the last cell).
    #[must_use]
    #[inline]
    pub fn landing(&self, c: u32, d: u32) -> Option<u32> {
        if c == self.size {
            return None;
        }
        let p = c + d;
        if p <= self.size {
            return Some(p);
        }
        match self.rule {
            Rule::Clamp => Some(self.size),
            Rule::Stay => None,
            Rule::Bounce => Some(2 * self.size - p),
        }
    }

    /// The cell the token stands on after rolling `d` from `c` (landing, then the portal there).
    #[must_use]
    #[inline]
    pub fn step(&self, c: u32, d: u32) -> u32 {
        match self.landing(c, d) {
            Some(p) => self.jump[p as usize],
            None => c,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(portals: &[(PortalKind, i64, i64)]) -> BoardSpec {
        let mut s = BoardSpec::empty(20);
        s.portals = portals.iter().map(|&(k, a, b)| (k, a, b, None)).collect();
        s
    }

    fn board_error(s: &BoardSpec) -> BoardError {
        match InputError::try_from_error(Board::new(s).unwrap_err()) {
            Ok(InputError::Board { error, .. }) => error,
            e => panic!("unexpected {e:?}"),
        }
    }

    #[test]
    fn each_bad_board_is_named() {
        use PortalKind::*;
        assert!(matches!(
            board_error(&spec(&[(Ladder, 3, 21)])),
            BoardError::OutOfRange { cell: 21, .. }
        ));
        assert!(matches!(
            board_error(&spec(&[(Snake, -1, 0)])),
            BoardError::OutOfRange { cell: -1, .. }
        ));
        assert!(matches!(
            board_error(&spec(&[(Snake, 20, 3)])),
            BoardError::FromLastCell { from: 20, .. }
        ));
        assert!(matches!(
            board_error(&spec(&[(Portal, 5, 5)])),
            BoardError::ToItself { cell: 5, .. }
        ));
        assert!(matches!(
            board_error(&spec(&[(Ladder, 5, 2)])),
            BoardError::WrongDirection { from: 5, to: 2, .. }
        ));
        assert!(matches!(
            board_error(&spec(&[(Snake, 5, 9)])),
            BoardError::WrongDirection { .. }
        ));
        assert!(matches!(
            board_error(&spec(&[(Ladder, 5, 9), (Snake, 5, 1)])),
            BoardError::Duplicate {
                from: 5,
                first_to: 9,
                to: 1,
                ..
            }
        ));
        let mut s = spec(&[]);
        s.start = 21;
        assert!(matches!(board_error(&s), BoardError::Start { start: 21, .. }));
        s.start = 0;
        s.size = 0;
        assert!(matches!(board_error(&s), BoardError::Size { size: 0, .. }));
        // Random portals: 4·count distinct inner cells, ladders up, snakes down, reproducible.
        let r = BoardSpec::empty(1000).with_random_portals(100, 7).unwrap();
        assert_eq!(r, BoardSpec::empty(1000).with_random_portals(100, 7).unwrap());
        let mut ends: Vec<i64> = r.portals.iter().flat_map(|p| [p.1, p.2]).collect();
        ends.sort_unstable();
        ends.dedup();
        assert_eq!(ends.len(), 400);
        assert!(ends.iter().all(|&c| (1..1000).contains(&c)));
        assert_eq!(
            r.portals
                .iter()
                .filter(|p| p.0 == PortalKind::Ladder && p.1 < p.2)
                .count(),
            100
        );
        assert_eq!(
            r.portals
                .iter()
                .filter(|p| p.0 == PortalKind::Snake && p.1 > p.2)
                .count(),
            100
        );
        assert!(Board::new(&r).is_ok());
        assert!(BoardSpec::empty(100).with_random_portals(25, 1).is_err());
        let mut s = spec(&[]);
        s.die = Die::Weighted(vec![1.0, -1.0]);
        assert!(matches!(board_error(&s), BoardError::Die(_)));
        s.die = Die::Fair(0);
        assert!(matches!(board_error(&s), BoardError::Die(_)));
        s.die = Die::Fair(22);
        s.rule = Rule::Bounce;
        assert!(matches!(board_error(&s), BoardError::BounceTooFar { .. }));
        // Portals given without a direction are fine either way.
        assert!(Board::new(&spec(&[(Portal, 5, 2), (Portal, 6, 12)])).is_ok());
    }

    #[test]
    fn rules_move_as_documented() {
        let mut s = BoardSpec::empty(10);
        s.portals = vec![(PortalKind::Snake, 8, 2, None)];
        let b = Board::new(&s).unwrap();
        assert_eq!(b.step(7, 4), 10); // clamp
        assert_eq!(b.step(7, 1), 2); // snake
        s.rule = Rule::Stay;
        let b = Board::new(&s).unwrap();
        assert_eq!(b.step(7, 4), 7);
        assert_eq!(b.step(7, 3), 10);
        s.rule = Rule::Bounce;
        let b = Board::new(&s).unwrap();
        assert_eq!(b.step(7, 4), 9); // 11 → 9
        assert_eq!(b.step(7, 5), 2); // 12 → 8 → snake to 2
    }
}
