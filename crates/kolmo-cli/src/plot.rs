//! Plots: `--plot FILE` (and `--plot-board FILE`) write a figure of a command's results as SVG or
//! PNG, chosen by the file's extension.
//!
//! The figures are kolmo-plot's: each is built from the library's results there
//! (`BoardFigure::of`, `GameLengthFigure::of`, ...) and rendered to SVG text or PNG bytes; this
//! module checks the files before the work and writes them after.

pub use kolmo_plot::{CardsFigure, DistributionFigure};

use anyhow::{Context, Result, bail};
use kolmo_plot::{BoardFigure, Figure, GameLengthFigure};
use std::path::{Path, PathBuf};

/// The plots `kolmo snakes` was asked for, their files checked before the analysis runs.
pub struct SnakesPlots {
    game: Option<Target>,
    board: Option<Target>,
}

impl SnakesPlots {
    /// Checks the extensions of --plot and --plot-board, and that the board is small enough to
    /// draw.
    ///
    /// # Errors
    /// A bad extension, an unwritable place, both flags naming one file, or a board over
    /// [`MAX_BOARD_CELLS`] cells with --plot-board.
    pub fn new(args: &crate::cli::SnakesArgs, board: &kolmo::games::snakes::Board) -> Result<Self> {
        let game = args
            .plot
            .as_deref()
            .map(|p| Target::new("--plot", p))
            .transpose()?;
        let target = args
            .plot_board
            .as_deref()
            .map(|p| Target::new("--plot-board", p))
            .transpose()?;
        if let (Some(a), Some(b)) = (&args.plot, &args.plot_board)
            && a == b
        {
            bail!(
                "--plot and --plot-board both name {}: give each figure its own file",
                a.display()
            );
        }
        if target.is_some()
            && let Err(e) = BoardFigure::check(board)
        {
            bail!("--plot-board: {e}");
        }
        Ok(Self { game, board: target })
    }

    /// Draws the asked-for plots from the analysis.
    ///
    /// # Errors
    /// As [`Target::render`].
    pub fn render(
        &self,
        board: &kolmo::games::snakes::Board,
        a: &kolmo::games::snakes::BoardAnalysis,
    ) -> Result<()> {
        if let Some(t) = &self.game {
            t.render(&GameLengthFigure::of(board, a))?;
            t.wrote();
        }
        if let Some(t) = &self.board {
            let figure = BoardFigure::of(board, a).context("--plot-board")?;
            t.render(&figure)?;
            t.wrote();
        }
        Ok(())
    }
}

/// The two formats, from the file's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Scalable vector graphics (text stays text).
    Svg,
    /// A bitmap, PNG-encoded.
    Png,
}

/// Where a figure goes: the file, its format, and the flag that named it (for messages).
#[derive(Clone, Debug)]
pub struct Target {
    flag: &'static str,
    path: PathBuf,
    format: Format,
}

impl Target {
    /// The file named by `flag`, its format from the extension (`.svg` or `.png`, any case).
    ///
    /// # Errors
    /// Any other extension (exit code 2: a usage error), named with the flag.
    pub fn new(flag: &'static str, path: &Path) -> Result<Self> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let format = match ext.as_deref() {
            Some("svg") => Format::Svg,
            Some("png") => Format::Png,
            _ => bail!(
                "{flag} {}: the format comes from the extension, .svg or .png",
                path.display()
            ),
        };
        // Check now that the file can be written, before any work: a missing directory or a
        // read-only place is reported as such (not as a drawing error after the analysis). A file
        // created by the check is removed again, so a later failure leaves nothing behind.
        let existed = path.exists();
        if let Err(error) = std::fs::OpenOptions::new().append(true).create(true).open(path) {
            return Err(kolmo::Error::Write {
                path: path.to_path_buf(),
                error,
            })
            .with_context(|| format!("{flag} {}", path.display()));
        }
        if !existed {
            let _ = std::fs::remove_file(path);
        }
        Ok(Self {
            flag,
            path: path.to_path_buf(),
            format,
        })
    }

    /// Says on standard error that the file was written.
    pub fn wrote(&self) {
        eprintln!("kolmo: wrote {}", self.path.display());
    }

    /// Draws `figure` into the file.
    ///
    /// # Errors
    /// The figure cannot be drawn ([`kolmo_plot::Error`]), or the file cannot be written
    /// ([`kolmo::Error::Write`]).
    pub fn render(&self, figure: &impl Figure) -> Result<()> {
        let what = || format!("{} {}", self.flag, self.path.display());
        let bytes = match self.format {
            Format::Svg => kolmo_plot::svg(figure).map(String::into_bytes),
            Format::Png => kolmo_plot::png(figure),
        }
        .with_context(what)?;
        std::fs::write(&self.path, bytes)
            .map_err(|error| kolmo::Error::Write {
                path: self.path.clone(),
                error,
            })
            .with_context(what)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_from_extensions() {
        let dir = std::env::temp_dir();
        let svg = dir.join(format!("kolmo-format-{}.svg", std::process::id()));
        let png = dir.join(format!("kolmo-format-{}.PNG", std::process::id()));
        assert_eq!(Target::new("--plot", &svg).unwrap().format, Format::Svg);
        assert_eq!(Target::new("--plot", &png).unwrap().format, Format::Png);
        // The writability check leaves no file behind.
        assert!(!svg.exists() && !png.exists());
        let e = Target::new("--plot-board", Path::new("a.pdf")).unwrap_err();
        assert!(e.to_string().contains("--plot-board a.pdf"), "{e}");
        assert!(Target::new("--plot", Path::new("noext")).is_err());
    }

    #[test]
    fn an_unwritable_place_is_refused_before_any_work() {
        let e = Target::new("--plot", Path::new("/nonexistent-kolmo-dir/g.png")).unwrap_err();
        let text = format!("{e:#}");
        assert!(text.contains("--plot /nonexistent-kolmo-dir/g.png"), "{text}");
        assert!(text.contains("cannot write"), "{text}");
        assert!(e.downcast_ref::<kolmo::Error>().is_some());
    }
}
