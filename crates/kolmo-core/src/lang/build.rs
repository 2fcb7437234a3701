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
use super::packed::{Layout, PackedStates};
use crate::explore::{ExploreOptions, Generator, Successors, explore_parallel};
use crate::io::Model;
use crate::model::{Dtmc, Mdp, RewardModel, StateSet};
use crate::{Error, Result, StateId};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

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
    /// Which reward structures to build (pay only for what is asked): `None`, all of them;
    /// `Some(list)`, those named in the list, and the first one written where the list holds
    /// `None`. The others keep their names in [`BuiltModel::reward_names`] but are not built.
    pub reward_structures: Option<Vec<Option<String>>>,
    /// Name each choice of an MDP by its action (`""` for an unlabelled command), as an export
    /// writes them (one more pass over the states).
    pub action_names: bool,
    /// Also evaluate every transition probability and reward exactly (ints as integers, doubles
    /// as rationals: `1/3` stays 1/3), kept as the model's [`Written`](crate::model::Written)
    /// values for exact analyses.
    pub exact: bool,
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
    /// Every state's variables' values (bools as 0 or 1), packed.
    pub states: PackedStates,
    /// The reward structures' names, in file order (`""` for an unnamed one).
    pub reward_names: Vec<String>,
    /// The constants' values used, in file order.
    pub constants: Vec<(String, Value)>,
    /// The states with no enabled choice (given self-loops).
    pub deadlocks: Vec<StateId>,
}

/// A compiled command.
struct CommandCode {
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
    /// The unlabelled commands.
    unlabelled: CommandList,
}

/// Some commands of a module, indexed by the value of one variable that most of their guards
/// fix with a conjunct `x = c`: a state looks at only the commands whose guard can hold there
/// (in file order), not at every guard.
struct CommandList {
    all: Vec<usize>,
    /// (variable slot, its low end, for each value the commands that do not exclude it).
    index: Option<(usize, i32, Vec<Vec<usize>>)>,
}

impl CommandList {
    /// The commands whose guards may hold in `s`.
    #[inline]
    fn candidates(&self, s: &[i32]) -> &[usize] {
        match &self.index {
            Some((k, low, by_value)) => &by_value[(s[*k] - low) as usize],
            None => &self.all,
        }
    }

    /// `commands` indexed by the variable most of their guards fix (`fixed[c]`: the (slot,
    /// value) pairs command `c`'s guard fixes), if that leaves fewer guards to evaluate.
    fn new(commands: Vec<usize>, fixed: &[Vec<(usize, i64)>], variables: &[VariableInfo]) -> Self {
        let mut counts: HashMap<usize, usize> = HashMap::new();
        for &c in &commands {
            for &(k, _) in &fixed[c] {
                *counts.entry(k).or_default() += 1;
            }
        }
        let best = counts
            .into_iter()
            .filter(|&(k, n)| n >= 2 && variables[k].high - variables[k].low < 4096)
            .max_by_key(|&(k, n)| (n, usize::MAX - k));
        let index = best.map(|(k, _)| {
            let (low, high) = (variables[k].low, variables[k].high);
            let by_value = (low..=high)
                .map(|v| {
                    commands
                        .iter()
                        .copied()
                        .filter(|&c| fixed[c].iter().all(|&(j, x)| j != k || x == i64::from(v)))
                        .collect()
                })
                .collect();
            (k, low, by_value)
        });
        Self { all: commands, index }
    }
}

/// The compiled model: commands by module, and for each action the modules that synchronise on
/// it with their commands of that action.
struct Program {
    model_type: ModelType,
    variables: Vec<VariableInfo>,
    modules: Vec<ModuleCode>,
    /// For each action, the modules with it in their alphabet and their commands labelled with it.
    participants: Vec<Vec<(usize, CommandList)>>,
    initial: Vec<Box<[i32]>>,
    fix_deadlocks: bool,
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

/// Buffers reused from state to state.
#[derive(Default)]
struct ChoiceScratch {
    /// Per participating module, its enabled commands of the current action.
    enabled: Vec<Vec<usize>>,
    /// The commands of the current choice.
    chosen: Vec<(usize, usize)>,
    odometer: Vec<usize>,
}

impl Program {
    /// An error about state `s`, named by its variables' values.
    fn at_state(&self, s: &[i32], message: String) -> Error {
        Error::arg(
            "model",
            format!("state {}: {message}", describe(&self.variables, s)),
        )
    }

    fn guard(c: &CommandCode, s: &[i32]) -> bool {
        matches!(c.guard.eval(s), Value::Bool(true))
    }

    fn command(&self, (m, c): (usize, usize)) -> &CommandCode {
        &self.modules[m].commands[c]
    }

    /// Calls `f(action, commands)` for each enabled choice of `s` (commands as (module,
    /// command) pairs): unlabelled commands first (module by module), then each action in order
    /// of first appearance, one command of each module of its alphabet (their product).
    fn for_each_choice(
        &self,
        s: &[i32],
        scratch: &mut ChoiceScratch,
        mut f: impl FnMut(Option<usize>, &[(usize, usize)]) -> Result<()>,
    ) -> Result<()> {
        for (m, module) in self.modules.iter().enumerate() {
            for &c in module.unlabelled.candidates(s) {
                if Self::guard(&module.commands[c], s) {
                    f(None, &[(m, c)])?;
                }
            }
        }
        for (a, mods) in self.participants.iter().enumerate() {
            scratch.enabled.resize_with(mods.len(), Vec::new);
            let mut blocked = false;
            for (k, (m, commands)) in mods.iter().enumerate() {
                let e = &mut scratch.enabled[k];
                e.clear();
                e.extend(
                    commands
                        .candidates(s)
                        .iter()
                        .copied()
                        .filter(|&c| Self::guard(&self.modules[*m].commands[c], s)),
                );
                if e.is_empty() {
                    blocked = true;
                    break;
                }
            }
            if blocked {
                continue;
            }
            // Every combination, the last module fastest.
            scratch.odometer.clear();
            scratch.odometer.resize(mods.len(), 0);
            loop {
                scratch.chosen.clear();
                for (k, (m, _)) in mods.iter().enumerate() {
                    scratch.chosen.push((*m, scratch.enabled[k][scratch.odometer[k]]));
                }
                f(Some(a), &scratch.chosen)?;
                let mut k = mods.len();
                loop {
                    if k == 0 {
                        break;
                    }
                    k -= 1;
                    scratch.odometer[k] += 1;
                    if scratch.odometer[k] < scratch.enabled[k].len() {
                        break;
                    }
                    scratch.odometer[k] = 0;
                    if k == 0 {
                        k = usize::MAX;
                        break;
                    }
                }
                if k == usize::MAX || mods.is_empty() {
                    break;
                }
            }
        }
        Ok(())
    }

    /// The distribution of the choice made of `commands` from `s` (packed as `packed`), into
    /// `out` (cleared first; `spare` is a second buffer), or an error naming the state and
    /// command.
    fn distribution<const W: usize>(
        &self,
        layout: &Layout,
        s: &[i32],
        packed: &[u64; W],
        commands: &[(usize, usize)],
        out: &mut Vec<([u64; W], f64)>,
        spare: &mut Vec<([u64; W], f64)>,
    ) -> Result<()> {
        out.clear();
        out.push((*packed, 1.0));
        for &mc in commands {
            let c = self.command(mc);
            spare.clear();
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
                for (t, q) in out.iter() {
                    let mut t = *t;
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
                        layout.set(&mut t, *k, v as i32);
                    }
                    spare.push((t, q * p));
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
            std::mem::swap(out, spare);
        }
        Ok(())
    }
}

/// The program as the generator of [`explore_parallel`] over states packed in `W` words. Its
/// buffers are per thread; the errors met while expanding (expansion cannot return one; the
/// state stays where it is) and the deadlock states are collected behind locks, and the error
/// reported is that of the state numbered first, whatever the threads' timing.
struct PackedProgram<'p, const W: usize> {
    program: &'p Program,
    layout: &'p Layout,
    errors: std::sync::Mutex<Vec<([u64; W], Error)>>,
    deadlocks: std::sync::Mutex<Vec<[u64; W]>>,
}

#[derive(Default)]
struct Scratch<const W: usize> {
    values: Vec<i32>,
    choices: ChoiceScratch,
    dist: Vec<([u64; W], f64)>,
    spare: Vec<([u64; W], f64)>,
}

thread_local! {
    /// This thread's expansion buffers (a `Scratch<W>` for the `W` in use).
    static SCRATCH: std::cell::RefCell<Option<Box<dyn std::any::Any>>> = const { std::cell::RefCell::new(None) };
}

impl<const W: usize> PackedProgram<'_, W> {
    fn fail(&self, state: &[u64; W], e: Error) {
        self.errors.lock().expect("not poisoned").push((*state, e));
    }

    fn expand_with(&self, scratch: &mut Scratch<W>, packed: &[u64; W], out: &mut Successors<[u64; W]>) {
        let Scratch {
            values,
            choices,
            dist,
            spare,
        } = scratch;
        let program = self.program;
        values.resize(program.variables.len(), 0);
        self.layout.unpack(packed, values);
        let s = &values[..];
        let dtmc = program.model_type == ModelType::Dtmc;
        // A chain takes each enabled choice with equal probability: count them first.
        let mut count = 0usize;
        if dtmc {
            let _ = program.for_each_choice(s, choices, |_, _| {
                count += 1;
                Ok(())
            });
        }
        let mut any = false;
        let result = program.for_each_choice(s, choices, |_, commands| {
            program.distribution(self.layout, s, packed, commands, dist, spare)?;
            any = true;
            if !dtmc {
                out.choice();
            }
            for (t, p) in dist.iter() {
                out.add(*t, if dtmc { p / count as f64 } else { *p });
            }
            Ok(())
        });
        if let Err(e) = result {
            self.fail(packed, e);
            out.clear();
            out.add(*packed, 1.0);
            return;
        }
        if !any {
            if !program.fix_deadlocks {
                self.fail(packed, Error::arg(
                    "model",
                    format!(
                        "state {}: no command is enabled (a deadlock: add a command for it, or let it stay forever as PRISM's -fixdl does)",
                        describe(&program.variables, s)
                    ),
                ));
            }
            self.deadlocks.lock().expect("not poisoned").push(*packed);
            out.add(*packed, 1.0);
        }
    }
}

impl<const W: usize> Generator for PackedProgram<'_, W> {
    type State = [u64; W];

    fn initial_states(&self) -> Vec<[u64; W]> {
        self.program
            .initial
            .iter()
            .map(|v| {
                let mut p = [0u64; W];
                self.layout.pack(v, &mut p);
                p
            })
            .collect()
    }

    fn expand(&self, packed: &[u64; W], out: &mut Successors<[u64; W]>) {
        SCRATCH.with(|cell| {
            let mut slot = cell.borrow_mut();
            if !slot.as_ref().is_some_and(|b| b.is::<Scratch<W>>()) {
                *slot = Some(Box::new(Scratch::<W>::default()));
            }
            let scratch = slot
                .as_mut()
                .and_then(|b| b.downcast_mut::<Scratch<W>>())
                .expect("this thread's buffers");
            self.expand_with(scratch, packed, out);
        });
    }
}

/// What exploring with a packed generator gives.
struct ExploredProgram {
    matrix: crate::sparse::CsrMatrix,
    initial: Vec<StateId>,
    states: PackedStates,
    deadlocks: Vec<StateId>,
}

/// Explores `program` over states packed in `W` words.
fn explore_packed<const W: usize>(
    program: &Program,
    layout: &Layout,
    max_states: usize,
) -> Result<ExploredProgram> {
    let generator = PackedProgram::<W> {
        program,
        layout,
        errors: Default::default(),
        deadlocks: Default::default(),
    };
    let explored = explore_parallel(&generator, ExploreOptions { max_states })?;
    let errors = std::mem::take(&mut *generator.errors.lock().expect("not poisoned"));
    let dead = generator.deadlocks.lock().expect("not poisoned");
    // Ids by packed state, for the errors (the first by id is reported) and the deadlocks.
    let ids: HashMap<&[u64; W], StateId> = if errors.is_empty() && dead.is_empty() {
        HashMap::new()
    } else {
        explored
            .states
            .iter()
            .enumerate()
            .map(|(i, s)| (s, i as StateId))
            .collect()
    };
    if let Some((_, e)) = errors.into_iter().min_by_key(|(s, _)| ids[s]) {
        return Err(e);
    }
    let mut deadlocks: Vec<StateId> = dead.iter().map(|s| ids[s]).collect();
    deadlocks.sort_unstable();
    let data: Vec<u64> = explored.states.iter().flat_map(|s| s.iter().copied()).collect();
    Ok(ExploredProgram {
        matrix: explored.matrix,
        initial: explored.initial,
        states: PackedStates::new(layout.clone(), data, W),
        deadlocks,
    })
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
            // As PRISM: a value on the command line only for a constant the file leaves open.
            Some(def) if def.expr.is_some() => {
                let at = def.span;
                return Err(Error::arg(
                    "--const",
                    format!(
                        "constant {name} already has a value in the model (at {}); only an undefined constant takes one from --const",
                        scope.place(at)
                    ),
                ));
            }
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
    let mut lists: Vec<Vec<(usize, Vec<usize>)>> = Vec::new();
    for (i, m) in modules.iter().enumerate() {
        let mut commands = Vec::new();
        let mut unlabelled = Vec::new();
        let fixed: Vec<Vec<(usize, i64)>> = m
            .commands
            .iter()
            .map(|c| fixed_values(&c.guard, &scope))
            .collect();
        for (k, c) in m.commands.iter().enumerate() {
            let action = c.action.as_ref().map(|a| action_id(&a.name, &mut actions));
            match action {
                Some(a) => {
                    lists.resize(actions.len(), Vec::new());
                    match lists[a].iter_mut().find(|(j, _)| *j == i) {
                        Some((_, list)) => list.push(k),
                        None => lists[a].push((i, vec![k])),
                    }
                }
                None => unlabelled.push(k),
            }
            commands.push(compile_command(c, i, &owner, &scope)?);
        }
        codes.push((
            ModuleCode {
                commands,
                unlabelled: CommandList::new(unlabelled, &fixed, &variables),
            },
            fixed,
        ));
    }
    lists.resize(actions.len(), Vec::new());
    let participants: Vec<Vec<(usize, CommandList)>> = lists
        .into_iter()
        .map(|mods| {
            mods.into_iter()
                .map(|(m, list)| (m, CommandList::new(list, &codes[m].1, &variables)))
                .collect()
        })
        .collect();
    let codes: Vec<ModuleCode> = codes.into_iter().map(|(c, _)| c).collect();
    let program = Program {
        model_type,
        variables,
        modules: codes,
        participants,
        initial,
        fix_deadlocks: options.fix_deadlocks,
    };
    let layout = Layout::new(&program.variables);
    let max_states = options.max_states.unwrap_or(u32::MAX as usize);
    let explored = match layout.words() {
        1 => explore_packed::<1>(&program, &layout, max_states)?,
        2 => explore_packed::<2>(&program, &layout, max_states)?,
        3 | 4 => explore_packed::<4>(&program, &layout, max_states)?,
        5..=8 => explore_packed::<8>(&program, &layout, max_states)?,
        9..=16 => explore_packed::<16>(&program, &layout, max_states)?,
        w => {
            return Err(Error::arg(
                "model",
                format!("the variables need {w} words of 64 bits per state; kolmo packs at most 16"),
            ));
        }
    };
    let deadlocks = explored.deadlocks;
    let n = explored.states.len();
    // Names by the variables' values, for models small enough to list them.
    let names: Option<Vec<String>> = (n <= NAMED_STATES).then(|| {
        let mut buf = vec![0; program.variables.len()];
        (0..n)
            .map(|s| {
                explored.states.unpack(s, &mut buf);
                describe(&program.variables, &buf)
            })
            .collect()
    });
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
    let mut reward_names: Vec<String> = Vec::new();
    for (i, r) in ast.rewards.iter().enumerate() {
        let name = r.name.as_ref().map_or(String::new(), |i| i.name.clone());
        if reward_names.contains(&name) {
            return Err(scope.error(r.span, format!("a second reward structure \"{name}\"")));
        }
        reward_names.push(name.clone());
        if !wanted(&options.reward_structures, i, &name) {
            continue;
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
    if options.exact && n > EXACT_STATES {
        return Err(Error::arg(
            "--exact",
            format!("the model has {n} states; exact arithmetic is offered up to {EXACT_STATES}"),
        ));
    }
    let written = if options.exact {
        Some(exact_written(
            &program,
            &modules,
            ast,
            &scope,
            (&explored.states, &explored.matrix),
            &actions,
            &options.reward_structures,
        )?)
    } else {
        None
    };
    let model = match model_type {
        ModelType::Dtmc => {
            let mut d = Dtmc::new(explored.matrix, explored.initial)?;
            if let Some(names) = names {
                d = d.with_names(names);
            }
            for (k, v) in labels {
                d.set_label(k, v);
            }
            for (k, v) in reward_models {
                d.set_reward_model(k, v)?;
            }
            if let Some(w) = written {
                d = d.with_written(w)?;
            }
            Model::Dtmc(d)
        }
        _ => {
            let action_names = if options.action_names {
                let mut out = Vec::with_capacity(explored.matrix.nrows());
                let mut scratch = ChoiceScratch::default();
                let mut buf = vec![0; explored.states.variables()];
                for g in 0..n {
                    explored.states.unpack(g, &mut buf);
                    let before = out.len();
                    program.for_each_choice(&buf, &mut scratch, |act, _| {
                        out.push(act.map_or_else(String::new, |a| actions[a].clone()));
                        Ok(())
                    })?;
                    if out.len() == before {
                        // A deadlock's self-loop.
                        out.push(String::new());
                    }
                }
                Some(out)
            } else {
                None
            };
            let owner = if model_type == ModelType::Smg {
                Some(owners(
                    ast,
                    &modules,
                    &program,
                    &explored.states,
                    &actions,
                    &scope,
                )?)
            } else {
                None
            };
            let mut m = Mdp::new(explored.matrix, explored.initial)?;
            if let Some(owner) = owner {
                let names = ast.players.iter().map(|p| p.name.name.clone()).collect();
                m = m.with_players(owner, names)?;
            }
            if let Some(names) = names {
                m = m.with_names(names);
            }
            if let Some(a) = action_names {
                m = m.with_action_names(a);
            }
            for (k, v) in labels {
                m.set_label(k, v);
            }
            for (k, v) in reward_models {
                m.set_reward_model(k, v)?;
            }
            if let Some(w) = written {
                m = m.with_written(w)?;
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

/// The player owning each state of a game (PRISM-games' `smg`): the player a choice belongs to
/// is the one that lists its action `[a]`, or, for an unlabelled command, its module. Every
/// module with unlabelled commands and every action must belong to exactly one player; a state
/// where choices of two players are enabled is an error naming the state and both players
/// (turn-based games give each state one player). A deadlock's self-loop goes to the first
/// player.
///
/// # Errors
/// [`Error::Parse`] naming the place: a game without players, a player naming a module or an
/// action the model does not have, a module or action listed twice or not at all; a state with
/// choices of two players.
fn owners(
    ast: &ast::Model,
    modules: &[Module],
    program: &Program,
    states: &PackedStates,
    actions: &[String],
    scope: &Scope,
) -> Result<Vec<u32>> {
    if ast.players.is_empty() {
        let span = ast.model_type.map(|t| t.1).unwrap_or_default();
        return Err(scope.error(
            span,
            "an smg needs players: player name module, [action], ... endplayer".into(),
        ));
    }
    let mut module_player: Vec<Option<u32>> = vec![None; modules.len()];
    let mut action_player: Vec<Option<u32>> = vec![None; actions.len()];
    for (p, def) in ast.players.iter().enumerate() {
        if let Some(q) = ast.players[..p].iter().find(|q| q.name.name == def.name.name) {
            return Err(scope.error(
                def.name.span,
                format!(
                    "player {} is already declared (at {})",
                    def.name.name,
                    scope.place(q.name.span)
                ),
            ));
        }
        for m in &def.members {
            let Some(i) = modules.iter().position(|x| x.name.name == m.name) else {
                return Err(scope.error(m.span, format!("player {}: no module {}", def.name.name, m.name)));
            };
            if let Some(q) = module_player[i].replace(p as u32) {
                return Err(scope.error(
                    m.span,
                    format!(
                        "module {} already belongs to player {}",
                        m.name, ast.players[q as usize].name.name
                    ),
                ));
            }
        }
        for a in &def.actions {
            let Some(i) = actions.iter().position(|x| *x == a.name) else {
                return Err(scope.error(
                    a.span,
                    format!("player {}: no action [{}] in the model", def.name.name, a.name),
                ));
            };
            if let Some(q) = action_player[i].replace(p as u32) {
                return Err(scope.error(
                    a.span,
                    format!(
                        "action [{}] already belongs to player {}",
                        a.name, ast.players[q as usize].name.name
                    ),
                ));
            }
        }
    }
    let mut owner = vec![0u32; states.len()];
    let mut scratch = ChoiceScratch::default();
    let mut buf = vec![0; states.variables()];
    for (g, slot) in owner.iter_mut().enumerate() {
        states.unpack(g, &mut buf);
        let mut first: Option<(u32, String)> = None;
        program.for_each_choice(&buf, &mut scratch, |act, chosen| {
            let (player, what) = match act {
                Some(a) => (action_player[a], format!("[{}]", actions[a])),
                None => {
                    let m = chosen[0].0;
                    (module_player[m], format!("module {}'s unlabelled commands", modules[m].name.name))
                }
            };
            let Some(player) = player else {
                let place = &program.modules[chosen[0].0].commands[chosen[0].1].place;
                return Err(Error::arg(
                    "players",
                    format!(
                        "{place}: no player owns {what} (state {}); list it in a player ... endplayer block",
                        describe(&program.variables, &buf)
                    ),
                ));
            };
            match &first {
                None => first = Some((player, what)),
                Some((p, w)) if *p != player => {
                    return Err(Error::arg(
                        "players",
                        format!(
                            "state {}: player {} ({w}) and player {} ({what}) can both move; a turn-based game gives each state one player",
                            describe(&program.variables, &buf),
                            ast.players[*p as usize].name.name,
                            ast.players[player as usize].name.name
                        ),
                    ));
                }
                Some(_) => {}
            }
            Ok(())
        })?;
        *slot = first.map_or(0, |(p, _)| p);
    }
    Ok(owner)
}

/// Every transition probability and reward of the built model evaluated exactly
/// ([`Scope::exact`]), aligned with the `f64` matrix's entries and reward models: each state's
/// choices enumerated again, in the order they were built, each command's updates weighted by
/// their exact probabilities (which must sum to exactly 1), a chain's choices by 1/k.
///
/// # Errors
/// What exact evaluation refuses (naming the place); probabilities of a command that do not sum to
/// exactly 1 (naming the state and the command).
fn exact_written(
    program: &Program,
    modules: &[Module],
    ast: &ast::Model,
    scope: &Scope,
    (states, matrix): (&PackedStates, &crate::sparse::CsrMatrix),
    actions: &[String],
    reward_structures: &Option<Vec<Option<String>>>,
) -> Result<crate::model::Written> {
    use super::exact::Exact;
    use crate::exact::Rational;
    let n = states.len();
    let ids: HashMap<&[u64], StateId> = (0..n).map(|s| (states.packed(s), s as StateId)).collect();
    let stride = states.packed(0).len();
    let layout = Layout::new(&program.variables);
    let mut probabilities: Vec<Rational> = Vec::with_capacity(matrix.nnz());
    let mut scratch = ChoiceScratch::default();
    let mut buf = vec![0; states.variables()];
    let mut key = vec![0u64; stride];
    let one = Rational::ONE;
    let rational = |x: Exact, at: &Expr| -> Result<Rational> {
        x.rational()
            .ok_or_else(|| scope.error(at.span, "--exact: a number is needed here".into()))
    };
    for g in 0..n {
        states.unpack(g, &mut buf);
        let s = &buf[..];
        // Per choice: its row of (target, exact probability).
        let mut rows: Vec<BTreeMap<StateId, Rational>> = Vec::new();
        program.for_each_choice(s, &mut scratch, |_, commands| {
            let mut partial: Vec<(Vec<i32>, Rational)> = vec![(s.to_vec(), one.clone())];
            for &(m, c) in commands {
                let code = &program.modules[m].commands[c];
                let written = &modules[m].commands[c];
                let mut next = Vec::new();
                let mut sum = Rational::ZERO;
                for (u, wu) in code.updates.iter().zip(&written.updates) {
                    let p = match &wu.probability {
                        None => one.clone(),
                        Some(e) => rational(scope.exact(e, s)?, e)?,
                    };
                    sum += &p;
                    if p == Rational::ZERO {
                        continue;
                    }
                    for (t, q) in &partial {
                        let mut t = t.clone();
                        for (k, a) in &u.assignments {
                            let v = match a.eval(s) {
                                Value::Int(i) => i,
                                Value::Bool(b) => i64::from(b),
                                Value::Double(_) => unreachable!("type-checked"),
                            };
                            let var = &program.variables[*k];
                            if v < i64::from(var.low) || v > i64::from(var.high) {
                                return Err(program.at_state(
                                    s,
                                    format!(
                                        "the command at {} sets {} to {v}, outside its range {}..{}",
                                        code.place, var.name, var.low, var.high
                                    ),
                                ));
                            }
                            t[*k] = v as i32;
                        }
                        next.push((t, q * &p));
                    }
                }
                if sum != one {
                    return Err(program.at_state(
                        s,
                        format!(
                            "--exact: the probabilities of the command at {} sum to {sum}, not exactly 1",
                            code.place
                        ),
                    ));
                }
                partial = next;
            }
            let mut row = BTreeMap::new();
            for (t, q) in partial {
                layout.pack(&t, &mut key);
                let Some(&id) = ids.get(&key[..]) else {
                    return Err(program.at_state(
                        s,
                        "--exact: a transition whose probability rounds to 0 in floating point leads to a state the model never reaches there".into(),
                    ));
                };
                *row.entry(id).or_insert(Rational::ZERO) += q;
            }
            rows.push(row);
            Ok(())
        })?;
        if rows.is_empty() {
            // A deadlock's self-loop.
            rows.push(BTreeMap::from([(g as StateId, one.clone())]));
        }
        if program.model_type == ModelType::Dtmc && rows.len() > 1 {
            let k = Rational::from(dashu_int::IBig::from(rows.len()));
            let mut merged: BTreeMap<StateId, Rational> = BTreeMap::new();
            for row in rows.drain(..) {
                for (t, q) in row {
                    *merged.entry(t).or_insert(Rational::ZERO) += q / &k;
                }
            }
            rows.push(merged);
        }
        for (r, row) in matrix.group_rows(g).zip(&rows) {
            let cols = matrix.row(r).0;
            if cols.len() != row.len() || cols.iter().zip(row.keys()).any(|(a, b)| a != b) {
                return Err(program.at_state(
                    s,
                    "--exact: the exact transitions differ from the floating-point ones (a probability that rounds to 0?)".into(),
                ));
            }
            probabilities.extend(row.values().cloned());
        }
    }
    // Rewards, exactly, in the same parts as `reward_model` builds.
    let mut rewards = BTreeMap::new();
    for (index, r) in ast.rewards.iter().enumerate() {
        let name = r.name.as_ref().map_or(String::new(), |i| i.name.clone());
        if !wanted(reward_structures, index, &name) {
            continue;
        }
        let mut model = crate::model::RewardModel::<Rational>::default();
        let state_items: Vec<&ast::RewardItem> = r.items.iter().filter(|i| i.action.is_none()).collect();
        let transition_items: Vec<(Option<usize>, &ast::RewardItem)> = r
            .items
            .iter()
            .filter_map(|i| match &i.action {
                None => None,
                Some(None) => Some((None, i)),
                Some(Some(a)) => actions.iter().position(|x| *x == a.name).map(|k| (Some(k), i)),
            })
            .collect();
        let holds = |e: &Expr, s: &[i32]| -> Result<bool> {
            match scope.exact(e, s)? {
                Exact::Bool(b) => Ok(b),
                _ => Err(scope.error(e.span, "--exact: a guard must be a bool".into())),
            }
        };
        if !state_items.is_empty() {
            let mut v = Vec::with_capacity(n);
            for g in 0..n {
                states.unpack(g, &mut buf);
                let mut acc = Rational::ZERO;
                for i in &state_items {
                    if holds(&i.guard, &buf)? {
                        acc += rational(scope.exact(&i.value, &buf)?, &i.value)?;
                    }
                }
                v.push(acc);
            }
            model.state = Some(v);
        }
        if !transition_items.is_empty() {
            let mut v = Vec::with_capacity(matrix.nrows());
            for g in 0..n {
                states.unpack(g, &mut buf);
                let s = &buf[..];
                let mut per_choice: Vec<Rational> = Vec::new();
                program.for_each_choice(s, &mut scratch, |act, _| {
                    let mut acc = Rational::ZERO;
                    for (a, i) in &transition_items {
                        if *a == act && holds(&i.guard, s)? {
                            acc += rational(scope.exact(&i.value, s)?, &i.value)?;
                        }
                    }
                    per_choice.push(acc);
                    Ok(())
                })?;
                let rows = matrix.group_rows(g).len();
                if per_choice.is_empty() {
                    v.extend(std::iter::repeat_n(Rational::ZERO, rows));
                } else if program.model_type == ModelType::Dtmc {
                    let k = Rational::from(dashu_int::IBig::from(per_choice.len()));
                    let sum = per_choice.into_iter().fold(Rational::ZERO, |a, b| a + b);
                    v.push(sum / k);
                } else {
                    v.extend(per_choice);
                }
            }
            model.action = Some(v);
        }
        rewards.insert(name, model);
    }
    Ok(crate::model::Written {
        probabilities,
        rewards,
    })
}

/// Whether reward structure number `index` (from 0), named `name`, is to be built.
fn wanted(list: &Option<Vec<Option<String>>>, index: usize, name: &str) -> bool {
    match list {
        None => true,
        Some(l) => l.iter().any(|w| match w {
            Some(n) => n == name,
            None => index == 0,
        }),
    }
}

/// The (variable slot, value) pairs that `guard` fixes with a top-level conjunct `x = c` (`c` a
/// constant expression; formulas looked into).
fn fixed_values(guard: &Expr, scope: &Scope) -> Vec<(usize, i64)> {
    fn walk(e: &Expr, scope: &Scope, depth: usize, out: &mut Vec<(usize, i64)>) {
        if depth > 64 {
            return;
        }
        match &e.kind {
            ExprKind::Binary(ast::BinOp::And, a, b) => {
                walk(a, scope, depth + 1, out);
                walk(b, scope, depth + 1, out);
            }
            ExprKind::Name(n) => {
                if let Some(f) = scope.formulas.get(n) {
                    walk(f, scope, depth + 1, out);
                }
            }
            ExprKind::Binary(ast::BinOp::Eq, a, b) => {
                for (x, c) in [(a, b), (b, a)] {
                    if let ExprKind::Name(n) = &x.kind
                        && let Some(Binding::Var(k, ValueType::Int)) = scope.vars.get(n)
                        && let Ok(Value::Int(v)) = scope.evaluate(c, "")
                    {
                        out.push((*k, v));
                        return;
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(guard, scope, 0, &mut out);
    out
}

/// The most states `--exact` builds exact probabilities for (rational solves beyond take minutes).
pub const EXACT_STATES: usize = 100_000;

/// Models with at most this many states name each state by its variables' values (beyond, the
/// states are numbered: the names would cost more than the model).
pub const NAMED_STATES: usize = 100_000;

/// The states where `code` (a bool) holds.
pub(crate) fn states_where(code: &Code, states: &PackedStates) -> StateSet {
    crate::lang::StateValues {
        states: Some(states),
        n: states.len(),
    }
    .set(code)
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
        guard,
        updates,
        place: scope.place(c.span),
    })
}

fn reward_model(
    r: &ast::RewardStructure,
    program: &Program,
    states: &PackedStates,
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
            .sum::<f64>()
            // No item: +0, not the empty sum's −0.
            + 0.0
    };
    let mut model = RewardModel::default();
    let mut buf = vec![0; states.variables()];
    if !state_items.is_empty() {
        model.state = Some(
            (0..states.len())
                .map(|s| {
                    states.unpack(s, &mut buf);
                    earn(&state_items, &buf)
                })
                .collect(),
        );
    }
    if !transition_items.is_empty() {
        let mut action = Vec::with_capacity(matrix.nrows());
        let mut scratch = ChoiceScratch::default();
        let mut per_choice: Vec<f64> = Vec::new();
        for g in 0..states.len() {
            states.unpack(g, &mut buf);
            let s = &buf[..];
            per_choice.clear();
            program.for_each_choice(s, &mut scratch, |act, _| {
                per_choice.push(
                    transition_items
                        .iter()
                        .filter(|(a, g, _, _)| *a == act && matches!(g.eval(s), Value::Bool(true)))
                        .map(|(_, _, v, _)| v.eval(s).as_f64().expect("a number"))
                        .sum::<f64>()
                        + 0.0,
                );
                Ok(())
            })?;
            let rows = matrix.group_rows(g).len();
            if per_choice.is_empty() {
                action.extend(std::iter::repeat_n(0.0, rows));
            } else if program.model_type == ModelType::Dtmc {
                action.push(per_choice.iter().sum::<f64>() / per_choice.len() as f64);
            } else {
                debug_assert_eq!(rows, per_choice.len());
                action.extend_from_slice(&per_choice);
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
