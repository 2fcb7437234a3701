//! A recursive-descent parser for PRISM model files and property files (the PRISM manual's
//! grammar: "The PRISM Language" and "Property Specification"; Storm's additions `T=?` and the
//! conditional `||`).
//!
//! Precedence, loosest first (as PRISM): `? :`, `<=>`, `=>` (right), `|`, `&`, `!`, the
//! relations `= != < <= > >=`, `+ -`, `* /`, unary `-`.

use super::ast::*;
use super::lex::{Span, Token, line_column, tokens};
use crate::{Error, Result};
use std::path::Path as FsPath;

/// Parses a model file.
///
/// # Errors
/// [`Error::Parse`] naming `path`, the line and column, and what was expected there.
pub fn parse_model(text: &str, path: &FsPath) -> Result<Model> {
    let mut p = Parser::new(text, path, false)?;
    let mut m = Model::default();
    while !p.at_end() {
        let (kw, span) = p
            .ident_here()
            .ok_or_else(|| p.error_here("a declaration (const, module, ...)"))?;
        match kw {
            "dtmc" | "probabilistic" | "mdp" | "nondeterministic" | "smg" => {
                p.bump();
                let t = match kw {
                    "dtmc" | "probabilistic" => ModelType::Dtmc,
                    "mdp" | "nondeterministic" => ModelType::Mdp,
                    _ => ModelType::Smg,
                };
                if let Some((_, first)) = m.model_type {
                    let (l, c) = line_column(text, first.start);
                    return Err(p.error(span, format!("a second model type (the first is at {l}:{c})")));
                }
                m.model_type = Some((t, span));
            }
            "ctmc" | "stochastic" | "pta" | "pomdp" | "popta" | "csg" | "tsg" => {
                return Err(p.error(
                    span,
                    format!("{kw} models are not supported: kolmo reads dtmc, mdp and smg models"),
                ));
            }
            "const" => m.constants.push(p.constant()?),
            "formula" => m.formulas.push(p.formula()?),
            "label" => m.labels.push(p.label()?),
            "global" => {
                p.bump();
                m.globals.push(p.variable()?);
            }
            "module" => m.modules.push(p.module()?),
            "rewards" => m.rewards.push(p.rewards()?),
            "init" => {
                p.bump();
                let e = p.expr()?;
                p.expect_kw("endinit")?;
                if m.init.is_some() {
                    return Err(p.error(span, "a second init ... endinit block".into()));
                }
                m.init = Some(e);
            }
            "player" => m.players.push(p.player()?),
            "system" => {
                return Err(p.error(
                    span,
                    "system ... endsystem (process-algebra composition) is not supported: kolmo composes all modules in parallel".into(),
                ));
            }
            _ => {
                return Err(
                    p.error_here("a declaration (const, formula, label, global, module, rewards, init)")
                );
            }
        }
    }
    Ok(m)
}

/// Parses a property file (or the text of `--prop`): constants, labels, formulas and properties,
/// each optionally named (`"name": P=? [...]`) and ended by an optional `;`.
///
/// # Errors
/// [`Error::Parse`] naming `path`, the line and column, and what was expected there.
pub fn parse_properties(text: &str, path: &FsPath) -> Result<PropertyFile> {
    let mut p = Parser::new(text, path, true)?;
    let mut f = PropertyFile::default();
    while !p.at_end() {
        match p.ident_here().map(|(k, _)| k) {
            Some("const") => f.constants.push(p.constant()?),
            Some("label") => f.labels.push(p.label()?),
            Some("formula") => f.formulas.push(p.formula()?),
            _ => {
                let start = p.span_here();
                let name = if p.peek() == Some(&Token::Str) && p.peek_at(1) == Some(&Token::Colon) {
                    let s = p.string()?;
                    p.bump();
                    Some(s.name)
                } else {
                    None
                };
                let expr = p.expr()?;
                let span = start.to(expr.span);
                f.properties.push(Property { name, expr, span });
                p.eat(&Token::Semi);
            }
        }
    }
    Ok(f)
}

/// Parses one expression of the modelling language (a `--const` value).
///
/// # Errors
/// [`Error::Parse`] naming `path` (the flag), the column and what was expected there.
pub fn parse_expression(text: &str, path: &FsPath) -> Result<Expr> {
    let mut p = Parser::new(text, path, false)?;
    let e = p.expr()?;
    if !p.at_end() {
        return Err(p.error_here("the end of the expression"));
    }
    Ok(e)
}

struct Parser<'a> {
    text: &'a str,
    path: &'a FsPath,
    toks: Vec<(Token, Span)>,
    pos: usize,
    /// Whether the property operators (`P`, `R`, `S`, `T`, `filter`) are parsed.
    properties: bool,
    /// How deeply the expression being parsed nests (brackets, `!`, unary `-`, and the operands of
    /// a chain `a + b + ...`, each a level of the tree), against [`MAX_NESTING`].
    depth: usize,
}

/// The deepest an expression may nest: deeper trees would exhaust the stack of the recursive
/// passes over them (copying, compiling, evaluating).
const MAX_NESTING: usize = 100;

/// Whether `name` may not name a constant, variable, formula or module (PRISM's keywords).
fn reserved(name: &str) -> bool {
    matches!(
        name,
        "A" | "bool"
            | "C"
            | "const"
            | "ctmc"
            | "double"
            | "dtmc"
            | "E"
            | "endinit"
            | "endmodule"
            | "endplayer"
            | "endrewards"
            | "endsystem"
            | "F"
            | "false"
            | "filter"
            | "formula"
            | "G"
            | "global"
            | "I"
            | "init"
            | "int"
            | "label"
            | "max"
            | "mdp"
            | "min"
            | "module"
            | "nondeterministic"
            | "P"
            | "Pmax"
            | "Pmin"
            | "player"
            | "probabilistic"
            | "R"
            | "rewards"
            | "Rmax"
            | "Rmin"
            | "S"
            | "smg"
            | "stochastic"
            | "system"
            | "true"
            | "U"
            | "W"
            | "X"
    )
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, path: &'a FsPath, properties: bool) -> Result<Self> {
        let toks = tokens(text).map_err(|span| {
            let what = text[span.start as usize..].chars().next().unwrap_or(' ');
            let message = if what == '"' {
                "a quoted name that does not end on its line".to_string()
            } else if what == '^' {
                "reward-bounded operators (F^{rew{\"r\"}<=b} ...) are not supported".to_string()
            } else {
                format!("{what:?} is not part of the PRISM language")
            };
            let (line, column) = line_column(text, span.start);
            Error::Parse {
                path: path.to_path_buf(),
                line,
                column,
                message,
            }
        })?;
        Ok(Self {
            text,
            path,
            toks,
            pos: 0,
            properties,
            depth: 0,
        })
    }

    fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }

    fn peek(&self) -> Option<&Token> {
        self.toks.get(self.pos).map(|(t, _)| t)
    }

    fn peek_at(&self, k: usize) -> Option<&Token> {
        self.toks.get(self.pos + k).map(|(t, _)| t)
    }

    fn slice(&self, span: Span) -> &'a str {
        &self.text[span.start as usize..span.end as usize]
    }

    fn span_here(&self) -> Span {
        match self.toks.get(self.pos) {
            Some((_, s)) => *s,
            None => {
                let end = self.text.len() as u32;
                Span { start: end, end }
            }
        }
    }

    /// The span of the token before the current one (the end of what was just parsed).
    fn last_span(&self) -> Span {
        self.pos
            .checked_sub(1)
            .and_then(|i| self.toks.get(i))
            .map_or_else(Span::default, |(_, s)| *s)
    }

    /// The keyword or name at the current token, if it is an identifier.
    fn ident_here(&self) -> Option<(&'a str, Span)> {
        match self.toks.get(self.pos) {
            Some((Token::Ident, s)) => Some((self.slice(*s), *s)),
            _ => None,
        }
    }

    fn ident_at(&self, k: usize) -> Option<&'a str> {
        match self.toks.get(self.pos + k) {
            Some((Token::Ident, s)) => Some(self.slice(*s)),
            _ => None,
        }
    }

    fn is_kw(&self, kw: &str) -> bool {
        self.ident_here().is_some_and(|(k, _)| k == kw)
    }

    fn bump(&mut self) -> Span {
        let s = self.span_here();
        self.pos += 1;
        s
    }

    fn eat(&mut self, t: &Token) -> bool {
        if self.peek() == Some(t) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn error(&self, span: Span, message: String) -> Error {
        let (line, column) = line_column(self.text, span.start);
        Error::Parse {
            path: self.path.to_path_buf(),
            line,
            column,
            message,
        }
    }

    /// "expected `what`, found ...".
    fn error_here(&self, what: &str) -> Error {
        let found = match self.toks.get(self.pos) {
            Some((_, s)) => format!("{:?}", self.slice(*s)),
            None => "the end of the file".to_string(),
        };
        self.error(self.span_here(), format!("expected {what}, found {found}"))
    }

    fn expect(&mut self, t: Token, what: &str) -> Result<Span> {
        if self.peek() == Some(&t) {
            Ok(self.bump())
        } else {
            Err(self.error_here(what))
        }
    }

    fn expect_kw(&mut self, kw: &str) -> Result<Span> {
        if self.is_kw(kw) {
            Ok(self.bump())
        } else {
            Err(self.error_here(kw))
        }
    }

    /// A name being declared or used (not a keyword).
    fn name(&mut self, what: &str) -> Result<Ident> {
        match self.ident_here() {
            Some((n, span)) if !reserved(n) => {
                self.bump();
                Ok(Ident {
                    name: n.to_string(),
                    span,
                })
            }
            Some((n, span)) => Err(self.error(span, format!("{n:?} is a keyword, not {what}"))),
            None => Err(self.error_here(what)),
        }
    }

    /// A quoted name, without its quotes.
    fn string(&mut self) -> Result<Ident> {
        let span = self.expect(Token::Str, "a quoted name")?;
        let s = self.slice(span);
        Ok(Ident {
            name: s[1..s.len() - 1].to_string(),
            span,
        })
    }

    fn constant(&mut self) -> Result<Constant> {
        self.expect_kw("const")?;
        let ty = match self.ident_here().map(|(k, _)| k) {
            Some("int") => Some(ValueType::Int),
            Some("double") => Some(ValueType::Double),
            Some("bool") => Some(ValueType::Bool),
            Some("rate" | "prob") => Some(ValueType::Double),
            _ => None,
        };
        if ty.is_some() {
            self.bump();
        }
        let name = self.name("a constant's name")?;
        let value = if self.eat(&Token::Eq) {
            Some(self.expr()?)
        } else {
            None
        };
        self.expect(Token::Semi, "';' after the constant")?;
        Ok(Constant { name, ty, value })
    }

    fn formula(&mut self) -> Result<Formula> {
        self.expect_kw("formula")?;
        let name = self.name("a formula's name")?;
        self.expect(Token::Eq, "'=' after the formula's name")?;
        let expr = self.expr()?;
        self.expect(Token::Semi, "';' after the formula")?;
        Ok(Formula { name, expr })
    }

    fn label(&mut self) -> Result<Label> {
        self.expect_kw("label")?;
        let name = self.string()?;
        self.expect(Token::Eq, "'=' after the label's name")?;
        let expr = self.expr()?;
        self.expect(Token::Semi, "';' after the label")?;
        Ok(Label { name, expr })
    }

    fn variable(&mut self) -> Result<Variable> {
        let name = self.name("a variable's name")?;
        self.expect(Token::Colon, "':' after the variable's name")?;
        let ty = if self.eat(&Token::LBracket) {
            let lo = self.expr()?;
            self.expect(Token::DotDot, "'..' in the range")?;
            let hi = self.expr()?;
            self.expect(Token::RBracket, "']' after the range")?;
            VarType::Range(lo, hi)
        } else if self.is_kw("bool") {
            self.bump();
            VarType::Bool
        } else if let Some(("int" | "clock" | "double", span)) = self.ident_here() {
            return Err(self.error(
                span,
                format!(
                    "variable {:?}: give it a range [low..high] (unbounded variables are not supported)",
                    name.name
                ),
            ));
        } else {
            return Err(self.error_here("a range [low..high] or bool"));
        };
        let init = if self.is_kw("init") {
            self.bump();
            Some(self.expr()?)
        } else {
            None
        };
        self.expect(Token::Semi, "';' after the variable")?;
        Ok(Variable { name, ty, init })
    }

    fn module(&mut self) -> Result<ModuleDef> {
        self.expect_kw("module")?;
        let name = self.name("a module's name")?;
        if self.eat(&Token::Eq) {
            let base = self.name("the name of the module renamed")?;
            self.expect(Token::LBracket, "'[' and the renamings")?;
            let mut pairs = Vec::new();
            loop {
                let from = self.name("a name to rename")?;
                self.expect(Token::Eq, "'=' in the renaming")?;
                let to = self.name("its new name")?;
                pairs.push((from, to));
                if !self.eat(&Token::Comma) {
                    break;
                }
            }
            self.expect(Token::RBracket, "']' after the renamings")?;
            self.expect_kw("endmodule")?;
            return Ok(ModuleDef::Renamed(Renaming { name, base, pairs }));
        }
        let mut m = Module {
            name,
            variables: Vec::new(),
            commands: Vec::new(),
        };
        loop {
            if self.is_kw("endmodule") {
                self.bump();
                break;
            }
            match self.peek() {
                Some(Token::LBracket) => m.commands.push(self.command()?),
                Some(Token::Ident) if self.peek_at(1) == Some(&Token::Colon) => {
                    m.variables.push(self.variable()?);
                }
                _ => {
                    return Err(self.error_here("a variable, a command ([action] guard -> ...) or endmodule"));
                }
            }
        }
        Ok(ModuleDef::Module(m))
    }

    /// `[a]` or `[]`: the action, if named.
    fn action(&mut self) -> Result<Option<Ident>> {
        self.expect(Token::LBracket, "'['")?;
        if self.eat(&Token::RBracket) {
            return Ok(None);
        }
        let a = self.name("an action's name")?;
        self.expect(Token::RBracket, "']' after the action")?;
        Ok(Some(a))
    }

    fn command(&mut self) -> Result<Command> {
        let start = self.span_here();
        let action = self.action()?;
        let guard = self.expr()?;
        self.expect(Token::Arrow, "'->' after the guard")?;
        let mut updates = vec![self.update()?];
        while self.eat(&Token::Plus) {
            updates.push(self.update()?);
        }
        let end = self.expect(Token::Semi, "';' or '+' after the update")?;
        Ok(Command {
            action,
            guard,
            updates,
            span: start.to(end),
        })
    }

    /// Whether the tokens here open an assignment `(x' = ...)`.
    fn at_assignment(&self) -> bool {
        self.peek() == Some(&Token::LParen)
            && self.peek_at(1) == Some(&Token::Ident)
            && self.peek_at(2) == Some(&Token::Prime)
    }

    fn update(&mut self) -> Result<Update> {
        let start = self.span_here();
        let probability =
            if self.at_assignment() || self.is_kw("true") && !matches!(self.peek_at(1), Some(Token::Colon)) {
                None
            } else {
                let p = self.expr()?;
                self.expect(Token::Colon, "':' after the update's probability")?;
                Some(p)
            };
        let mut assignments = Vec::new();
        if self.is_kw("true") {
            self.bump();
        } else {
            loop {
                if !self.at_assignment() {
                    return Err(self.error_here("an assignment (x'=...) or true"));
                }
                self.bump();
                let var = self.name("a variable")?;
                self.bump(); // the prime
                self.expect(Token::Eq, "'=' after x'")?;
                let value = self.expr()?;
                self.expect(Token::RParen, "')' after the assignment")?;
                assignments.push(Assignment { var, value });
                if !self.eat(&Token::And) {
                    break;
                }
            }
        }
        Ok(Update {
            probability,
            assignments,
            span: start.to(self.last_span()),
        })
    }

    fn rewards(&mut self) -> Result<RewardStructure> {
        let span = self.expect_kw("rewards")?;
        let name = if self.peek() == Some(&Token::Str) {
            Some(self.string()?)
        } else {
            None
        };
        let mut items = Vec::new();
        loop {
            if self.is_kw("endrewards") {
                self.bump();
                break;
            }
            if self.at_end() {
                return Err(self.error_here("endrewards"));
            }
            let start = self.span_here();
            let action = if self.peek() == Some(&Token::LBracket) {
                Some(self.action()?)
            } else {
                None
            };
            let guard = self.expr()?;
            self.expect(Token::Colon, "':' after the reward's guard")?;
            let value = self.expr()?;
            let end = self.expect(Token::Semi, "';' after the reward")?;
            items.push(RewardItem {
                action,
                guard,
                value,
                span: start.to(end),
            });
        }
        Ok(RewardStructure { name, items, span })
    }

    fn player(&mut self) -> Result<PlayerDef> {
        self.expect_kw("player")?;
        let name = self.name("a player's name")?;
        let (mut members, mut actions) = (Vec::new(), Vec::new());
        loop {
            if self.peek() == Some(&Token::LBracket) {
                match self.action()? {
                    Some(a) => actions.push(a),
                    None => return Err(self.error(self.last_span(), "name the action: [a]".into())),
                }
            } else {
                members.push(self.name("a module or [action]")?);
            }
            if !self.eat(&Token::Comma) {
                break;
            }
        }
        self.expect_kw("endplayer")?;
        Ok(PlayerDef {
            name,
            members,
            actions,
        })
    }

    // ---- expressions ----

    /// One more level of nesting, or an error at the current place beyond [`MAX_NESTING`].
    fn deeper(&mut self, levels: usize) -> Result<()> {
        self.depth += levels;
        if self.depth > MAX_NESTING {
            let span = self.span_here();
            return Err(self.error(
                span,
                format!(
                    "this expression nests more than {MAX_NESTING} levels deep (use formulas to split it)"
                ),
            ));
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Expr> {
        let saved = self.depth;
        self.deeper(1)?;
        let e = self.expr_inner();
        self.depth = saved;
        e
    }

    fn expr_inner(&mut self) -> Result<Expr> {
        let c = self.iff()?;
        if self.eat(&Token::Question) {
            let a = self.expr()?;
            self.expect(Token::Colon, "':' in c ? a : b")?;
            let b = self.expr()?;
            let span = c.span.to(b.span);
            return Ok(Expr {
                kind: ExprKind::Ite(Box::new(c), Box::new(a), Box::new(b)),
                span,
            });
        }
        Ok(c)
    }

    fn binary(op: BinOp, a: Expr, b: Expr) -> Expr {
        let span = a.span.to(b.span);
        Expr {
            kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
            span,
        }
    }

    fn iff(&mut self) -> Result<Expr> {
        let saved = self.depth;
        let mut a = self.implies()?;
        while self.eat(&Token::Iff) {
            self.deeper(1)?;
            let b = self.implies()?;
            a = Self::binary(BinOp::Iff, a, b);
        }
        self.depth = saved;
        Ok(a)
    }

    fn implies(&mut self) -> Result<Expr> {
        let a = self.or()?;
        if self.eat(&Token::Implies) {
            self.deeper(1)?;
            let b = self.implies();
            self.depth -= 1;
            let b = b?;
            return Ok(Self::binary(BinOp::Implies, a, b));
        }
        Ok(a)
    }

    fn or(&mut self) -> Result<Expr> {
        let saved = self.depth;
        let mut a = self.and()?;
        while self.eat(&Token::Or) {
            self.deeper(1)?;
            let b = self.and()?;
            a = Self::binary(BinOp::Or, a, b);
        }
        self.depth = saved;
        Ok(a)
    }

    fn and(&mut self) -> Result<Expr> {
        let saved = self.depth;
        let mut a = self.not()?;
        while self.eat(&Token::And) {
            self.deeper(1)?;
            let b = self.not()?;
            a = Self::binary(BinOp::And, a, b);
        }
        self.depth = saved;
        Ok(a)
    }

    fn not(&mut self) -> Result<Expr> {
        if self.peek() == Some(&Token::Not) {
            let start = self.bump();
            self.deeper(1)?;
            let e = self.not();
            self.depth -= 1;
            let e = e?;
            let span = start.to(e.span);
            return Ok(Expr {
                kind: ExprKind::Unary(UnOp::Not, Box::new(e)),
                span,
            });
        }
        self.relation()
    }

    fn relation_op(&self) -> Option<BinOp> {
        // `<<` opens a coalition (the next property), never a comparison.
        if self.peek() == Some(&Token::Lt) && self.peek_at(1) == Some(&Token::Lt) {
            return None;
        }
        Some(match self.peek()? {
            Token::Eq => BinOp::Eq,
            Token::Ne => BinOp::Ne,
            Token::Lt => BinOp::Lt,
            Token::Le => BinOp::Le,
            Token::Gt => BinOp::Gt,
            Token::Ge => BinOp::Ge,
            _ => return None,
        })
    }

    fn relation(&mut self) -> Result<Expr> {
        let saved = self.depth;
        let mut a = self.additive()?;
        // PRISM parses a chain `a = b = c` left to right; the type checker refuses what is wrong.
        while let Some(op) = self.relation_op() {
            self.bump();
            self.deeper(1)?;
            let b = self.additive()?;
            a = Self::binary(op, a, b);
        }
        self.depth = saved;
        Ok(a)
    }

    fn additive(&mut self) -> Result<Expr> {
        let saved = self.depth;
        let mut a = self.multiplicative()?;
        loop {
            let op = match self.peek() {
                Some(Token::Plus) => BinOp::Add,
                Some(Token::Minus) => BinOp::Sub,
                _ => {
                    self.depth = saved;
                    return Ok(a);
                }
            };
            self.bump();
            self.deeper(1)?;
            let b = self.multiplicative()?;
            a = Self::binary(op, a, b);
        }
    }

    fn multiplicative(&mut self) -> Result<Expr> {
        let saved = self.depth;
        let mut a = self.unary()?;
        loop {
            let op = match self.peek() {
                Some(Token::Star) => BinOp::Mul,
                Some(Token::Slash) => BinOp::Div,
                _ => {
                    self.depth = saved;
                    return Ok(a);
                }
            };
            self.bump();
            self.deeper(1)?;
            let b = self.unary()?;
            a = Self::binary(op, a, b);
        }
    }

    fn unary(&mut self) -> Result<Expr> {
        if self.peek() == Some(&Token::Minus) {
            let start = self.bump();
            self.deeper(1)?;
            let e = self.unary();
            self.depth -= 1;
            let e = e?;
            let span = start.to(e.span);
            return Ok(Expr {
                kind: ExprKind::Unary(UnOp::Neg, Box::new(e)),
                span,
            });
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<Expr> {
        let span = self.span_here();
        if self.peek() == Some(&Token::Lt) && self.peek_at(1) == Some(&Token::Lt) {
            return self.coalition();
        }
        let at = |kind| Ok(Expr { kind, span });
        match self.peek() {
            Some(Token::Int) => {
                self.bump();
                let text = self.slice(span);
                match text.parse::<i64>() {
                    Ok(v) if v <= i64::from(i32::MAX) => at(ExprKind::Int(v)),
                    _ => Err(self.error(span, format!("the integer {text} is larger than 2^31 - 1"))),
                }
            }
            Some(Token::Double) => {
                self.bump();
                at(ExprKind::Double(self.slice(span).to_string()))
            }
            Some(Token::Str) => {
                let s = self.string()?;
                at(ExprKind::Label(s.name))
            }
            Some(Token::LParen) => {
                self.bump();
                let mut e = self.expr()?;
                let end = self.expect(Token::RParen, "')'")?;
                e.span = span.to(end);
                Ok(e)
            }
            Some(Token::Ident) => self.named(),
            _ => Err(self.error_here("an expression")),
        }
    }

    /// An atom that starts with a name: `true`, a function call, a property operator, a name.
    fn named(&mut self) -> Result<Expr> {
        let (name, span) = self.ident_here().expect("at an identifier");
        match name {
            "true" | "false" => {
                self.bump();
                return Ok(Expr {
                    kind: ExprKind::Bool(name == "true"),
                    span,
                });
            }
            "func" => {
                return Err(self.error(
                    span,
                    "func(...) is not supported: call the function by its name, e.g. min(a, b)".into(),
                ));
            }
            _ => {}
        }
        if let Some(f) = Func::from_name(name)
            && self.peek_at(1) == Some(&Token::LParen)
        {
            self.bump();
            self.bump();
            let mut args = vec![self.expr()?];
            while self.eat(&Token::Comma) {
                args.push(self.expr()?);
            }
            let end = self.expect(Token::RParen, "')' or ',' in the call")?;
            return Ok(Expr {
                kind: ExprKind::Call(f, args),
                span: span.to(end),
            });
        }
        if self.properties {
            if let Some(e) = self.operator()? {
                return Ok(e);
            }
        } else if name == "filter" || operator_name(name).is_some() && self.opens_operator() {
            return Err(self.error(
                span,
                format!("{name}: a property operator cannot appear in a model (put it in a property file or --prop)"),
            ));
        }
        if reserved(name) {
            return Err(self.error(
                span,
                format!("{name:?} is a keyword; an expression was expected here"),
            ));
        }
        self.bump();
        Ok(Expr {
            kind: ExprKind::Name(name.to_string()),
            span,
        })
    }

    /// Whether the token after the current name starts an operator's bound (`=?`, `>=p`, `{`,
    /// `min=?`).
    fn opens_operator(&self) -> bool {
        match self.peek_at(1) {
            Some(Token::Eq) => self.peek_at(2) == Some(&Token::Question),
            Some(Token::LBrace | Token::Lt | Token::Le | Token::Gt | Token::Ge) => true,
            Some(Token::Ident) => matches!(self.ident_at(1), Some("min" | "max")),
            _ => false,
        }
    }

    /// A property operator (`P`, `R`, `S`, `T`, `filter`, and `E`/`A`, which are refused), or
    /// `None` when the name here is not one.
    fn operator(&mut self) -> Result<Option<Expr>> {
        let (name, span) = self.ident_here().expect("at an identifier");
        if name == "filter" && self.peek_at(1) == Some(&Token::LParen) {
            return self.filter().map(Some);
        }
        if matches!(name, "E" | "A") && self.peek_at(1) == Some(&Token::LBracket) {
            return Err(self.error(
                span,
                format!("{name} [...] (CTL/LTL path quantifiers) is not supported; use P=? or P>=1"),
            ));
        }
        let Some((kind, mut optimum)) = operator_name(name) else {
            return Ok(None);
        };
        if !self.opens_operator() {
            return Ok(None);
        }
        self.bump();
        let structure = if kind == 'R' && self.peek() == Some(&Token::LBrace) {
            self.bump();
            let r = if self.peek() == Some(&Token::Str) {
                let s = self.string()?;
                RewardRef::Name(s.name, s.span)
            } else {
                RewardRef::Index(Box::new(self.expr()?))
            };
            self.expect(Token::RBrace, "'}' after the reward structure")?;
            Some(r)
        } else {
            None
        };
        if optimum.is_none()
            && let Some((o @ ("min" | "max"), _)) = self.ident_here()
        {
            optimum = Some(if o == "min" { Optimum::Min } else { Optimum::Max });
            self.bump();
        }
        let bound = self.bound()?;
        self.expect(Token::LBracket, "'[' and the formula")?;
        let kind = match kind {
            'P' => ExprKind::Prob {
                optimum,
                bound,
                path: Box::new(self.path()?),
            },
            'R' => ExprKind::Reward {
                structure,
                optimum,
                bound,
                path: Box::new(self.reward_path()?),
            },
            'S' => ExprKind::Steady {
                optimum,
                bound,
                states: Box::new(self.expr()?),
            },
            _ => {
                if !self.is_kw("F") {
                    return Err(self.error_here("F and the target (T=? [F goal]: expected steps)"));
                }
                self.bump();
                ExprKind::Time {
                    optimum,
                    bound,
                    target: Box::new(self.expr()?),
                }
            }
        };
        let end = self.expect(Token::RBracket, "']' after the formula")?;
        Ok(Some(Expr {
            kind,
            span: span.to(end),
        }))
    }

    /// `<<p1, 2, *>>` and the `P` or `R` operator it applies to (property files only).
    fn coalition(&mut self) -> Result<Expr> {
        let start = self.span_here();
        if !self.properties {
            return Err(self.error(
                start,
                "a coalition <<...>> belongs in a property, not in the model".into(),
            ));
        }
        self.bump();
        self.bump();
        let mut players = Vec::new();
        while self.peek() != Some(&Token::Gt) {
            let span = self.span_here();
            match self.peek() {
                Some(Token::Star) => {
                    self.bump();
                    players.push(PlayerRef::All(span));
                }
                Some(Token::Int) => {
                    self.bump();
                    let v = self.slice(span).parse::<i64>().unwrap_or(i64::MAX);
                    players.push(PlayerRef::Number(v, span));
                }
                Some(Token::Ident) => {
                    let name = self.name("a player")?;
                    players.push(PlayerRef::Name(name.name, name.span));
                }
                _ => return Err(self.error_here("a player (a name, a number from 1, or *) or '>>'")),
            }
            if !self.eat(&Token::Comma) {
                break;
            }
        }
        self.expect(Token::Gt, "'>>' after the coalition")?;
        self.expect(Token::Gt, "'>>' after the coalition")?;
        let prop = match self.ident_here() {
            Some((name, _)) if operator_name(name).is_some_and(|(k, _)| k == 'P' || k == 'R') => {
                self.operator()?
            }
            _ => None,
        };
        let Some(prop) = prop else {
            return Err(self.error_here("a P or R operator after the coalition (<<p1>> Pmax=? [F goal])"));
        };
        let span = start.to(prop.span);
        Ok(Expr {
            kind: ExprKind::Coalition {
                players,
                prop: Box::new(prop),
            },
            span,
        })
    }

    fn bound(&mut self) -> Result<Bound> {
        match self.relation_op() {
            Some(BinOp::Eq) => {
                self.bump();
                self.expect(Token::Question, "'?' after '=' (=? asks for the value)")?;
                Ok(Bound::Query)
            }
            Some(op @ (BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge)) => {
                self.bump();
                Ok(Bound::Compare(op, Box::new(self.additive()?)))
            }
            _ => Err(self.error_here("=? or a bound (>=p, <p, ...)")),
        }
    }

    fn step_bound(&mut self) -> Result<Option<StepBound>> {
        match self.peek() {
            Some(Token::Le | Token::Lt) => {
                let op = if self.bump_is(&Token::Le) {
                    BinOp::Le
                } else {
                    BinOp::Lt
                };
                Ok(Some(StepBound {
                    op,
                    steps: Box::new(self.additive()?),
                }))
            }
            Some(Token::Ge | Token::Gt | Token::Eq | Token::LBracket) => Err(self.error(
                self.span_here(),
                "only upper step bounds (<=k, <k) are supported on F, G and U".into(),
            )),
            Some(Token::Ident)
                if self.ident_here().is_some_and(|(n, _)| n.starts_with("rew"))
                    && self.peek_at(1) == Some(&Token::LBrace) =>
            {
                Err(self.error(
                    self.span_here(),
                    "reward-bounded formulas (F^{rew...}) are not supported".into(),
                ))
            }
            _ => Ok(None),
        }
    }

    fn bump_is(&mut self, t: &Token) -> bool {
        let is = self.peek() == Some(t);
        self.bump();
        is
    }

    fn path(&mut self) -> Result<Path> {
        let p = self.simple_path()?;
        if self.peek() == Some(&Token::OrOr) {
            self.bump();
            let c = self.simple_path()?;
            let span = p.span.to(c.span);
            return Ok(Path {
                kind: PathKind::Conditional(Box::new(p), Box::new(c)),
                span,
            });
        }
        Ok(p)
    }

    fn simple_path(&mut self) -> Result<Path> {
        let start = self.span_here();
        let kind = match self.ident_here().map(|(k, _)| k) {
            Some("X") => {
                self.bump();
                PathKind::Next(Box::new(self.expr()?))
            }
            Some("F") => {
                self.bump();
                let b = self.step_bound()?;
                PathKind::Eventually(b, Box::new(self.expr()?))
            }
            Some("G") => {
                self.bump();
                let b = self.step_bound()?;
                PathKind::Globally(b, Box::new(self.expr()?))
            }
            _ => {
                let a = self.expr()?;
                match self.ident_here() {
                    Some(("U", _)) => {
                        self.bump();
                        let b = self.step_bound()?;
                        PathKind::Until(Box::new(a), b, Box::new(self.expr()?))
                    }
                    Some((op @ ("W" | "R"), span)) => {
                        return Err(self.error(
                            span,
                            format!("the {op} operator is not supported; write it with U and G"),
                        ));
                    }
                    _ => return Err(self.error_here("a path formula: F, G, X or U")),
                }
            }
        };
        if let Some(("U" | "W" | "R", span)) = self.ident_here() {
            return Err(self.error(
                span,
                "nested temporal operators (LTL) are not supported: PCTL allows one of F, G, X, U per P operator".into(),
            ));
        }
        Ok(Path {
            kind,
            span: start.to(self.last_span()),
        })
    }

    fn reward_path(&mut self) -> Result<RewardPath> {
        match self.ident_here().map(|(k, _)| k) {
            Some("F") => {
                self.bump();
                if self.peek() == Some(&Token::Le) || self.peek() == Some(&Token::Lt) {
                    return Err(self.error(
                        self.span_here(),
                        "a step bound on F in R [...] is not supported: use C<=k".into(),
                    ));
                }
                Ok(RewardPath::Reach(Box::new(self.expr()?)))
            }
            Some(k @ ("F0" | "Fc")) => {
                self.bump();
                let target = Box::new(self.expr()?);
                Ok(if k == "F0" {
                    RewardPath::ReachOrZero(target)
                } else {
                    RewardPath::ReachOrTotal(target)
                })
            }
            Some("C") => {
                self.bump();
                if self.eat(&Token::Le) {
                    Ok(RewardPath::Cumulative(Box::new(self.additive()?)))
                } else if matches!(self.peek(), Some(Token::Lt | Token::Ge | Token::Gt | Token::Eq)) {
                    Err(self.error(
                        self.span_here(),
                        "C takes a bound <=k, or none (total reward)".into(),
                    ))
                } else {
                    Ok(RewardPath::Total)
                }
            }
            Some("I") => {
                self.bump();
                self.expect(Token::Eq, "'=' and the step (I=k)")?;
                Ok(RewardPath::Instant(Box::new(self.additive()?)))
            }
            Some("S") => {
                self.bump();
                Ok(RewardPath::LongRun)
            }
            _ => Err(self.error_here("F, F0, Fc, C<=k, C, I=k or S inside R [...]")),
        }
    }

    fn filter(&mut self) -> Result<Expr> {
        let start = self.bump();
        self.bump();
        let (op_name, op_span) = self
            .ident_here()
            .ok_or_else(|| self.error_here("a filter operator (min, max, ...)"))?;
        let op = FilterOp::from_name(op_name).ok_or_else(|| {
            self.error(
                op_span,
                format!("unknown filter operator {op_name:?}; use min, max, avg, sum, count, forall, exists, first, print or state"),
            )
        })?;
        self.bump();
        self.expect(Token::Comma, "',' after the filter operator")?;
        let prop = self.expr()?;
        let states = if self.eat(&Token::Comma) {
            Some(Box::new(self.expr()?))
        } else {
            None
        };
        let end = self.expect(Token::RParen, "')' after the filter")?;
        Ok(Expr {
            kind: ExprKind::Filter {
                op,
                prop: Box::new(prop),
                states,
            },
            span: start.to(end),
        })
    }
}

/// The operator a name opens: `'P' 'R' 'S' 'T'` with the optimum written into the name.
fn operator_name(name: &str) -> Option<(char, Option<Optimum>)> {
    Some(match name {
        "P" => ('P', None),
        "Pmin" => ('P', Some(Optimum::Min)),
        "Pmax" => ('P', Some(Optimum::Max)),
        "R" => ('R', None),
        "Rmin" => ('R', Some(Optimum::Min)),
        "Rmax" => ('R', Some(Optimum::Max)),
        "S" => ('S', None),
        "Smin" => ('S', Some(Optimum::Min)),
        "Smax" => ('S', Some(Optimum::Max)),
        "T" => ('T', None),
        "Tmin" => ('T', Some(Optimum::Min)),
        "Tmax" => ('T', Some(Optimum::Max)),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(text: &str) -> Result<Model> {
        parse_model(text, FsPath::new("m.pm"))
    }

    #[test]
    fn a_small_dtmc() {
        let m = model(
            "dtmc\nconst int N = 3;\nconst double p;\nformula done = x=N;\nmodule m\n x : [0..N] init 0;\n b : bool;\n [] x<N -> p:(x'=x+1)&(b'=!b) + 1-p:true;\n [go] done -> true;\nendmodule\nmodule m2 = m [x=y, b=c, go=stop] endmodule\nrewards \"steps\"\n true : 1;\n [go] x>0 : 2.5;\nendrewards\nlabel \"end\" = done;\n",
        )
        .unwrap();
        assert_eq!(m.model_type.map(|t| t.0), Some(ModelType::Dtmc));
        assert_eq!(m.constants.len(), 2);
        assert!(m.constants[1].value.is_none());
        let ModuleDef::Module(m1) = &m.modules[0] else {
            panic!()
        };
        assert_eq!(m1.commands[0].updates.len(), 2);
        assert_eq!(m1.commands[0].updates[0].assignments.len(), 2);
        assert!(m1.commands[0].updates[1].assignments.is_empty());
        assert!(m1.commands[1].updates[0].probability.is_none());
        let ModuleDef::Renamed(r) = &m.modules[1] else {
            panic!()
        };
        assert_eq!(r.pairs.len(), 3);
        assert_eq!(
            m.rewards[0].items[1]
                .action
                .as_ref()
                .unwrap()
                .as_ref()
                .unwrap()
                .name,
            "go"
        );
    }

    #[test]
    fn precedence() {
        let e = parse_expression("!a=1 & b | c => d ? 1+2*3 : -x/2", FsPath::new("e")).unwrap();
        let ExprKind::Ite(c, a, _) = &e.kind else {
            panic!("{e:?}")
        };
        let ExprKind::Binary(BinOp::Implies, l, _) = &c.kind else {
            panic!()
        };
        let ExprKind::Binary(BinOp::Or, l, _) = &l.kind else {
            panic!()
        };
        let ExprKind::Binary(BinOp::And, l, _) = &l.kind else {
            panic!()
        };
        assert!(
            matches!(&l.kind, ExprKind::Unary(UnOp::Not, x) if matches!(x.kind, ExprKind::Binary(BinOp::Eq, ..)))
        );
        let ExprKind::Binary(BinOp::Add, _, r) = &a.kind else {
            panic!()
        };
        assert!(matches!(r.kind, ExprKind::Binary(BinOp::Mul, ..)));
    }

    #[test]
    fn properties() {
        let f = parse_properties(
            "const int k = 3;\n\"a\": Pmin=? [ !\"c\" U<=k \"d\" ];\nR{\"time\"}max=? [ F s=12 & t=1 ]\nfilter(max, R=? [ F \"stable\" ], \"init\");\nP>=1 [ F x=1 ]\nT=? [F done]; S=? [ x=1 ]; P=? [ F a || F b ]; R=? [ C<=5 ]; R{2}=? [ I=3 ]; Rmin=? [S]",
            FsPath::new("p.props"),
        )
        .unwrap();
        assert_eq!(f.constants.len(), 1);
        assert_eq!(f.properties.len(), 10);
        assert_eq!(f.properties[0].name.as_deref(), Some("a"));
        let ExprKind::Prob { optimum, path, .. } = &f.properties[0].expr.kind else {
            panic!()
        };
        assert_eq!(*optimum, Some(Optimum::Min));
        assert!(matches!(path.kind, PathKind::Until(_, Some(_), _)));
        let ExprKind::Reward {
            structure,
            optimum,
            path,
            ..
        } = &f.properties[1].expr.kind
        else {
            panic!()
        };
        assert!(matches!(structure, Some(RewardRef::Name(n, _)) if n == "time"));
        assert_eq!(*optimum, Some(Optimum::Max));
        assert!(
            matches!(&**path, RewardPath::Reach(e) if matches!(e.kind, ExprKind::Binary(BinOp::And, ..)))
        );
        assert!(matches!(
            f.properties[2].expr.kind,
            ExprKind::Filter {
                op: FilterOp::Max,
                ..
            }
        ));
        assert!(matches!(
            f.properties[3].expr.kind,
            ExprKind::Prob {
                bound: Bound::Compare(BinOp::Ge, _),
                ..
            }
        ));
        assert!(matches!(f.properties[4].expr.kind, ExprKind::Time { .. }));
        assert!(
            matches!(f.properties[6].expr.kind, ExprKind::Prob { ref path, .. } if matches!(path.kind, PathKind::Conditional(..)))
        );
    }

    #[test]
    fn errors_name_the_place() {
        let e = model("dtmc\nmodule m\n x : [0..2] init 0;\n [] x<2 -> (x'=x+1)\nendmodule\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "m.pm:5:1: expected ';' or '+' after the update, found \"endmodule\""
        );
        let e = model("ctmc\n").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("m.pm:1:1: ctmc models are not supported"),
            "{e}"
        );
        let e =
            model("dtmc\nmodule m\n x : [0..2] init 0;\n [] x<2 -> 0.5:(x'=x#1);\nendmodule\n").unwrap_err();
        assert_eq!(e.to_string(), "m.pm:4:21: '#' is not part of the PRISM language");
        let e = model("dtmc\nconst int F = 2;\n").unwrap_err();
        assert!(e.to_string().starts_with("m.pm:2:11: \"F\" is a keyword"), "{e}");
        let e = parse_properties("P=? [ F a U b ]", FsPath::new("p")).unwrap_err();
        assert!(e.to_string().contains("nested temporal operators"), "{e}");
        let e = parse_properties("P=? [ F^{rew{\"r\"}<=3} a ]", FsPath::new("p")).unwrap_err();
        assert!(e.to_string().starts_with("p:1:8:"), "{e}");
        let e = model("dtmc\nmodule m\n x : [0..9999999999];\nendmodule").unwrap_err();
        assert!(e.to_string().contains("larger than 2^31 - 1"), "{e}");
    }
}
