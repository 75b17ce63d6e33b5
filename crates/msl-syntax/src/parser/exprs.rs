//! Expressions: a Pratt parser with C++ precedence, casts, construction, lambdas and
//! initializer lists.

use super::names::{self, AngleCtx};
use super::symbols::Sym;
use super::types::{self, DeclCtx};
use super::{CompletedMarker, MAX_CHAIN, Parser, Word, attrs, stmts};
use crate::SyntaxKind::{self, *};

#[derive(Clone, Copy)]
struct Restrictions {
    /// The comma operator is allowed.
    comma: bool,
    /// `>` is an operator (false inside template arguments).
    gt: bool,
}

/// A full expression, comma operator included.
pub(crate) fn expr(p: &mut Parser<'_>) -> Option<CompletedMarker> {
    expr_bp(p, 1, Restrictions { comma: true, gt: true })
}

/// An assignment-expression: no top-level comma (arguments, initializers).
pub(crate) fn expr_no_comma(p: &mut Parser<'_>) -> Option<CompletedMarker> {
    expr_bp(p, 3, Restrictions { comma: false, gt: true })
}

/// A template argument: no comma, and `>` closes the list.
pub(crate) fn expr_in_template_arg(p: &mut Parser<'_>) -> Option<CompletedMarker> {
    expr_bp(p, 3, Restrictions { comma: false, gt: false })
}

/// A constant expression where `:` follows (case labels, bit-fields).
pub(crate) fn conditional_expr(p: &mut Parser<'_>) -> Option<CompletedMarker> {
    expr_bp(p, 4, Restrictions { comma: false, gt: true })
}

/// An initializer: an expression or a braced list.
pub(crate) fn initializer_clause(p: &mut Parser<'_>) {
    if p.at(L_CURLY) {
        init_list(p);
    } else if expr_no_comma(p).is_none() {
        p.error_expected("an expression");
    }
}

/// Whether an expression can start at the current token.
pub(crate) fn at_expr_start(p: &mut Parser<'_>) -> bool {
    let k = p.current();
    matches!(
        k,
        IDENT
            | INT_NUMBER
            | FLOAT_NUMBER
            | CHAR_LIT
            | STRING_LIT
            | TRUE_KW
            | FALSE_KW
            | NULLPTR_KW
            | THIS_KW
            | L_PAREN
            | L_CURLY
            | L_BRACK
            | COLON2
            | PLUS2
            | MINUS2
            | PLUS
            | MINUS
            | BANG
            | TILDE
            | STAR
            | AMP
            | SIZEOF_KW
            | ALIGNOF_KW
            | NEW_KW
            | DELETE_KW
            | THROW_KW
            | NOEXCEPT_KW
            | STATIC_CAST_KW
            | DYNAMIC_CAST_KW
            | CONST_CAST_KW
            | REINTERPRET_CAST_KW
            | TYPEID_KW
            | DECLTYPE_KW
            | TYPENAME_KW
            | OPERATOR_KW
    ) || k.is_builtin_type_keyword()
}

fn infix_bp(k: SyntaxKind, r: Restrictions) -> Option<(u8, u8)> {
    Some(match k {
        COMMA if r.comma => (1, 2),
        EQ | PLUSEQ | MINUSEQ | STAREQ | SLASHEQ | PERCENTEQ | AMPEQ | PIPEEQ | CARETEQ | SHLEQ => (4, 3),
        SHREQ if r.gt => (4, 3),
        PIPE2 => (5, 6),
        AMP2 => (7, 8),
        PIPE => (9, 10),
        CARET => (11, 12),
        AMP => (13, 14),
        EQ2 | NEQ => (15, 16),
        L_ANGLE | LTEQ => (17, 18),
        R_ANGLE | GTEQ if r.gt => (17, 18),
        SPACESHIP => (19, 20),
        SHL => (21, 22),
        SHR if r.gt => (21, 22),
        PLUS | MINUS => (23, 24),
        STAR | SLASH | PERCENT => (25, 26),
        DOT_STAR | ARROW_STAR => (27, 28),
        _ => return None,
    })
}

fn expr_bp(p: &mut Parser<'_>, min_bp: u8, r: Restrictions) -> Option<CompletedMarker> {
    if !p.enter() {
        return None;
    }
    let result = expr_bp_inner(p, min_bp, r);
    p.leave();
    result
}

fn expr_bp_inner(p: &mut Parser<'_>, min_bp: u8, r: Restrictions) -> Option<CompletedMarker> {
    let mut lhs = unary(p, r)?;
    let mut chain = 0u32;
    loop {
        let k = p.current();
        // conditional operator: right-associative, at assignment level
        if k == QUESTION && min_bp <= 4 {
            let m = lhs.precede(p);
            p.bump(QUESTION);
            if expr_bp(p, 1, Restrictions { comma: true, gt: r.gt }).is_none() {
                p.error_expected("an expression");
            }
            if p.expect(COLON) && expr_bp(p, 3, Restrictions { comma: false, gt: r.gt }).is_none() {
                p.error_expected("an expression");
            }
            lhs = m.complete(p, CONDITIONAL_EXPR);
            continue;
        }
        let Some((l_bp, r_bp)) = infix_bp(k, r) else { break };
        if l_bp < min_bp {
            break;
        }
        // a fold expression `(args + ...)`: leave the operator to the parenthesis
        if p.nth_at(1, DOT3) {
            break;
        }
        chain += 1;
        if chain > MAX_CHAIN {
            p.error(format!("expression has more than {MAX_CHAIN} operators in a row; the rest is skipped"));
            let e = p.start();
            while !p.at_eof() && !matches!(p.current(), SEMI | R_PAREN | R_CURLY | R_BRACK | L_CURLY) {
                p.bump_any();
            }
            e.complete(p, ERROR);
            break;
        }
        let m = lhs.precede(p);
        p.bump_any();
        if p.at(L_CURLY) && matches!(k, EQ | PLUSEQ | MINUSEQ | STAREQ | SLASHEQ) {
            // `x = {1, 2}`
            init_list(p);
        } else if expr_bp(p, r_bp, r).is_none() {
            p.error_expected("an expression");
        }
        lhs = m.complete(p, BIN_EXPR);
    }
    Some(lhs)
}

fn unary(p: &mut Parser<'_>, r: Restrictions) -> Option<CompletedMarker> {
    if !p.enter() {
        return None;
    }
    let res = unary_inner(p, r);
    p.leave();
    res
}

fn unary_inner(p: &mut Parser<'_>, r: Restrictions) -> Option<CompletedMarker> {
    let current = p.current();
    let word = p.current_word();
    match current {
        PLUS2 | MINUS2 | PLUS | MINUS | BANG | TILDE | STAR | AMP | AMP2 => {
            let m = p.start();
            p.bump_any();
            if unary(p, r).is_none() {
                p.error_expected("an expression");
            }
            Some(m.complete(p, PREFIX_EXPR))
        }
        SIZEOF_KW => {
            let m = p.start();
            p.bump(SIZEOF_KW);
            if p.at(DOT3) {
                p.bump(DOT3);
                if p.expect(L_PAREN) {
                    if p.at(IDENT) {
                        names::path_node(p, AngleCtx::Expr);
                    }
                    p.expect(R_PAREN);
                }
            } else if p.at(L_PAREN) && scan_type_in_parens(p).is_some() {
                // `sizeof(T)` rather than `sizeof (expr)`
                p.bump(L_PAREN);
                types::type_id(p);
                p.expect(R_PAREN);
            } else if unary(p, r).is_none() {
                p.error_expected("an expression");
            }
            Some(m.complete(p, SIZEOF_EXPR))
        }
        ALIGNOF_KW => {
            let m = p.start();
            p.bump(ALIGNOF_KW);
            if p.expect(L_PAREN) {
                types::type_or_expr(p);
                p.expect(R_PAREN);
            }
            Some(m.complete(p, ALIGNOF_EXPR))
        }
        IDENT if word == Word::Alignof && p.nth_at(1, L_PAREN) => {
            let m = p.start();
            p.bump(IDENT);
            p.bump(L_PAREN);
            types::type_or_expr(p);
            p.expect(R_PAREN);
            Some(m.complete(p, ALIGNOF_EXPR))
        }
        IDENT if word == Word::Extension => {
            p.bump(IDENT);
            unary(p, r)
        }
        NEW_KW => Some(new_expr(p)),
        COLON2 if p.nth_at(1, NEW_KW) => Some(new_expr(p)),
        DELETE_KW | COLON2 if p.at(DELETE_KW) || p.nth_at(1, DELETE_KW) => {
            let m = p.start();
            p.eat(COLON2);
            p.bump(DELETE_KW);
            if p.at(L_BRACK) && p.nth_at(1, R_BRACK) {
                p.bump(L_BRACK);
                p.bump(R_BRACK);
            }
            if unary(p, r).is_none() {
                p.error_expected("an expression");
            }
            Some(m.complete(p, DELETE_EXPR))
        }
        THROW_KW => {
            let m = p.start();
            p.bump(THROW_KW);
            if at_expr_start(p) {
                expr_bp(p, 3, r);
            }
            Some(m.complete(p, THROW_EXPR))
        }
        NOEXCEPT_KW => {
            let m = p.start();
            p.bump(NOEXCEPT_KW);
            if p.expect(L_PAREN) {
                expr(p);
                p.expect(R_PAREN);
            }
            Some(m.complete(p, NOEXCEPT_EXPR))
        }
        L_PAREN if looks_like_cast(p) => {
            let m = p.start();
            p.bump(L_PAREN);
            types::type_id(p);
            p.expect(R_PAREN);
            if unary(p, r).is_none() {
                p.error_expected("an expression");
            }
            Some(m.complete(p, CAST_EXPR))
        }
        _ => {
            let prim = primary(p)?;
            Some(postfix(p, prim))
        }
    }
}

/// If `(` at the current position encloses exactly a type-id, the index after `)`.
fn scan_type_in_parens(p: &Parser<'_>) -> Option<usize> {
    scan_type_in_parens_ext(p, false)
}

/// As [`scan_type_in_parens`]; with `unknown_ok`, a name the symbol table does not know
/// counts as a type.
fn scan_type_in_parens_ext(p: &Parser<'_>, unknown_ok: bool) -> Option<usize> {
    let kinds = &p.kinds;
    let mut i = p.pos() + 1;
    let mut saw_type = false;
    // an address space or a cv-qualifier makes a type of what follows, known or not:
    // `(device const block_q4 *) p` is a cast
    let mut qualified = false;
    // specifiers
    loop {
        let k = kinds.get(i).copied().unwrap_or(EOF);
        if matches!(k, CONST_KW | VOLATILE_KW) || k.is_address_space() {
            qualified = true;
            i += 1;
        } else if k.is_builtin_type_keyword() {
            saw_type = true;
            i += 1;
        } else if k == DECLTYPE_KW && !saw_type {
            i = super::skip_group(kinds, i + 1, L_PAREN, R_PAREN)?;
            saw_type = true;
        } else if matches!(k, TYPENAME_KW | STRUCT_KW | CLASS_KW | ENUM_KW | UNION_KW) && !saw_type {
            i += 1;
            let scan = names::scan_path(p, i, AngleCtx::Type)?;
            i = scan.end;
            saw_type = true;
        } else if (k == IDENT || k == COLON2) && !saw_type {
            let scan = names::scan_path(p, i, AngleCtx::Type)?;
            match scan.sym {
                Some(Sym::Type) => {}
                Some(Sym::Template) if scan.template_id => {}
                // an unknown name: only a type if an operand follows `)` directly, since
                // `(x) y` cannot be anything but a cast, or a qualifier came before it
                None if unknown_ok || qualified => {}
                _ => return None,
            }
            i = scan.end;
            saw_type = true;
        } else {
            break;
        }
    }
    if !saw_type {
        return None;
    }
    // abstract declarator: pointers, references, arrays
    loop {
        let k = kinds.get(i).copied().unwrap_or(EOF);
        if matches!(k, STAR | AMP | AMP2 | CONST_KW | VOLATILE_KW) || k.is_address_space() {
            i += 1;
        } else if k == L_BRACK {
            // `[N]`
            i = super::skip_group(kinds, i, L_BRACK, R_BRACK)?;
        } else {
            break;
        }
    }
    (kinds.get(i) == Some(&R_PAREN)).then_some(i + 1)
}

/// `(T) x`: a parenthesised type-id followed by something that starts an operand.
fn looks_like_cast(p: &Parser<'_>) -> bool {
    let Some(after) = scan_type_in_parens(p) else {
        // `(unknown_t) x`, `(S::member_t) 1`
        return scan_type_in_parens_ext(p, true).is_some_and(|after| {
            matches!(p.kinds.get(after), Some(IDENT | INT_NUMBER | FLOAT_NUMBER | CHAR_LIT | STRING_LIT | THIS_KW))
                && p.kinds.get(p.pos() + 1) != Some(&COLON2)
                || (matches!(p.kinds.get(after), Some(IDENT | L_PAREN)) && p.kinds.get(p.pos() + 2) == Some(&COLON2))
        });
    };
    let next = p.kinds.get(after).copied().unwrap_or(EOF);
    matches!(
        next,
        IDENT
            | INT_NUMBER
            | FLOAT_NUMBER
            | CHAR_LIT
            | STRING_LIT
            | TRUE_KW
            | FALSE_KW
            | NULLPTR_KW
            | THIS_KW
            | L_PAREN
            | COLON2
            | PLUS2
            | MINUS2
            | PLUS
            | MINUS
            | BANG
            | TILDE
            | STAR
            | AMP
            | SIZEOF_KW
            | ALIGNOF_KW
            | STATIC_CAST_KW
            | REINTERPRET_CAST_KW
            | CONST_CAST_KW
            | L_CURLY
    ) || next.is_builtin_type_keyword()
}

fn new_expr(p: &mut Parser<'_>) -> CompletedMarker {
    let m = p.start();
    p.eat(COLON2);
    p.bump(NEW_KW);
    // placement arguments
    if p.at(L_PAREN) && scan_type_in_parens(p).is_none() {
        arg_list(p);
    }
    if p.at(L_PAREN) {
        p.bump(L_PAREN);
        types::type_id(p);
        p.expect(R_PAREN);
    } else {
        types::new_type_id(p);
    }
    if p.at(L_PAREN) {
        arg_list(p);
    } else if p.at(L_CURLY) {
        init_list(p);
    }
    m.complete(p, NEW_EXPR)
}

fn postfix(p: &mut Parser<'_>, mut lhs: CompletedMarker) -> CompletedMarker {
    let mut chain = 0u32;
    loop {
        chain += 1;
        if chain > MAX_CHAIN {
            p.error(format!("expression has more than {MAX_CHAIN} postfix operations in a row"));
            return lhs;
        }
        lhs = match p.current() {
            L_BRACK if !p.at_attr_start() => {
                let m = lhs.precede(p);
                p.bump(L_BRACK);
                if p.at(L_CURLY) {
                    init_list(p);
                } else if expr(p).is_none() {
                    p.error_expected("an index expression");
                }
                p.expect(R_BRACK);
                m.complete(p, INDEX_EXPR)
            }
            L_PAREN => {
                let m = lhs.precede(p);
                arg_list(p);
                m.complete(p, CALL_EXPR)
            }
            DOT | ARROW => {
                let m = lhs.precede(p);
                p.bump_any();
                member_name(p);
                m.complete(p, MEMBER_EXPR)
            }
            PLUS2 | MINUS2 => {
                let m = lhs.precede(p);
                p.bump_any();
                m.complete(p, POSTFIX_EXPR)
            }
            _ => return lhs,
        };
    }
}

fn member_name(p: &mut Parser<'_>) {
    let after_template = p.eat(TEMPLATE_KW);
    match p.current() {
        // `v.Base::f()`: a member named through its class
        IDENT if p.nth_at(1, COLON2) => {
            names::path_node(p, AngleCtx::Member);
        }
        IDENT => {
            p.bump(IDENT);
            if p.at(L_ANGLE) && names::starts_template_args(p, None, AngleCtx::Member, after_template) {
                names::template_arg_list(p);
            }
        }
        TILDE => {
            let d = p.start();
            p.bump(TILDE);
            if p.at(IDENT) {
                p.bump(IDENT);
            } else if p.current().is_builtin_type_keyword() {
                p.bump_any();
            } else {
                p.error_expected("a type name after `~`");
            }
            d.complete(p, DESTRUCTOR_NAME);
        }
        OPERATOR_KW => {
            names::operator_name(p);
            // `a.operator()<float>(x)`: explicit arguments of a member operator template
            if p.at(L_ANGLE) && names::starts_template_args(p, None, AngleCtx::Member, after_template) {
                names::template_arg_list(p);
            }
        }
        _ if names::at_path_start(p) => {
            names::path_node(p, AngleCtx::Member);
        }
        _ => p.error_expected("a member name"),
    }
}

/// `( args )`
pub(crate) fn arg_list(p: &mut Parser<'_>) {
    let m = p.start();
    p.bump(L_PAREN);
    while !p.at_eof() && !p.at(R_PAREN) {
        if matches!(p.current(), SEMI | R_CURLY) {
            break;
        }
        if p.at(COMMA) {
            p.error("expected an argument");
            p.bump(COMMA);
            continue;
        }
        let a = p.start();
        let ok = if p.at(L_CURLY) {
            init_list(p);
            true
        } else {
            expr_no_comma(p).is_some()
        };
        if p.at(DOT3) {
            p.bump(DOT3);
            a.complete(p, PACK_EXPANSION);
        } else {
            a.abandon(p);
        }
        if !ok {
            p.error_expected("an argument");
            skip_to_list_end(p, R_PAREN);
        }
        if !p.at(R_PAREN) && !p.eat(COMMA) {
            if matches!(p.current(), SEMI | R_CURLY | L_CURLY | EOF) {
                break;
            }
            p.error_expected("`,` or `)`");
            skip_to_list_end(p, R_PAREN);
            p.eat(COMMA);
        }
    }
    p.expect(R_PAREN);
    m.complete(p, ARG_LIST);
}

/// Skips tokens up to the next `,` or `close` at this nesting level (not past `;`).
fn skip_to_list_end(p: &mut Parser<'_>, close: SyntaxKind) {
    let e = p.start();
    let mut any = false;
    while !p.at_eof() && !p.at(COMMA) && !p.at(close) && !matches!(p.current(), SEMI | R_CURLY | L_CURLY) {
        if matches!(p.current(), L_PAREN | L_BRACK) {
            p.skip_balanced();
        } else {
            p.bump_any();
        }
        any = true;
    }
    if any {
        e.complete(p, ERROR);
    } else {
        e.abandon(p);
    }
}

/// `{ a, b, .x = c, [2] = d, }`
pub(crate) fn init_list(p: &mut Parser<'_>) -> CompletedMarker {
    let m = p.start();
    p.bump(L_CURLY);
    if !p.enter() {
        // `enter` skipped the rest of the construct
        p.eat(R_CURLY);
        return m.complete(p, INIT_LIST);
    }
    while !p.at_eof() && !p.at(R_CURLY) {
        if p.at(COMMA) {
            p.error("expected an initializer");
            p.bump(COMMA);
            continue;
        }
        if p.at(SEMI) {
            break;
        }
        let element = p.start();
        let ok = if (p.at(DOT) && p.nth_at(1, IDENT)) || (p.at(L_BRACK) && !p.at_attr_start()) {
            let d = p.start();
            if p.eat(DOT) {
                p.bump(IDENT);
            } else {
                p.bump(L_BRACK);
                expr(p);
                if p.eat(DOT3) {
                    // GNU range designator `[a ... b]`
                    expr(p);
                }
                p.expect(R_BRACK);
            }
            if p.eat(EQ) {
                initializer_clause(p);
            } else if p.at(L_CURLY) {
                init_list(p);
            } else {
                p.error_expected("`=`");
            }
            d.complete(p, DESIGNATED_INIT);
            true
        } else if p.at(L_CURLY) {
            init_list(p);
            true
        } else {
            expr_no_comma(p).is_some()
        };
        // `{args...}`: a pack expansion, as in argument lists
        if p.at(DOT3) {
            p.bump(DOT3);
            element.complete(p, PACK_EXPANSION);
        } else {
            element.abandon(p);
        }
        if !ok {
            p.error_expected("an initializer");
            skip_to_list_end(p, R_CURLY);
        }
        if !p.at(R_CURLY) && !p.eat(COMMA) {
            if matches!(p.current(), SEMI | EOF) {
                break;
            }
            p.error_expected("`,` or `}`");
            skip_to_list_end(p, R_CURLY);
            p.eat(COMMA);
        }
    }
    p.leave();
    p.expect(R_CURLY);
    m.complete(p, INIT_LIST)
}

fn primary(p: &mut Parser<'_>) -> Option<CompletedMarker> {
    let k = p.current();
    match k {
        INT_NUMBER | FLOAT_NUMBER | CHAR_LIT | TRUE_KW | FALSE_KW | NULLPTR_KW => {
            let m = p.start();
            p.bump_any();
            Some(m.complete(p, LITERAL))
        }
        STRING_LIT => {
            let m = p.start();
            while p.at(STRING_LIT) {
                p.bump(STRING_LIT);
            }
            Some(m.complete(p, LITERAL))
        }
        THIS_KW => {
            let m = p.start();
            p.bump(THIS_KW);
            Some(m.complete(p, THIS_EXPR))
        }
        L_PAREN => Some(paren_expr(p)),
        L_BRACK if !p.at_attr_start() => Some(lambda(p)),
        L_CURLY => Some(init_list(p)),
        STATIC_CAST_KW | DYNAMIC_CAST_KW | CONST_CAST_KW | REINTERPRET_CAST_KW => {
            let m = p.start();
            p.bump_any();
            if p.expect(L_ANGLE) {
                types::type_id(p);
                if !p.eat_closing_angle() {
                    p.error_expected("`>`");
                }
            }
            if p.expect(L_PAREN) {
                if expr(p).is_none() {
                    p.error_expected("an expression");
                }
                p.expect(R_PAREN);
            }
            Some(m.complete(p, CXX_CAST_EXPR))
        }
        TYPEID_KW => {
            let m = p.start();
            p.bump(TYPEID_KW);
            if p.expect(L_PAREN) {
                types::type_or_expr(p);
                p.expect(R_PAREN);
            }
            Some(m.complete(p, TYPEID_EXPR))
        }
        _ if k.is_builtin_type_keyword() => {
            // `float(x)`, `int{3}`, `unsigned(x)`
            let m = p.start();
            let t = p.start();
            let b = p.start();
            while p.current().is_builtin_type_keyword() {
                p.bump_any();
            }
            b.complete(p, BUILTIN_TYPE);
            t.complete(p, TYPE);
            construct_args(p);
            Some(m.complete(p, CONSTRUCT_EXPR))
        }
        DECLTYPE_KW => {
            let m = p.start();
            let d = types::decltype_only(p);
            if p.at(COLON2) {
                // `decltype(x)::member`
                p.bump(COLON2);
                names::path(p, AngleCtx::Expr);
                return Some(m.complete(p, PATH_EXPR));
            }
            let t = d.precede(p);
            t.complete(p, TYPE);
            construct_args(p);
            Some(m.complete(p, CONSTRUCT_EXPR))
        }
        TYPENAME_KW => {
            let m = p.start();
            types::type_id_no_declarator(p);
            construct_args(p);
            Some(m.complete(p, CONSTRUCT_EXPR))
        }
        IDENT | COLON2 | OPERATOR_KW if names::at_path_start(p) => {
            let m = p.start();
            let info = names::path(p, AngleCtx::Expr);
            let is_type = matches!(info.sym, Some(Sym::Type)) || (info.sym == Some(Sym::Template) && info.template_id);
            // a class template without arguments: its injected name inside its own body, or
            // class template argument deduction (`Pair{1, 2}`)
            let deduced = info.sym == Some(Sym::Template) && !info.template_id;
            let braced = p.at(L_CURLY)
                && (is_type || ((deduced || info.sym.is_none()) && (info.template_id || brace_construct_ok(p))));
            if braced {
                let c = m.complete(p, PATH_TYPE);
                let t = c.precede(p);
                let t = t.complete(p, TYPE);
                let e = t.precede(p);
                init_list(p);
                return Some(e.complete(p, CONSTRUCT_EXPR));
            }
            Some(m.complete(p, PATH_EXPR))
        }
        _ => None,
    }
}

/// An unknown name followed by `{` in an expression: construction (`Foo{1, 2}`), as long
/// as the braces hold an initializer list rather than statements.
fn brace_construct_ok(p: &Parser<'_>) -> bool {
    // `{}` or `{ expr ,` / `{ expr }` — never `{ x = 1; }` style blocks
    let kinds = &p.kinds;
    let mut i = p.pos() + 1;
    let mut depth = 0;
    while i < kinds.len() && i < p.pos() + 256 {
        match kinds[i] {
            L_PAREN | L_BRACK | L_CURLY => depth += 1,
            R_PAREN | R_BRACK => depth -= 1,
            R_CURLY if depth == 0 => return true,
            R_CURLY => depth -= 1,
            SEMI => return false,
            _ => {}
        }
        i += 1;
    }
    false
}

fn construct_args(p: &mut Parser<'_>) {
    if p.at(L_PAREN) {
        arg_list(p);
    } else if p.at(L_CURLY) {
        init_list(p);
    } else {
        p.error_expected("`(` or `{` after a type in an expression");
    }
}

/// `( expr )`, and fold expressions `(pack + ...)`, `(... + pack)`, `(init + ... + pack)`.
fn paren_expr(p: &mut Parser<'_>) -> CompletedMarker {
    let m = p.start();
    p.bump(L_PAREN);
    if p.at(L_CURLY) {
        // GNU statement expression
        stmts::compound_stmt(p);
        p.expect(R_PAREN);
        return m.complete(p, STMT_EXPR);
    }
    if p.at(DOT3) {
        // left fold
        p.bump(DOT3);
        if infix_bp(p.current(), Restrictions { comma: true, gt: true }).is_some() {
            p.bump_any();
        }
        expr_no_comma_or_error(p);
        p.expect(R_PAREN);
        return m.complete(p, FOLD_EXPR);
    }
    if expr(p).is_none() {
        p.error_expected("an expression");
    }
    if infix_bp(p.current(), Restrictions { comma: true, gt: true }).is_some() && p.nth_at(1, DOT3) {
        let op = p.current();
        p.bump_any();
        p.bump(DOT3);
        if p.at(op) {
            p.bump_any();
            expr_no_comma_or_error(p);
        }
        p.expect(R_PAREN);
        return m.complete(p, FOLD_EXPR);
    }
    p.expect(R_PAREN);
    m.complete(p, PAREN_EXPR)
}

fn expr_no_comma_or_error(p: &mut Parser<'_>) {
    if expr_no_comma(p).is_none() {
        p.error_expected("an expression");
    }
}

/// `[captures] <T> (params) mutable -> R { body }`
fn lambda(p: &mut Parser<'_>) -> CompletedMarker {
    let m = p.start();
    let c = p.start();
    p.bump(L_BRACK);
    while !p.at_eof() && !p.at(R_BRACK) {
        let cap = p.start();
        match p.current() {
            AMP if !p.nth_at(1, IDENT) => p.bump(AMP),
            EQ => p.bump(EQ),
            THIS_KW => p.bump(THIS_KW),
            STAR if p.nth_at(1, THIS_KW) => {
                p.bump(STAR);
                p.bump(THIS_KW);
            }
            AMP | IDENT => {
                p.eat(AMP);
                let n = p.start();
                p.bump(IDENT);
                n.complete(p, NAME);
                p.eat(DOT3);
                if p.at(EQ) {
                    p.bump(EQ);
                    initializer_clause(p);
                } else if p.at(L_CURLY) {
                    init_list(p);
                }
            }
            _ => {
                cap.abandon(p);
                p.err_and_bump("expected a capture");
                continue;
            }
        }
        cap.complete(p, CAPTURE);
        if !p.at(R_BRACK) && !p.expect(COMMA) {
            break;
        }
    }
    p.expect(R_BRACK);
    c.complete(p, CAPTURE_LIST);
    p.scopes.push_local();
    if p.at(L_ANGLE) {
        super::decls::template_params(p);
    }
    if p.at(L_PAREN) {
        types::params(p, DeclCtx::Param);
    }
    loop {
        match p.current() {
            IDENT if p.current_word() == Word::Mutable => p.bump(IDENT),
            MUTABLE_KW | CONSTEXPR_KW | CONSTEVAL_KW | STATIC_KW => p.bump_any(),
            NOEXCEPT_KW => {
                let n = p.start();
                p.bump(NOEXCEPT_KW);
                if p.at(L_PAREN) {
                    p.skip_balanced();
                }
                n.complete(p, NOEXCEPT_SPEC);
            }
            ARROW => {
                let r = p.start();
                p.bump(ARROW);
                types::type_id(p);
                r.complete(p, TRAILING_RETURN);
            }
            _ if attrs::at_any_attr(p) => {
                attrs::attrs(p);
            }
            _ => break,
        }
    }
    if p.at(L_CURLY) {
        stmts::compound_stmt(p);
    } else {
        p.error_expected("a lambda body `{ ... }`");
    }
    p.scopes.pop();
    m.complete(p, LAMBDA_EXPR)
}
