//! The board as players know it (`kolmo snakes --plot-board`, `Board.plot_board()` in Python):
//! each cell shaded by the expected number of visits per game, ladders and snakes drawn as
//! arrows.

use super::{DESC_SIZE, Figure, GREEN, LABEL_SIZE, Result, TITLE_SIZE, VERMILION, font, short};
use kolmo::games::snakes::{Board, BoardAnalysis, PortalKind};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Largest board drawn: beyond 900 cells (30 × 30) the numbers would be unreadable.
pub const MAX_BOARD_CELLS: u32 = 900;

/// One cell of the board as drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cell {
    /// The cell's number, from 1 (bottom-left) to the board's size.
    pub number: u32,
    /// Its row, counted from the bottom (0).
    pub row: u32,
    /// Its column, counted from the left (0).
    pub col: u32,
    /// Its shade: the expected number of times the token stands on the cell before a roll, per
    /// game (row `initial_cell` of the fundamental matrix, [`BoardAnalysis::visits`]).
    pub visits: f64,
}

/// A snake or a ladder, drawn as an arrow from its entrance to its exit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrow {
    /// Entrance cell (marked by a dot).
    pub from: u32,
    /// Exit cell (the arrow's head).
    pub to: u32,
    /// How the board gave it.
    pub kind: PortalKind,
    /// Whether it leads up the board: drawn green and counted as a ladder, else red and counted
    /// as a snake (a "portal" takes the colour of its direction).
    pub up: bool,
}

/// What the board figure shows: the grid, each cell's place and shade, the arrows, the colour
/// scale. [`BoardFigure::of`] builds it; [`Figure`] draws it.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardFigure {
    /// "classic board: expected visits to each cell per game".
    pub title: String,
    /// Two lines under the title: the grid and its numbering, and what the shade means.
    pub notes: [String; 2],
    /// Rows of the grid: 10 for 100 cells, else as many as the columns need.
    pub rows: u32,
    /// Columns of the grid: 10 for 100 cells, else `⌈√size⌉`.
    pub cols: u32,
    /// The cells `1..=size` in order (`cells[c − 1]` is cell `c`), numbered boustrophedon from the
    /// bottom-left: the bottom row left to right, the next right to left, and so on. Cell 0, where
    /// tokens wait off the board, is not drawn.
    pub cells: Vec<Cell>,
    /// The start cell (framed when on the board; 0 is off it).
    pub start: u32,
    /// The last cell, the goal (framed).
    pub goal: u32,
    /// The snakes and ladders that move the token, ladders first (snakes are drawn over them).
    pub arrows: Vec<Arrow>,
    /// The arrows leading up, as the legend counts them ("ladder (9)").
    pub ladders: usize,
    /// The arrows leading down, as the legend counts them ("snake (10)").
    pub snakes: usize,
    /// The top of the colour scale (shade 1): a round number at or above the largest
    /// [`Cell::visits`]; shade 0 is 0 visits.
    pub scale_max: f64,
    /// The number of intervals between the colour scale's ticks (which fall on round numbers).
    pub scale_ticks: u32,
}

impl BoardFigure {
    /// Checks that `board` is small enough to draw, before it is analysed.
    ///
    /// # Errors
    /// [`Error::BoardTooLarge`](crate::Error::BoardTooLarge) for more than [`MAX_BOARD_CELLS`]
    /// cells.
    pub fn check(board: &Board) -> Result<()> {
        if board.size() > MAX_BOARD_CELLS {
            return Err(crate::Error::BoardTooLarge { cells: board.size() });
        }
        Ok(())
    }

    /// The figure of `board` and its analysis (the expected visits, [`BoardAnalysis::visits`]).
    ///
    /// # Errors
    /// As [`BoardFigure::check`].
    ///
    /// # Panics
    /// If `analysis` is not of a board of `board`'s size (its visits are not `size + 1` long).
    #[track_caller]
    pub fn of(board: &Board, analysis: &BoardAnalysis) -> Result<Self> {
        Self::check(board)?;
        let size = board.size();
        assert_eq!(
            analysis.visits.len(),
            size as usize + 1,
            "the analysis is of another board"
        );
        let (cols, rows) = grid(size);
        let cells = (1..=size)
            .map(|number| {
                let (row, col) = place(cols, number);
                Cell {
                    number,
                    row,
                    col,
                    visits: analysis.visits[number as usize],
                }
            })
            .collect::<Vec<_>>();
        let (scale_max, scale_ticks) = scale(
            cells
                .iter()
                .map(|c| c.visits)
                .filter(|v| v.is_finite())
                .fold(0.0, f64::max),
        );
        let arrow = |p: &kolmo::games::snakes::Portal| Arrow {
            from: p.from,
            to: p.to,
            kind: p.kind,
            up: p.to > p.from,
        };
        let portals = board.portals();
        let arrows: Vec<Arrow> = portals
            .iter()
            .filter(|p| p.to > p.from)
            .chain(portals.iter().filter(|p| p.to < p.from))
            .map(arrow)
            .collect();
        let ladders = arrows.iter().filter(|a| a.up).count();
        let off_board = if board.start() == 0 {
            "; the token starts off the board, on cell 0"
        } else {
            ""
        };
        Ok(Self {
            title: format!("{} board: expected visits to each cell per game", board.name()),
            notes: [
                format!(
                    "{cols} × {rows}, numbered from the bottom-left, rows in alternating directions{off_board}."
                ),
                "Shade: expected number of rolls made from the cell (times the token stands on it) per game."
                    .to_string(),
            ],
            rows,
            cols,
            cells,
            start: board.start(),
            goal: size,
            snakes: arrows.len() - ladders,
            arrows,
            ladders,
            scale_max,
            scale_ticks,
        })
    }
}

/// Columns and rows for `size` cells: 10 × 10 for 100 cells, else the nearest to a square.
fn grid(size: u32) -> (u32, u32) {
    let n = size.max(1);
    let cols = (n as f64).sqrt().ceil() as u32;
    (cols, n.div_ceil(cols))
}

/// `(row from the bottom, column from the left)` of cell `c ≥ 1` on a grid of `cols` columns,
/// numbered boustrophedon from the bottom-left.
fn place(cols: u32, c: u32) -> (u32, u32) {
    let k = c.max(1) - 1;
    let row = k / cols;
    let pos = k % cols;
    (row, if row % 2 == 0 { pos } else { cols - 1 - pos })
}

/// Left, top, gap before the colour scale, colour scale panel, bottom, in pixels.
const LEFT: i32 = 30;
const TOP: i32 = 95;
const GAP: i32 = 40;
const PANEL: i32 = 230;
const BOTTOM: i32 = 30;

/// Sequential light-to-dark blues (ColorBrewer "Blues"), so that the green ladders and red snakes
/// stand out on every shade.
const SCALE: [(f64, f64, f64); 5] = [
    (247.0, 251.0, 255.0),
    (198.0, 219.0, 239.0),
    (107.0, 174.0, 214.0),
    (33.0, 113.0, 181.0),
    (8.0, 48.0, 107.0),
];

/// The colour of `t` in `[0, 1]` on [`SCALE`].
fn shade(t: f64) -> RGBColor {
    let t = if t.is_finite() { t.clamp(0.0, 1.0) } else { 0.0 };
    let x = t * (SCALE.len() - 1) as f64;
    let i = (x.floor() as usize).min(SCALE.len() - 2);
    let f = x - i as f64;
    let (a, b) = (SCALE[i], SCALE[i + 1]);
    let mix = |u: f64, v: f64| (u + (v - u) * f).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// The top of the colour scale for values up to `max` and its number of tick intervals, so that
/// the ticks fall on round numbers.
fn scale(max: f64) -> (f64, u32) {
    let top = super::nice_max(max);
    let round = |step: f64| {
        let m = step / 10f64.powf(step.log10().floor());
        [1.0, 2.0, 2.5, 5.0, 10.0].iter().any(|r| (m - r).abs() < 1e-9)
    };
    let ticks = [5, 4, 6, 3]
        .into_iter()
        .find(|&n| round(top / n as f64))
        .unwrap_or(5);
    (top, ticks)
}

/// Black or white, whichever reads better on `c`.
fn ink(c: RGBColor) -> RGBColor {
    let lum = 0.299 * c.0 as f64 + 0.587 * c.1 as f64 + 0.114 * c.2 as f64;
    if lum < 140.0 { WHITE } else { BLACK }
}

impl BoardFigure {
    /// Side of a cell in pixels.
    fn cell(&self) -> i32 {
        (800 / self.cols.max(self.rows).max(1) as i32).max(28)
    }

    /// Top-left pixel of cell `c` (cell 0, off the board, at cell 1).
    fn corner(&self, c: u32) -> (i32, i32) {
        let (row, col) = place(self.cols, c);
        let cell = self.cell();
        (
            LEFT + col as i32 * cell,
            TOP + (self.rows - 1 - row) as i32 * cell,
        )
    }

    fn center(&self, c: u32) -> (i32, i32) {
        let (x, y) = self.corner(c);
        let h = self.cell() / 2;
        (x + h, y + h)
    }

    fn draw_arrow<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, p: &Arrow) -> Result<()>
    where
        DB::ErrorType: 'static,
    {
        let color = if p.up { GREEN } else { VERMILION };
        let cell = self.cell() as f64;
        let (x0, y0) = self.center(p.from);
        let (x1, y1) = self.center(p.to);
        let (dx, dy) = ((x1 - x0) as f64, (y1 - y0) as f64);
        let len = (dx * dx + dy * dy).sqrt().max(1.0);
        let (ux, uy) = (dx / len, dy / len);
        let head = (cell * 0.38).clamp(9.0, 24.0);
        let width = (cell / 14.0).clamp(2.0, 6.0) as u32;
        // The shaft stops where the head begins; a white halo keeps it visible on dark cells.
        let base = (x1 as f64 - ux * head, y1 as f64 - uy * head);
        let shaft = [(x0, y0), (base.0.round() as i32, base.1.round() as i32)];
        root.draw(&PathElement::new(shaft, WHITE.mix(0.8).stroke_width(width + 3)))?;
        root.draw(&PathElement::new(shaft, color.stroke_width(width)))?;
        let half = head * 0.45;
        let tip = [
            (x1, y1),
            (
                (base.0 - uy * half).round() as i32,
                (base.1 + ux * half).round() as i32,
            ),
            (
                (base.0 + uy * half).round() as i32,
                (base.1 - ux * half).round() as i32,
            ),
        ];
        root.draw(&Polygon::new(tip.to_vec(), color.filled()))?;
        root.draw(&PathElement::new(
            [tip[0], tip[1], tip[2], tip[0]],
            WHITE.stroke_width(1),
        ))?;
        // A dot marks the entrance.
        root.draw(&Circle::new((x0, y0), width as i32 + 2, color.filled()))?;
        Ok(())
    }
}

impl Figure for BoardFigure {
    fn size(&self) -> (u32, u32) {
        let (cols, rows) = (self.cols, self.rows);
        let cell = self.cell();
        let w = LEFT + cols as i32 * cell + GAP + PANEL;
        let h = TOP + rows as i32 * cell + BOTTOM;
        (w as u32, h.max(TOP + 560) as u32)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let cols = self.cols;
        let cell = self.cell();
        let (max, ticks) = (self.scale_max, self.scale_ticks as i32);
        root.draw(&Text::new(self.title.as_str(), (LEFT, 18), font(TITLE_SIZE)))?;
        for (note, y) in self.notes.iter().zip([52, 72]) {
            root.draw(&Text::new(note.as_str(), (LEFT, y), font(LABEL_SIZE)))?;
        }
        // Cells.
        let number_size = (cell as f64 * 0.28).clamp(10.0, 18.0);
        let value_size = (cell as f64 * 0.2).clamp(9.0, 14.0);
        for &Cell {
            number: c, visits: v, ..
        } in &self.cells
        {
            let (x, y) = self.corner(c);
            let fill = shade(v / max);
            root.draw(&Rectangle::new([(x, y), (x + cell, y + cell)], fill.filled()))?;
            root.draw(&Rectangle::new(
                [(x, y), (x + cell, y + cell)],
                RGBColor(150, 150, 150).stroke_width(1),
            ))?;
            let text = ink(fill);
            root.draw(&Text::new(
                c.to_string(),
                (x + 3, y + 3),
                font(number_size).color(&text),
            ))?;
            let note = if c == self.goal {
                Some("goal".to_string())
            } else if c == self.start {
                Some("start".to_string())
            } else if cell >= 60 && v > 0.0 {
                Some(short(v, 2))
            } else {
                None
            };
            if let Some(note) = note {
                root.draw(&Text::new(
                    note,
                    (x + cell - 4, y + cell - 4),
                    font(value_size)
                        .color(&text)
                        .pos(Pos::new(HPos::Right, VPos::Bottom)),
                ))?;
            }
        }
        // Start and goal framed.
        for c in [self.start, self.goal] {
            if c >= 1 {
                let (x, y) = self.corner(c);
                root.draw(&Rectangle::new(
                    [(x + 1, y + 1), (x + cell - 1, y + cell - 1)],
                    BLACK.stroke_width(3),
                ))?;
            }
        }
        // Ladders under snakes (snakes are what players remember).
        for p in &self.arrows {
            self.draw_arrow(root, p)?;
        }
        // The colour scale.
        let x0 = LEFT + cols as i32 * cell + GAP;
        let (bar_top, bar_h, bar_w) = (TOP + 50, 360, 30);
        root.draw(&Text::new("expected visits", (x0, TOP), font(DESC_SIZE)))?;
        root.draw(&Text::new("per game", (x0, TOP + 22), font(DESC_SIZE)))?;
        let steps = 120;
        for i in 0..steps {
            let y = bar_top + bar_h - (i + 1) * bar_h / steps;
            let y1 = bar_top + bar_h - i * bar_h / steps;
            let t = (i as f64 + 0.5) / steps as f64;
            root.draw(&Rectangle::new([(x0, y), (x0 + bar_w, y1)], shade(t).filled()))?;
        }
        root.draw(&Rectangle::new(
            [(x0, bar_top), (x0 + bar_w, bar_top + bar_h)],
            BLACK.stroke_width(1),
        ))?;
        for k in 0..=ticks {
            let v = max * k as f64 / ticks as f64;
            let y = bar_top + bar_h - k * bar_h / ticks;
            root.draw(&PathElement::new(
                [(x0 + bar_w, y), (x0 + bar_w + 6, y)],
                BLACK.stroke_width(1),
            ))?;
            root.draw(&Text::new(
                short(v, 3),
                (x0 + bar_w + 10, y),
                font(LABEL_SIZE).pos(Pos::new(HPos::Left, VPos::Center)),
            ))?;
        }
        // The arrows' legend.
        let (ladders, snakes) = (self.ladders, self.snakes);
        let mut y = bar_top + bar_h + 45;
        for (label, color) in [
            (format!("ladder ({ladders})"), GREEN),
            (format!("snake ({snakes})"), VERMILION),
        ] {
            root.draw(&PathElement::new([(x0, y), (x0 + 34, y)], color.stroke_width(4)))?;
            root.draw(&Polygon::new(
                vec![(x0 + 44, y), (x0 + 32, y - 7), (x0 + 32, y + 7)],
                color.filled(),
            ))?;
            root.draw(&Text::new(
                label,
                (x0 + 54, y),
                font(LABEL_SIZE).pos(Pos::new(HPos::Left, VPos::Center)),
            ))?;
            y += 30;
        }
        root.draw(&Text::new(
            "arrows: entrance (dot) to exit",
            (x0, y),
            font(LABEL_SIZE - 2.0).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kolmo::games::snakes::{AnalysisOptions, BoardSpec};

    fn classic(options: &AnalysisOptions) -> (Board, BoardAnalysis, BoardFigure) {
        let board = Board::classic();
        let analysis = board.analyze(options).unwrap();
        let figure = BoardFigure::of(&board, &analysis).unwrap();
        (board, analysis, figure)
    }

    fn empty(size: i64) -> BoardFigure {
        let board = Board::new(&BoardSpec::empty(size)).unwrap();
        BoardFigure::of(&board, &board.analyze(&AnalysisOptions::default()).unwrap()).unwrap()
    }

    #[test]
    fn the_classic_board_is_numbered_boustrophedon_from_the_bottom_left() {
        let (_, _, f) = classic(&AnalysisOptions::default());
        assert_eq!((f.rows, f.cols), (10, 10));
        assert_eq!(f.cells.len(), 100);
        let at = |c: usize| (f.cells[c - 1].row, f.cells[c - 1].col);
        assert_eq!(at(1), (0, 0), "cell 1 bottom-left");
        assert_eq!(at(10), (0, 9), "cell 10 bottom-right");
        assert_eq!(at(11), (1, 9), "cell 11 above cell 10");
        assert_eq!(at(20), (1, 0));
        assert_eq!(at(21), (2, 0));
        assert_eq!(at(100), (9, 0), "cell 100 top-left");
        assert!(f.cells.iter().zip(1..).all(|(c, n)| c.number == n));
        assert_eq!((f.start, f.goal), (0, 100));
        assert!(f.notes[0].starts_with("10 × 10") && f.notes[0].contains("off the board"));
        assert_eq!(f.title, "classic board: expected visits to each cell per game");
        // Other sizes: a near-square grid, every place taken once.
        let small = empty(30);
        assert_eq!((small.cols, small.rows), (6, 5));
        assert_eq!(
            (small.cells[29].row, small.cells[29].col),
            (4, 5),
            "5 rows: the last left to right"
        );
        let seven = empty(7);
        assert_eq!((seven.cols, seven.rows), (3, 3));
        assert_eq!((seven.cells[6].row, seven.cells[6].col), (2, 0));
    }

    #[test]
    fn shades_are_the_fundamental_matrix_row_of_the_start() {
        let options = AnalysisOptions {
            fundamental: true,
            ..AnalysisOptions::default()
        };
        let (board, analysis, f) = classic(&options);
        let n = analysis.fundamental.as_ref().unwrap();
        let start = n.states.iter().position(|&s| s == board.initial_cell()).unwrap();
        let mut checked = 0;
        for (j, &s) in n.states.iter().enumerate() {
            if s >= 1 {
                let v = f.cells[s as usize - 1].visits;
                assert!((v - n.get(start, j)).abs() <= 1e-12 * v.max(1.0), "cell {s}");
                checked += 1;
            }
        }
        assert!(checked >= 80, "{checked} cells checked");
        // A ladder's foot is never stood on; the goal is never rolled from.
        assert_eq!(f.cells[0].visits, 0.0);
        assert_eq!(f.cells[99].visits, 0.0);
        // Every roll is made from some cell: the shades and the start (cell 0, one visit) add up
        // to the expected game length, 35.834938413695426 rolls (shared/cases/01-snakes.md).
        let total: f64 = f.cells.iter().map(|c| c.visits).sum::<f64>() + 1.0;
        assert!((total - 35.834938413695426).abs() < 1e-9, "{total}");
        assert!(f.scale_max >= f.cells.iter().map(|c| c.visits).fold(0.0, f64::max));
    }

    #[test]
    fn the_classic_boards_arrows() {
        let (_, _, f) = classic(&AnalysisOptions::default());
        assert_eq!((f.ladders, f.snakes), (9, 10));
        assert_eq!(f.arrows.len(), 19);
        // Ladders first (drawn under the snakes), in the board's order.
        assert!(f.arrows[..9].iter().all(|a| a.up && a.kind == PortalKind::Ladder));
        assert!(f.arrows[9..].iter().all(|a| !a.up && a.kind == PortalKind::Snake));
        assert_eq!((f.arrows[0].from, f.arrows[0].to), (1, 38));
        assert!(f.arrows.iter().any(|a| (a.from, a.to) == (87, 24)));
    }

    #[test]
    fn boards_over_900_cells_are_refused_before_the_analysis() {
        let board = Board::new(&BoardSpec::empty(901)).unwrap();
        let e = BoardFigure::check(&board).unwrap_err();
        assert!(
            e.to_string()
                .contains("the board has 901 cells; only boards of up to 900")
        );
        assert!(BoardFigure::check(&Board::new(&BoardSpec::empty(900)).unwrap()).is_ok());
    }

    #[test]
    fn pixels_follow_the_cells() {
        let (_, _, f) = classic(&AnalysisOptions::default());
        let cell = f.cell();
        let bottom = TOP + 9 * cell;
        assert_eq!(f.corner(1), (LEFT, bottom));
        assert_eq!(f.corner(10), (LEFT + 9 * cell, bottom));
        assert_eq!(f.corner(11), (LEFT + 9 * cell, bottom - cell));
        assert_eq!(f.corner(100), (LEFT, TOP));
    }

    #[test]
    fn the_svg_has_the_title_the_numbers_and_the_legend() {
        let (_, _, f) = classic(&AnalysisOptions::default());
        let svg = crate::svg(&f).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..100]);
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains(&f.title));
        assert!(svg.contains(">100<") || svg.contains("\n100\n"));
        assert!(svg.contains("ladder (9)") && svg.contains("snake (10)"));
        let png = crate::png(&f).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    }

    #[test]
    fn shades_run_light_to_dark() {
        assert_eq!(shade(0.0), RGBColor(247, 251, 255));
        assert_eq!(shade(1.0), RGBColor(8, 48, 107));
        assert_eq!(ink(shade(1.0)), WHITE);
        assert_eq!(ink(shade(0.0)), BLACK);
        assert_eq!(scale(1.07), (1.2, 6));
        assert_eq!(scale(0.9), (1.0, 5));
        assert_eq!(scale(3.7), (4.0, 4));
    }
}
