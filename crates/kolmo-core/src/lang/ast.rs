//! The syntax tree of a PRISM model or property file, as written: names are not yet resolved,
//! formulas not expanded, constants not evaluated. Every node keeps its [`Span`] for messages
//! that name file:line:column.

use super::lex::Span;

/// A name and where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    /// The name.
    pub name: String,
    /// Where it was written.
    pub span: Span,
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `!`
    Not,
    /// `-`
    Neg,
}

/// Binary operators, by PRISM's precedence (loosest first): `<=>`, `=>`, `|`, `&`, the
/// relations, `+ -`, `* /`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `<=>`
    Iff,
    /// `=>`
    Implies,
    /// `|`
    Or,
    /// `&`
    And,
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (real division)
    Div,
}

/// The built-in functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    /// `min(a, b, ...)`
    Min,
    /// `max(a, b, ...)`
    Max,
    /// `floor(x)`
    Floor,
    /// `ceil(x)`
    Ceil,
    /// `round(x)` (half up, as PRISM)
    Round,
    /// `pow(x, y)`
    Pow,
    /// `mod(i, n)` (the non-negative remainder)
    Mod,
    /// `log(x, b)` (logarithm of `x` to base `b`)
    Log,
}

impl Func {
    /// The function named `name`, if it is one.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "min" => Self::Min,
            "max" => Self::Max,
            "floor" => Self::Floor,
            "ceil" => Self::Ceil,
            "round" => Self::Round,
            "pow" => Self::Pow,
            "mod" => Self::Mod,
            "log" => Self::Log,
            _ => return None,
        })
    }

    /// The function's name as written.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Min => "min",
            Self::Max => "max",
            Self::Floor => "floor",
            Self::Ceil => "ceil",
            Self::Round => "round",
            Self::Pow => "pow",
            Self::Mod => "mod",
            Self::Log => "log",
        }
    }
}

/// An expression with its place.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where it was written.
    pub span: Span,
}

/// The kinds of expression: the modelling language's, and the property language's operators
/// (which only property files and `--prop` may use).
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// An integer literal.
    Int(i64),
    /// A decimal literal, as written (exact mode reads the digits).
    Double(String),
    /// `true` or `false`.
    Bool(bool),
    /// A constant, variable or formula.
    Name(String),
    /// A label, `"name"` (`"init"` and `"deadlock"` are built in).
    Label(String),
    /// `op e`
    Unary(UnOp, Box<Expr>),
    /// `a op b`
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `c ? a : b`
    Ite(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `f(args)`
    Call(Func, Vec<Expr>),
    /// `P=? [path]`, `Pmax>=0.5 [path]`, ...
    Prob {
        /// Which optimum (MDPs), if any.
        optimum: Option<Optimum>,
        /// `=?` or a bound.
        bound: Bound,
        /// The path formula.
        path: Box<Path>,
    },
    /// `R{"name"}min=? [F goal]`, ...
    Reward {
        /// The reward structure: its name, its index (from 1), or the first when absent.
        structure: Option<RewardRef>,
        /// Which optimum (MDPs), if any.
        optimum: Option<Optimum>,
        /// `=?` or a bound.
        bound: Bound,
        /// What is accumulated.
        path: Box<RewardPath>,
    },
    /// `S=? [φ]`: the long-run probability of being in a φ-state.
    Steady {
        /// Which optimum (MDPs), if any.
        optimum: Option<Optimum>,
        /// `=?` or a bound.
        bound: Bound,
        /// The states.
        states: Box<Expr>,
    },
    /// Storm's `T=? [F φ]`: expected steps until φ.
    Time {
        /// Which optimum (MDPs), if any.
        optimum: Option<Optimum>,
        /// `=?` or a bound.
        bound: Bound,
        /// The target.
        target: Box<Expr>,
    },
    /// rPATL's `<<p1, p2>> P...[...]` or `<<1>> R...[...]`: the players of the coalition, who
    /// seek the operator's optimum, all others opposing (games only).
    Coalition {
        /// The players, by name or number (from 1); empty for `<<>>`.
        players: Vec<PlayerRef>,
        /// The `P` or `R` operator it applies to.
        prop: Box<Expr>,
    },
    /// `filter(op, prop, states)`; `states` defaults to every state.
    Filter {
        /// How the values are combined.
        op: FilterOp,
        /// The property evaluated in every state.
        prop: Box<Expr>,
        /// The states it is combined over.
        states: Option<Box<Expr>>,
    },
}

/// A player in a coalition.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerRef {
    /// By name.
    Name(String, Span),
    /// By number, from 1 in declaration order.
    Number(i64, Span),
    /// `*`: every player.
    All(Span),
}

/// `min` or `max` in `Pmin`, `Rmax`, ...
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Optimum {
    /// Minimum over the policies.
    Min,
    /// Maximum over the policies.
    Max,
}

/// `=?` or `⋈ p` after an operator.
#[derive(Clone, Debug, PartialEq)]
pub enum Bound {
    /// `=?`: the value is asked.
    Query,
    /// `< <= > >= p`: whether the value satisfies the bound.
    Compare(BinOp, Box<Expr>),
}

/// The reward structure of an `R` operator.
#[derive(Clone, Debug, PartialEq)]
pub enum RewardRef {
    /// `R{"name"}`
    Name(String, Span),
    /// `R{2}` (from 1)
    Index(Box<Expr>),
}

/// The combinations of `filter`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilterOp {
    /// The smallest value.
    Min,
    /// The largest value.
    Max,
    /// The mean.
    Avg,
    /// The sum.
    Sum,
    /// The number of states where the property holds.
    Count,
    /// Whether it holds everywhere.
    Forall,
    /// Whether it holds somewhere.
    Exists,
    /// The value in the first (lowest-numbered) state.
    First,
    /// Every value (printed).
    Print,
    /// The value in the one state of the filter.
    State,
}

impl FilterOp {
    /// The operator named `name`, if it is one.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "min" => Self::Min,
            "max" => Self::Max,
            "avg" => Self::Avg,
            "sum" => Self::Sum,
            "count" => Self::Count,
            "forall" => Self::Forall,
            "exists" => Self::Exists,
            "first" => Self::First,
            "print" => Self::Print,
            "state" => Self::State,
            _ => return None,
        })
    }
}

/// A step bound: `<=k`, `<k` (both as at most a number of steps).
#[derive(Clone, Debug, PartialEq)]
pub struct StepBound {
    /// The relation as written (`<=` or `<`).
    pub op: BinOp,
    /// The number of steps.
    pub steps: Box<Expr>,
}

/// A path formula of the `P` operator.
#[derive(Clone, Debug, PartialEq)]
pub struct Path {
    /// What it is.
    pub kind: PathKind,
    /// Where it was written.
    pub span: Span,
}

/// The path formulas.
#[derive(Clone, Debug, PartialEq)]
pub enum PathKind {
    /// `X φ`
    Next(Box<Expr>),
    /// `F φ`, `F<=k φ`
    Eventually(Option<StepBound>, Box<Expr>),
    /// `G φ`, `G<=k φ`
    Globally(Option<StepBound>, Box<Expr>),
    /// `φ U ψ`, `φ U<=k ψ`
    Until(Box<Expr>, Option<StepBound>, Box<Expr>),
    /// Storm's conditional `path || condition`.
    Conditional(Box<Path>, Box<Path>),
}

/// What an `R` operator accumulates.
#[derive(Clone, Debug, PartialEq)]
pub enum RewardPath {
    /// `F φ`: until φ is reached (+∞ where it may be missed).
    Reach(Box<Expr>),
    /// PRISM-games' `F0 φ`: until φ is reached, a path that never reaches it earning 0.
    ReachOrZero(Box<Expr>),
    /// PRISM-games' `Fc φ`: until φ is reached, a path that never reaches it earning all it
    /// accumulates (possibly +∞).
    ReachOrTotal(Box<Expr>),
    /// `C<=k`: over the first `k` steps.
    Cumulative(Box<Expr>),
    /// `C`: over all time.
    Total,
    /// `I=k`: the state reward at step `k`.
    Instant(Box<Expr>),
    /// `S`: the long-run average per step.
    LongRun,
}

/// The model types of the language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelType {
    /// `dtmc` (also `probabilistic`).
    Dtmc,
    /// `mdp` (also `nondeterministic`).
    Mdp,
    /// `smg`, a turn-based stochastic game.
    Smg,
}

/// The type of a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueType {
    /// `int`
    Int,
    /// `double`
    Double,
    /// `bool`
    Bool,
}

/// `const [type] name [= value];`
#[derive(Clone, Debug, PartialEq)]
pub struct Constant {
    /// The name.
    pub name: Ident,
    /// The type written, if any (an untyped constant takes its value's type).
    pub ty: Option<ValueType>,
    /// The value, unless it is given on the command line.
    pub value: Option<Expr>,
}

/// `formula name = expr;`
#[derive(Clone, Debug, PartialEq)]
pub struct Formula {
    /// The name.
    pub name: Ident,
    /// The expression it stands for.
    pub expr: Expr,
}

/// `label "name" = expr;`
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    /// The name (without quotes) and its place.
    pub name: Ident,
    /// The states.
    pub expr: Expr,
}

/// The type of a variable.
#[derive(Clone, Debug, PartialEq)]
pub enum VarType {
    /// `[low..high]`
    Range(Expr, Expr),
    /// `bool`
    Bool,
}

/// `name : type [init value];`
#[derive(Clone, Debug, PartialEq)]
pub struct Variable {
    /// The name.
    pub name: Ident,
    /// The type.
    pub ty: VarType,
    /// The initial value (default: the range's low end, or `false`).
    pub init: Option<Expr>,
}

/// `(x' = e)`
#[derive(Clone, Debug, PartialEq)]
pub struct Assignment {
    /// The variable written.
    pub var: Ident,
    /// Its new value, over the state before the update.
    pub value: Expr,
}

/// `p : (x'=..)&(y'=..)`, or `true` for no change.
#[derive(Clone, Debug, PartialEq)]
pub struct Update {
    /// The probability (1 when absent).
    pub probability: Option<Expr>,
    /// The assignments (empty for `true`).
    pub assignments: Vec<Assignment>,
    /// Where it was written.
    pub span: Span,
}

/// `[action] guard -> updates;`
#[derive(Clone, Debug, PartialEq)]
pub struct Command {
    /// The action, if any.
    pub action: Option<Ident>,
    /// The guard.
    pub guard: Expr,
    /// The updates, whose probabilities sum to 1.
    pub updates: Vec<Update>,
    /// Where it was written.
    pub span: Span,
}

/// A module.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// The name.
    pub name: Ident,
    /// The local variables.
    pub variables: Vec<Variable>,
    /// The commands.
    pub commands: Vec<Command>,
}

/// `module New = Old [a=b, ...] endmodule`
#[derive(Clone, Debug, PartialEq)]
pub struct Renaming {
    /// The new module's name.
    pub name: Ident,
    /// The module copied.
    pub base: Ident,
    /// The substitutions, old name to new.
    pub pairs: Vec<(Ident, Ident)>,
}

/// A module, written out or renamed.
#[derive(Clone, Debug, PartialEq)]
pub enum ModuleDef {
    /// `module M ... endmodule`
    Module(Module),
    /// `module M2 = M1 [...] endmodule`
    Renamed(Renaming),
}

/// One item of a reward structure.
#[derive(Clone, Debug, PartialEq)]
pub struct RewardItem {
    /// `None` for a state reward `g : r;`; `Some(None)` for `[] g : r;`, `Some(Some(a))` for
    /// `[a] g : r;` (transition rewards).
    pub action: Option<Option<Ident>>,
    /// The states (or transitions' source states) earning it.
    pub guard: Expr,
    /// The reward.
    pub value: Expr,
    /// Where it was written.
    pub span: Span,
}

/// `rewards ["name"] ... endrewards`
#[derive(Clone, Debug, PartialEq)]
pub struct RewardStructure {
    /// The name, if any.
    pub name: Option<Ident>,
    /// The items.
    pub items: Vec<RewardItem>,
    /// Where `rewards` was written.
    pub span: Span,
}

/// `player name m1, [a], ... endplayer` (games).
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerDef {
    /// The name.
    pub name: Ident,
    /// The modules and actions it controls.
    pub members: Vec<Ident>,
    /// The actions (written in brackets) it controls.
    pub actions: Vec<Ident>,
}

/// A model file.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Model {
    /// The declared type and where (`None`: not declared; PRISM then takes an MDP).
    pub model_type: Option<(ModelType, Span)>,
    /// Constants in the order written.
    pub constants: Vec<Constant>,
    /// Formulas.
    pub formulas: Vec<Formula>,
    /// Labels.
    pub labels: Vec<Label>,
    /// Global variables.
    pub globals: Vec<Variable>,
    /// Modules.
    pub modules: Vec<ModuleDef>,
    /// Reward structures.
    pub rewards: Vec<RewardStructure>,
    /// `init ... endinit`, if given (then no variable has `init`).
    pub init: Option<Expr>,
    /// Players (games).
    pub players: Vec<PlayerDef>,
}

/// A property, possibly named.
#[derive(Clone, Debug, PartialEq)]
pub struct Property {
    /// `"name":`, if given.
    pub name: Option<String>,
    /// The property.
    pub expr: Expr,
    /// Where it was written.
    pub span: Span,
}

/// A property file: constants, labels and properties.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PropertyFile {
    /// The file's constants.
    pub constants: Vec<Constant>,
    /// The file's labels.
    pub labels: Vec<Label>,
    /// The file's formulas.
    pub formulas: Vec<Formula>,
    /// The properties in order.
    pub properties: Vec<Property>,
}
