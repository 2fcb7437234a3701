//! Tokens of the PRISM modelling and property languages (the PRISM manual, "The PRISM Language"
//! and "Property Specification"). Keywords are lexed as identifiers and recognised by the parser
//! where the grammar expects them, so a name such as `T` (Storm's expected-time operator) stays
//! usable where PRISM does not reserve it.

use logos::Logos;

/// One token; its place in the text is the [`Span`] beside it in [`tokens`].
#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
pub enum Token {
    /// A name (identifiers and keywords).
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Ident,
    /// An integer literal.
    #[regex(r"[0-9]+")]
    Int,
    /// A decimal literal (`0.5`, `.5`, `1e-3`, `2.5E+2`).
    #[regex(r"[0-9]+\.[0-9]+([eE][+-]?[0-9]+)?|\.[0-9]+([eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+")]
    Double,
    /// A quoted name: a label (`"goal"`) or a reward structure's or property's name.
    #[regex(r#""[^"\n]*""#)]
    Str,
    /// `(`
    #[token("(")]
    LParen,
    /// `)`
    #[token(")")]
    RParen,
    /// `[`
    #[token("[")]
    LBracket,
    /// `]`
    #[token("]")]
    RBracket,
    /// `{`
    #[token("{")]
    LBrace,
    /// `}`
    #[token("}")]
    RBrace,
    /// `;`
    #[token(";")]
    Semi,
    /// `:`
    #[token(":")]
    Colon,
    /// `,`
    #[token(",")]
    Comma,
    /// `..` (ranges)
    #[token("..")]
    DotDot,
    /// `'` (the primed variable of an update)
    #[token("'")]
    Prime,
    /// `->`
    #[token("->")]
    Arrow,
    /// `=`
    #[token("=")]
    Eq,
    /// `!=`
    #[token("!=")]
    Ne,
    /// `<`
    #[token("<")]
    Lt,
    /// `<=`
    #[token("<=")]
    Le,
    /// `>`
    #[token(">")]
    Gt,
    /// `>=`
    #[token(">=")]
    Ge,
    /// `+`
    #[token("+")]
    Plus,
    /// `-`
    #[token("-")]
    Minus,
    /// `*`
    #[token("*")]
    Star,
    /// `/`
    #[token("/")]
    Slash,
    /// `!`
    #[token("!")]
    Not,
    /// `&`
    #[token("&")]
    And,
    /// `|`
    #[token("|")]
    Or,
    /// `||` (Storm's conditional probability `P=? [F a || F b]`)
    #[token("||")]
    OrOr,
    /// `=>`
    #[token("=>")]
    Implies,
    /// `<=>`
    #[token("<=>")]
    Iff,
    /// `?`
    #[token("?")]
    Question,
}

/// A byte range `start..end` of the source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// The span from the start of `self` to the end of `other`.
    #[must_use]
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start,
            end: other.end.max(self.end),
        }
    }
}

/// The tokens of `text` with their spans, or the span of the first character that starts no token.
///
/// # Errors
/// The span of an unrecognised character (an unterminated string included).
pub fn tokens(text: &str) -> Result<Vec<(Token, Span)>, Span> {
    let mut out = Vec::new();
    let mut lexer = Token::lexer(text);
    while let Some(t) = lexer.next() {
        let r = lexer.span();
        let span = Span {
            start: r.start as u32,
            end: r.end as u32,
        };
        match t {
            Ok(t) => out.push((t, span)),
            Err(()) => return Err(span),
        }
    }
    Ok(out)
}

/// Line and column (both from 1, columns in characters) of byte `offset` in `text`.
#[must_use]
pub fn line_column(text: &str, offset: u32) -> (usize, usize) {
    let offset = (offset as usize).min(text.len());
    let before = &text.as_bytes()[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let column = text[start..offset].chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_updates_and_comments() {
        let text = "x : [0..N] init 0; // c\r\n[a] x<2 -> 0.5:(x'=x+1) + .5:true;";
        let kinds: Vec<Token> = tokens(text).unwrap().into_iter().map(|(t, _)| t).collect();
        use Token::*;
        assert_eq!(
            kinds,
            vec![
                Ident, Colon, LBracket, Int, DotDot, Ident, RBracket, Ident, Int, Semi, LBracket, Ident,
                RBracket, Ident, Lt, Int, Arrow, Double, Colon, LParen, Ident, Prime, Eq, Ident, Plus, Int,
                RParen, Plus, Double, Colon, Ident, Semi
            ]
        );
    }

    #[test]
    fn places() {
        let text = "a\r\nbé c";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 3), (2, 1));
        assert_eq!(line_column(text, 7), (2, 4));
        assert_eq!(tokens("x # y").unwrap_err(), Span { start: 2, end: 3 });
    }
}
