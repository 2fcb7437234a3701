//! `kolmo cards --plot`: Alice's optimal expected total per number of rounds, and the gain line
//! `kρ + h` it approaches.

use super::{BLUE, DESC_SIZE, Figure, GREY, LABEL_SIZE, Result, VERMILION, font, short};
use plotters::coord::Shift;
use plotters::prelude::*;

/// The card game's values by horizon.
pub struct CardsFigure {
    /// "Alice RPS vs Bob RPS", for the title.
    pub hands: String,
    /// `(k, V_k)` from backward induction, `k = 0..=K`.
    pub values: Vec<(u64, f64)>,
    /// Gain ρ, points per round.
    pub gain: f64,
    /// Bias h of this start.
    pub bias: f64,
    /// Last round shown (the gain line runs to it).
    pub last: u64,
    /// The rounds asked for, marked when shown.
    pub rounds: u64,
}

impl CardsFigure {
    /// The values of `sol` from Alice's position `i` (`hands` names it in the title), marking
    /// `rounds`: to round 20 at least, past the backward-induction table, and to `rounds` up to
    /// 100.
    ///
    /// # Panics
    /// If `i` is not a position of `sol` (`sol.bias.len()` positions).
    #[must_use]
    #[track_caller]
    pub fn of(sol: &kolmo::games::rps_cards::CardSolution, i: usize, rounds: u64, hands: &str) -> Self {
        let values: Vec<(u64, f64)> = sol
            .table
            .iter()
            .map(|v| v[i])
            .zip(0..)
            .map(|(v, k)| (k, v))
            .collect();
        let k_max = values.len() as u64 - 1;
        CardsFigure {
            hands: hands.to_string(),
            values,
            gain: sol.gain(),
            bias: sol.bias[i],
            last: rounds.min(100).max(k_max + 2).max(20),
            rounds,
        }
    }

    fn line(&self, k: u64) -> f64 {
        k as f64 * self.gain + self.bias
    }
}

impl Figure for CardsFigure {
    fn size(&self) -> (u32, u32) {
        (1200, 950)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let (top, bottom) = root.split_vertically(620);
        let last = self.last.max(1) as f64;
        let y_lo = self.line(0).min(0.0);
        let y_hi = self
            .values
            .iter()
            .map(|v| v.1)
            .fold(self.line(self.last), f64::max)
            * 1.05;
        let title = if self.rounds > self.last {
            // The asked-for horizon is off the axis: say where it is.
            format!(
                "3-card rock-paper-scissors, {}: Alice's optimal expected total (asked: k = {}, off the axis)",
                self.hands, self.rounds
            )
        } else {
            format!(
                "3-card rock-paper-scissors, {}: Alice's optimal expected total",
                self.hands
            )
        };
        let mut chart = ChartBuilder::on(&top)
            .caption(&title, super::title_font(&title, 1150.0))
            .margin(15)
            .x_label_area_size(50)
            .y_label_area_size(80)
            .build_cartesian_2d(0f64..last, y_lo..y_hi)?;
        chart
            .configure_mesh()
            .max_light_lines(2)
            .x_desc("rounds k")
            .y_desc("expected total V_k (points)")
            .axis_desc_style(font(DESC_SIZE))
            .label_style(font(LABEL_SIZE))
            .x_label_formatter(&|x| short(*x, 4))
            .y_label_formatter(&|y| short(*y, 4))
            .draw()?;
        let line_style = VERMILION.stroke_width(2);
        chart
            .draw_series(LineSeries::new(
                [(0.0, self.line(0)), (last, self.line(self.last))],
                line_style,
            ))?
            .label(format!(
                "gain line kρ + h: ρ = {} points per round, h = {}",
                short(self.gain, 8),
                short(self.bias, 6)
            ))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], line_style));
        let k_max = self.values.last().map_or(0, |v| v.0);
        chart
            .draw_series(
                self.values
                    .iter()
                    .map(|&(k, v)| Circle::new((k as f64, v), 4, BLUE.filled())),
            )?
            .label(format!(
                "V_k by backward induction (k ≤ {k_max}; beyond {k_max} rounds the report uses kρ + h)"
            ))
            .legend(|(x, y)| Circle::new((x + 8, y), 4, BLUE.filled()));
        if self.rounds <= self.last {
            let k = self.rounds as f64;
            chart.draw_series(DashedLineSeries::new(
                [(k, y_lo), (k, y_hi)],
                8,
                5,
                GREY.stroke_width(1),
            ))?;
            chart.draw_series(std::iter::once(Text::new(
                format!("k = {}", self.rounds),
                (k + last * 0.005, y_hi * 0.97),
                font(LABEL_SIZE),
            )))?;
        }
        super::legend(&mut chart, SeriesLabelPosition::LowerRight)?;
        // How fast V_k approaches the line, on a log scale (exact zeros, e.g. at k = K where h is
        // anchored, have no place on it and are left out).
        let gaps: Vec<(f64, f64)> = self
            .values
            .iter()
            .map(|&(k, v)| (k as f64, (v - self.line(k)).abs()))
            .filter(|g| g.1 > 0.0)
            .collect();
        let hi = super::nice_max(gaps.iter().fold(0.0f64, |m, g| m.max(g.1)));
        let lo = gaps.iter().fold(hi, |m, g| m.min(g.1)).max(1e-17) / 2.0;
        let mut chart = ChartBuilder::on(&bottom)
            .caption(
                "|V_k − (kρ + h)|: how far the finite horizon is from the gain line (log scale)",
                font(DESC_SIZE + 2.0),
            )
            .margin(15)
            .x_label_area_size(50)
            .y_label_area_size(80)
            .build_cartesian_2d(0f64..last, (lo..hi).log_scale())?;
        chart
            .configure_mesh()
            .max_light_lines(2)
            .x_desc("rounds k")
            .y_desc("difference (points)")
            .axis_desc_style(font(DESC_SIZE))
            .label_style(font(LABEL_SIZE))
            .x_label_formatter(&|x| short(*x, 4))
            .y_label_formatter(&|y| short(*y, 1))
            .draw()?;
        chart.draw_series(LineSeries::new(gaps.clone(), BLUE.stroke_width(1)))?;
        chart.draw_series(gaps.into_iter().map(|p| Circle::new(p, 4, BLUE.filled())))?;
        Ok(())
    }
}
