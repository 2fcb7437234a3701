/*!
kolmo's figures. Each figure kind is a *description* — a struct holding what the figure shows,
built in one place from the library's typed results (`BoardFigure::of(&board, &analysis)`) —
and a drawing of that description with plotters, rendered to SVG text ([`svg()`]) or PNG bytes
([`png()`]). The command line (`kolmo snakes --plot`, `--plot-board`, `kolmo analyze --plot`,
`kolmo cards --plot`) writes the rendered figures to files; the Python package hands the
descriptions to matplotlib, or the SVG text where matplotlib is not installed. Either way the
rules (which cell sits where, what each shade means, which rolls are shown, which quantiles are
marked) are the description's.

Text is drawn with the bundled DejaVu Sans (`assets/DejaVuSans.ttf`, its licence beside it), so
rendering needs no system font library.

# Brief overview
- [`BoardFigure`]: a Snakes and Ladders board, each cell shaded by its expected visits per game,
  ladders and snakes as arrows.
- [`GameLengthFigure`]: the distribution of a game's length (pmf, cdf, mean, median, quantiles)
  and, with several players, each seat's chance to have won by each round.
- [`CardsFigure`]: the card game's optimal values by horizon against the gain line.
- [`DistributionFigure`]: a probability per state, as bars.

# Example
```
use kolmo::games::snakes::{AnalysisOptions, Board};
let board = Board::classic();
let analysis = board.analyze(&AnalysisOptions::default())?;
let figure = kolmo_plot::BoardFigure::of(&board, &analysis)?;
assert_eq!((figure.rows, figure.cols), (10, 10));
let svg = kolmo_plot::svg(&figure)?;
assert!(svg.starts_with("<svg") && svg.contains(&figure.title));
# Ok::<(), Box<dyn std::error::Error>>(())
```
*/
#![deny(missing_docs)]

mod board;
mod cards;
mod distribution;
mod game_length;

pub use board::{Arrow, BoardFigure, Cell, MAX_BOARD_CELLS};
pub use cards::CardsFigure;
pub use distribution::DistributionFigure;
pub use game_length::{GameLengthFigure, Marker, RaceFigure};

use plotters::coord::Shift;
use plotters::prelude::*;

/// What can go wrong making a figure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// plotters could not draw (its message).
    #[error("drawing failed: {0}")]
    Draw(String),
    /// The PNG encoder failed.
    #[error("PNG encoding failed: {0}")]
    Png(#[from] png::EncodingError),
    /// A board with more cells than [`MAX_BOARD_CELLS`]: its cell numbers would be unreadable.
    #[error(
        "the board has {cells} cells; only boards of up to {MAX_BOARD_CELLS} cells are drawn (the cell numbers would be unreadable)"
    )]
    BoardTooLarge {
        /// The board's number of cells.
        cells: u32,
    },
}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for Error {
    fn from(e: DrawingAreaErrorKind<E>) -> Self {
        Error::Draw(e.to_string())
    }
}

/// The result of making a figure.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A figure that can be drawn on any plotters backend.
pub trait Figure {
    /// Width and height in pixels (SVG: user units).
    fn size(&self) -> (u32, u32);
    /// Draws the figure on `root`, which covers the whole image.
    ///
    /// # Errors
    /// [`Error::Draw`] when a plotters drawing call fails.
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB::ErrorType: 'static;
}

/// `figure` as an SVG document (text, starting `<svg`), [`Figure::size`] user units wide and
/// high.
///
/// # Errors
/// [`Error::Draw`] when plotters fails to draw.
pub fn svg(figure: &impl Figure) -> Result<String> {
    register_font();
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, figure.size()).into_drawing_area();
        figure.draw(&root)?;
        root.present()?;
    }
    Ok(text)
}

/// `figure` as a PNG file's bytes: an 8-bit RGB image of [`Figure::size`] pixels.
///
/// # Errors
/// [`Error::Draw`] when plotters fails to draw, [`Error::Png`] when the encoder fails.
pub fn png(figure: &impl Figure) -> Result<Vec<u8>> {
    register_font();
    let size = figure.size();
    let (width, height) = size;
    let mut rgb = vec![0u8; width as usize * height as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area();
        figure.draw(&root)?;
        root.present()?;
    }
    // plotters draws into the RGB buffer and png encodes it (plotters' own encoder goes through
    // the whole image crate).
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&rgb)?;
    writer.finish()?;
    Ok(bytes)
}

/// The font family every figure uses; registered from the bundled file on first use.
const FONT: &str = "sans-serif";

/// Title size, in pixels.
const TITLE_SIZE: f64 = 24.0;
/// Axis description size, in pixels.
const DESC_SIZE: f64 = 18.0;
/// Tick label and legend size, in pixels.
const LABEL_SIZE: f64 = 15.0;

// Series colours (colour-blind friendly: Okabe–Ito).
const BLUE: RGBColor = RGBColor(0, 114, 178);
const ORANGE: RGBColor = RGBColor(230, 159, 0);
const GREEN: RGBColor = RGBColor(0, 158, 115);
const VERMILION: RGBColor = RGBColor(213, 94, 0);
const PURPLE: RGBColor = RGBColor(204, 121, 167);
const SKY: RGBColor = RGBColor(86, 180, 233);
const GREY: RGBColor = RGBColor(90, 90, 90);
/// One colour per line, cycled.
const PALETTE: [RGBColor; 7] = [BLUE, VERMILION, GREEN, ORANGE, PURPLE, SKY, BLACK];

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
fn font(size: f64) -> TextStyle<'static> {
    (FONT, size).into_font().color(&BLACK)
}

/// Draws `chart`'s legend at `position` in the one style every figure uses (the figures' font on
/// a nearly opaque white box with a grey border).
fn legend<'a, DB, CT>(chart: &mut ChartContext<'a, DB, CT>, position: SeriesLabelPosition) -> Result<()>
where
    DB: DrawingBackend + 'a,
    DB::ErrorType: 'static,
    CT: CoordTranslate,
{
    chart
        .configure_series_labels()
        .position(position)
        .label_font(font(LABEL_SIZE))
        .background_style(WHITE.mix(0.9))
        .border_style(GREY)
        .draw()?;
    Ok(())
}

/// `x` with about `digits` significant digits, without trailing zeros (tick labels, legends).
fn short(x: f64, digits: usize) -> String {
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
fn title_font(title: &str, width: f64) -> TextStyle<'static> {
    let fits = width / (0.56 * title.chars().count().max(1) as f64);
    font(TITLE_SIZE.min(fits).max(12.0))
}

/// `text` cut to `max` characters, with an ellipsis when cut.
fn clip(text: &str, max: usize) -> String {
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
fn nice_max(max: f64) -> f64 {
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
