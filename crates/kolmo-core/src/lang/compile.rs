//! Names resolved and expressions compiled: constants evaluated (in any order of declaration),
//! formulas expanded, variables given slots in the state vector, and every expression turned into
//! a typed closure over that vector, with constant parts folded (no tree walk per state).
//!
//! Types follow the PRISM manual ("Expressions"): `int` widens to `double` where a double is
//! expected; `/` is real division; `floor`, `ceil`, `round` return `int`; `pow` of two ints and
//! `mod` are `int`; relations compare numbers of either type; `=` and `!=` also compare booleans.

use super::ast::{BinOp, Expr, ExprKind, Func, UnOp, ValueType};
use super::lex::{Span, line_column};
use crate::{Error, Result};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The most parts a formula may expand to (its formulas expanded).
const MAX_EXPANDED: u64 = 1_000_000;

/// A value of the language.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// An integer.
    Int(i64),
    /// A double.
    Double(f64),
    /// A boolean.
    Bool(bool),
}

impl Value {
    /// The value's type.
    #[must_use]
    pub fn ty(self) -> ValueType {
        match self {
            Self::Int(_) => ValueType::Int,
            Self::Double(_) => ValueType::Double,
            Self::Bool(_) => ValueType::Bool,
        }
    }

    /// The value as a number (`None` for a boolean).
    #[must_use]
    pub fn as_f64(self) -> Option<f64> {
        match self {
            Self::Int(i) => Some(i as f64),
            Self::Double(d) => Some(d),
            Self::Bool(_) => None,
        }
    }
}

/// As JSON: a number or a truth value.
impl serde::Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Self::Int(i) => s.serialize_i64(*i),
            Self::Double(d) => crate::account::ser::number(d, s),
            Self::Bool(b) => s.serialize_bool(*b),
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Int(i) => write!(f, "{i}"),
            Self::Double(d) => write!(f, "{d}"),
            Self::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// The name of a type in messages.
pub(crate) fn type_name(t: ValueType) -> &'static str {
    match t {
        ValueType::Int => "int",
        ValueType::Double => "double",
        ValueType::Bool => "bool",
    }
}

type F<T> = Arc<dyn Fn(&[i32]) -> T + Send + Sync>;

/// A compiled expression over a state vector (each variable a slot; booleans 0 or 1).
#[derive(Clone)]
pub enum Code {
    /// An `int` expression.
    Int(F<i64>),
    /// A `double` expression.
    Double(F<f64>),
    /// A `bool` expression.
    Bool(F<bool>),
}

impl std::fmt::Debug for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Code({})", type_name(self.ty()))
    }
}

impl Code {
    /// The expression's type.
    #[must_use]
    pub fn ty(&self) -> ValueType {
        match self {
            Self::Int(_) => ValueType::Int,
            Self::Double(_) => ValueType::Double,
            Self::Bool(_) => ValueType::Bool,
        }
    }

    /// The value in `state`.
    #[must_use]
    pub fn eval(&self, state: &[i32]) -> Value {
        match self {
            Self::Int(f) => Value::Int(f(state)),
            Self::Double(f) => Value::Double(f(state)),
            Self::Bool(f) => Value::Bool(f(state)),
        }
    }

    fn constant(v: Value) -> Self {
        match v {
            Value::Int(i) => Self::Int(Arc::new(move |_| i)),
            Value::Double(d) => Self::Double(Arc::new(move |_| d)),
            Value::Bool(b) => Self::Bool(Arc::new(move |_| b)),
        }
    }

    /// The expression as a double (an int widened).
    fn number(self) -> Option<F<f64>> {
        match self {
            Self::Int(f) => Some(Arc::new(move |s| f(s) as f64)),
            Self::Double(f) => Some(f),
            Self::Bool(_) => None,
        }
    }
}

/// What a name stands for in the scope of an expression.
#[derive(Clone, Debug)]
pub(crate) enum Binding {
    /// A variable in slot `k`, of type int or bool.
    Var(usize, ValueType),
}

/// Computes the property operators (`P`, `R`, `S`, `T`, `filter`) met while compiling a
/// property's expression: the model checker implements it, so that an operator nested in an
/// expression (`P>=0.5 [F "goal"] & x<3`, `R=? [F done] / 2`) becomes a compiled expression like
/// any other, over the same slots.
pub trait OperatorHook {
    /// The value of operator `e` in every state, as code over the state vector (the operator's
    /// results indexed by the state-index slot, [`Scope::index_slot`]); `scope` compiles its
    /// operands.
    ///
    /// # Errors
    /// What the analysis behind the operator returns; operators it does not support, naming the
    /// place.
    fn operator(&self, scope: &Scope<'_>, e: &Expr) -> Result<Code>;
}

/// The names of a model and where they come from: constants (evaluated on demand, so that a
/// constant may be used before its declaration), formulas (expanded where used), variables, and
/// for properties the labels and the model checker's [`OperatorHook`].
pub struct Scope<'a> {
    pub(crate) text: &'a str,
    pub(crate) path: PathBuf,
    /// Constants: declaration (type, value expression, span), or a value given from outside.
    pub(crate) constants: HashMap<String, ConstDef<'a>>,
    pub(crate) formulas: HashMap<String, &'a Expr>,
    pub(crate) vars: HashMap<String, Binding>,
    /// Labels (property expressions only): states as a compiled boolean.
    pub(crate) labels: HashMap<String, Code>,
    values: std::cell::RefCell<HashMap<String, Value>>,
    /// Constants and formulas being evaluated (to report a cycle).
    stack: std::cell::RefCell<Vec<String>>,
    /// Properties: what computes the property operators.
    pub(crate) hook: Option<&'a dyn OperatorHook>,
    /// Properties: the slot after the variables, holding the state's index.
    pub(crate) index_slot: usize,
    /// Formulas compiled once (a formula used twice in another, nested, would otherwise be
    /// compiled twice per level: exponentially often).
    compiled: std::cell::RefCell<HashMap<String, (Code, bool)>>,
    /// Each formula's size with the formulas it uses expanded (memoised), against
    /// [`MAX_EXPANDED`].
    sizes: std::cell::RefCell<HashMap<String, u64>>,
    /// Exact values of constants, each evaluated once.
    pub(crate) exact_constants: std::cell::RefCell<HashMap<String, super::exact::Exact>>,
    /// Nodes an exact evaluation may still visit (a budget against formulas nested to
    /// exponential size).
    pub(crate) exact_budget: std::cell::Cell<u64>,
}

/// A constant's definition.
#[derive(Clone, Debug)]
pub(crate) struct ConstDef<'a> {
    pub(crate) ty: Option<ValueType>,
    pub(crate) expr: Option<&'a Expr>,
    pub(crate) span: Span,
    /// A value given on the command line (`--const N=16`).
    pub(crate) given: Option<Value>,
}

/// A compiled expression and whether it depends on the state.
struct C {
    code: Code,
    constant: bool,
}

impl<'a> Scope<'a> {
    pub(crate) fn new(text: &'a str, path: &Path) -> Self {
        Self {
            text,
            path: path.to_path_buf(),
            constants: HashMap::new(),
            formulas: HashMap::new(),
            vars: HashMap::new(),
            labels: HashMap::new(),
            values: Default::default(),
            stack: Default::default(),
            hook: None,
            index_slot: 0,
            compiled: Default::default(),
            sizes: Default::default(),
            exact_constants: Default::default(),
            exact_budget: std::cell::Cell::new(0),
        }
    }

    /// An error at `span` of this scope's file.
    #[must_use]
    pub fn error(&self, span: Span, message: String) -> Error {
        let (line, column) = line_column(self.text, span.start);
        Error::Parse {
            path: self.path.clone(),
            line,
            column,
            message,
        }
    }

    /// `file:line:column` of `span`.
    #[must_use]
    pub fn place(&self, span: Span) -> String {
        let (line, column) = line_column(self.text, span.start);
        format!("{}:{line}:{column}", self.path.display())
    }

    /// The value of constant `name`.
    ///
    /// # Errors
    /// A constant without a value, of the wrong type, defined in a cycle, or whose expression
    /// uses a variable.
    pub(crate) fn constant(&self, name: &str, used: Span) -> Result<Value> {
        if let Some(v) = self.values.borrow().get(name) {
            return Ok(*v);
        }
        let def = self.constants.get(name).expect("a declared constant");
        let v = match (def.given, def.expr) {
            (Some(v), _) => v,
            (None, Some(e)) => {
                if self.stack.borrow().iter().any(|n| n == name) {
                    return Err(
                        self.error(def.span, format!("constant {name} is defined in terms of itself"))
                    );
                }
                self.stack.borrow_mut().push(name.to_string());
                let c = self.compile_inner(e, true);
                self.stack.borrow_mut().pop();
                let c = c?;
                if !c.constant {
                    return Err(self.error(
                        e.span,
                        format!("constant {name}: its value depends on a variable"),
                    ));
                }
                c.code.eval(&[])
            }
            (None, None) => {
                return Err(self.error(
                    used,
                    format!(
                        "constant {name} has no value: give it one in the file or with --const {name}=..."
                    ),
                ));
            }
        };
        let v = match (def.ty, v) {
            (None, v) => v,
            (Some(t), v) if t == v.ty() => v,
            (Some(ValueType::Double), Value::Int(i)) => Value::Double(i as f64),
            (Some(t), v) => {
                return Err(self.error(
                    def.span,
                    format!(
                        "constant {name} is declared {} but its value {v} is {}",
                        type_name(t),
                        type_name(v.ty())
                    ),
                ));
            }
        };
        self.values.borrow_mut().insert(name.to_string(), v);
        Ok(v)
    }

    /// Compiles `e` over this scope's variables (and, for properties, the state-index slot).
    ///
    /// # Errors
    /// Undefined names, type errors and property operators where no [`OperatorHook`] computes
    /// them, naming the place.
    pub fn compile(&self, e: &Expr) -> Result<Code> {
        Ok(self.compile_inner(e, false)?.code)
    }

    /// Compiles `e`, which must have type `want` (an int widens to double).
    ///
    /// # Errors
    /// As [`compile`](Self::compile), and a value of another type.
    pub fn compile_as(&self, e: &Expr, want: ValueType, what: &str) -> Result<Code> {
        let c = self.compile(e)?;
        match (want, c.ty()) {
            (a, b) if a == b => Ok(c),
            (ValueType::Double, ValueType::Int) => Ok(Code::Double(c.number().expect("a number"))),
            (a, b) => Err(self.error(
                e.span,
                format!("{what} must be {}, not {}", type_name(a), type_name(b)),
            )),
        }
    }

    /// Evaluates `e`, which may use only constants.
    ///
    /// # Errors
    /// As [`compile`](Self::compile), and an expression that uses a variable.
    pub fn evaluate(&self, e: &Expr, what: &str) -> Result<Value> {
        let c = self.compile_inner(e, true)?;
        if !c.constant {
            return Err(self.error(e.span, format!("{what} must be a constant expression")));
        }
        Ok(c.code.eval(&[]))
    }

    fn compile_inner(&self, e: &Expr, constants_only: bool) -> Result<C> {
        let c = self.compile_node(e, constants_only)?;
        if c.constant {
            // Fold: evaluate once now.
            let v = c.code.eval(&[]);
            if let Value::Double(d) = v
                && !d.is_finite()
            {
                return Err(self.error(e.span, format!("this constant expression evaluates to {d}")));
            }
            return Ok(C {
                code: Code::constant(v),
                constant: true,
            });
        }
        Ok(c)
    }

    fn compile_node(&self, e: &Expr, constants_only: bool) -> Result<C> {
        let konst = |v: Value| {
            Ok(C {
                code: Code::constant(v),
                constant: true,
            })
        };
        match &e.kind {
            ExprKind::Int(i) => konst(Value::Int(*i)),
            ExprKind::Double(text) => match text.parse::<f64>() {
                Ok(d) if d.is_finite() => konst(Value::Double(d)),
                _ => Err(self.error(e.span, format!("{text} is not a finite number"))),
            },
            ExprKind::Bool(b) => konst(Value::Bool(*b)),
            ExprKind::Name(n) => {
                if !constants_only && let Some(Binding::Var(k, t)) = self.vars.get(n) {
                    let k = *k;
                    let code = match t {
                        ValueType::Bool => Code::Bool(Arc::new(move |s| s[k] != 0)),
                        _ => Code::Int(Arc::new(move |s| i64::from(s[k]))),
                    };
                    return Ok(C {
                        code,
                        constant: false,
                    });
                }
                if let Some(f) = self.formulas.get(n) {
                    if !constants_only && let Some((code, constant)) = self.compiled.borrow().get(n) {
                        return Ok(C {
                            code: code.clone(),
                            constant: *constant,
                        });
                    }
                    if self.stack.borrow().iter().any(|m| m == n) {
                        return Err(self.error(e.span, format!("formula {n} is defined in terms of itself")));
                    }
                    if self.stack.borrow().len() >= 200 {
                        return Err(self.error(e.span, "formulas nested more than 200 deep".into()));
                    }
                    // A formula used twice in another, nested, doubles at each level: its code
                    // would evaluate exponentially many parts per state.
                    if self.expanded_size(f, 0) > MAX_EXPANDED {
                        return Err(self.error(
                            e.span,
                            format!("formula {n} expands to more than {MAX_EXPANDED} parts (formulas used several times in each other)"),
                        ));
                    }
                    self.stack.borrow_mut().push(n.clone());
                    let c = self.compile_inner(f, constants_only);
                    self.stack.borrow_mut().pop();
                    let c = c?;
                    if !constants_only {
                        self.compiled
                            .borrow_mut()
                            .insert(n.clone(), (c.code.clone(), c.constant));
                    }
                    return Ok(c);
                }
                if self.constants.contains_key(n) {
                    return konst(self.constant(n, e.span)?);
                }
                if constants_only && self.vars.contains_key(n) {
                    return Err(self.error(
                        e.span,
                        format!("{n} is a variable; a constant expression is needed here"),
                    ));
                }
                Err(self.error(
                    e.span,
                    format!("{n} is not defined (no constant, variable or formula of that name)"),
                ))
            }
            ExprKind::Label(name) => match self.labels.get(name) {
                Some(code) => Ok(C {
                    code: code.clone(),
                    constant: false,
                }),
                None => Err(self.error(e.span, format!("no label \"{name}\" in the model"))),
            },
            ExprKind::Unary(op, a) => {
                let a = self.compile_inner(a, constants_only)?;
                let code = match (op, a.code) {
                    (UnOp::Not, Code::Bool(f)) => Code::Bool(Arc::new(move |s| !f(s))),
                    (UnOp::Neg, Code::Int(f)) => Code::Int(Arc::new(move |s| f(s).wrapping_neg())),
                    (UnOp::Neg, Code::Double(f)) => Code::Double(Arc::new(move |s| -f(s))),
                    (UnOp::Not, c) => {
                        return Err(self.error(e.span, format!("! needs a bool, not {}", type_name(c.ty()))));
                    }
                    (UnOp::Neg, c) => {
                        return Err(
                            self.error(e.span, format!("- needs a number, not {}", type_name(c.ty())))
                        );
                    }
                };
                Ok(C {
                    code,
                    constant: a.constant,
                })
            }
            ExprKind::Binary(op, x, y) => {
                let (a, b) = (
                    self.compile_inner(x, constants_only)?,
                    self.compile_inner(y, constants_only)?,
                );
                let constant = a.constant && b.constant;
                if !constants_only && let Some(code) = self.variable_against_constant(*op, x, &a, y, &b) {
                    return Ok(C { code, constant });
                }
                let code = self.binary(*op, a.code, b.code, e.span)?;
                Ok(C { code, constant })
            }
            ExprKind::Ite(c, a, b) => {
                let c = self.compile_inner(c, constants_only)?;
                let Code::Bool(cond) = c.code else {
                    return Err(self.error(e.span, "the condition of c ? a : b must be a bool".into()));
                };
                let (a, b) = (
                    self.compile_inner(a, constants_only)?,
                    self.compile_inner(b, constants_only)?,
                );
                let constant = c.constant && a.constant && b.constant;
                let code = match (a.code, b.code) {
                    (Code::Int(x), Code::Int(y)) => {
                        Code::Int(Arc::new(move |s| if cond(s) { x(s) } else { y(s) }))
                    }
                    (Code::Bool(x), Code::Bool(y)) => {
                        Code::Bool(Arc::new(move |s| if cond(s) { x(s) } else { y(s) }))
                    }
                    (x, y) => match (x.number(), y.number()) {
                        (Some(x), Some(y)) => {
                            Code::Double(Arc::new(move |s| if cond(s) { x(s) } else { y(s) }))
                        }
                        _ => {
                            return Err(
                                self.error(e.span, "the branches of c ? a : b have different types".into())
                            );
                        }
                    },
                };
                Ok(C { code, constant })
            }
            ExprKind::Call(f, args) => {
                let mut cs = Vec::with_capacity(args.len());
                for a in args {
                    cs.push(self.compile_inner(a, constants_only)?);
                }
                let constant = cs.iter().all(|c| c.constant);
                let code = self.call(*f, cs.into_iter().map(|c| c.code).collect(), e.span)?;
                Ok(C { code, constant })
            }
            _ => match self.hook {
                Some(hook) if !constants_only => Ok(C {
                    code: hook.operator(self, e)?,
                    constant: false,
                }),
                _ => Err(self.error(
                    e.span,
                    "a property operator (P, R, S, T, filter) cannot appear inside an expression here".into(),
                )),
            },
        }
    }

    /// The number of parts of `e` with every formula it uses expanded (saturating; formulas
    /// memoised).
    fn expanded_size(&self, e: &Expr, depth: usize) -> u64 {
        if depth > 200 {
            return u64::MAX;
        }
        let sub = |x: &Expr| self.expanded_size(x, depth + 1);
        1u64.saturating_add(match &e.kind {
            ExprKind::Name(n) => match self.formulas.get(n) {
                Some(f) => {
                    if let Some(&k) = self.sizes.borrow().get(n) {
                        return k;
                    }
                    let k = sub(f);
                    self.sizes.borrow_mut().insert(n.clone(), k);
                    k
                }
                None => 0,
            },
            ExprKind::Unary(_, a) => sub(a),
            ExprKind::Binary(_, a, b) => sub(a).saturating_add(sub(b)),
            ExprKind::Ite(c, a, b) => sub(c).saturating_add(sub(a)).saturating_add(sub(b)),
            ExprKind::Call(_, args) => args.iter().fold(0u64, |t, a| t.saturating_add(sub(a))),
            _ => 0,
        })
    }

    /// `x op y` where one side is an int variable and the other an int constant (`s = 3`,
    /// `c < N`, `x + 1`): one closure reading the slot, instead of three nested calls. `None` for
    /// anything else.
    fn variable_against_constant(&self, op: BinOp, x: &Expr, a: &C, y: &Expr, b: &C) -> Option<Code> {
        use BinOp::*;
        let slot = |e: &Expr| match &e.kind {
            ExprKind::Name(n) => match self.vars.get(n) {
                Some(Binding::Var(k, ValueType::Int)) => Some(*k),
                _ => None,
            },
            _ => None,
        };
        let int = |c: &C| match c.constant {
            true => match c.code.eval(&[]) {
                Value::Int(i) => Some(i),
                _ => None,
            },
            false => None,
        };
        // `c op v` is `v op' c` with the relation mirrored.
        let (k, c, op) = match (slot(x), slot(y)) {
            (Some(k), _) => (k, int(b)?, op),
            (_, Some(k)) if a.constant => {
                let mirrored = match op {
                    Lt => Gt,
                    Le => Ge,
                    Gt => Lt,
                    Ge => Le,
                    Eq | Ne | Add | Mul => op,
                    _ => return None,
                };
                (k, int(a)?, mirrored)
            }
            _ => return None,
        };
        let v = move |s: &[i32]| i64::from(s[k]);
        Some(match op {
            Eq => Code::Bool(Arc::new(move |s| v(s) == c)),
            Ne => Code::Bool(Arc::new(move |s| v(s) != c)),
            Lt => Code::Bool(Arc::new(move |s| v(s) < c)),
            Le => Code::Bool(Arc::new(move |s| v(s) <= c)),
            Gt => Code::Bool(Arc::new(move |s| v(s) > c)),
            Ge => Code::Bool(Arc::new(move |s| v(s) >= c)),
            Add => Code::Int(Arc::new(move |s| v(s).wrapping_add(c))),
            Sub => Code::Int(Arc::new(move |s| v(s).wrapping_sub(c))),
            Mul => Code::Int(Arc::new(move |s| v(s).wrapping_mul(c))),
            _ => return None,
        })
    }

    fn binary(&self, op: BinOp, a: Code, b: Code, span: Span) -> Result<Code> {
        use BinOp::*;
        let (ta, tb) = (a.ty(), b.ty());
        let mismatch = || {
            self.error(
                span,
                format!(
                    "{} cannot combine {} and {}",
                    op_text(op),
                    type_name(ta),
                    type_name(tb)
                ),
            )
        };
        Ok(match op {
            And | Or | Implies | Iff => {
                let (Code::Bool(x), Code::Bool(y)) = (a, b) else {
                    return Err(mismatch());
                };
                match op {
                    And => Code::Bool(Arc::new(move |s| x(s) && y(s))),
                    Or => Code::Bool(Arc::new(move |s| x(s) || y(s))),
                    Implies => Code::Bool(Arc::new(move |s| !x(s) || y(s))),
                    _ => Code::Bool(Arc::new(move |s| x(s) == y(s))),
                }
            }
            Eq | Ne if ta == ValueType::Bool || tb == ValueType::Bool => {
                let (Code::Bool(x), Code::Bool(y)) = (a, b) else {
                    return Err(mismatch());
                };
                if op == Eq {
                    Code::Bool(Arc::new(move |s| x(s) == y(s)))
                } else {
                    Code::Bool(Arc::new(move |s| x(s) != y(s)))
                }
            }
            Eq | Ne | Lt | Le | Gt | Ge => match (a, b) {
                (Code::Int(x), Code::Int(y)) => match op {
                    Eq => Code::Bool(Arc::new(move |s| x(s) == y(s))),
                    Ne => Code::Bool(Arc::new(move |s| x(s) != y(s))),
                    Lt => Code::Bool(Arc::new(move |s| x(s) < y(s))),
                    Le => Code::Bool(Arc::new(move |s| x(s) <= y(s))),
                    Gt => Code::Bool(Arc::new(move |s| x(s) > y(s))),
                    _ => Code::Bool(Arc::new(move |s| x(s) >= y(s))),
                },
                (a, b) => {
                    let (Some(x), Some(y)) = (a.number(), b.number()) else {
                        return Err(mismatch());
                    };
                    match op {
                        Eq => Code::Bool(Arc::new(move |s| x(s) == y(s))),
                        Ne => Code::Bool(Arc::new(move |s| x(s) != y(s))),
                        Lt => Code::Bool(Arc::new(move |s| x(s) < y(s))),
                        Le => Code::Bool(Arc::new(move |s| x(s) <= y(s))),
                        Gt => Code::Bool(Arc::new(move |s| x(s) > y(s))),
                        _ => Code::Bool(Arc::new(move |s| x(s) >= y(s))),
                    }
                }
            },
            Add | Sub | Mul => match (a, b) {
                (Code::Int(x), Code::Int(y)) => match op {
                    Add => Code::Int(Arc::new(move |s| x(s).wrapping_add(y(s)))),
                    Sub => Code::Int(Arc::new(move |s| x(s).wrapping_sub(y(s)))),
                    _ => Code::Int(Arc::new(move |s| x(s).wrapping_mul(y(s)))),
                },
                (a, b) => {
                    let (Some(x), Some(y)) = (a.number(), b.number()) else {
                        return Err(mismatch());
                    };
                    match op {
                        Add => Code::Double(Arc::new(move |s| x(s) + y(s))),
                        Sub => Code::Double(Arc::new(move |s| x(s) - y(s))),
                        _ => Code::Double(Arc::new(move |s| x(s) * y(s))),
                    }
                }
            },
            Div => {
                let (Some(x), Some(y)) = (a.number(), b.number()) else {
                    return Err(mismatch());
                };
                Code::Double(Arc::new(move |s| x(s) / y(s)))
            }
        })
    }

    fn call(&self, f: Func, args: Vec<Code>, span: Span) -> Result<Code> {
        let arity = match f {
            Func::Min | Func::Max => None,
            Func::Floor | Func::Ceil | Func::Round => Some(1),
            Func::Pow | Func::Mod | Func::Log => Some(2),
        };
        let n = args.len();
        if arity.is_some_and(|k| k != n) || arity.is_none() && n < 2 {
            let want = arity.map_or("at least 2".to_string(), |k| k.to_string());
            return Err(self.error(span, format!("{} takes {want} arguments, not {n}", f.name())));
        }
        if let Some(c) = args.iter().find(|c| c.ty() == ValueType::Bool) {
            let _ = c;
            return Err(self.error(span, format!("{} needs numbers, not bool", f.name())));
        }
        let all_int = args.iter().all(|c| c.ty() == ValueType::Int);
        Ok(match f {
            Func::Min | Func::Max if all_int => {
                let fs: Vec<F<i64>> = args
                    .into_iter()
                    .map(|c| match c {
                        Code::Int(g) => g,
                        _ => unreachable!("all int"),
                    })
                    .collect();
                if f == Func::Min {
                    Code::Int(Arc::new(move |s| {
                        fs.iter().map(|g| g(s)).min().expect("two or more")
                    }))
                } else {
                    Code::Int(Arc::new(move |s| {
                        fs.iter().map(|g| g(s)).max().expect("two or more")
                    }))
                }
            }
            Func::Min | Func::Max => {
                let fs: Vec<F<f64>> = args.into_iter().map(|c| c.number().expect("a number")).collect();
                if f == Func::Min {
                    Code::Double(Arc::new(move |s| {
                        fs.iter().map(|g| g(s)).fold(f64::INFINITY, f64::min)
                    }))
                } else {
                    Code::Double(Arc::new(move |s| {
                        fs.iter().map(|g| g(s)).fold(f64::NEG_INFINITY, f64::max)
                    }))
                }
            }
            Func::Floor | Func::Ceil | Func::Round => {
                let x = args.into_iter().next().expect("one").number().expect("a number");
                match f {
                    Func::Floor => Code::Int(Arc::new(move |s| x(s).floor() as i64)),
                    Func::Ceil => Code::Int(Arc::new(move |s| x(s).ceil() as i64)),
                    _ => Code::Int(Arc::new(move |s| (x(s) + 0.5).floor() as i64)),
                }
            }
            Func::Pow if all_int => {
                let mut it = args.into_iter();
                let (Some(Code::Int(x)), Some(Code::Int(y))) = (it.next(), it.next()) else {
                    unreachable!("two ints")
                };
                Code::Int(Arc::new(move |s| {
                    let e = y(s);
                    if (0..=u32::MAX as i64).contains(&e) {
                        x(s).wrapping_pow(e as u32)
                    } else {
                        // A negative power of an int is not an int: PRISM's integer pow is
                        // undefined there; 0 keeps evaluation total (ranges are still checked).
                        0
                    }
                }))
            }
            Func::Pow | Func::Log => {
                let mut it = args.into_iter().map(|c| c.number().expect("a number"));
                let (x, y) = (it.next().expect("two"), it.next().expect("two"));
                if f == Func::Pow {
                    Code::Double(Arc::new(move |s| x(s).powf(y(s))))
                } else {
                    Code::Double(Arc::new(move |s| x(s).ln() / y(s).ln()))
                }
            }
            Func::Mod => {
                if !all_int {
                    return Err(self.error(span, "mod needs two ints".into()));
                }
                let mut it = args.into_iter();
                let (Some(Code::Int(x)), Some(Code::Int(y))) = (it.next(), it.next()) else {
                    unreachable!("two ints")
                };
                Code::Int(Arc::new(move |s| {
                    let d = y(s);
                    if d == 0 { x(s) } else { x(s).wrapping_rem_euclid(d) }
                }))
            }
        })
    }
}

fn op_text(op: BinOp) -> &'static str {
    use BinOp::*;
    match op {
        Iff => "<=>",
        Implies => "=>",
        Or => "|",
        And => "&",
        Eq => "=",
        Ne => "!=",
        Lt => "<",
        Le => "<=",
        Gt => ">",
        Ge => ">=",
        Add => "+",
        Sub => "-",
        Mul => "*",
        Div => "/",
    }
}

/// Parses constant values as `--const` gives them: `N=16,p=0.5,b=true` (an int, a decimal or
/// fraction as a double, or a bool; a leading `-` allowed).
///
/// # Errors
/// [`Error::InvalidArgument`] naming the `--const` item that is not `name=value`.
pub fn parse_constants(text: &str) -> Result<Vec<(String, Value)>> {
    let mut out = Vec::new();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let bad = |why: &str| Error::arg("--const", format!("{item:?}: {why}"));
        let (name, value) = item.split_once('=').ok_or_else(|| bad("write name=value"))?;
        let (name, value) = (name.trim(), value.trim());
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(bad("the name must be a constant's name"));
        }
        let v = if value == "true" || value == "false" {
            Value::Bool(value == "true")
        } else if let Ok(i) = value.parse::<i64>() {
            if i32::try_from(i).is_err() {
                return Err(bad("an int must lie within ±2^31"));
            }
            Value::Int(i)
        } else if let Some((a, b)) = value.split_once('/') {
            match (a.trim().parse::<f64>(), b.trim().parse::<f64>()) {
                (Ok(a), Ok(b)) if b != 0.0 && (a / b).is_finite() => Value::Double(a / b),
                _ => {
                    return Err(bad(
                        "the value must be an int, a decimal, a fraction a/b, true or false",
                    ));
                }
            }
        } else {
            match value.parse::<f64>() {
                Ok(d) if d.is_finite() => Value::Double(d),
                _ => {
                    return Err(bad(
                        "the value must be an int, a decimal, a fraction a/b, true or false",
                    ));
                }
            }
        };
        if out.iter().any(|(n, _): &(String, Value)| n == name) {
            return Err(bad("the constant is given twice"));
        }
        out.push((name.to_string(), v));
    }
    Ok(out)
}
