//! Attributes: `[[kernel]]`, `[[buffer(0)]]`, `[[clang::optnone]]`,
//! `__attribute__((always_inline))`, `alignas(16)`.

use super::{Parser, Word, exprs};
use crate::SyntaxKind::*;

/// Whether an attribute of any form starts here.
pub(crate) fn at_any_attr(p: &mut Parser<'_>) -> bool {
    p.at_attr_start() || at_gnu_attr(p) || p.at(ALIGNAS_KW)
}

pub(crate) fn at_gnu_attr(p: &mut Parser<'_>) -> bool {
    matches!(p.current_word(), Word::Attribute | Word::Declspec) && p.nth_at(1, L_PAREN)
}

/// Parses every attribute at the current position. Returns whether there was any.
pub(crate) fn attrs(p: &mut Parser<'_>) -> bool {
    let mut any = false;
    loop {
        if p.at_attr_start() {
            attribute_list(p);
        } else if at_gnu_attr(p) {
            gnu_attribute(p);
        } else if p.at(ALIGNAS_KW) {
            alignas(p);
        } else {
            return any;
        }
        any = true;
    }
}

/// `[[ attr, ns::attr(args) ]]`
pub(crate) fn attribute_list(p: &mut Parser<'_>) {
    let m = p.start();
    p.bump(L_BRACK);
    p.bump(L_BRACK);
    // `[[using ns: a, b]]`
    if p.at(USING_KW) {
        p.bump(USING_KW);
        if p.current().is_ident_like() {
            p.bump_remap(IDENT);
        }
        p.expect(COLON);
    }
    while !p.at_eof() && !p.at(R_BRACK) {
        if p.at(COMMA) {
            p.bump(COMMA);
            continue;
        }
        if p.current().is_ident_like() {
            attribute(p);
        } else {
            p.err_and_bump("expected an attribute name");
        }
        // the Metal compiler also accepts attributes separated by spaces: `[[color(0) index(1)]]`
        if !p.at(COMMA) && !p.at(R_BRACK) && !p.current().is_ident_like() {
            p.error_expected("`,` or `]]`");
            // recover: skip to the closing brackets
            while !p.at_eof() && !p.at(R_BRACK) && !p.at(SEMI) && !p.at(L_CURLY) {
                p.bump_any();
            }
        }
    }
    if p.at(R_BRACK) && p.nth_at(1, R_BRACK) {
        p.bump(R_BRACK);
        p.bump(R_BRACK);
    } else {
        p.error_expected("`]]`");
        p.eat(R_BRACK);
    }
    m.complete(p, ATTRIBUTE_LIST);
}

fn attribute(p: &mut Parser<'_>) {
    let m = p.start();
    p.bump_remap(IDENT);
    if p.at(COLON2) && p.nth(1).is_ident_like() {
        p.bump(COLON2);
        p.bump_remap(IDENT);
    }
    if p.at(L_PAREN) {
        attr_args(p);
    }
    p.eat(DOT3);
    m.complete(p, ATTRIBUTE);
}

/// `( expr, expr, ... )` — attribute arguments are expressions in every attribute MSL
/// knows (`buffer(0)`, `patch(quad, 4)`, `host_name("k")`, `depth(any)`); anything that
/// does not parse as one is kept as a balanced token group.
fn attr_args(p: &mut Parser<'_>) {
    let m = p.start();
    p.bump(L_PAREN);
    while !p.at_eof() && !p.at(R_PAREN) {
        if p.at(COMMA) {
            p.bump(COMMA);
            continue;
        }
        let before = p.pos();
        if exprs::at_expr_start(p) {
            exprs::expr_no_comma(p);
        }
        if p.pos() != before {
            continue;
        }
        if matches!(p.current(), L_PAREN | L_BRACK | L_CURLY) {
            p.skip_balanced();
        } else if matches!(p.current(), SEMI | R_BRACK) {
            break;
        } else {
            p.bump_any();
        }
    }
    p.expect(R_PAREN);
    m.complete(p, ATTR_ARGS);
}

/// `__attribute__((a, b(1)))`
fn gnu_attribute(p: &mut Parser<'_>) {
    let m = p.start();
    p.bump(IDENT);
    p.bump(L_PAREN);
    let two = p.eat(L_PAREN);
    while !p.at_eof() && !p.at(R_PAREN) {
        if p.at(COMMA) {
            p.bump(COMMA);
            continue;
        }
        if p.current().is_ident_like() {
            attribute(p);
        } else if matches!(p.current(), SEMI | L_CURLY) {
            break;
        } else {
            p.err_and_bump("expected an attribute name");
        }
    }
    p.expect(R_PAREN);
    if two {
        p.expect(R_PAREN);
    }
    m.complete(p, GNU_ATTRIBUTE);
}

/// `alignas(16)` or `alignas(T)`
fn alignas(p: &mut Parser<'_>) {
    let m = p.start();
    p.bump(ALIGNAS_KW);
    if p.expect(L_PAREN) {
        super::types::type_or_expr(p);
        p.eat(DOT3);
        p.expect(R_PAREN);
    }
    m.complete(p, ALIGNAS_SPEC);
}
