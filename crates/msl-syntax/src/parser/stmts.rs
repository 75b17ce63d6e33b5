//! Statements, and the decision between a declaration and an expression statement.

use super::names::{self, AngleCtx};
use super::symbols::Sym;
use super::types::DeclCtx;
use super::{AT_COLUMN_0, Parser, Word, attrs, decls, exprs};
use crate::SyntaxKind::{self, *};

/// `{ statements }`
pub(crate) fn compound_stmt(p: &mut Parser<'_>) {
    let m = p.start();
    let open = p.pos();
    p.bump(L_CURLY);
    p.scopes.push_local();
    let mut closed = false;
    loop {
        if p.at(R_CURLY) {
            p.bump(R_CURLY);
            closed = true;
            break;
        }
        if p.at_eof() {
            p.error_at(
                "this `{` is never closed: expected `}` before the end of the file",
                super::ErrorAt::Token(open as u32),
            );
            break;
        }
        if at_top_level_item_start(p) {
            p.error_at(
                "this `{` is not closed before the next top-level declaration: expected `}`",
                super::ErrorAt::Token(open as u32),
            );
            break;
        }
        let before = p.pos();
        statement(p);
        if p.pos() == before {
            if p.at(R_BRACK) && p.nth_at(1, R_BRACK) {
                p.error("unexpected `]]` without a matching `[[`");
                let e = p.start();
                p.bump(R_BRACK);
                p.bump(R_BRACK);
                e.complete(p, ERROR);
            } else {
                let found = p.describe_current();
                p.err_and_bump(format!("expected a statement, found {found}"));
            }
        }
    }
    let _ = closed;
    p.scopes.pop();
    m.complete(p, COMPOUND_STMT);
}

/// A token at column 0 that can only start a top-level declaration: when a block is
/// still open there, its `}` is missing.
pub(crate) fn at_top_level_item_start(p: &mut Parser<'_>) -> bool {
    if p.nth_flags(0) & AT_COLUMN_0 == 0 {
        return false;
    }
    match p.current() {
        KERNEL_KW | VERTEX_KW | FRAGMENT_KW | TEMPLATE_KW | NAMESPACE_KW => true,
        L_BRACK if p.nth_at(1, L_BRACK) => {
            matches!(p.nth(2), KERNEL_KW | VERTEX_KW | FRAGMENT_KW)
                || (p.nth(2) == IDENT
                    && matches!(
                        p.nth_text(2),
                        "kernel" | "visible" | "stitchable" | "mesh" | "object" | "intersection"
                    ))
        }
        _ => false,
    }
}

pub(crate) fn statement(p: &mut Parser<'_>) {
    if !p.enter() {
        return;
    }
    statement_inner(p);
    p.leave();
}

fn statement_inner(p: &mut Parser<'_>) {
    match p.current() {
        L_CURLY => compound_stmt(p),
        IF_KW => if_stmt(p),
        SWITCH_KW => {
            let m = p.start();
            p.bump(SWITCH_KW);
            p.scopes.push_local();
            paren_condition(p);
            statement(p);
            p.scopes.pop();
            m.complete(p, SWITCH_STMT);
        }
        WHILE_KW => {
            let m = p.start();
            p.bump(WHILE_KW);
            p.scopes.push_local();
            paren_condition(p);
            statement(p);
            p.scopes.pop();
            m.complete(p, WHILE_STMT);
        }
        DO_KW => {
            let m = p.start();
            p.bump(DO_KW);
            statement(p);
            if p.expect(WHILE_KW) && p.expect(L_PAREN) {
                if exprs::expr(p).is_none() {
                    p.error_expected("a condition");
                }
                p.expect(R_PAREN);
            }
            p.expect(SEMI);
            m.complete(p, DO_STMT);
        }
        FOR_KW => for_stmt(p),
        BREAK_KW | CONTINUE_KW => {
            let kind = if p.at(BREAK_KW) { BREAK_STMT } else { CONTINUE_STMT };
            let m = p.start();
            p.bump_any();
            p.expect(SEMI);
            m.complete(p, kind);
        }
        RETURN_KW => {
            let m = p.start();
            p.bump(RETURN_KW);
            if p.at(L_CURLY) {
                exprs::init_list(p);
            } else if !p.at(SEMI) && exprs::at_expr_start(p) {
                exprs::expr(p);
            }
            expect_semi(p);
            m.complete(p, RETURN_STMT);
        }
        GOTO_KW => {
            let m = p.start();
            p.bump(GOTO_KW);
            if p.at(IDENT) {
                p.bump(IDENT);
            } else {
                p.error_expected("a label name");
            }
            expect_semi(p);
            m.complete(p, GOTO_STMT);
        }
        CASE_KW => {
            let m = p.start();
            p.bump(CASE_KW);
            if exprs::conditional_expr(p).is_none() {
                p.error_expected("a constant expression");
            }
            if p.eat(DOT3) {
                exprs::conditional_expr(p);
            }
            p.expect(COLON);
            m.complete(p, CASE_LABEL);
        }
        DEFAULT_KW => {
            let m = p.start();
            p.bump(DEFAULT_KW);
            p.expect(COLON);
            m.complete(p, DEFAULT_LABEL);
        }
        IDENT if p.nth_at(1, COLON) => {
            // `done: x = 0;`: the label and the statement it labels (none at the end of a
            // block, which C++23 allows)
            let m = p.start();
            let n = p.start();
            p.bump(IDENT);
            n.complete(p, NAME);
            p.bump(COLON);
            if !p.at(R_CURLY) && !p.at_eof() {
                statement(p);
            }
            m.complete(p, LABELED_STMT);
        }
        SEMI => {
            let m = p.start();
            p.bump(SEMI);
            m.complete(p, EMPTY_STMT);
        }
        TRY_KW => try_stmt(p),
        ASM_KW => {
            let m = p.start();
            p.bump(ASM_KW);
            while matches!(p.current(), VOLATILE_KW | INLINE_KW | GOTO_KW) {
                p.bump_any();
            }
            if p.at(L_PAREN) {
                p.skip_balanced();
            } else {
                p.error_expected("`(`");
            }
            expect_semi(p);
            m.complete(p, ASM_STMT);
        }
        R_CURLY => {}
        USING_KW | TYPEDEF_KW | STATIC_ASSERT_KW | NAMESPACE_KW | TEMPLATE_KW => {
            let m = p.start();
            decls::declaration(p, DeclCtx::Block);
            m.complete(p, DECL_STMT);
        }
        IDENT if p.incomplete && at_unknown_statement_macro(p) => {
            // `UNROLL_LOOPS` or `UNROLL(4)` from a missing header, before a statement
            let m = p.start();
            p.bump(IDENT);
            if p.at(L_PAREN) {
                p.skip_balanced();
            }
            p.eat(SEMI);
            m.complete(p, UNKNOWN_MACRO_CALL);
        }
        _ => {
            if looks_like_declaration(p, p.pos()) {
                let m = p.start();
                decls::declaration(p, DeclCtx::Block);
                m.complete(p, DECL_STMT);
                return;
            }
            let m = p.start();
            attrs::attrs(p);
            if exprs::at_expr_start(p) {
                if exprs::expr(p).is_none() {
                    p.error_expected("an expression");
                }
                expect_semi(p);
                m.complete(p, EXPR_STMT);
            } else if p.at(SEMI) {
                // `[[likely]];` and friends
                p.bump(SEMI);
                m.complete(p, EMPTY_STMT);
            } else {
                m.abandon(p);
            }
        }
    }
}

/// In a unit with a missing header: an unknown name, alone or called, with no `;` after it
/// and the next statement starting on the next line (`PRAGMA_UNROLL` then `for ...`).
fn at_unknown_statement_macro(p: &Parser<'_>) -> bool {
    let kinds = &p.kinds;
    let at = p.pos();
    if kinds.get(at) != Some(&IDENT) || p.word_at(at) != Word::Plain || p.scopes.lookup(p.name_at(at)).is_some() {
        return false;
    }
    let end = if kinds.get(at + 1) == Some(&L_PAREN) {
        let Some(end) = super::skip_group(kinds, at + 1, L_PAREN, R_PAREN) else { return false };
        end
    } else {
        at + 1
    };
    let next = kinds.get(end).copied().unwrap_or(EOF);
    // what can only start another statement (not continue this one's expression)
    let starts_statement = matches!(
        next,
        FOR_KW | WHILE_KW | DO_KW | IF_KW | SWITCH_KW | RETURN_KW | BREAK_KW | CONTINUE_KW | L_CURLY | R_CURLY | IDENT
    ) || next.is_builtin_type_keyword()
        || super::types::is_plain_specifier(next);
    starts_statement && p.starts_line(end)
}

fn expect_semi(p: &mut Parser<'_>) {
    if !p.eat(SEMI) {
        p.error_expected("`;`");
    }
}

fn if_stmt(p: &mut Parser<'_>) {
    let m = p.start();
    p.bump(IF_KW);
    p.eat(CONSTEXPR_KW);
    if p.at(BANG) && p.nth_at(1, CONSTEVAL_KW) {
        p.bump(BANG);
    }
    p.scopes.push_local();
    if p.at(CONSTEVAL_KW) {
        p.bump(CONSTEVAL_KW);
    } else {
        paren_condition(p);
    }
    statement(p);
    if p.at(ELSE_KW) {
        let e = p.start();
        p.bump(ELSE_KW);
        statement(p);
        e.complete(p, ELSE_BRANCH);
    }
    p.scopes.pop();
    m.complete(p, IF_STMT);
}

/// `( [init-statement] condition )`
fn paren_condition(p: &mut Parser<'_>) {
    if !p.expect(L_PAREN) {
        return;
    }
    let c = p.start();
    condition_part(p);
    if p.eat(SEMI) {
        // that was an init-statement
        condition_part(p);
    }
    c.complete(p, CONDITION);
    if !p.eat(R_PAREN) {
        p.error_expected("`)`");
        // skip junk up to `)` on this construct, but never past a `{` or `;`
        if scan_close_paren(p) {
            let e = p.start();
            while !p.at(R_PAREN) {
                p.bump_any();
            }
            e.complete(p, ERROR);
            p.bump(R_PAREN);
        }
    }
}

fn scan_close_paren(p: &Parser<'_>) -> bool {
    let mut i = p.pos();
    let mut depth = 0;
    while i < p.kinds.len() {
        match p.kinds[i] {
            L_PAREN => depth += 1,
            R_PAREN if depth == 0 => return true,
            R_PAREN => depth -= 1,
            L_CURLY | R_CURLY | SEMI => return false,
            _ => {}
        }
        i += 1;
    }
    false
}

fn condition_part(p: &mut Parser<'_>) {
    if looks_like_declaration(p, p.pos()) {
        decls::condition_declaration(p);
    } else if exprs::expr(p).is_none() {
        p.error_expected("a condition");
    }
}

fn for_stmt(p: &mut Parser<'_>) {
    let m = p.start();
    p.bump(FOR_KW);
    p.scopes.push_local();
    let mut kind = FOR_STMT;
    if p.expect(L_PAREN) {
        let init = p.start();
        if looks_like_declaration(p, p.pos()) {
            decls::condition_declaration(p);
        } else if !p.at(SEMI) {
            exprs::expr(p);
        }
        if p.at(COLON) {
            // range-based for
            kind = RANGE_FOR_STMT;
            init.complete(p, FOR_INIT);
            p.bump(COLON);
            if p.at(L_CURLY) {
                exprs::init_list(p);
            } else if exprs::expr(p).is_none() {
                p.error_expected("a range expression");
            }
        } else {
            init.complete(p, FOR_INIT);
            p.expect(SEMI);
            if !p.at(SEMI) {
                let c = p.start();
                condition_part(p);
                c.complete(p, CONDITION);
            }
            p.expect(SEMI);
            if !p.at(R_PAREN) {
                let inc = p.start();
                if exprs::expr(p).is_none() {
                    p.error_expected("an expression");
                }
                inc.complete(p, FOR_INCREMENT);
            }
        }
        if !p.eat(R_PAREN) {
            p.error_expected("`)`");
            if scan_close_paren(p) {
                let e = p.start();
                while !p.at(R_PAREN) {
                    p.bump_any();
                }
                e.complete(p, ERROR);
                p.bump(R_PAREN);
            }
        }
    }
    statement(p);
    p.scopes.pop();
    m.complete(p, kind);
}

fn try_stmt(p: &mut Parser<'_>) {
    let m = p.start();
    p.bump(TRY_KW);
    if p.at(L_CURLY) {
        compound_stmt(p);
    } else {
        p.error_expected("`{`");
    }
    while p.at(CATCH_KW) {
        let c = p.start();
        p.bump(CATCH_KW);
        if p.expect(L_PAREN) {
            if p.at(DOT3) {
                p.bump(DOT3);
            } else {
                p.scopes.push_local();
                super::types::params_single(p);
                p.scopes.pop();
            }
            p.expect(R_PAREN);
        }
        if p.at(L_CURLY) {
            compound_stmt(p);
        }
        c.complete(p, CATCH_CLAUSE);
    }
    m.complete(p, TRY_STMT);
}

/// Decides, at the start of a statement, whether it is a declaration. Uses the symbol
/// table: `T * x;` declares `x` when `T` is a type.
pub(crate) fn looks_like_declaration(p: &Parser<'_>, start: usize) -> bool {
    let kinds = &p.kinds;
    let mut i = start;
    // skip attributes
    while kinds.get(i) == Some(&L_BRACK) && kinds.get(i + 1) == Some(&L_BRACK) {
        let Some(next) = super::skip_group(kinds, i, L_BRACK, R_BRACK) else { return false };
        i = next;
    }
    let k = kinds.get(i).copied().unwrap_or(EOF);
    let k1 = kinds.get(i + 1).copied().unwrap_or(EOF);
    if k.is_builtin_type_keyword() {
        // `float(x) ...` / `int{3}` start an expression; `float (*fp)(int)`, `float (&r)[4]`
        // and `float (S::*pm)` a declaration
        return match k1 {
            L_CURLY => false,
            L_PAREN => {
                matches!(kinds.get(i + 2), Some(STAR | AMP | AMP2 | CARET)) || super::types::at_member_pointer(p, i + 2)
            }
            _ => true,
        };
    }
    if is_decl_only_keyword(k) || k.is_address_space() {
        return true;
    }
    match p.word_at(i) {
        Word::Coherent if k1 == L_PAREN || k1.is_address_space() => return true,
        Word::Attribute => return true,
        _ => {}
    }
    if k != IDENT && !(k == COLON2 && k1 == IDENT) {
        return false;
    }
    let Some(scan) = names::scan_path(p, i, AngleCtx::Type) else { return false };
    let next = kinds.get(scan.end).copied().unwrap_or(EOF);
    let after = kinds.get(scan.end + 1).copied().unwrap_or(EOF);
    // [temp.res]/3: a name qualified by a template parameter names a type only after
    // `typename`, so `T::n * m;` multiplies (`T::type x;` stays a declaration, whose
    // missing `typename` the checker reports)
    if scan.dependent && scan.segments > 1 && matches!(next, STAR | AMP | AMP2) {
        return false;
    }
    let declarator_follows = |next: SyntaxKind| -> bool {
        matches!(next, IDENT | CONST_KW | VOLATILE_KW | DOT3 | OPERATOR_KW)
            || next.is_address_space()
            || (next == L_BRACK && after == L_BRACK)
            || p.word_at(scan.end) == Word::Coherent
    };
    match scan.sym {
        Some(Sym::Value | Sym::Namespace | Sym::ValueTemplate) => false,
        Some(Sym::Type) | Some(Sym::Template) => {
            if scan.sym == Some(Sym::Template)
                && !scan.template_id
                && !matches!(p.scopes.lookup(scan.last), Some(Sym::Type | Sym::Template))
            {
                return next == IDENT;
            }
            declarator_follows(next) || matches!(next, STAR | AMP | AMP2) || (next == COLON2 && after == STAR)
        }
        None => {
            if declarator_follows(next) {
                return next != OPERATOR_KW;
            }
            if matches!(next, STAR | AMP | AMP2) {
                // `Unknown * name;`, `Unknown & name = ...`, `Unknown * const p`
                let mut j = scan.end;
                while matches!(kinds.get(j), Some(STAR | AMP | AMP2 | CONST_KW | VOLATILE_KW)) {
                    j += 1;
                }
                if kinds.get(j).is_some_and(|k| k.is_address_space()) {
                    return true;
                }
                return kinds.get(j) == Some(&IDENT)
                    && matches!(kinds.get(j + 1), Some(SEMI | EQ | COMMA | L_BRACK | L_CURLY))
                    && next != AMP2;
            }
            false
        }
    }
}

/// Keywords that can only begin a declaration.
fn is_decl_only_keyword(k: SyntaxKind) -> bool {
    super::types::is_plain_specifier(k)
        || matches!(
            k,
            STRUCT_KW
                | CLASS_KW
                | UNION_KW
                | ENUM_KW
                | TYPENAME_KW
                | USING_KW
                | STATIC_ASSERT_KW
                | ALIGNAS_KW
                | DECLTYPE_KW
        )
}
