//! Models: the discrete-time Markov chain [`Dtmc`], the Markov decision process [`Mdp`], the
//! turn-based stochastic [`Game`], sets of states, labels and [`RewardModel`]s.

/// The accessors [`Dtmc`] and [`Mdp`] share (both have the fields `matrix`, `initial`, `labels`,
/// `names`, `rewards` and `written`): names, labels, reward models, size and initial states. `$what` names
/// the model in the docs.
macro_rules! annotated_model_accessors {
    ($what:literal) => {
        /// Attaches a name to every state (shown in errors and reports).
        ///
        /// # Panics
        /// - panics if `names.len() != self.n()`.
        #[must_use]
        #[track_caller]
        pub fn with_names(mut self, names: Vec<String>) -> Self {
            assert!(names.len() == self.n());
            self.names = Some(names);
            self
        }

        /// Adds (or replaces) the label `name` on `states`.
        ///
        /// # Panics
        /// - panics if `states.universe() != self.n()`.
        #[track_caller]
        pub fn set_label(&mut self, name: impl Into<String>, states: StateSet) {
            assert!(states.universe() == self.n());
            self.labels.insert(name.into(), states);
        }

        /// The states labelled `name`, if the label exists.
        #[must_use]
        pub fn label(&self, name: &str) -> Option<&StateSet> {
            self.labels.get(name)
        }

        /// All labels by name.
        #[must_use]
        pub fn labels(&self) -> &BTreeMap<String, StateSet> {
            &self.labels
        }

        /// Adds (or replaces) the reward model `name`.
        ///
        /// # Errors
        /// [`Error::InvalidArgument`] if a part has the wrong length or a value that is not finite
        /// (see [`RewardModel::check`]).
        pub fn set_reward_model(&mut self, name: impl Into<String>, rewards: RewardModel) -> Result<()> {
            let name = name.into();
            rewards.check(&name, &self.matrix)?;
            self.rewards.insert(name, rewards);
            Ok(())
        }

        /// Attaches the model's numbers as its input wrote them, exactly (see [`Written`]): exact
        /// analyses then use them instead of fractions recovered from `f64`.
        ///
        /// # Errors
        /// [`Error::InvalidArgument`] if `written` does not fit the model (see [`Written::check`]).
        pub fn with_written(mut self, written: Written) -> Result<Self> {
            written.check(&self.matrix, &self.rewards)?;
            self.written = Some(Box::new(written));
            Ok(self)
        }

        /// The numbers as the input wrote them, if the reader kept them
        /// ([`ReadOptions::exact`](crate::io::ReadOptions::exact)).
        #[must_use]
        pub fn written(&self) -> Option<&Written> {
            self.written.as_deref()
        }

        /// The transition probabilities as exact fractions, in the matrix's pattern and row groups:
        /// as written when the input kept them ([`written`](Self::written)) and every row sums to
        /// exactly 1 as written, otherwise recovered from the `f64` values
        /// ([`rationalize_matrix`](crate::exact::rationalize_matrix): a file of shortest doubles
        /// such as `0.16666666666666666` stands for 1/6).
        ///
        /// # Errors
        /// [`Error::InvalidDistribution`] naming the first state with a choice whose exact
        /// probabilities do not sum to 1, or (without written values) a probability that is not a
        /// fraction with a small denominator.
        pub fn exact_matrix(&self) -> Result<CsrMatrix<crate::exact::Rational>> {
            super::written::exact_matrix(&self.matrix, self.written.as_deref())
        }

        /// The expected reward of one step from each choice under reward model `name`, exactly
        /// (length `m`, the matrix's rows; see [`RewardModel::expected_per_choice`]): from the
        /// rewards and probabilities as written when the input kept them
        /// ([`written`](Self::written), [`exact_matrix`](Self::exact_matrix)), otherwise each
        /// choice's `f64` reward recovered as a fraction
        /// ([`rationalize_rewards`](crate::exact::rationalize_rewards)).
        ///
        /// # Errors
        /// [`Error::InvalidArgument`] if there is no reward model `name` or (not as written) a
        /// reward is not a simple fraction; [`exact_matrix`](Self::exact_matrix)'s errors.
        pub fn exact_rewards(&self, name: &str) -> Result<Vec<crate::exact::Rational>> {
            let Some(model) = self.rewards.get(name) else {
                return Err(Error::arg(
                    "exact rewards",
                    format!("no reward model {name:?}"),
                ));
            };
            match self.written.as_deref().and_then(|w| w.rewards.get(name)) {
                Some(exact) => Ok(exact.expected_per_choice(&self.exact_matrix()?)),
                None => crate::exact::rationalize_rewards(&model.expected_per_choice(&self.matrix)),
            }
        }

        /// All reward models by name.
        #[must_use]
        pub fn reward_models(&self) -> &BTreeMap<String, RewardModel> {
            &self.rewards
        }

        /// Number of states `n`.
        #[must_use]
        pub fn n(&self) -> usize {
            self.matrix.ncols()
        }

        /// The initial states.
        #[must_use]
        pub fn initial(&self) -> &[StateId] {
            &self.initial
        }

        #[doc = concat!("The state names, if the ", $what, " has them (length `n`).")]
        #[must_use]
        pub fn names(&self) -> Option<&[String]> {
            self.names.as_deref()
        }

        #[doc = concat!("The state's name, or its number when the ", $what, " has no names.")]
        #[must_use]
        pub fn state_name(&self, s: StateId) -> String {
            match &self.names {
                Some(n) => n[s as usize].clone(),
                None => s.to_string(),
            }
        }
    };
}
use annotated_model_accessors;

mod dtmc;
mod game;
mod mdp;
mod rewards;
mod state_set;
mod written;

pub use dtmc::{Dtmc, ROW_SUM_TOLERANCE};
#[doc(hidden)]
pub use game::check_choice_rewards;
pub use game::{Game, Player};
pub use mdp::{Mdp, Players, player_name_problem};
pub use rewards::RewardModel;
pub use state_set::StateSet;
pub use written::Written;
pub(crate) use written::shortened;

/// Drunkard's walk on 0..=4 with 0 and 4 absorbing, right with probability `p`, started in 2: a
/// test chain for the layers above (Grinstead & Snell, *Introduction to Probability*, Example
/// 11.13).
#[cfg(any(test, feature = "testing"))]
#[doc(hidden)]
pub fn walk(p: f64) -> Dtmc {
    let mut b = crate::sparse::CsrBuilder::new(5);
    for s in 0..5u32 {
        if s == 0 || s == 4 {
            b.add(s, 1.0);
        } else {
            b.add(s - 1, 1.0 - p);
            b.add(s + 1, p);
        }
        b.finish_row();
    }
    Dtmc::new(b.build(), vec![2]).unwrap()
}
