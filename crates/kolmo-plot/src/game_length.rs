//! The distribution of a game's length (`kolmo snakes --plot`, `Board.plot_length()` in Python):
//! the pmf as bars, the cdf on a second axis, mean, median and quantiles marked, and, with several
//! players, each seat's chance to have won by each round.

use super::{
    BLACK, BLUE, DESC_SIZE, Figure, GREY, LABEL_SIZE, PALETTE, Result, TITLE_SIZE, VERMILION, font, nice_max,
    short, title_font,
};
use kolmo::analysis::transient::TimeDistribution;
use kolmo::games::snakes::{Board, BoardAnalysis};
use plotters::coord::Shift;
use plotters::prelude::*;

/// A vertical line marking the mean, the median or a quantile; equal values share one line.
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    /// Where it stands, in rolls.
    pub at: f64,
    /// Its text: "mean 35.83", "median 29", "0.9 quantile 72", joined by ", " on a shared line.
    pub label: String,
    /// Whether it marks the mean (drawn heavier).
    pub mean: bool,
}

/// With several players taking turns, each seat's chance to have won by each round.
#[derive(Clone, Debug, PartialEq)]
pub struct RaceFigure {
    /// "3 players taking turns: each seat's chance to have won by round t".
    pub title: String,
    /// The rounds axis' description.
    pub x_label: &'static str,
    /// The probability axis' description.
    pub y_label: &'static str,
    /// The last round shown: where 99.9 % of the decided games are decided (at least 1).
    pub x_max: u64,
    /// `by_round[i][t]`: the probability that seat `i + 1` has won by round `t`, for
    /// `t = 0 ..= x_max` (shorter when the distribution is): the partial sums of
    /// [`wins_by_round`](kolmo::analysis::race::wins_by_round).
    pub by_round: Vec<Vec<f64>>,
    /// Each seat's probability to win, over every computed round.
    pub wins: Vec<f64>,
    /// Each seat's legend entry ("seat 2 (wins 0.4992)"): the first eight seats and the last; the
    /// others `None` (a long list would cover the lines).
    pub labels: Vec<Option<String>>,
}

/// What the game-length figure shows, from a board's analysis: [`GameLengthFigure::of`] builds
/// it; [`Figure`] draws it.
#[derive(Clone, Debug, PartialEq)]
pub struct GameLengthFigure {
    /// "Game length on the classic board: 35.83 rolls on average".
    pub title: String,
    /// The rolls axis' description: how far it is shown, or that the computation stopped early.
    pub x_label: String,
    /// The pmf axis' description.
    pub y_label: &'static str,
    /// The cdf axis' description (the right axis).
    pub cdf_label: &'static str,
    /// The last roll shown: where 99.9 % of the games are over, at least every marker plus 2, at
    /// most the last roll computed, at least 1.
    pub x_max: u64,
    /// `pmf[t] = P(T = t)` for `t = 0 ..= x_max`: the game ends at roll `t`.
    pub pmf: Vec<f64>,
    /// `cdf[t] = P(T ≤ t)` for `t = 0 ..= x_max`: the game is over by roll `t`
    /// ([`TimeDistribution::cdf`]).
    pub cdf: Vec<f64>,
    /// Expected number of rolls.
    pub mean: f64,
    /// Median number of rolls (`None` beyond the computed horizon).
    pub median: Option<u64>,
    /// `(level, quantile)` for each level the analysis was asked for (`None` when not decided).
    pub quantiles: Vec<(f64, Option<u64>)>,
    /// The lines marking the mean, the median and the quantiles, left to right.
    pub markers: Vec<Marker>,
    /// Whether the distribution was computed until its tail was negligible (else the work limit
    /// stopped it).
    pub converged: bool,
    /// The race, when the analysis had more than one player.
    pub race: Option<RaceFigure>,
}

/// Seats named in the race's legend (and the last one).
const LEGEND_SEATS: usize = 8;

/// The game length is shown up to the roll by which this fraction of games is over.
const SHOWN: f64 = 0.999;

/// Most rolls drawn as bars (beyond, the distribution is a line).
const MAX_BARS: usize = 1000;
/// Most points of a line.
const MAX_POINTS: usize = 3000;

impl GameLengthFigure {
    /// The figure of `board`'s analysis: its length distribution ([`BoardAnalysis::time`]), mean,
    /// median and quantiles (the levels the analysis was asked for), and its race when
    /// [`BoardAnalysis::race`] is there.
    #[must_use]
    pub fn of(board: &Board, analysis: &BoardAnalysis) -> Self {
        let time = &analysis.time;
        let quantiles: Vec<(f64, Option<u64>)> = analysis
            .quantiles
            .iter()
            .map(|(level, q)| (*level, q.value()))
            .collect();
        let markers = markers(analysis.expected_rolls, analysis.median, &quantiles);
        let x_max = x_max(time, &markers);
        // P(T ≤ t) to the horizon, then 1 − tail (a degenerate distribution is shown on rolls 0
        // and 1).
        let cdf: Vec<f64> = time
            .cdf_curve()
            .chain(std::iter::repeat(1.0 - time.tail))
            .take(x_max as usize + 1)
            .map(|c| c.clamp(0.0, 1.0))
            .collect();
        let pmf: Vec<f64> = (0..=x_max as usize)
            .map(|t| time.pmf.get(t).copied().unwrap_or(0.0))
            .collect();
        let x_label = if time.converged {
            format!(
                "rolls t (shown to roll {x_max}, by which {} % of games are over)",
                short(100.0 * cdf[x_max as usize], 4)
            )
        } else {
            let last = time.horizon();
            format!(
                "rolls t (computed only to roll {last}, by which {} % of games are over: raise --max-work)",
                short(100.0 * time.cdf(last), 4)
            )
        };
        Self {
            title: format!(
                "Game length on the {} board: {} rolls on average",
                board.name(),
                short(analysis.expected_rolls, 4)
            ),
            x_label,
            y_label: "probability P(game ends at roll t)",
            cdf_label: "cumulative probability P(finished by roll t)",
            x_max,
            pmf,
            cdf,
            mean: analysis.expected_rolls,
            median: analysis.median,
            quantiles,
            markers,
            converged: time.converged,
            race: analysis
                .race
                .as_ref()
                .filter(|r| r.players > 1)
                .map(|r| race(time, r.players)),
        }
    }

    fn draw_length<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB::ErrorType: 'static,
    {
        let x_max = self.x_max;
        let shown = &self.pmf;
        let y_max = nice_max(shown.iter().copied().fold(0.0, f64::max));
        let title = &self.title;
        let mut chart = ChartBuilder::on(area)
            .caption(title, title_font(title, 1150.0))
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
            .x_desc(self.x_label.as_str())
            .y_desc(self.y_label)
            .axis_desc_style(font(DESC_SIZE))
            .label_style(font(LABEL_SIZE))
            .y_label_formatter(&|y| short(*y, 3))
            .x_label_formatter(&|x| short(*x, 4))
            .draw()?;
        chart
            .configure_secondary_axes()
            .y_desc(self.cdf_label)
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
        let cdf_points: Vec<(f64, f64)> = self
            .cdf
            .iter()
            .enumerate()
            .step_by(step)
            .map(|(t, &c)| (t as f64, c))
            .collect();
        chart
            .draw_secondary_series(LineSeries::new(cdf_points, VERMILION.stroke_width(3)))?
            .label("P(finished by roll t), right axis")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], VERMILION.stroke_width(3)));
        for (i, m) in self.markers.iter().enumerate() {
            let x = &m.at;
            let style = if m.mean {
                BLACK.stroke_width(2)
            } else {
                GREY.stroke_width(1)
            };
            chart.draw_series(DashedLineSeries::new([(*x, 0.0), (*x, y_max)], 8, 5, style))?;
            // Staggered so that neighbouring markers do not overwrite each other.
            let y = y_max * (0.97 - 0.07 * (i % 4) as f64);
            // On a white backdrop, so that lines and bars do not run through the text.
            let text = m.label.as_str();
            let (w, h) = area.estimate_text_size(text, &font(LABEL_SIZE))?;
            let (px, py) = chart.backend_coord(&(*x, y));
            let px = px + 4;
            area.draw(&Rectangle::new(
                [(px - 2, py - 2), (px + w as i32 + 2, py + h as i32 + 2)],
                WHITE.mix(0.85).filled(),
            ))?;
            area.draw(&Text::new(text, (px, py), font(LABEL_SIZE)))?;
        }
        super::legend(&mut chart, SeriesLabelPosition::MiddleRight)?;
        Ok(())
    }
}

impl RaceFigure {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB::ErrorType: 'static,
    {
        let shown = self.by_round.first().map_or(0, Vec::len);
        let step = shown.div_ceil(MAX_POINTS).max(1);
        let y_max = nice_max(self.wins.iter().copied().fold(0.0, f64::max));
        let mut chart = ChartBuilder::on(area)
            .caption(&self.title, font(TITLE_SIZE))
            .margin(15)
            .x_label_area_size(50)
            .y_label_area_size(80)
            .build_cartesian_2d(0f64..self.x_max as f64, 0f64..y_max)?;
        chart
            .configure_mesh()
            .max_light_lines(2)
            .x_desc(self.x_label)
            .y_desc(self.y_label)
            .axis_desc_style(font(DESC_SIZE))
            .label_style(font(LABEL_SIZE))
            .y_label_formatter(&|y| short(*y, 3))
            .x_label_formatter(&|x| short(*x, 4))
            .draw()?;
        for (seat, (curve, label)) in self.by_round.iter().zip(&self.labels).enumerate() {
            let color = PALETTE[seat % PALETTE.len()];
            let style = color.stroke_width(if seat < PALETTE.len() { 3 } else { 1 });
            let series = chart.draw_series(LineSeries::new(
                curve
                    .iter()
                    .enumerate()
                    .step_by(step)
                    .map(|(t, &p)| (t as f64, p)),
                style,
            ))?;
            if let Some(label) = label {
                series
                    .label(label.as_str())
                    .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], style));
            }
        }
        super::legend(&mut chart, SeriesLabelPosition::LowerRight)?;
        Ok(())
    }
}

impl Figure for GameLengthFigure {
    fn size(&self) -> (u32, u32) {
        if self.race.is_some() {
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
        if let Some(race) = &self.race {
            let (top, bottom) = root.split_vertically(650);
            self.draw_length(&top)?;
            race.draw(&bottom)?;
        } else {
            self.draw_length(root)?;
        }
        Ok(())
    }
}

/// The markers of the mean, the median and the quantiles `(level, value)`, left to right; equal
/// values share one marker, and the 0.5 quantile is the median's.
fn markers(mean: f64, median: Option<u64>, quantiles: &[(f64, Option<u64>)]) -> Vec<Marker> {
    let mut markers: Vec<(f64, Vec<String>)> = Vec::new();
    let mut add = |x: f64, label: String| match markers.iter_mut().find(|m| m.0 == x) {
        Some(m) => m.1.push(label),
        None => markers.push((x, vec![label])),
    };
    add(mean, format!("mean {}", short(mean, 4)));
    if let Some(m) = median {
        add(m as f64, format!("median {m}"));
    }
    for &(level, q) in quantiles {
        if let Some(q) = q {
            if Some(q) == median && level == 0.5 {
                continue;
            }
            add(q as f64, format!("{level} quantile {q}"));
        }
    }
    markers.sort_by(|a, b| a.0.total_cmp(&b.0));
    markers
        .into_iter()
        .map(|(at, labels)| Marker {
            at,
            mean: labels[0].starts_with("mean"),
            label: labels.join(", "),
        })
        .collect()
}

/// The last roll shown: where [`SHOWN`] of the games are over, at least every marker plus 2, at
/// most the horizon, at least 1.
fn x_max(time: &TimeDistribution, markers: &[Marker]) -> u64 {
    let horizon = time.horizon();
    let done = time
        .survival
        .iter()
        .position(|&s| s < 1.0 - SHOWN)
        .map_or(horizon, |t| t as u64);
    let last_marker = markers.iter().map(|m| m.at.ceil() as u64).max().unwrap_or(0);
    done.max(last_marker + 2).min(horizon).max(1)
}

/// The race of `players` seats with the game length `time`, shown to the round by which
/// [`SHOWN`] of the decided games are decided.
fn race(time: &TimeDistribution, players: usize) -> RaceFigure {
    let curves = win_by_round(time, players);
    let wins: Vec<f64> = curves.iter().map(|c| c.last().copied().unwrap_or(0.0)).collect();
    let total: f64 = wins.iter().sum();
    let len = time.pmf.len();
    let x_max = (0..len)
        .find(|&t| curves.iter().map(|c| c[t]).sum::<f64>() >= SHOWN * total)
        .unwrap_or(len.saturating_sub(1))
        .max(1);
    let labels = wins
        .iter()
        .enumerate()
        .map(|(seat, w)| {
            (seat < LEGEND_SEATS || seat + 1 == players)
                .then(|| format!("seat {} (wins {})", seat + 1, short(*w, 4)))
        })
        .collect();
    RaceFigure {
        title: format!("{players} players taking turns: each seat's chance to have won by round t"),
        x_label: "rounds t (one roll per player each round; seat 1 rolls first)",
        y_label: "probability P(seat has won by round t)",
        x_max: x_max as u64,
        by_round: curves
            .into_iter()
            .map(|mut c| {
                c.truncate(x_max + 1);
                c
            })
            .collect(),
        wins,
        labels,
    }
}

/// `curves[i][t]`: the probability that seat `i + 1` of `players` has won by round `t`, for
/// independent tokens with the game length `time`: the partial sums of
/// [`wins_by_round`](kolmo::analysis::race::wins_by_round).
fn win_by_round(time: &TimeDistribution, players: usize) -> Vec<Vec<f64>> {
    let mut curves = vec![Vec::with_capacity(time.pmf.len()); players];
    let mut acc = vec![0.0; players];
    for wins in kolmo::analysis::race::wins_by_round(time, players) {
        for ((curve, a), p) in curves.iter_mut().zip(&mut acc).zip(wins) {
            *a += p;
            curve.push(*a);
        }
    }
    curves
}

#[cfg(test)]
mod tests {
    use super::*;
    use kolmo::games::snakes::AnalysisOptions;

    fn classic(players: usize) -> (BoardAnalysis, GameLengthFigure) {
        let board = Board::classic();
        let options = AnalysisOptions {
            players,
            ..AnalysisOptions::default()
        };
        let analysis = board.analyze(&options).unwrap();
        let figure = GameLengthFigure::of(&board, &analysis);
        (analysis, figure)
    }

    #[test]
    fn the_classic_game_length() {
        let (a, f) = classic(1);
        // Shown to the roll by which 99.9 % of games are over: the pmf is the analysis's there.
        let n = f.x_max as usize + 1;
        assert_eq!((f.pmf.len(), f.cdf.len()), (n, n));
        assert_eq!(f.pmf[..], a.time.pmf[..n]);
        let shown: f64 = f.pmf.iter().sum();
        assert!((0.999..=1.0 + 1e-12).contains(&shown), "{shown}");
        assert!(f.cdf[n - 1] >= 0.999 && f.cdf[n - 2] < 0.999);
        assert!((a.time.pmf.iter().sum::<f64>() - 1.0).abs() < 1e-11);
        // shared/cases/01-snakes.md: P(finished by turn 20) = 0.2748926611928901, 40:
        // 0.6925393455227666; median 29, mean 35.834938413695426.
        assert!((f.cdf[20] - 0.2748926611928901).abs() < 1e-12);
        assert!((f.cdf[40] - 0.6925393455227666).abs() < 1e-12);
        assert!(f.cdf[28] < 0.5 && f.cdf[29] >= 0.5);
        assert_eq!(f.median, Some(29));
        assert!((f.mean - 35.834938413695426).abs() < 1e-9);
        assert_eq!(
            f.title,
            "Game length on the classic board: 35.83 rolls on average"
        );
        assert!(
            f.x_label
                .starts_with(&format!("rolls t (shown to roll {}", f.x_max))
        );
        // The default levels 0.1, 0.5, 0.9: the 0.5 quantile is the median's marker.
        let labels: Vec<&str> = f.markers.iter().map(|m| m.label.as_str()).collect();
        assert_eq!(labels.len(), 4, "{labels:?}");
        assert_eq!(labels[1], "median 29");
        assert_eq!(labels[2], "mean 35.83");
        assert!(labels[0].starts_with("0.1 quantile ") && labels[3].starts_with("0.9 quantile "));
        assert!(f.markers[2].mean && !f.markers[1].mean);
        assert!(f.markers.windows(2).all(|w| w[0].at < w[1].at));
        assert_eq!(f.quantiles.len(), 3);
        assert!(f.race.is_none());
    }

    #[test]
    fn three_players_race() {
        let (a, f) = classic(3);
        let race = f.race.as_ref().unwrap();
        assert_eq!((race.by_round.len(), race.wins.len()), (3, 3));
        // The seats' chances are the analysis's race (the same sums), and the first seat's
        // is the best.
        let r = a.race.as_ref().unwrap();
        assert_eq!(race.wins, r.win_probability);
        assert!(race.wins[0] > race.wins[1] && race.wins[1] > race.wins[2]);
        assert!(race.by_round.iter().all(|c| c.len() == race.x_max as usize + 1));
        assert!(race.by_round.iter().all(|c| c.windows(2).all(|w| w[0] <= w[1])));
        assert_eq!(
            race.labels[2].as_deref().map(|l| &l[..14]),
            Some("seat 3 (wins 0")
        );
        assert_eq!(
            race.title,
            "3 players taking turns: each seat's chance to have won by round t"
        );
    }

    #[test]
    fn the_svg_has_the_title_and_the_markers() {
        let (_, f) = classic(2);
        let svg = crate::svg(&f).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains(&f.title) && svg.contains("median 29"));
        assert!(svg.contains("2 players taking turns") && svg.contains("seat 2 (wins"));
        assert!(svg.contains(r#"width="1200" height="1200""#));
    }

    #[test]
    fn two_geometric_players() {
        // A geometric game with p = 1/4 per roll: seat 1 wins with p / (1 − (1−p)²) = 4/7.
        let p = 0.25f64;
        let pmf: Vec<f64> = (0..400)
            .map(|t| if t == 0 { 0.0 } else { p * (1.0 - p).powi(t - 1) })
            .collect();
        let survival: Vec<f64> = (0..400).map(|t| (1.0 - p).powi(t)).collect();
        let time = TimeDistribution {
            tail: survival[399],
            pmf,
            survival,
            converged: true,
        };
        let c = win_by_round(&time, 2);
        assert!((c[0][399] - 4.0 / 7.0).abs() < 1e-12);
        assert!((c[1][399] - 3.0 / 7.0).abs() < 1e-12);
        // Round 1: seat 1 wins with p, seat 2 with (1 − p)·p.
        assert!((c[0][1] - p).abs() < 1e-15 && (c[1][1] - 0.75 * p).abs() < 1e-15);
    }
}
