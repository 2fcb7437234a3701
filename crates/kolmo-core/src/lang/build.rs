//! From a parsed model to an explored [`Dtmc`] or [`Mdp`]: the PRISM manual's semantics
//! ("Modules and variables", "Synchronisation", "Costs and rewards").
//!
//! - Every module runs in parallel. An unlabelled command (`[]`) moves its module alone; a
//!   command labelled `[a]` moves together with one enabled `[a]` command of every other module
//!   that has `a` in its alphabet (the actions of its commands): the probabilities multiply and
//!   the assignments combine. An action blocked in one module of its alphabet is not enabled.
//! - The right-hand sides of all updates read the state before the step.
//! - DTMC: when several choices are enabled, each is taken with equal probability (as PRISM,
//!   which warns); MDP: each is a choice (an action) of the state.
//! - A state with no enabled choice is a deadlock: an error naming the state, or a self-loop
//!   when asked ([`BuildOptions::fix_deadlocks`], PRISM's `-fixdl`), and the built-in label
//!   `"deadlock"` names those states either way.
//! - Rewards: a state item `g : r` earns `r` in every `g`-state each step; a transition item
//!   `[a] g : r` earns `r` when a choice with action `a` (`[]`: unlabelled) is taken in a
//!   `g`-state. In a DTMC whose state has several enabled choices, the transition reward is the
//!   mean over the choices, each being taken with equal probability.

use super::ast::{
    self, Assignment, Command, Expr, ExprKind, ModelType, Module, ModuleDef, Update, ValueType, VarType,
    Variable,
};
use super::compile::{Binding, Code, ConstDef, Scope, Value};
use super::lex::Span;
use crate::explore::{ExploreOptions, Generator, Successors, explore};
use crate::io::Model;
use crate::model::{Dtmc, Mdp, RewardModel, StateSet};
use crate::{Error, Result, StateId};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Mutex;

/// How to build a model.
#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    /// Values of constants the file leaves undefined (or overrides), by name, as from
    /// `--const N=16,p=0.5`.
    pub constants: Vec<(String, Value)>,
    /// Give deadlock states a self-loop instead of refusing the model (PRISM's `-fixdl`).
    pub fix_deadlocks: bool,
    /// Stop beyond this many states (`None`: `u32::MAX`).
    pub max_states: Option<usize>,
}

/// A variable of the built model.
#[derive(Clone, Debug)]
pub struct VariableInfo {
    /// The name.
    pub name: String,
    /// The smallest value (0 for a bool).
    pub low: i32,
    /// The largest value (1 for a bool).
    pub high: i32,
    /// Whether it is a bool.
    pub boolean: bool,
}

/// A model built from the PRISM language: the model, its variables and every state's values.
#[derive(Debug)]
pub struct BuiltModel {
    /// The model, with the file's labels (and `"init"`, `"deadlock"`) and reward structures
    /// (an unnamed one is called `""` and is also reachable as the first).
    pub model: Model,
    /// The model type written in the file.
    pub model_type: ModelType,
    /// The variables, in slot order.
    pub variables: Vec<VariableInfo>,
    /// `states[s]` holds the values of state `s`, one per variable (bools as 0 or 1).
    pub states: Vec<Box<[i32]>>,
    /// The reward structures' names, in file order (`""` for an unnamed one).
    pub reward_names: Vec<String>,
    /// The constants' values used, in file order.
    pub constants: Vec<(String, Value)>,
    /// The states with no enabled choice (given self-loops).
    pub deadlocks: Vec<StateId>,
}

/// A compiled command.
struct CommandCode {
    action: Option<usize>,
    guard: Code,
    updates: Vec<UpdateCode>,
    /// file:line:column of the command, for messages.
    place: String,
}

struct UpdateCode {
    probability: Option<Code>,
    assignments: Vec<(usize, Code)>,
}

struct ModuleCode {
    commands: Vec<CommandCode>,
}

/// The compiled model: the generator of [`explore`].
struct Program {
    model_type: ModelType,
    variables: Vec<VariableInfo>,
    modules: Vec<ModuleCode>,
    /// For each action, the modules with it in their alphabet.
    participants: Vec<Vec<usize>>,
    initial: Vec<Box<[i32]>>,
    fix_deadlocks: bool,
    /// The first error met while expanding (expansion cannot return one).
    error: Mutex<Option<Error>>,
    deadlocks: Mutex<Vec<Box<[i32]>>>,
}

/// The state's values as `(x=1, b=true)`.
fn describe(variables: &[VariableInfo], s: &[i32]) -> String {
    let parts: Vec<String> = variables
        .iter()
        .zip(s)
        .map(|(v, &x)| {
            if v.boolean {
                format!("{}={}", v.name, x != 0)
            } else {
                format!("{}={x}", v.name)
            }
        })
        .collect();
    format!("({})", parts.join(", "))
}

/// One enabled choice: the action and one command per participating module.
struct Choice<'a> {
    action: Option<usize>,
    commands: Vec<&'a CommandCode>,
}

impl Program {
    /// An error about state `s`, named by its variables' values.
    fn at_state(&self, s: &[i32], message: String) -> Error {
        Error::arg(
            "model",
            format!("state {}: {message}", describe(&self.variables, s)),
        )
    }

    fn fail(&self, e: Error) {
        let mut slot = self.error.lock().expect("not poisoned");
        if slot.is_none() {
            *slot = Some(e);
        }
    }

    fn failed(&self) -> bool {
        self.error.lock().expect("not poisoned").is_some()
    }

    fn guard(c: &CommandCode, s: &[i32]) -> bool {
        matches!(c.guard.eval(s), Value::Bool(true))
    }

    /// The enabled choices of `s`, unlabelled commands first (module by module), then each
    /// action in order of first appearance.
    fn choices<'a>(&'a self, s: &[i32]) -> Vec<Choice<'a>> {
        let mut out = Vec::new();
        for m in &self.modules {
            for c in &m.commands {
                if c.action.is_none() && Self::guard(c, s) {
                    out.push(Choice {
                        action: None,
                        commands: vec![c],
                    });
                }
            }
        }
        for (a, mods) in self.participants.iter().enumerate() {
            let mut product: Vec<Vec<&CommandCode>> = vec![Vec::new()];
            for &m in mods {
                let enabled: Vec<&CommandCode> = self.modules[m]
                    .commands
                    .iter()
                    .filter(|c| c.action == Some(a) && Self::guard(c, s))
                    .collect();
                if enabled.is_empty() {
                    product.clear();
                    break;
                }
                product = product
                    .into_iter()
                    .flat_map(|p| {
                        enabled.iter().map(move |c| {
                            let mut q = p.clone();
                            q.push(*c);
                            q
                        })
                    })
                    .collect();
            }
            out.extend(product.into_iter().map(|commands| Choice {
                action: Some(a),
                commands,
            }));
        }
        out
    }

    /// The distribution of one choice from `s`, or an error naming the state and command.
    fn distribution(&self, s: &[i32], choice: &Choice<'_>) -> Result<Vec<(Box<[i32]>, f64)>> {
        let mut dist: Vec<(Box<[i32]>, f64)> = vec![(s.into(), 1.0)];
        for c in &choice.commands {
            let mut next = Vec::with_capacity(dist.len() * c.updates.len());
            let mut sum = 0.0;
            for u in &c.updates {
                let p = match &u.probability {
                    None => 1.0,
                    Some(code) => code.eval(s).as_f64().expect("a double"),
                };
                if !p.is_finite() || p < 0.0 {
                    return Err(self.at_state(
                        s,
                        format!("the command at {} gives an update probability {p}", c.place),
                    ));
                }
                sum += p;
                if p == 0.0 {
                    continue;
                }
                for (t, q) in &dist {
                    let mut t = t.clone();
                    for (k, code) in &u.assignments {
                        let v = match code.eval(s) {
                            Value::Int(i) => i,
                            Value::Bool(b) => i64::from(b),
                            Value::Double(_) => unreachable!("type-checked"),
                        };
                        let var = &self.variables[*k];
                        if v < i64::from(var.low) || v > i64::from(var.high) {
                            return Err(self.at_state(
                                s,
                                format!(
                                    "the command at {} sets {} to {v}, outside its range {}..{}",
                                    c.place, var.name, var.low, var.high
                                ),
                            ));
                        }
                        t[*k] = v as i32;
                    }
                    next.push((t, q * p));
                }
            }
            if (sum - 1.0).abs() > 1e-9 * c.updates.len() as f64 {
                return Err(self.at_state(
                    s,
                    format!(
                        "the probabilities of the command at {} sum to {sum}, not 1",
                        c.place
                    ),
                ));
            }
            dist = next;
        }
        Ok(dist)
    }
}

impl Generator for Program {
    type State = Box<[i32]>;

    fn initial_states(&self) -> Vec<Box<[i32]>> {
        self.initial.clone()
    }

    fn expand(&self, s: &Box<[i32]>, out: &mut Successors<Box<[i32]>>) {
        if self.failed() {
            out.add(s.clone(), 1.0);
            return;
        }
        let choices = self.choices(s);
        if choices.is_empty() {
            if !self.fix_deadlocks {
                self.fail(Error::arg(
                    "model",
                    format!(
                        "state {}: no command is enabled (a deadlock: add a command for it, or let it stay forever as PRISM's -fixdl does)",
                        describe(&self.variables, s)
                    ),
                ));
            }
            self.deadlocks.lock().expect("not poisoned").push(s.clone());
            out.add(s.clone(), 1.0);
            return;
        }
        let k = choices.len() as f64;
        for c in &choices {
            match self.distribution(s, c) {
                Ok(d) => {
                    if self.model_type != ModelType::Dtmc {
                        out.choice();
                    }
                    for (t, p) in d {
                        out.add(
                            t,
                            if self.model_type == ModelType::Dtmc {
                                p / k
                            } else {
                                p
                            },
                        );
                    }
                }
                Err(e) => {
                    self.fail(e);
                    out.add(s.clone(), 1.0);
                    return;
                }
            }
        }
    }
}

/// Builds the model of `ast` (parsed from `text` at `path`).
///
/// # Errors
/// [`Error::Parse`] naming file:line:column for undefined or doubly defined names, type errors, a
/// constant without a value, a module writing another module's variable; [`Error::InvalidArgument`]
/// naming the state (its variables' values) and the command for an update leaving a variable's
/// range, probabilities that do not sum to 1, or a deadlock state (unless fixed);
/// [`Error::TooManyStates`].
pub fn build_model(ast: &ast::Model, text: &str, path: &Path, options: &BuildOptions) -> Result<BuiltModel> {
    let model_type = ast.model_type.map_or(ModelType::Mdp, |t| t.0);
    if model_type == ModelType::Smg {
        let span = ast.model_type.map(|t| t.1).unwrap_or_default();
        return Err(Scope::new(text, path).error(
            span,
            "smg models are not built yet (games from files: issue 17)".into(),
        ));
    }
    let mut scope = Scope::new(text, path);
    let mut seen: HashMap<String, Span> = HashMap::new();
    let mut declare = |scope: &Scope, name: &ast::Ident| -> Result<()> {
        if let Some(first) = seen.insert(name.name.clone(), name.span) {
            return Err(scope.error(
                name.span,
                format!("{} is already defined (at {})", name.name, scope.place(first)),
            ));
        }
        Ok(())
    };
    for c in &ast.constants {
        declare(&scope, &c.name)?;
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
    for (name, v) in &options.constants {
        match scope.constants.get_mut(name) {
            Some(def) => def.given = Some(*v),
            None => {
                return Err(Error::arg("--const", format!("the model has no constant {name}")));
            }
        }
    }
    for f in &ast.formulas {
        declare(&scope, &f.name)?;
        scope.formulas.insert(f.name.name.clone(), &f.expr);
    }
    // Modules, renamed ones written out: formulas expanded first, then the names substituted.
    let mut modules: Vec<Module> = Vec::new();
    let bases: HashMap<&str, &Module> = ast
        .modules
        .iter()
        .filter_map(|m| match m {
            ModuleDef::Module(m) => Some((m.name.name.as_str(), m)),
            ModuleDef::Renamed(_) => None,
        })
        .collect();
    for m in &ast.modules {
        match m {
            ModuleDef::Module(m) => modules.push(m.clone()),
            ModuleDef::Renamed(r) => {
                let Some(base) = bases.get(r.base.name.as_str()) else {
                    return Err(scope.error(r.base.span, format!("no module {} to rename", r.base.name)));
                };
                let map: HashMap<&str, &str> = r
                    .pairs
                    .iter()
                    .map(|(a, b)| (a.name.as_str(), b.name.as_str()))
                    .collect();
                modules.push(rename_module(base, &r.name, &map, &scope)?);
            }
        }
    }
    // Variables: globals first, then each module's, in order.
    let mut variables = Vec::new();
    let mut decls: Vec<(&Variable, Option<usize>)> = ast.globals.iter().map(|v| (v, None)).collect();
    for (i, m) in modules.iter().enumerate() {
        decls.extend(m.variables.iter().map(|v| (v, Some(i))));
    }
    let mut owner = Vec::new();
    for (v, module) in &decls {
        declare(&scope, &v.name)?;
        let (low, high, boolean) = match &v.ty {
            VarType::Bool => (0, 1, true),
            VarType::Range(lo, hi) => (
                int_const(&scope, lo, "the range's low end")?,
                int_const(&scope, hi, "the range's high end")?,
                false,
            ),
        };
        if low > high {
            return Err(scope.error(
                v.name.span,
                format!("variable {}: the range {low}..{high} is empty", v.name.name),
            ));
        }
        let k = variables.len();
        scope.vars.insert(
            v.name.name.clone(),
            Binding::Var(k, if boolean { ValueType::Bool } else { ValueType::Int }),
        );
        variables.push(VariableInfo {
            name: v.name.name.clone(),
            low,
            high,
            boolean,
        });
        owner.push(*module);
    }
    for m in &modules {
        declare(&scope, &m.name)?;
    }
    // Initial states.
    let initial = initial_states(ast, &scope, &decls, &variables)?;
    // Actions in order of first appearance.
    let mut actions: Vec<String> = Vec::new();
    let action_id = |name: &str, actions: &mut Vec<String>| match actions.iter().position(|a| a == name) {
        Some(i) => i,
        None => {
            actions.push(name.to_string());
            actions.len() - 1
        }
    };
    let mut codes = Vec::new();
    let mut participants: Vec<Vec<usize>> = Vec::new();
    for (i, m) in modules.iter().enumerate() {
        let mut commands = Vec::new();
        for c in &m.commands {
            let action = c.action.as_ref().map(|a| action_id(&a.name, &mut actions));
            if let Some(a) = action {
                participants.resize(actions.len(), Vec::new());
                if !participants[a].contains(&i) {
                    participants[a].push(i);
                }
            }
            commands.push(compile_command(c, action, i, &owner, &scope)?);
        }
        codes.push(ModuleCode { commands });
    }
    participants.resize(actions.len(), Vec::new());
    let program = Program {
        model_type,
        variables,
        modules: codes,
        participants,
        initial,
        fix_deadlocks: options.fix_deadlocks,
        error: Mutex::new(None),
        deadlocks: Mutex::new(Vec::new()),
    };
    let explored = explore(
        &program,
        ExploreOptions {
            max_states: options.max_states.unwrap_or(u32::MAX as usize),
        },
    )?;
    if let Some(e) = program.error.lock().expect("not poisoned").take() {
        return Err(e);
    }
    let ids: HashMap<&[i32], StateId> = explored
        .states
        .iter()
        .enumerate()
        .map(|(i, s)| (&**s, i as StateId))
        .collect();
    let mut deadlocks: Vec<StateId> = program
        .deadlocks
        .lock()
        .expect("not poisoned")
        .iter()
        .map(|s| ids[&**s])
        .collect();
    deadlocks.sort_unstable();
    let n = explored.states.len();
    let names: Vec<String> = explored
        .states
        .iter()
        .map(|s| describe(&program.variables, s))
        .collect();
    // Labels: the file's, and the built-in ones.
    let mut labels = BTreeMap::new();
    for l in &ast.labels {
        let code = scope.compile_as(&l.expr, ValueType::Bool, &format!("label \"{}\"", l.name.name))?;
        labels.insert(l.name.name.clone(), states_where(&code, &explored.states));
    }
    labels.insert(
        "init".to_string(),
        StateSet::from_states(n, explored.initial.iter().copied()),
    );
    labels.insert(
        "deadlock".to_string(),
        StateSet::from_states(n, deadlocks.iter().copied()),
    );
    // Rewards.
    let mut reward_models = Vec::new();
    for r in &ast.rewards {
        let name = r.name.as_ref().map_or(String::new(), |i| i.name.clone());
        if reward_models
            .iter()
            .any(|(n, _): &(String, RewardModel)| *n == name)
        {
            return Err(scope.error(r.span, format!("a second reward structure \"{name}\"")));
        }
        reward_models.push((
            name,
            reward_model(r, &program, &explored.states, &explored.matrix, &scope, &actions)?,
        ));
    }
    // The constants' values (one the model never uses may stay undefined: a property file's).
    let constants = ast
        .constants
        .iter()
        .filter_map(|c| {
            scope
                .constant(&c.name.name, c.name.span)
                .ok()
                .map(|v| (c.name.name.clone(), v))
        })
        .collect();
    let reward_names: Vec<String> = reward_models.iter().map(|(n, _)| n.clone()).collect();
    let model = match model_type {
        ModelType::Dtmc => {
            let mut d = Dtmc::new(explored.matrix, explored.initial)?.with_names(names);
            for (k, v) in labels {
                d.set_label(k, v);
            }
            for (k, v) in reward_models {
                d.set_reward_model(k, v)?;
            }
            Model::Dtmc(d)
        }
        _ => {
            let mut m = Mdp::new(explored.matrix, explored.initial)?.with_names(names);
            for (k, v) in labels {
                m.set_label(k, v);
            }
            for (k, v) in reward_models {
                m.set_reward_model(k, v)?;
            }
            Model::Mdp(m)
        }
    };
    Ok(BuiltModel {
        model,
        model_type,
        variables: program.variables,
        states: explored.states,
        reward_names,
        constants,
        deadlocks,
    })
}

/// The states where `code` (a bool) holds.
pub(crate) fn states_where(code: &Code, states: &[Box<[i32]>]) -> StateSet {
    StateSet::from_states(
        states.len(),
        states
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(code.eval(s), Value::Bool(true)))
            .map(|(i, _)| i as StateId),
    )
}

fn int_const(scope: &Scope, e: &Expr, what: &str) -> Result<i32> {
    match scope.evaluate(e, what)? {
        Value::Int(i) if i32::try_from(i).is_ok() => Ok(i as i32),
        v => Err(scope.error(e.span, format!("{what} must be an int (within ±2^31), not {v}"))),
    }
}

fn initial_states(
    ast: &ast::Model,
    scope: &Scope,
    decls: &[(&Variable, Option<usize>)],
    variables: &[VariableInfo],
) -> Result<Vec<Box<[i32]>>> {
    if let Some(init) = &ast.init {
        if let Some((v, _)) = decls.iter().find(|(v, _)| v.init.is_some()) {
            return Err(scope.error(
                v.name.span,
                format!(
                    "variable {} has an init value and the model has init ... endinit: use one of them",
                    v.name.name
                ),
            ));
        }
        let code = scope.compile_as(init, ValueType::Bool, "init ... endinit")?;
        let count = variables
            .iter()
            .try_fold(1u64, |acc, v| {
                acc.checked_mul((i64::from(v.high) - i64::from(v.low) + 1) as u64)
            })
            .filter(|&c| c <= 1 << 24);
        let Some(count) = count else {
            return Err(scope.error(
                init.span,
                "init ... endinit over more than 2^24 combinations of the variables' values is not supported"
                    .into(),
            ));
        };
        let mut out = Vec::new();
        let mut s: Vec<i32> = variables.iter().map(|v| v.low).collect();
        for _ in 0..count {
            if matches!(code.eval(&s), Value::Bool(true)) {
                out.push(s.clone().into_boxed_slice());
            }
            // Next combination, the last variable fastest.
            for k in (0..s.len()).rev() {
                if s[k] < variables[k].high {
                    s[k] += 1;
                    break;
                }
                s[k] = variables[k].low;
            }
        }
        if out.is_empty() {
            return Err(scope.error(init.span, "no state satisfies init ... endinit".into()));
        }
        return Ok(out);
    }
    let mut s = Vec::with_capacity(decls.len());
    for ((v, _), info) in decls.iter().zip(variables) {
        let x = match &v.init {
            None => info.low,
            Some(e) => match (scope.evaluate(e, "an initial value")?, info.boolean) {
                (Value::Bool(b), true) => i32::from(b),
                (Value::Int(i), false) if i >= i64::from(info.low) && i <= i64::from(info.high) => i as i32,
                (v2, _) => {
                    return Err(scope.error(
                        e.span,
                        format!(
                            "variable {}: the initial value {v2} is not {}",
                            v.name.name,
                            if info.boolean {
                                "a bool".to_string()
                            } else {
                                format!("in its range {}..{}", info.low, info.high)
                            }
                        ),
                    ));
                }
            },
        };
        s.push(x);
    }
    Ok(vec![s.into_boxed_slice()])
}

fn compile_command(
    c: &Command,
    action: Option<usize>,
    module: usize,
    owner: &[Option<usize>],
    scope: &Scope,
) -> Result<CommandCode> {
    let guard = scope.compile_as(&c.guard, ValueType::Bool, "a guard")?;
    let mut updates = Vec::new();
    for u in &c.updates {
        let probability = match &u.probability {
            None => None,
            Some(p) => Some(scope.compile_as(p, ValueType::Double, "an update's probability")?),
        };
        let mut assignments: Vec<(usize, Code)> = Vec::new();
        for a in &u.assignments {
            let Some(Binding::Var(k, ty)) = scope.vars.get(&a.var.name) else {
                return Err(scope.error(a.var.span, format!("{} is not a variable", a.var.name)));
            };
            if let Some(m) = owner[*k]
                && m != module
            {
                return Err(scope.error(
                    a.var.span,
                    format!("{} belongs to another module; a module may write only its own variables and the globals", a.var.name),
                ));
            }
            if assignments.iter().any(|(j, _)| j == k) {
                return Err(scope.error(
                    a.var.span,
                    format!("{} is assigned twice in one update", a.var.name),
                ));
            }
            let code = scope.compile_as(&a.value, *ty, &format!("the value of {}", a.var.name))?;
            assignments.push((*k, code));
        }
        updates.push(UpdateCode {
            probability,
            assignments,
        });
    }
    Ok(CommandCode {
        action,
        guard,
        updates,
        place: scope.place(c.span),
    })
}

fn reward_model(
    r: &ast::RewardStructure,
    program: &Program,
    states: &[Box<[i32]>],
    matrix: &crate::sparse::CsrMatrix,
    scope: &Scope,
    actions: &[String],
) -> Result<RewardModel> {
    let mut state_items = Vec::new();
    let mut transition_items = Vec::new();
    for item in &r.items {
        let guard = scope.compile_as(&item.guard, ValueType::Bool, "a reward's guard")?;
        let value = scope.compile_as(&item.value, ValueType::Double, "a reward")?;
        match &item.action {
            None => state_items.push((guard, value)),
            Some(a) => {
                let action = match a {
                    None => None,
                    // An action no command has never earns.
                    Some(a) => match actions.iter().position(|x| *x == a.name) {
                        Some(i) => Some(Some(i)),
                        None => continue,
                    },
                };
                transition_items.push((action.unwrap_or(None), guard, value, item.span));
            }
        }
    }
    let earn = |items: &[(Code, Code)], s: &[i32]| -> f64 {
        items
            .iter()
            .filter(|(g, _)| matches!(g.eval(s), Value::Bool(true)))
            .map(|(_, v)| v.eval(s).as_f64().expect("a number"))
            .sum()
    };
    let mut model = RewardModel::default();
    if !state_items.is_empty() {
        model.state = Some(states.iter().map(|s| earn(&state_items, s)).collect());
    }
    if !transition_items.is_empty() {
        let mut action = Vec::with_capacity(matrix.nrows());
        for (g, s) in states.iter().enumerate() {
            let choices = program.choices(s);
            let per_choice: Vec<f64> = choices
                .iter()
                .map(|c| {
                    transition_items
                        .iter()
                        .filter(|(a, g, _, _)| *a == c.action && matches!(g.eval(s), Value::Bool(true)))
                        .map(|(_, _, v, _)| v.eval(s).as_f64().expect("a number"))
                        .sum()
                })
                .collect();
            let rows = matrix.group_rows(g).len();
            if choices.is_empty() {
                action.extend(std::iter::repeat_n(0.0, rows));
            } else if program.model_type == ModelType::Dtmc {
                action.push(per_choice.iter().sum::<f64>() / per_choice.len() as f64);
            } else {
                debug_assert_eq!(rows, per_choice.len());
                action.extend(per_choice);
            }
        }
        model.action = Some(action);
    }
    for part in [&model.state, &model.action].into_iter().flatten() {
        if let Some(v) = part.iter().find(|v| !v.is_finite()) {
            return Err(scope.error(r.span, format!("a reward of this structure evaluates to {v}")));
        }
    }
    Ok(model)
}

/// `base` copied as module `name` with the names of `map` substituted, after expanding the
/// formulas it uses (the PRISM manual: "Module renaming"; formulas are expanded first).
fn rename_module(
    base: &Module,
    name: &ast::Ident,
    map: &HashMap<&str, &str>,
    scope: &Scope,
) -> Result<Module> {
    let ex = |e: &Expr| -> Result<Expr> { Ok(rename(&expand(e, scope, 0)?, map)) };
    let id = |i: &ast::Ident| ast::Ident {
        name: map
            .get(i.name.as_str())
            .map_or_else(|| i.name.clone(), |n| (*n).to_string()),
        span: i.span,
    };
    let mut variables = Vec::new();
    for v in &base.variables {
        if !map.contains_key(v.name.name.as_str()) {
            return Err(scope.error(
                name.span,
                format!(
                    "module {}: the renaming must give a new name to variable {}",
                    name.name, v.name.name
                ),
            ));
        }
        variables.push(Variable {
            name: id(&v.name),
            ty: match &v.ty {
                VarType::Bool => VarType::Bool,
                VarType::Range(a, b) => VarType::Range(ex(a)?, ex(b)?),
            },
            init: v.init.as_ref().map(&ex).transpose()?,
        });
    }
    let mut commands = Vec::new();
    for c in &base.commands {
        let mut updates = Vec::new();
        for u in &c.updates {
            let mut assignments = Vec::new();
            for a in &u.assignments {
                assignments.push(Assignment {
                    var: id(&a.var),
                    value: ex(&a.value)?,
                });
            }
            updates.push(Update {
                probability: u.probability.as_ref().map(&ex).transpose()?,
                assignments,
                span: u.span,
            });
        }
        commands.push(Command {
            action: c.action.as_ref().map(id),
            guard: ex(&c.guard)?,
            updates,
            span: c.span,
        });
    }
    Ok(Module {
        name: name.clone(),
        variables,
        commands,
    })
}

/// `e` with every formula name replaced by its (expanded) expression.
fn expand(e: &Expr, scope: &Scope, depth: usize) -> Result<Expr> {
    if depth > 1000 {
        return Err(scope.error(
            e.span,
            "formulas nested more than 1000 deep (a formula defined in terms of itself?)".into(),
        ));
    }
    map_expr(e, &mut |x| match &x.kind {
        ExprKind::Name(n) => match scope.formulas.get(n) {
            Some(f) => Ok(Some(expand(f, scope, depth + 1)?)),
            None => Ok(None),
        },
        _ => Ok(None),
    })
}

/// `e` with the names of `map` substituted.
fn rename(e: &Expr, map: &HashMap<&str, &str>) -> Expr {
    map_expr(e, &mut |x| {
        Ok(match &x.kind {
            ExprKind::Name(n) => map.get(n.as_str()).map(|m| Expr {
                kind: ExprKind::Name((*m).to_string()),
                span: x.span,
            }),
            _ => None,
        })
    })
    .expect("renaming cannot fail")
}

/// Rebuilds `e` bottom-up, replacing each node for which `f` returns a replacement.
fn map_expr(e: &Expr, f: &mut dyn FnMut(&Expr) -> Result<Option<Expr>>) -> Result<Expr> {
    if let Some(r) = f(e)? {
        return Ok(r);
    }
    let b = |x: &Expr, f: &mut dyn FnMut(&Expr) -> Result<Option<Expr>>| map_expr(x, f).map(Box::new);
    let kind = match &e.kind {
        ExprKind::Unary(op, a) => ExprKind::Unary(*op, b(a, f)?),
        ExprKind::Binary(op, x, y) => ExprKind::Binary(*op, b(x, f)?, b(y, f)?),
        ExprKind::Ite(c, x, y) => ExprKind::Ite(b(c, f)?, b(x, f)?, b(y, f)?),
        ExprKind::Call(g, args) => {
            ExprKind::Call(*g, args.iter().map(|a| map_expr(a, f)).collect::<Result<_>>()?)
        }
        k => k.clone(),
    };
    Ok(Expr { kind, span: e.span })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::parse_model;

    fn build(text: &str, options: &BuildOptions) -> Result<BuiltModel> {
        let path = Path::new("m.pm");
        build_model(&parse_model(text, path)?, text, path, options)
    }

    /// Two coins tossed in lockstep over the shared action `toss` (each 1/2, 1/2), then the
    /// module `b`, a renamed copy, counting; 1 + 4 states.
    #[test]
    fn synchronised_and_renamed_modules() {
        let text = "dtmc\nconst double p = 1/2;\nformula done = x>0;\nmodule a\n x : [0..2] init 0;\n [toss] !done -> p:(x'=1) + 1-p:(x'=2);\n [toss] done -> true;\nendmodule\nmodule b = a [x=y] endmodule\nrewards \"r\"\n [toss] true : 1;\n x=1 : 2;\nendrewards\nlabel \"both\" = x=1 & y=1;\n";
        let b = build(text, &BuildOptions::default()).unwrap();
        assert_eq!(b.states.len(), 5);
        let Model::Dtmc(d) = &b.model else { panic!() };
        // From the start, each of the four outcomes has probability 1/4.
        assert_eq!(d.matrix().row(0).1, &[0.25, 0.25, 0.25, 0.25][..]);
        assert_eq!(d.label("both").unwrap().count(), 1);
        let r = &d.reward_models()["r"];
        assert_eq!(r.action.as_ref().unwrap(), &vec![1.0; 5]);
        assert_eq!(r.state.as_ref().unwrap().iter().sum::<f64>(), 4.0);
    }

    #[test]
    fn errors_name_the_state_and_the_command() {
        let e = build(
            "dtmc\nmodule a\n x : [0..2] init 0;\n [] true -> (x'=x+1);\nendmodule\n",
            &BuildOptions::default(),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid model: state (x=2): the command at m.pm:4:2 sets x to 3, outside its range 0..2"
        );
        let e = build(
            "dtmc\nmodule a\n x : [0..2] init 0;\n [] x<2 -> 0.5:(x'=x+1) + 0.4:true;\n [] x=2 -> true;\nendmodule\n",
            &BuildOptions::default(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("sum to 0.9, not 1"), "{e}");
        let e = build(
            "dtmc\nconst int N;\nmodule a\n x : [0..N];\nendmodule\n",
            &BuildOptions::default(),
        )
        .unwrap_err();
        assert!(
            e.to_string().starts_with("m.pm:4:10: constant N has no value"),
            "{e}"
        );
        let e = build(
            "mdp\nmodule a\n x : bool;\n [] !x -> (y'=1);\nendmodule\nmodule b\n y : [0..1];\n [] true -> true;\nendmodule\n",
            &BuildOptions::default(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("belongs to another module"), "{e}");
        let text = "dtmc\nmodule a\n x : [0..1] init 0;\n [] x=0 -> (x'=1);\nendmodule\n";
        let e = build(text, &BuildOptions::default()).unwrap_err();
        assert!(e.to_string().contains("(x=1): no command is enabled"), "{e}");
        let fixed = BuildOptions {
            fix_deadlocks: true,
            ..BuildOptions::default()
        };
        assert_eq!(build(text, &fixed).unwrap().deadlocks, vec![1]);
        let e = build(
            "dtmc\nconst int N = 2;\nformula N = 3;\nmodule a\n x : bool;\nendmodule\n",
            &fixed,
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("m.pm:3:9: N is already defined (at m.pm:2:11)"),
            "{e}"
        );
    }
}
