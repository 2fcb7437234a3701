//! The games layer's errors: what is wrong with a built-in game's input (a Snakes and Ladders
//! board, a ladder-climbing board). They reach callers inside [`Error::FrontEnd`]; [`InputError::of`]
//! finds them there.

use crate::Error;
use std::path::PathBuf;

/// A built-in game's input is invalid, with the place it was found.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// A Snakes and Ladders board is invalid.
    #[error("{}{error}", location(.path, *.line))]
    Board {
        /// The board file, if the board came from one.
        path: Option<PathBuf>,
        /// The line of the offending entry in that file, counted from 1.
        line: Option<usize>,
        /// What is wrong.
        error: BoardError,
    },
    /// A square of a "Hyakugoku and Ladders" board (Codeforces 1245E) is invalid; rows are
    /// counted from the top, as the board is written, columns from the left, both from 1.
    #[error("row {row}, column {column}: {message}")]
    LadderSquare {
        /// Row of the square, 1 = the top row.
        row: usize,
        /// Column of the square, 1 = the leftmost.
        column: usize,
        /// What is wrong.
        message: String,
    },
}

impl InputError {
    /// The game input error inside `e`, if it is one.
    #[must_use]
    pub fn of(e: &Error) -> Option<&InputError> {
        match e {
            Error::FrontEnd(source) => source.downcast_ref(),
            _ => None,
        }
    }

    /// The game input error `e` is, or `e` back.
    ///
    /// # Errors
    /// `e` itself when it is not a game input error.
    pub fn try_from_error(e: Error) -> Result<InputError, Error> {
        match e {
            Error::FrontEnd(source) => source
                .downcast::<InputError>()
                .map(|b| *b)
                .map_err(Error::FrontEnd),
            e => Err(e),
        }
    }
}

impl From<InputError> for Error {
    fn from(e: InputError) -> Self {
        Error::FrontEnd(Box::new(e))
    }
}

impl From<BoardError> for Error {
    /// A board error without a file or line.
    fn from(error: BoardError) -> Self {
        InputError::Board {
            path: None,
            line: None,
            error,
        }
        .into()
    }
}

/// What is wrong with a Snakes and Ladders board. Wrapped in [`InputError::Board`], which adds the
/// file and line when the board came from a file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BoardError {
    /// The board must have at least one cell after the start.
    #[error("size {size} is out of range (1 to {max})")]
    Size {
        /// The given size.
        size: i64,
        /// The largest size supported.
        max: u32,
    },
    /// The start cell is not on the board.
    #[error("start cell {start} is not on the board (0 to {size})")]
    Start {
        /// The given start cell.
        start: i64,
        /// The board size (last cell).
        size: u32,
    },
    /// The die is invalid.
    #[error("die: {0}")]
    Die(String),
    /// A portal end lies outside the board.
    #[error("{kind} {from} -> {to}: cell {cell} is not on the board (0 to {size})")]
    OutOfRange {
        /// "ladder", "snake" or "portal".
        kind: &'static str,
        /// Entrance.
        from: i64,
        /// Exit.
        to: i64,
        /// The offending end.
        cell: i64,
        /// The board size.
        size: u32,
    },
    /// A portal starts on the last cell, which ends the game.
    #[error("{kind} {from} -> {to} starts on the last cell {from}, where the game ends")]
    FromLastCell {
        /// "ladder", "snake" or "portal".
        kind: &'static str,
        /// Entrance (the last cell).
        from: u32,
        /// Exit.
        to: u32,
    },
    /// Two portals start on the same cell.
    #[error("two portals start on cell {from}: {first_kind} {from} -> {first_to}{} and {kind} {from} -> {to}", first_line.map(|l| format!(" (line {l})")).unwrap_or_default())]
    Duplicate {
        /// The shared entrance.
        from: u32,
        /// The first portal's kind.
        first_kind: &'static str,
        /// The first portal's exit.
        first_to: u32,
        /// The first portal's line in the board file.
        first_line: Option<usize>,
        /// The second portal's kind.
        kind: &'static str,
        /// The second portal's exit.
        to: u32,
    },
    /// A portal leads to its own entrance.
    #[error("{kind} {cell} -> {cell} leads to itself")]
    ToItself {
        /// "ladder", "snake" or "portal".
        kind: &'static str,
        /// The cell.
        cell: u32,
    },
    /// A ladder leads down, or a snake up.
    #[error("{kind} {from} -> {to} goes {}; list it under `{}` (or `portals` if the direction does not matter)", if *.from < *.to { "up" } else { "down" }, if *.from < *.to { "ladders" } else { "snakes" })]
    WrongDirection {
        /// "ladder" or "snake".
        kind: &'static str,
        /// Entrance.
        from: u32,
        /// Exit.
        to: u32,
    },
    /// A bounce would reflect below cell 0.
    #[error("rule bounce needs faces <= size + 1 (got {faces} faces on a board of size {size})")]
    BounceTooFar {
        /// Number of die faces.
        faces: usize,
        /// The board size.
        size: u32,
    },
    /// The token can be trapped: from these reachable cells the last cell is not reached with
    /// probability 1.
    #[error(
        "the token can be trapped: the last cell {size} is not reached with probability 1 from cell(s) {}",
        kolmo_core::preview(cells)
    )]
    Trapped {
        /// The reachable cells (standing positions) that cannot finish almost surely, sorted.
        cells: Vec<u32>,
        /// The board size.
        size: u32,
    },
}

fn location(path: &Option<PathBuf>, line: Option<usize>) -> String {
    match (path, line) {
        (Some(p), Some(l)) => format!("{}:{l}: ", p.display()),
        (Some(p), None) => format!("{}: ", p.display()),
        (None, Some(l)) => format!("line {l}: "),
        (None, None) => String::new(),
    }
}
