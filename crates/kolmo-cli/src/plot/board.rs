//! `kolmo snakes --plot-board`: the board as players know it, each cell shaded by the expected
//! number of visits per game, ladders and snakes drawn as arrows.

use super::{DESC_SIZE, Figure, GREEN, LABEL_SIZE, TITLE_SIZE, VERMILION, font, short};
use anyhow::Result;
use kolmo::games::snakes::Portal;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Largest board drawn: beyond 900 cells (30 × 30) the numbers would be unreadable.
pub const MAX_BOARD_CELLS: u32 = 900;

/// A board and the expected visits to each cell.
pub struct BoardFigure<'a> {
    /// The board's name, for the title.
    pub name: String,
    /// Last cell; cells `1..=size` are drawn (cell 0 is off the board, where tokens wait).
    pub size: u32,
    /// Start cell.
    pub start: u32,
    /// Snakes and ladders.
    pub portals: &'a [Portal],
    /// Expected times the token stands on each cell before a roll, length `size + 1`.
    pub visits: &'a [f64],
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
fn scale(max: f64) -> (f64, i32) {
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

impl BoardFigure<'_> {
    /// Columns and rows: 10 × 10 for 100 cells, else the nearest to a square.
    fn grid(&self) -> (u32, u32) {
        let n = self.size.max(1);
        let cols = (n as f64).sqrt().ceil() as u32;
        (cols, n.div_ceil(cols))
    }

    /// Side of a cell in pixels.
    fn cell(&self) -> i32 {
        let (cols, rows) = self.grid();
        (800 / cols.max(rows) as i32).max(28)
    }

    /// Top-left pixel of cell `c` (1-based along the boustrophedon path from the bottom-left).
    fn corner(&self, c: u32) -> (i32, i32) {
        let (cols, rows) = self.grid();
        let k = c.max(1) - 1;
        let row = k / cols;
        let pos = k % cols;
        let col = if row % 2 == 0 { pos } else { cols - 1 - pos };
        let cell = self.cell();
        (LEFT + col as i32 * cell, TOP + (rows - 1 - row) as i32 * cell)
    }

    fn center(&self, c: u32) -> (i32, i32) {
        let (x, y) = self.corner(c);
        let h = self.cell() / 2;
        (x + h, y + h)
    }

    fn draw_arrow<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        p: &Portal,
        color: RGBColor,
    ) -> Result<()>
    where
        DB::ErrorType: 'static,
    {
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

impl Figure for BoardFigure<'_> {
    fn size(&self) -> (u32, u32) {
        let (cols, rows) = self.grid();
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
        let (cols, rows) = self.grid();
        let cell = self.cell();
        let (max, ticks) = scale(
            (1..=self.size)
                .map(|c| self.visits.get(c as usize).copied().unwrap_or(0.0))
                .filter(|v| v.is_finite())
                .fold(0.0, f64::max),
        );
        root.draw(&Text::new(
            format!("{} board: expected visits to each cell per game", self.name),
            (LEFT, 18),
            font(TITLE_SIZE),
        ))?;
        let off_board = if self.start == 0 {
            "; the token starts off the board, on cell 0"
        } else {
            ""
        };
        root.draw(&Text::new(
            format!(
                "{cols} × {rows}, numbered from the bottom-left, rows in alternating directions{off_board}."
            ),
            (LEFT, 52),
            font(LABEL_SIZE),
        ))?;
        root.draw(&Text::new(
            "Shade: expected number of rolls made from the cell (times the token stands on it) per game.",
            (LEFT, 72),
            font(LABEL_SIZE),
        ))?;
        // Cells.
        let number_size = (cell as f64 * 0.28).clamp(10.0, 18.0);
        let value_size = (cell as f64 * 0.2).clamp(9.0, 14.0);
        for c in 1..=self.size {
            let (x, y) = self.corner(c);
            let v = self.visits.get(c as usize).copied().unwrap_or(0.0);
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
            let note = if c == self.size {
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
        for c in [self.start, self.size] {
            if c >= 1 {
                let (x, y) = self.corner(c);
                root.draw(&Rectangle::new(
                    [(x + 1, y + 1), (x + cell - 1, y + cell - 1)],
                    BLACK.stroke_width(3),
                ))?;
            }
        }
        // Ladders under snakes (snakes are what players remember).
        let color_of = |p: &Portal| if p.to > p.from { GREEN } else { VERMILION };
        for p in self.portals.iter().filter(|p| p.to > p.from) {
            self.draw_arrow(root, p, color_of(p))?;
        }
        for p in self.portals.iter().filter(|p| p.to < p.from) {
            self.draw_arrow(root, p, color_of(p))?;
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
        let ladders = self.portals.iter().filter(|p| p.to > p.from).count();
        let snakes = self.portals.iter().filter(|p| p.to < p.from).count();
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

    fn board(size: u32) -> BoardFigure<'static> {
        BoardFigure {
            name: "t".into(),
            size,
            start: 0,
            portals: &[],
            visits: &[],
        }
    }

    #[test]
    fn layout_is_boustrophedon_from_the_bottom_left() {
        let b = board(100);
        assert_eq!(b.grid(), (10, 10));
        let cell = b.cell();
        let bottom = TOP + 9 * cell;
        assert_eq!(b.corner(1), (LEFT, bottom));
        assert_eq!(b.corner(10), (LEFT + 9 * cell, bottom));
        assert_eq!(b.corner(11), (LEFT + 9 * cell, bottom - cell));
        assert_eq!(b.corner(100), (LEFT, TOP));
        assert_eq!(board(30).grid(), (6, 5));
        assert_eq!(board(7).grid(), (3, 3));
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
