//! The names a property may use, and its expressions evaluated over a built model's states (the
//! PRISM manual, "Property Specification": "Identifying a set of states", "Filters").
//!
//! A property's expression sees the model's constants (as evaluated when it was built), its
//! formulas and variables, its labels (and the built-in `"init"` and `"deadlock"`), and the
//! property file's own constants, formulas and labels. Every state is presented as its
//! variables' values followed by one more slot, the state's index, through which labels read
//! from a file and the results of nested operators are looked up.

use super::ast::{self, PropertyFile, ValueType};
use super::build::VariableInfo;
use super::compile::{Binding, Code, ConstDef, OperatorHook, Scope, Value};
use crate::model::StateSet;
use crate::{Result, StateId};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

/// What a property file's scope is made of, beside the file itself.
pub struct PropertyContext<'a> {
    /// The model's formulas (PRISM models; empty for models read from files).
    pub formulas: &'a [ast::Formula],
    /// The model's constants and their values (as the model was built).
    pub constants: &'a [(String, Value)],
    /// Values for the property file's undefined constants (`--const`), by name.
    pub given: &'a [(String, Value)],
    /// The model's variables, in slot order (empty for models read from files).
    pub variables: &'a [VariableInfo],
    /// The model's labels, as sets of states.
    pub labels: &'a BTreeMap<String, StateSet>,
}

impl<'a> Scope<'a> {
    /// The scope of the properties of `file` (read from `text` at `path`) over a model described
    /// by `context`, with `hook` computing the property operators.
    ///
    /// # Errors
    /// [`Error::Parse`](crate::Error::Parse) naming file:line:column for a name defined twice (a property file's
    /// constant, formula or label with the name of the model's), a label that is not a bool;
    pub fn for_properties(
        file: &'a PropertyFile,
        text: &'a str,
        path: &Path,
        context: &PropertyContext<'a>,
        hook: &'a dyn OperatorHook,
    ) -> Result<Self> {
        let mut scope = Scope::new(text, path);
        scope.hook = Some(hook);
        scope.index_slot = context.variables.len();
        let mut taken: HashMap<&str, ()> = HashMap::new();
        for (k, v) in context.variables.iter().enumerate() {
            let ty = if v.boolean {
                ValueType::Bool
            } else {
                ValueType::Int
            };
            scope.vars.insert(v.name.clone(), Binding::Var(k, ty));
            taken.insert(&v.name, ());
        }
        for (name, value) in context.constants {
            scope.constants.insert(
                name.clone(),
                ConstDef {
                    ty: None,
                    expr: None,
                    span: ast::Ident::default_span(),
                    given: Some(*value),
                },
            );
            taken.insert(name, ());
        }
        for f in context.formulas {
            scope.formulas.insert(f.name.name.clone(), &f.expr);
            taken.insert(&f.name.name, ());
        }
        for c in &file.constants {
            if taken.contains_key(c.name.name.as_str()) {
                return Err(scope.error(
                    c.name.span,
                    format!("{} is already defined by the model", c.name.name),
                ));
            }
            scope.constants.insert(
                c.name.name.clone(),
                ConstDef {
                    ty: c.ty,
                    expr: c.value.as_ref(),
                    span: c.name.span,
                    given: None,
                },
            );
        }
        for (name, v) in context.given {
            if context.constants.iter().any(|(n, _)| n == name) {
                // The model's: used when it was built.
                continue;
            }
            // A constant of another property source is that source's (the caller checks that
            // every given constant is declared somewhere).
            if let Some(def) = scope.constants.get_mut(name) {
                if def.expr.is_some() {
                    let at = def.span;
                    return Err(scope.error(
                        at,
                        format!("constant {name} already has a value here; --const gives values only to undefined constants"),
                    ));
                }
                def.given = Some(*v);
            }
        }
        for f in &file.formulas {
            if taken.contains_key(f.name.name.as_str()) || scope.constants.contains_key(&f.name.name) {
                return Err(scope.error(f.name.span, format!("{} is already defined", f.name.name)));
            }
            scope.formulas.insert(f.name.name.clone(), &f.expr);
        }
        let slot = scope.index_slot;
        for (name, set) in context.labels {
            let set = set.clone();
            scope.labels.insert(
                name.clone(),
                Code::Bool(Arc::new(move |s| set.contains(s[slot] as StateId))),
            );
        }
        for l in &file.labels {
            if scope.labels.contains_key(&l.name.name) {
                return Err(scope.error(
                    l.name.span,
                    format!("label \"{}\" is already defined", l.name.name),
                ));
            }
            let code = scope.compile_as(&l.expr, ValueType::Bool, &format!("label \"{}\"", l.name.name))?;
            scope.labels.insert(l.name.name.clone(), code);
        }
        Ok(scope)
    }

    /// The slot after the variables, which holds the state's index when a property's code is
    /// evaluated ([`StateValues`]).
    #[must_use]
    pub fn index_slot(&self) -> usize {
        self.index_slot
    }

    /// Code that reads `values[state]` (a nested operator's result) through the index slot.
    #[must_use]
    pub fn lookup_numbers(&self, values: Arc<[f64]>) -> Code {
        let slot = self.index_slot;
        Code::Double(Arc::new(move |s| values[s[slot] as u32 as usize]))
    }

    /// Code that reads whether `state ∈ set` through the index slot.
    #[must_use]
    pub fn lookup_set(&self, set: StateSet) -> Code {
        let slot = self.index_slot;
        Code::Bool(Arc::new(move |s| set.contains(s[slot] as StateId)))
    }
}

impl ast::Ident {
    /// The span of a name given from outside the files.
    pub(crate) fn default_span() -> super::lex::Span {
        super::lex::Span::default()
    }
}

/// The states of a model as property code sees them: each state's variables (none for a model
/// read from a file) followed by its index.
#[derive(Clone, Copy)]
pub struct StateValues<'a> {
    /// Every state's variables' values (`None`: the model has no variables).
    pub states: Option<&'a super::PackedStates>,
    /// The number of states.
    pub n: usize,
}

impl StateValues<'_> {
    /// `f(code's value)` in every state, in state order (in parallel).
    fn map<T: Send>(&self, code: &Code, f: impl Fn(Value) -> T + Sync) -> Vec<T> {
        let vars = self.states.map_or(0, super::PackedStates::variables);
        (0..self.n)
            .into_par_iter()
            .with_min_len(4096)
            .map_init(
                || vec![0i32; vars + 1],
                |buf, s| {
                    if let Some(states) = self.states {
                        states.unpack(s, &mut buf[..vars]);
                    }
                    buf[vars] = s as i32;
                    f(code.eval(buf))
                },
            )
            .collect()
    }

    /// The states where `code` (a bool) holds.
    #[must_use]
    pub fn set(&self, code: &Code) -> StateSet {
        let flags = self.map(code, |v| matches!(v, Value::Bool(true)));
        StateSet::from_states(
            self.n,
            flags
                .iter()
                .enumerate()
                .filter(|(_, b)| **b)
                .map(|(i, _)| i as StateId),
        )
    }

    /// The value of `code` (a number) in every state.
    #[must_use]
    pub fn numbers(&self, code: &Code) -> Vec<f64> {
        self.map(code, |v| v.as_f64().unwrap_or(f64::NAN))
    }

    /// The value of `code` in every state.
    #[must_use]
    pub fn values(&self, code: &Code) -> Vec<Value> {
        self.map(code, |v| v)
    }
}
