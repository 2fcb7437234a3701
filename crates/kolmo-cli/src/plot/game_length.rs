//! `kolmo snakes --plot`: the distribution of the game length (pmf as bars, cdf on a second
//! axis, mean, median and quantiles marked) and, with several players, each seat's chance to have
//! won by each round.

use super::{
    BLACK, BLUE, DESC_SIZE, Figure, GREY, LABEL_SIZE, PALETTE, TITLE_SIZE, VERMILION, font, nice_max, short,
    title_font,
};
use anyhow::Result;
use plotters::coord::Shift;
use plotters::prelude::*;

/// The game-length distribution of one token, as the snakes analysis computed it.
pub struct GameLengthFigure<'a> {
    /// The board's name, for the title.
    pub board: String,
    /// `pmf[t] = P(T = t)`: the game ends at roll `t`.
    pub pmf: &'a [f64],
    /// `survival[t] = P(T > t)`.
    pub survival: &'a [f64],
    /// Expected number of rolls.
    pub mean: f64,
    /// Median number of rolls (`None` beyond the computed horizon).
    pub median: Option<u64>,
    /// `(level as given, quantile)` for each requested level.
    pub quantiles: Vec<(String, Option<u64>)>,
    /// Whether the distribution was computed until its tail was negligible (else the work limit
    /// stopped it).
    pub converged: bool,
    /// Players taking turns; from 2 a second panel shows each seat's chance to have won by each
    /// round.
    pub players: usize,
}

/// Most rolls drawn as bars (beyond, the distribution is a line).
const MAX_BARS: usize = 1000;
/// Most points of a line.
const MAX_POINTS: usize = 3000;

/// Seats named in the race's legend (and the last one).
const LEGEND_SEATS: usize = 8;

/// The game length is shown up to the roll by which this fraction of games is over.
const SHOWN: f64 = 0.999;

impl GameLengthFigure<'_> {
    /// `P(T = t)`, 0 beyond the computed rolls. Degenerate distributions (a game over before
    /// the first roll, one stopped before any roll was computed) are drawn on two rolls, so
    /// every figure reads the distribution through this and [`Self::survival_at`].
    fn pmf_at(&self, t: usize) -> f64 {
        self.pmf.get(t).copied().unwrap_or(0.0)
    }

    /// `P(T > t)`: beyond the computed rolls its last value (1 when none was computed).
    fn survival_at(&self, t: usize) -> f64 {
        self.survival
            .get(t)
            .or(self.survival.last())
            .copied()
            .unwrap_or(1.0)
    }

    /// The last roll shown: where `SHOWN` of the games are over, at least every marker.
    fn x_max(&self) -> u64 {
        let horizon = self.pmf.len().saturating_sub(1) as u64;
        let done = self
            .survival
            .iter()
            .position(|&s| s < 1.0 - SHOWN)
            .map_or(horizon, |t| t as u64);
        let markers = self
            .quantiles
            .iter()
            .filter_map(|q| q.1)
            .chain(self.median)
            .max()
            .unwrap_or(0)
            .max(self.mean.ceil() as u64);
        done.max(markers + 2).min(horizon).max(1)
    }

    fn draw_length<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB::ErrorType: 'static,
    {
        let x_max = self.x_max();
        let shown: Vec<f64> = (0..=x_max as usize).map(|t| self.pmf_at(t)).collect();
        let y_max = nice_max(shown.iter().copied().fold(0.0, f64::max));
        let title = format!(
            "Game length on the {} board: {} rolls on average",
            self.board,
            short(self.mean, 4)
        );
        let mut chart = ChartBuilder::on(area)
            .caption(&title, title_font(&title, 1150.0))
            .margin(15)
            .x_label_area_size(50)
            .y_label_area_size(80)
            .right_y_label_area_size(80)
            .build_cartesian_2d(-0.5f64..x_max as f64 + 0.5, 0f64..y_max)?
            .set_secondary_coord(-0.5f64..x_max as f64 + 0.5, 0f64..1.0);
        chart
            .configure_mesh()
            .disable_x_mesh()
            .max_light_lines(2)
            .x_desc(if self.converged {
                format!(
                    "rolls t (shown to roll {x_max}, by which {} % of games are over)",
                    short(100.0 * (1.0 - self.survival_at(x_max as usize)), 4)
                )
            } else {
                let last = self.pmf.len().saturating_sub(1);
                format!(
                    "rolls t (computed only to roll {last}, by which {} % of games are over: raise --max-work)",
                    short(100.0 * (1.0 - self.survival_at(last)), 4)
                )
            })
            .y_desc("probability P(game ends at roll t)")
            .axis_desc_style(font(DESC_SIZE))
            .label_style(font(LABEL_SIZE))
            .y_label_formatter(&|y| short(*y, 3))
            .x_label_formatter(&|x| short(*x, 4))
            .draw()?;
        chart
            .configure_secondary_axes()
            .y_desc("cumulative probability P(finished by roll t)")
            .axis_desc_style(font(DESC_SIZE))
            .label_style(font(LABEL_SIZE))
            .y_label_formatter(&|y| short(*y, 2))
            .draw()?;
        let bar = BLUE.mix(0.55).filled();
        if shown.len() <= MAX_BARS {
            chart
                .draw_series(
                    shown
                        .iter()
                        .enumerate()
                        .filter(|(_, p)| **p > 0.0)
                        .map(|(t, &p)| {
                            let t = t as f64;
                            Rectangle::new([(t - 0.4, 0.0), (t + 0.4, p)], bar)
                        }),
                )?
                .label("P(game ends at roll t)")
                .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 16, y + 6)], bar));
        } else {
            // Too many rolls for bars: a line through every `step`-th (a few thousand points).
            let step = shown.len().div_ceil(MAX_POINTS);
            let points = shown
                .iter()
                .enumerate()
                .step_by(step)
                .map(|(t, &p)| (t as f64, p));
            chart
                .draw_series(LineSeries::new(points, BLUE.stroke_width(2)))?
                .label("P(game ends at roll t)")
                .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], BLUE.stroke_width(2)));
        }
        let step = shown.len().div_ceil(MAX_POINTS);
        let cdf_points: Vec<(f64, f64)> = (0..=x_max as usize)
            .step_by(step)
            .map(|t| (t as f64, (1.0 - self.survival_at(t)).clamp(0.0, 1.0)))
            .collect();
        chart
            .draw_secondary_series(LineSeries::new(cdf_points, VERMILION.stroke_width(3)))?
            .label("P(finished by roll t), right axis")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], VERMILION.stroke_width(3)));
        // Markers: the mean, the median and the quantiles; equal values share one line.
        let mut markers: Vec<(f64, Vec<String>)> = Vec::new();
        let mut add = |x: f64, label: String| match markers.iter_mut().find(|m| m.0 == x) {
            Some(m) => m.1.push(label),
            None => markers.push((x, vec![label])),
        };
        add(self.mean, format!("mean {}", short(self.mean, 4)));
        if let Some(m) = self.median {
            add(m as f64, format!("median {m}"));
        }
        for (level, q) in &self.quantiles {
            if let Some(q) = q {
                if Some(*q) == self.median && level.trim().parse::<f64>() == Ok(0.5) {
                    continue;
                }
                add(*q as f64, format!("{level} quantile {q}"));
            }
        }
        markers.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (i, (x, labels)) in markers.iter().enumerate() {
            let style = if labels[0].starts_with("mean") {
                BLACK.stroke_width(2)
            } else {
                GREY.stroke_width(1)
            };
            chart.draw_series(DashedLineSeries::new([(*x, 0.0), (*x, y_max)], 8, 5, style))?;
            // Staggered so that neighbouring markers do not overwrite each other.
            let y = y_max * (0.97 - 0.07 * (i % 4) as f64);
            // On a white backdrop, so that lines and bars do not run through the text.
            let text = labels.join(", ");
            let (w, h) = area.estimate_text_size(&text, &font(LABEL_SIZE))?;
            let (px, py) = chart.backend_coord(&(*x, y));
            let px = px + 4;
            area.draw(&Rectangle::new(
                [(px - 2, py - 2), (px + w as i32 + 2, py + h as i32 + 2)],
                WHITE.mix(0.85).filled(),
            ))?;
            area.draw(&Text::new(text, (px, py), font(LABEL_SIZE)))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::MiddleRight)
            .label_font(font(LABEL_SIZE))
            .background_style(WHITE.mix(0.9))
            .border_style(GREY)
            .draw()?;
        Ok(())
    }

    fn draw_race<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB::ErrorType: 'static,
    {
        let curves = win_by_round(self.pmf, self.survival, self.players);
        let step = self.pmf.len().div_ceil(MAX_POINTS).max(1);
        let finals: Vec<f64> = curves.iter().map(|c| c.last().copied().unwrap_or(0.0)).collect();
        let total: f64 = finals.iter().sum();
        // Shown to the round by which SHOWN of the games are decided.
        let x_max = (0..self.pmf.len())
            .find(|&t| curves.iter().map(|c| c[t]).sum::<f64>() >= SHOWN * total)
            .unwrap_or(self.pmf.len().saturating_sub(1))
            .max(1);
        let y_max = nice_max(finals.iter().copied().fold(0.0, f64::max));
        let mut chart = ChartBuilder::on(area)
            .caption(
                format!(
                    "{} players taking turns: each seat's chance to have won by round t",
                    self.players
                ),
                font(TITLE_SIZE),
            )
            .margin(15)
            .x_label_area_size(50)
            .y_label_area_size(80)
            .build_cartesian_2d(0f64..x_max as f64, 0f64..y_max)?;
        chart
            .configure_mesh()
            .max_light_lines(2)
            .x_desc("rounds t (one roll per player each round; seat 1 rolls first)")
            .y_desc("probability P(seat has won by round t)")
            .axis_desc_style(font(DESC_SIZE))
            .label_style(font(LABEL_SIZE))
            .y_label_formatter(&|y| short(*y, 3))
            .x_label_formatter(&|x| short(*x, 4))
            .draw()?;
        for (seat, curve) in curves.iter().enumerate() {
            let color = PALETTE[seat % PALETTE.len()];
            let style = color.stroke_width(if seat < PALETTE.len() { 3 } else { 1 });
            let series = chart.draw_series(LineSeries::new(
                curve
                    .iter()
                    .take(x_max + 1)
                    .enumerate()
                    .step_by(step)
                    .map(|(t, &p)| (t as f64, p)),
                style,
            ))?;
            // The legend names the first seats and the last (a long list would cover the lines).
            if seat < LEGEND_SEATS || seat + 1 == self.players {
                series
                    .label(format!("seat {} (wins {})", seat + 1, short(finals[seat], 4)))
                    .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], style));
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .label_font(font(LABEL_SIZE))
            .background_style(WHITE.mix(0.9))
            .border_style(GREY)
            .draw()?;
        Ok(())
    }
}

impl Figure for GameLengthFigure<'_> {
    fn size(&self) -> (u32, u32) {
        if self.players > 1 {
            (1200, 1200)
        } else {
            (1200, 650)
        }
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        if self.players > 1 {
            let (top, bottom) = root.split_vertically(650);
            self.draw_length(&top)?;
            self.draw_race(&bottom)?;
        } else {
            self.draw_length(root)?;
        }
        Ok(())
    }
}

/// `curves[i][t]`: the probability that seat `i + 1` has won by round `t`, for independent tokens
/// with the game-length distribution `(pmf, survival)`. Seat `i + 1` wins in round `t` when its
/// token finishes at roll `t`, the seats before it have not finished by roll `t` and the seats
/// after it had not by roll `t − 1`: `pmf(t) · S(t)^i · S(t−1)^(N−1−i)`.
pub fn win_by_round(pmf: &[f64], survival: &[f64], players: usize) -> Vec<Vec<f64>> {
    let mut curves = vec![Vec::with_capacity(pmf.len()); players];
    let mut acc = vec![0.0; players];
    let mut s_prev = 1.0f64;
    for (t, &f) in pmf.iter().enumerate() {
        let s = survival.get(t).copied().unwrap_or(s_prev);
        for (i, curve) in curves.iter_mut().enumerate() {
            acc[i] += f * s.powi(i as i32) * s_prev.powi((players - 1 - i) as i32);
            curve.push(acc[i]);
        }
        s_prev = s;
    }
    curves
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_geometric_players() {
        // A geometric game with p = 1/4 per roll: seat 1 wins with p / (1 − (1−p)²) = 4/7.
        let p = 0.25f64;
        let pmf: Vec<f64> = (0..400)
            .map(|t| if t == 0 { 0.0 } else { p * (1.0 - p).powi(t - 1) })
            .collect();
        let survival: Vec<f64> = (0..400).map(|t| (1.0 - p).powi(t)).collect();
        let c = win_by_round(&pmf, &survival, 2);
        assert!((c[0][399] - 4.0 / 7.0).abs() < 1e-12);
        assert!((c[1][399] - 3.0 / 7.0).abs() < 1e-12);
        // Round 1: seat 1 wins with p, seat 2 with (1 − p)·p.
        assert!((c[0][1] - p).abs() < 1e-15 && (c[1][1] - 0.75 * p).abs() < 1e-15);
    }
}
