//! Exact evaluation of the modelling language's expressions: `int` as integers, `double` as
//! rationals (a decimal literal `0.1` is 1/10, `1/3` stays 1/3), for the exact probabilities
//! and rewards of a built model (`--exact`). A tree walk per evaluation: the floating-point
//! model is explored with the compiled closures, and only its transitions' probabilities are
//! evaluated again here.
//!
//! Not exact, and refused naming the place: `log`, `pow` with a non-integer exponent, a division
//! by zero. A `--const` double is taken as the shortest decimal that rounds to it (`0.1` as 1/10).

use super::ast::{BinOp, Expr, ExprKind, Func, UnOp, ValueType};
use super::compile::{Binding, Scope, Value};
use crate::Result;
use crate::exact::{Rational, parse_exact};
use dashu_int::IBig;
use dashu_int::ops::BitTest;

/// Parts an exact evaluation may visit, formulas expanded.
const EXACT_BUDGET: u64 = 1_000_000;

/// The largest fraction (bits of numerator and denominator) `pow` may build.
const MAX_EXACT_BITS: u64 = 1 << 20;

/// A value in exact arithmetic.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Exact {
    Int(i64),
    Rat(Rational),
    Bool(bool),
}

impl Exact {
    pub(crate) fn rational(&self) -> Option<Rational> {
        match self {
            Self::Int(i) => Some(Rational::from(IBig::from(*i))),
            Self::Rat(r) => Some(r.clone()),
            Self::Bool(_) => None,
        }
    }
}

fn from_value(v: Value) -> Option<Exact> {
    Some(match v {
        Value::Int(i) => Exact::Int(i),
        Value::Bool(b) => Exact::Bool(b),
        // The shortest decimal that rounds to it: what was typed, for a decimal.
        Value::Double(d) => Exact::Rat(parse_exact(&format!("{d}"))?),
    })
}

fn to_int(x: &IBig) -> Option<i64> {
    i64::try_from(x).ok()
}

impl Scope<'_> {
    /// The exact value of `e` in state `s` (one slot per variable).
    ///
    /// # Errors
    /// [`Error::Parse`] at `e`'s place for what exact arithmetic cannot do (see the module docs).
    pub(crate) fn exact(&self, e: &Expr, s: &[i32]) -> Result<Exact> {
        self.exact_budget.set(EXACT_BUDGET);
        self.exact_at(e, s, 0)
    }

    fn exact_at(&self, e: &Expr, s: &[i32], depth: usize) -> Result<Exact> {
        if depth > 1000 {
            return Err(self.error(e.span, "an expression nested more than 1000 deep".into()));
        }
        let sub = |x: &Expr| self.exact_at(x, s, depth + 1);
        let not_exact = |why: &str| self.error(e.span, format!("--exact: {why}"));
        let left = self.exact_budget.get();
        if left == 0 {
            return Err(not_exact(&format!(
                "the expression (its formulas expanded) has more than {EXACT_BUDGET} parts"
            )));
        }
        self.exact_budget.set(left - 1);
        Ok(match &e.kind {
            ExprKind::Int(i) => Exact::Int(*i),
            ExprKind::Double(text) => {
                Exact::Rat(parse_exact(text).ok_or_else(|| not_exact(&format!("{text} is not a decimal")))?)
            }
            ExprKind::Bool(b) => Exact::Bool(*b),
            ExprKind::Name(n) => {
                if let Some(Binding::Var(k, t)) = self.vars.get(n) {
                    let v = s[*k];
                    return Ok(if *t == ValueType::Bool {
                        Exact::Bool(v != 0)
                    } else {
                        Exact::Int(i64::from(v))
                    });
                }
                if let Some(f) = self.formulas.get(n) {
                    return self.exact_at(f, s, depth + 1);
                }
                if let Some(v) = self.exact_constants.borrow().get(n) {
                    return Ok(v.clone());
                }
                if let Some(def) = self.constants.get(n) {
                    let v = match (def.given, def.expr) {
                        (Some(v), _) => from_value(v).ok_or_else(|| not_exact("a constant's value"))?,
                        (None, Some(x)) => self.exact_at(x, &[], depth + 1)?,
                        (None, None) => return Err(not_exact(&format!("constant {n} has no value"))),
                    };
                    let v = match (def.ty, v) {
                        (Some(ValueType::Double), Exact::Int(i)) => Exact::Rat(Rational::from(IBig::from(i))),
                        (_, v) => v,
                    };
                    self.exact_constants.borrow_mut().insert(n.clone(), v.clone());
                    return Ok(v);
                }
                return Err(self.error(e.span, format!("{n} is not defined")));
            }
            ExprKind::Unary(UnOp::Not, a) => match sub(a)? {
                Exact::Bool(b) => Exact::Bool(!b),
                _ => return Err(not_exact("! needs a bool")),
            },
            ExprKind::Unary(UnOp::Neg, a) => match sub(a)? {
                Exact::Int(i) => Exact::Int(i.wrapping_neg()),
                Exact::Rat(r) => Exact::Rat(-r),
                Exact::Bool(_) => return Err(not_exact("- needs a number")),
            },
            ExprKind::Binary(op, a, b) => {
                // Short-circuit the logic, as the compiled code does.
                match op {
                    BinOp::And | BinOp::Or | BinOp::Implies => {
                        let Exact::Bool(x) = sub(a)? else {
                            return Err(not_exact("a logical operator needs bools"));
                        };
                        let decided = match op {
                            BinOp::And => (!x).then_some(false),
                            BinOp::Or => x.then_some(true),
                            _ => (!x).then_some(true),
                        };
                        if let Some(v) = decided {
                            return Ok(Exact::Bool(v));
                        }
                        let Exact::Bool(y) = sub(b)? else {
                            return Err(not_exact("a logical operator needs bools"));
                        };
                        return Ok(Exact::Bool(y));
                    }
                    _ => {}
                }
                self.exact_binary(*op, sub(a)?, sub(b)?, e)?
            }
            ExprKind::Ite(c, a, b) => match sub(c)? {
                Exact::Bool(true) => match (sub(a)?, self.exact_type(b)) {
                    (Exact::Int(i), Some(ValueType::Double)) => Exact::Rat(Rational::from(IBig::from(i))),
                    (v, _) => v,
                },
                Exact::Bool(false) => match (sub(b)?, self.exact_type(a)) {
                    (Exact::Int(i), Some(ValueType::Double)) => Exact::Rat(Rational::from(IBig::from(i))),
                    (v, _) => v,
                },
                _ => return Err(not_exact("the condition of c ? a : b must be a bool")),
            },
            ExprKind::Call(f, args) => {
                let vals = args.iter().map(sub).collect::<Result<Vec<_>>>()?;
                self.exact_call(*f, vals, e)?
            }
            _ => return Err(not_exact("a property operator inside a model expression")),
        })
    }

    /// The type `e` compiles to, if it compiles.
    fn exact_type(&self, e: &Expr) -> Option<ValueType> {
        self.compile(e).ok().map(|c| c.ty())
    }

    fn exact_binary(&self, op: BinOp, a: Exact, b: Exact, e: &Expr) -> Result<Exact> {
        use BinOp::*;
        let not_exact = |why: &str| self.error(e.span, format!("--exact: {why}"));
        Ok(match (op, a, b) {
            (Iff, Exact::Bool(x), Exact::Bool(y)) => Exact::Bool(x == y),
            (Eq, Exact::Bool(x), Exact::Bool(y)) => Exact::Bool(x == y),
            (Ne, Exact::Bool(x), Exact::Bool(y)) => Exact::Bool(x != y),
            (Add, Exact::Int(x), Exact::Int(y)) => Exact::Int(x.wrapping_add(y)),
            (Sub, Exact::Int(x), Exact::Int(y)) => Exact::Int(x.wrapping_sub(y)),
            (Mul, Exact::Int(x), Exact::Int(y)) => Exact::Int(x.wrapping_mul(y)),
            (op, a, b) => {
                let (Some(x), Some(y)) = (a.rational(), b.rational()) else {
                    return Err(not_exact("this operator needs numbers"));
                };
                match op {
                    Eq => Exact::Bool(x == y),
                    Ne => Exact::Bool(x != y),
                    Lt => Exact::Bool(x < y),
                    Le => Exact::Bool(x <= y),
                    Gt => Exact::Bool(x > y),
                    Ge => Exact::Bool(x >= y),
                    Add => Exact::Rat(x + y),
                    Sub => Exact::Rat(x - y),
                    Mul => Exact::Rat(x * y),
                    Div => {
                        if y == Rational::ZERO {
                            return Err(not_exact("a division by zero"));
                        }
                        Exact::Rat(x / y)
                    }
                    _ => return Err(not_exact("this operator needs bools")),
                }
            }
        })
    }

    fn exact_call(&self, f: Func, args: Vec<Exact>, e: &Expr) -> Result<Exact> {
        let not_exact = |why: &str| self.error(e.span, format!("--exact: {why}"));
        let all_int = args.iter().all(|a| matches!(a, Exact::Int(_)));
        let ints = || -> Vec<i64> {
            args.iter()
                .map(|a| match a {
                    Exact::Int(i) => *i,
                    _ => 0,
                })
                .collect()
        };
        let rats = || -> Result<Vec<Rational>> {
            args.iter()
                .map(|a| a.rational().ok_or_else(|| not_exact("a function of bools")))
                .collect()
        };
        Ok(match f {
            Func::Min | Func::Max if all_int => {
                let v = ints();
                Exact::Int(if f == Func::Min {
                    *v.iter().min().ok_or_else(|| not_exact("no arguments"))?
                } else {
                    *v.iter().max().ok_or_else(|| not_exact("no arguments"))?
                })
            }
            Func::Min | Func::Max => {
                let v = rats()?;
                let mut best = v.first().cloned().ok_or_else(|| not_exact("no arguments"))?;
                for x in v.into_iter().skip(1) {
                    if (f == Func::Min && x < best) || (f == Func::Max && x > best) {
                        best = x;
                    }
                }
                Exact::Rat(best)
            }
            Func::Floor | Func::Ceil | Func::Round => {
                let x = rats()?
                    .into_iter()
                    .next()
                    .ok_or_else(|| not_exact("no argument"))?;
                let i = match f {
                    Func::Floor => x.floor(),
                    Func::Ceil => x.ceil(),
                    _ => (x + Rational::from_parts(IBig::ONE, 2u8.into())).floor(),
                };
                Exact::Int(to_int(&i).ok_or_else(|| not_exact("an integer beyond 64 bits"))?)
            }
            Func::Mod => {
                let v = ints();
                if !all_int || v.len() != 2 {
                    return Err(not_exact("mod needs two ints"));
                }
                if v[1] == 0 {
                    return Err(not_exact("mod by zero"));
                }
                Exact::Int(v[0].wrapping_rem_euclid(v[1]))
            }
            Func::Pow => {
                let (base, exp) = match args.as_slice() {
                    [b, x] => (b.clone(), x.clone()),
                    _ => return Err(not_exact("pow takes two arguments")),
                };
                let Exact::Int(k) = exp else {
                    return Err(not_exact("pow with an exponent that is not an int"));
                };
                if k.unsigned_abs() > 100_000 {
                    return Err(not_exact("pow with an exponent beyond 100000"));
                }
                match base {
                    Exact::Int(b) if k >= 0 => Exact::Int(b.wrapping_pow(k as u32)),
                    b => {
                        let r = b.rational().ok_or_else(|| not_exact("pow of a bool"))?;
                        if r == Rational::ZERO && k < 0 {
                            return Err(not_exact("a division by zero"));
                        }
                        let bits = r.numerator().bit_len() + r.denominator().bit_len();
                        if (bits as u64).saturating_mul(k.unsigned_abs()) > MAX_EXACT_BITS {
                            return Err(not_exact(&format!(
                                "pow would give a fraction of more than {MAX_EXACT_BITS} bits"
                            )));
                        }
                        Exact::Rat(r.pow(k as isize))
                    }
                }
            }
            Func::Log => return Err(not_exact("log is not a rational function")),
        })
    }
}
