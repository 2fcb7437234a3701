//! `kolmo analyze --plot`: a distribution over the states (the long-run one, or after K steps)
//! as bars named by the states.

use super::{BLUE, DESC_SIZE, Figure, GREY, LABEL_SIZE, Result, TITLE_SIZE, clip, font, nice_max, short};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Most bars drawn: beyond it the most likely states are shown, and the title says so.
pub const MAX_BARS: usize = 60;
/// State names are cut to this many characters.
const MAX_NAME: usize = 18;

/// A probability per state.
pub struct DistributionFigure<'a> {
    /// The title (what the distribution is, from where).
    pub title: String,
    /// Name of each state.
    pub names: &'a [String],
    /// Probability of each state.
    pub probabilities: &'a [f64],
}

impl DistributionFigure<'_> {
    /// The states drawn, in order: all of them, or — beyond [`MAX_BARS`] states — the most
    /// likely ones with positive probability, at most [`MAX_BARS`], in decreasing order (ties by
    /// state number).
    fn shown(&self) -> Vec<usize> {
        let n = self.probabilities.len();
        if n <= MAX_BARS {
            return (0..n).collect();
        }
        let mut order: Vec<usize> = (0..n).filter(|&s| self.probabilities[s] > 0.0).collect();
        order.sort_by(|&a, &b| {
            self.probabilities[b]
                .total_cmp(&self.probabilities[a])
                .then(a.cmp(&b))
        });
        order.truncate(MAX_BARS);
        order
    }
}

impl Figure for DistributionFigure<'_> {
    fn size(&self) -> (u32, u32) {
        (1200, 700)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let shown = self.shown();
        let n = self.probabilities.len();
        let k = shown.len().max(1);
        let labels: Vec<String> = shown.iter().map(|&s| clip(&self.names[s], MAX_NAME)).collect();
        let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(1);
        // Names stand upright when they fit side by side, else they are turned a quarter.
        let per_bar = 1050.0 / k as f64;
        let upright = longest as f64 * LABEL_SIZE * 0.62 <= per_bar * 0.9;
        let label_area = if upright {
            45.0
        } else {
            (longest as f64 * LABEL_SIZE * 0.6 + 40.0).min(220.0)
        };
        let title = if n > shown.len() {
            let positive = self.probabilities.iter().filter(|&&p| p > 0.0).count();
            if positive == shown.len() {
                format!(
                    "{} (the {positive} states of {n} with positive probability)",
                    self.title
                )
            } else {
                format!(
                    "{} (the {} most likely of {n} states; {positive} have positive probability)",
                    self.title,
                    shown.len()
                )
            }
        } else {
            self.title.clone()
        };
        let y_max = nice_max(shown.iter().map(|&s| self.probabilities[s]).fold(0.0, f64::max));
        let mut chart = ChartBuilder::on(root)
            .caption(title, font(TITLE_SIZE))
            .margin(15)
            .x_label_area_size(label_area as u32)
            .y_label_area_size(80)
            // Segments of 0..=last, one per bar (an integer range includes its end).
            .build_cartesian_2d((0..k.max(2) - 1).into_segmented(), 0f64..y_max)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .max_light_lines(2)
            .x_labels(k)
            .x_label_formatter(&|v| match v {
                _ if !upright => String::new(),
                SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => {
                    labels.get(*i).cloned().unwrap_or_default()
                }
                SegmentValue::Last => String::new(),
            })
            .x_label_style(font(LABEL_SIZE))
            .y_label_style(font(LABEL_SIZE))
            .y_label_formatter(&|y| short(*y, 3))
            .x_desc(if n > shown.len() {
                "state (most likely first)"
            } else {
                "state"
            })
            .y_desc("probability")
            .axis_desc_style(font(DESC_SIZE))
            .draw()?;
        if !upright {
            // Turned names hang from the axis, starting at it (plotters centres its own labels,
            // which puts turned ones across the axis).
            let turned = font(LABEL_SIZE).transform(FontTransform::Rotate90);
            for (i, label) in labels.iter().enumerate() {
                let (x, y) = chart.backend_coord(&(SegmentValue::CenterOf(i), 0.0));
                root.draw(&Text::new(
                    label.clone(),
                    (x + (LABEL_SIZE / 2.0) as i32, y + 8),
                    turned.clone(),
                ))?;
            }
        }
        let bar = BLUE.mix(0.75).filled();
        chart.draw_series(shown.iter().enumerate().map(|(i, &s)| {
            let mut r = Rectangle::new(
                [
                    (SegmentValue::Exact(i), 0.0),
                    (SegmentValue::Exact(i + 1), self.probabilities[s]),
                ],
                bar,
            );
            let gap = (per_bar * 0.12).clamp(1.0, 40.0) as u32;
            r.set_margin(0, 0, gap, gap);
            r
        }))?;
        // The value above each bar while there is room for it.
        if k <= 24 {
            let nonzero = shown
                .iter()
                .enumerate()
                .filter(|(_, s)| self.probabilities[**s] > 0.0);
            chart.draw_series(nonzero.map(|(i, &s)| {
                Text::new(
                    short(self.probabilities[s], 3),
                    (SegmentValue::CenterOf(i), self.probabilities[s] + y_max * 0.01),
                    font(LABEL_SIZE - 2.0)
                        .color(&GREY)
                        .pos(Pos::new(HPos::Center, VPos::Bottom)),
                )
            }))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_at_the_most_likely_states() {
        let names: Vec<String> = (0..100).map(|i| format!("s{i}")).collect();
        let p: Vec<f64> = (0..100).map(|i| i as f64).collect();
        let f = DistributionFigure {
            title: String::new(),
            names: &names,
            probabilities: &p,
        };
        let shown = f.shown();
        assert_eq!(shown.len(), MAX_BARS);
        assert_eq!(shown[0], 99);
        assert_eq!(shown[MAX_BARS - 1], 100 - MAX_BARS);
    }
}
