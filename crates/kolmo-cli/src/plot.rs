//! Plots: `--plot FILE` (and `--plot-board FILE`) write a figure of a command's results as SVG or
//! PNG, chosen by the file's extension.
//!
//! Each figure is a small struct holding the numbers it shows and implementing [`Figure`]; the
//! commands compute their results as usual and hand them over. Text is drawn with the bundled
//! DejaVu Sans (assets/DejaVuSans.ttf), so PNG rendering needs no system font library.

mod board;
mod cards;
mod distribution;
mod game_length;

pub use board::{BoardFigure, MAX_BOARD_CELLS};
pub use cards::CardsFigure;
pub use distribution::DistributionFigure;
pub use game_length::GameLengthFigure;

use anyhow::{Context, Result, bail};
use plotters::coord::Shift;
use plotters::prelude::*;
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
        if target.is_some() && board.size() > MAX_BOARD_CELLS {
            bail!(
                "--plot-board: the board has {} cells; only boards of up to {MAX_BOARD_CELLS} cells are drawn (the cell numbers would be unreadable)",
                board.size()
            );
        }
        Ok(Self { game, board: target })
    }

    /// Draws the asked-for plots from the analysis.
    ///
    /// # Errors
    /// As [`Target::render`].
    pub fn render(
        &self,
        args: &crate::cli::SnakesArgs,
        board: &kolmo::games::snakes::Board,
        a: &kolmo::games::snakes::BoardAnalysis,
    ) -> Result<()> {
        if let Some(t) = &self.game {
            t.render(&GameLengthFigure {
                board: board.name().to_string(),
                pmf: &a.time.pmf,
                survival: &a.time.survival,
                mean: a.expected_rolls,
                median: a.median,
                quantiles: args
                    .quantiles
                    .iter()
                    .map(|l| l.trim().to_string())
                    .zip(a.quantiles.iter().map(|q| q.1.value()))
                    .collect(),
                converged: a.time.converged,
                players: args.players,
            })?;
            t.wrote();
        }
        if let Some(t) = &self.board {
            t.render(&BoardFigure {
                name: board.name().to_string(),
                size: board.size(),
                start: board.start(),
                portals: board.portals(),
                visits: &a.visits,
            })?;
            t.wrote();
        }
        Ok(())
    }
}

/// The font family every figure uses; registered from the bundled file on first use.
pub const FONT: &str = "sans-serif";

/// Title, axis description and tick label sizes, in pixels.
pub const TITLE_SIZE: f64 = 24.0;
pub const DESC_SIZE: f64 = 18.0;
pub const LABEL_SIZE: f64 = 15.0;

/// Series colours (colour-blind friendly: Okabe–Ito).
pub const BLUE: RGBColor = RGBColor(0, 114, 178);
pub const ORANGE: RGBColor = RGBColor(230, 159, 0);
pub const GREEN: RGBColor = RGBColor(0, 158, 115);
pub const VERMILION: RGBColor = RGBColor(213, 94, 0);
pub const PURPLE: RGBColor = RGBColor(204, 121, 167);
pub const SKY: RGBColor = RGBColor(86, 180, 233);
pub const GREY: RGBColor = RGBColor(90, 90, 90);
/// One colour per line, cycled.
pub const PALETTE: [RGBColor; 7] = [BLUE, VERMILION, GREEN, ORANGE, PURPLE, SKY, BLACK];

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
    /// The file cannot be written, or plotters fails to draw.
    pub fn render(&self, figure: &impl Figure) -> Result<()> {
        register_font();
        let size = figure.size();
        let what = || format!("{} {}", self.flag, self.path.display());
        match self.format {
            Format::Svg => {
                let root = SVGBackend::new(&self.path, size).into_drawing_area();
                figure.draw(&root).with_context(what)?;
                root.present().with_context(what)?;
            }
            Format::Png => {
                let (width, height) = size;
                let mut rgb = vec![0u8; width as usize * height as usize * 3];
                {
                    let root = BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area();
                    figure.draw(&root).with_context(what)?;
                    root.present().with_context(what)?;
                }
                write_png(&self.path, size, &rgb).with_context(what)?;
            }
        }
        Ok(())
    }
}

/// Writes the 8-bit RGB image `rgb` (rows top to bottom, `3 · width · height` bytes) to `path` as
/// a PNG file.
fn write_png(path: &Path, (width, height): (u32, u32), rgb: &[u8]) -> Result<()> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut encoder = png::Encoder::new(file, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(rgb)?;
    writer.finish()?;
    Ok(())
}

/// A figure that can be drawn on any plotters backend.
pub trait Figure {
    /// Width and height in pixels (SVG: user units).
    fn size(&self) -> (u32, u32);
    /// Draws the figure on `root`, which covers the whole image.
    ///
    /// # Errors
    /// As plotters' drawing calls.
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB::ErrorType: 'static;
}

/// Registers the bundled font under [`FONT`] (once per process).
fn register_font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let bytes: &'static [u8] = include_bytes!("../assets/DejaVuSans.ttf");
        // The bundled file is a valid TrueType font; a failure would only cost the PNG's text.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, bytes);
    });
}

/// A text style of the figures' font.
pub fn font(size: f64) -> TextStyle<'static> {
    (FONT, size).into_font().color(&BLACK)
}

/// `x` with about `digits` significant digits, without trailing zeros (tick labels, legends).
pub fn short(x: f64, digits: usize) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let mag = x.abs().log10().floor() as i32;
    let trim = |s: &str| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if !(-4..6).contains(&mag) {
        let s = format!("{:.*e}", digits.saturating_sub(1), x);
        let (mantissa, exponent) = s.split_once('e').unwrap_or((&s, "0"));
        return format!("{}e{exponent}", trim(mantissa));
    }
    let places = (digits as i32 - 1 - mag).max(0) as usize;
    trim(&format!("{x:.places$}"))
}

/// A title's font: smaller for long titles, so that they fit in `width` pixels.
pub fn title_font(title: &str, width: f64) -> TextStyle<'static> {
    let fits = width / (0.56 * title.chars().count().max(1) as f64);
    font(TITLE_SIZE.min(fits).max(12.0))
}

/// `text` cut to `max` characters, with an ellipsis when cut.
pub fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

/// A "nice" upper bound for an axis showing values up to `max` (1, 2, 2.5, 5 × 10^k, with 5 %
/// headroom).
pub fn nice_max(max: f64) -> f64 {
    if max.is_nan() || max <= 0.0 || max.is_infinite() {
        return 1.0;
    }
    let target = max * 1.05;
    let p = 10f64.powf(target.log10().floor());
    [1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|&v| v >= target)
        .unwrap_or(10.0 * p)
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

    #[test]
    fn short_numbers() {
        assert_eq!(short(39.2251, 4), "39.23");
        assert_eq!(short(0.5, 3), "0.5");
        assert_eq!(short(120.0, 3), "120");
        assert_eq!(short(0.0, 3), "0");
        assert_eq!(short(1.5e-7, 2), "1.5e-7");
        assert_eq!(short(8e-5, 3), "8e-5");
        assert_eq!(short(-1.26484, 6), "-1.26484");
    }

    #[test]
    fn nice_bounds() {
        assert_eq!(nice_max(0.031), 0.04);
        assert_eq!(nice_max(0.95), 1.0);
        assert_eq!(nice_max(7.0), 8.0);
        assert_eq!(nice_max(0.0), 1.0);
    }
}
