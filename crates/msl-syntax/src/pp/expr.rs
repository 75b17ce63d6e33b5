//! Evaluation of `#if` / `#elif` constant expressions (after macro expansion and after
//! `defined`, `__has_include` and friends were replaced by numbers).

use crate::SyntaxKind::{self, *};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Value {
    Signed(i64),
    Unsigned(u64),
}

impl Value {
    pub(crate) fn is_true(self) -> bool {
        match self {
            Value::Signed(v) => v != 0,
            Value::Unsigned(v) => v != 0,
        }
    }
    fn as_u64(self) -> u64 {
        match self {
            Value::Signed(v) => v as u64,
            Value::Unsigned(v) => v,
        }
    }
    fn bool(b: bool) -> Value {
        Value::Signed(b as i64)
    }
}

pub(crate) struct ExprTok<'a> {
    pub kind: SyntaxKind,
    pub text: &'a str,
}

const MAX_DEPTH: u32 = 256;

pub(crate) fn evaluate(tokens: &[ExprTok<'_>]) -> Result<Value, String> {
    if tokens.is_empty() {
        return Err("`#if` with no expression".into());
    }
    let mut p = Eval { toks: tokens, pos: 0, depth: 0 };
    let v = p.ternary(true)?;
    if p.pos < tokens.len() {
        return Err(format!("unexpected `{}` in preprocessor expression", tokens[p.pos].text));
    }
    Ok(v)
}

struct Eval<'t, 'a> {
    toks: &'t [ExprTok<'a>],
    pos: usize,
    depth: u32,
}

fn binary_prec(kind: SyntaxKind) -> Option<u8> {
    Some(match kind {
        PIPE2 => 1,
        AMP2 => 2,
        PIPE => 3,
        CARET => 4,
        AMP => 5,
        EQ2 | NEQ => 6,
        L_ANGLE | R_ANGLE | LTEQ | GTEQ => 7,
        SHL | SHR => 8,
        PLUS | MINUS => 9,
        STAR | SLASH | PERCENT => 10,
        _ => return None,
    })
}

impl Eval<'_, '_> {
    fn peek(&self) -> Option<SyntaxKind> {
        self.toks.get(self.pos).map(|t| t.kind)
    }

    /// `live` is false in the unevaluated operand of `&&`, `||` and `?:`, where division by
    /// zero is not an error.
    fn ternary(&mut self, live: bool) -> Result<Value, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err("preprocessor expression nested too deeply".into());
        }
        let cond = self.binary(0, live)?;
        let r = if self.peek() == Some(QUESTION) {
            self.pos += 1;
            let c = cond.is_true();
            let a = self.ternary(live && c)?;
            if self.peek() != Some(COLON) {
                return Err("expected `:` in preprocessor conditional expression".into());
            }
            self.pos += 1;
            let b = self.ternary(live && !c)?;
            let (a, b) = unify(a, b);
            if c { a } else { b }
        } else {
            cond
        };
        self.depth -= 1;
        Ok(r)
    }

    fn binary(&mut self, min_prec: u8, live: bool) -> Result<Value, String> {
        let mut lhs = self.unary(live)?;
        while let Some(op) = self.peek() {
            let Some(prec) = binary_prec(op) else { break };
            if prec <= min_prec {
                break;
            }
            self.pos += 1;
            let rhs_live = match op {
                AMP2 => live && lhs.is_true(),
                PIPE2 => live && !lhs.is_true(),
                _ => live,
            };
            let rhs = self.binary(prec, rhs_live)?;
            lhs = apply(op, lhs, rhs, live)?;
        }
        Ok(lhs)
    }

    fn unary(&mut self, live: bool) -> Result<Value, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err("preprocessor expression nested too deeply".into());
        }
        let Some(tok) = self.toks.get(self.pos) else {
            return Err("preprocessor expression ends unexpectedly".into());
        };
        self.pos += 1;
        let v = match tok.kind {
            PLUS => self.unary(live)?,
            MINUS => match self.unary(live)? {
                Value::Signed(v) => Value::Signed(v.wrapping_neg()),
                Value::Unsigned(v) => Value::Unsigned(v.wrapping_neg()),
            },
            TILDE => match self.unary(live)? {
                Value::Signed(v) => Value::Signed(!v),
                Value::Unsigned(v) => Value::Unsigned(!v),
            },
            BANG => Value::bool(!self.unary(live)?.is_true()),
            L_PAREN => {
                let v = self.ternary(live)?;
                if self.peek() != Some(R_PAREN) {
                    return Err("expected `)` in preprocessor expression".into());
                }
                self.pos += 1;
                v
            }
            INT_NUMBER => parse_int(tok.text)?,
            CHAR_LIT => Value::Signed(char_value(tok.text)),
            TRUE_KW => Value::Signed(1),
            FALSE_KW => Value::Signed(0),
            FLOAT_NUMBER => {
                return Err(format!("floating-point literal `{}` in preprocessor expression", tok.text));
            }
            STRING_LIT => {
                return Err(format!("string literal {} in preprocessor expression", tok.text));
            }
            k if k.is_ident_like() => {
                // An identifier that is not a macro evaluates to 0; `name(...)` looks like
                // a function-like macro that was never defined.
                if self.peek() == Some(L_PAREN) {
                    return Err(format!(
                        "function-like macro `{}` is not defined, so `{}(...)` cannot be evaluated",
                        tok.text, tok.text
                    ));
                }
                Value::Signed(0)
            }
            _ => {
                return Err(format!("unexpected `{}` in preprocessor expression", tok.text));
            }
        };
        self.depth -= 1;
        Ok(v)
    }
}

fn unify(a: Value, b: Value) -> (Value, Value) {
    match (a, b) {
        (Value::Signed(_), Value::Signed(_)) => (a, b),
        _ => (Value::Unsigned(a.as_u64()), Value::Unsigned(b.as_u64())),
    }
}

fn apply(op: SyntaxKind, a: Value, b: Value, live: bool) -> Result<Value, String> {
    if op == AMP2 {
        return Ok(Value::bool(a.is_true() && b.is_true()));
    }
    if op == PIPE2 {
        return Ok(Value::bool(a.is_true() || b.is_true()));
    }
    if matches!(op, SHL | SHR) {
        // the result has the type of the left operand
        let n = (b.as_u64() & 63) as u32;
        return Ok(match (op, a) {
            (SHL, Value::Signed(x)) => Value::Signed(x.wrapping_shl(n)),
            (SHL, Value::Unsigned(x)) => Value::Unsigned(x.wrapping_shl(n)),
            (_, Value::Signed(x)) => Value::Signed(x.wrapping_shr(n)),
            (_, Value::Unsigned(x)) => Value::Unsigned(x.wrapping_shr(n)),
        });
    }
    let (a, b) = unify(a, b);
    if matches!(op, SLASH | PERCENT) && b.as_u64() == 0 {
        if live {
            return Err("division by zero in preprocessor expression".into());
        }
        return Ok(Value::Signed(0));
    }
    Ok(match (a, b) {
        (Value::Signed(x), Value::Signed(y)) => match op {
            PLUS => Value::Signed(x.wrapping_add(y)),
            MINUS => Value::Signed(x.wrapping_sub(y)),
            STAR => Value::Signed(x.wrapping_mul(y)),
            SLASH => Value::Signed(x.wrapping_div(y)),
            PERCENT => Value::Signed(x.wrapping_rem(y)),
            PIPE => Value::Signed(x | y),
            CARET => Value::Signed(x ^ y),
            AMP => Value::Signed(x & y),
            EQ2 => Value::bool(x == y),
            NEQ => Value::bool(x != y),
            L_ANGLE => Value::bool(x < y),
            R_ANGLE => Value::bool(x > y),
            LTEQ => Value::bool(x <= y),
            GTEQ => Value::bool(x >= y),
            _ => unreachable!("not a binary operator: {op:?}"),
        },
        _ => {
            let (x, y) = (a.as_u64(), b.as_u64());
            match op {
                PLUS => Value::Unsigned(x.wrapping_add(y)),
                MINUS => Value::Unsigned(x.wrapping_sub(y)),
                STAR => Value::Unsigned(x.wrapping_mul(y)),
                SLASH => Value::Unsigned(x / y),
                PERCENT => Value::Unsigned(x % y),
                PIPE => Value::Unsigned(x | y),
                CARET => Value::Unsigned(x ^ y),
                AMP => Value::Unsigned(x & y),
                EQ2 => Value::bool(x == y),
                NEQ => Value::bool(x != y),
                L_ANGLE => Value::bool(x < y),
                R_ANGLE => Value::bool(x > y),
                LTEQ => Value::bool(x <= y),
                GTEQ => Value::bool(x >= y),
                _ => unreachable!("not a binary operator: {op:?}"),
            }
        }
    })
}

fn parse_int(text: &str) -> Result<Value, String> {
    let clean: String = text.chars().filter(|&c| c != '\'').collect();
    let lower = clean.to_ascii_lowercase();
    let digits_end = lower.trim_end_matches(['u', 'l', 'z']).len();
    let suffix = &lower[digits_end..];
    let body = &lower[..digits_end];
    let (radix, digits) = if let Some(h) = body.strip_prefix("0x") {
        (16, h)
    } else if let Some(b) = body.strip_prefix("0b") {
        (2, b)
    } else if body.len() > 1 && body.starts_with('0') {
        (8, &body[1..])
    } else {
        (10, body)
    };
    let v = u64::from_str_radix(digits, radix)
        .map_err(|_| format!("invalid integer `{text}` in preprocessor expression"))?;
    if suffix.contains('u') || v > i64::MAX as u64 { Ok(Value::Unsigned(v)) } else { Ok(Value::Signed(v as i64)) }
}

fn char_value(text: &str) -> i64 {
    let inner = text.trim_start_matches(|c| c != '\'').trim_start_matches('\'');
    let inner = inner.strip_suffix('\'').unwrap_or(inner);
    let mut chars = inner.chars();
    match chars.next() {
        Some('\\') => match chars.next() {
            Some('n') => 10,
            Some('t') => 9,
            Some('r') => 13,
            Some('0') => {
                let rest: String = std::iter::once('0').chain(chars).collect();
                i64::from_str_radix(&rest, 8).unwrap_or(0)
            }
            Some('x') => i64::from_str_radix(chars.as_str(), 16).unwrap_or(0),
            Some('a') => 7,
            Some('b') => 8,
            Some('f') => 12,
            Some('v') => 11,
            Some(c) => c as i64,
            None => 0,
        },
        Some(c) => c as i64,
        None => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexer::lex;

    fn eval(s: &str) -> Result<Value, String> {
        let (tokens, _) = lex(s);
        let toks: Vec<ExprTok> = tokens
            .iter()
            .filter(|t| !t.kind.is_trivia())
            .map(|t| ExprTok { kind: t.kind, text: &s[t.start as usize..t.end() as usize] })
            .collect();
        evaluate(&toks)
    }

    #[test]
    fn arithmetic_and_logic() {
        assert_eq!(eval("1 + 2 * 3"), Ok(Value::Signed(7)));
        assert_eq!(eval("(1 + 2) * 3 == 9"), Ok(Value::Signed(1)));
        assert_eq!(eval("320 >= 310 && 1"), Ok(Value::Signed(1)));
        assert_eq!(eval("-1 < 0u"), Ok(Value::Signed(0)), "usual arithmetic conversions");
        assert_eq!(eval("0 && 1 / 0"), Ok(Value::Signed(0)), "short circuit hides division by zero");
        assert_eq!(eval("1 ? 2 : 1 / 0"), Ok(Value::Signed(2)));
        assert_eq!(eval("0x10 | 010 | 0b1"), Ok(Value::Signed(16 | 8 | 1)));
        assert_eq!(eval("'A' == 65"), Ok(Value::Signed(1)));
        assert_eq!(eval("1 << 62 >> 61"), Ok(Value::Signed(2)));
        assert_eq!(eval("UNKNOWN_NAME + 1"), Ok(Value::Signed(1)));
        assert!(eval("1 / 0").is_err());
        assert!(eval("1.5 > 1").is_err());
        assert!(eval("(1").is_err());
        assert!(eval("FOO(2)").is_err());
        assert!(eval(&"(".repeat(10000)).is_err());
    }
}
