//! Names: qualified paths (`metal::access::read`, `::foo`, `T::template X<int>`),
//! template argument lists, and the look-ahead that decides whether `<` opens one.

use super::symbols::Sym;
use super::{Parser, exprs, types};
use crate::SyntaxKind::*;

/// Where a name appears; decides how an unknown name followed by `<` is read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum AngleCtx {
    /// In an expression: `a < b` is a comparison unless a template call follows.
    Expr,
    /// Where a type is expected: `Foo<T> x`.
    Type,
    /// After `.` or `->`: only `x.foo<T>(...)` is a template.
    Member,
}

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PathInfo<'a> {
    pub last: &'a str,
    /// What the path names, if known.
    pub sym: Option<Sym>,
    pub segments: usize,
    pub qualified: bool,
    /// The last segment has template arguments.
    pub template_id: bool,
    pub destructor: bool,
    pub operator: bool,
    /// The last two segments are equal (`S::S`): a constructor name.
    pub ctor_like: bool,
}

/// Whether a path can start at the current token.
pub(crate) fn at_path_start(p: &mut Parser<'_>) -> bool {
    match p.current() {
        IDENT => true,
        COLON2 => matches!(p.nth(1), IDENT | TEMPLATE_KW | OPERATOR_KW | TILDE),
        OPERATOR_KW => true,
        _ => false,
    }
}

/// Parses a path wrapped in a PATH node.
pub(crate) fn path_node<'a>(p: &mut Parser<'a>, ctx: AngleCtx) -> PathInfo<'a> {
    let m = p.start();
    let info = path(p, ctx);
    m.complete(p, PATH);
    info
}

/// Parses a path as a flat run of elements (`::`, IDENT, TEMPLATE_ARG_LIST, ...) in
/// the caller's node: `metal::vec<float, 4>` is IDENT `::` IDENT TEMPLATE_ARG_LIST.
/// `ctx` decides how unknown names followed by `<` are read.
pub(crate) fn path<'a>(p: &mut Parser<'a>, ctx: AngleCtx) -> PathInfo<'a> {
    let mut info = PathInfo::default();
    if p.at(COLON2) {
        p.bump(COLON2);
        info.qualified = true;
    }
    let mut prev = u32::MAX;
    loop {
        let after_template = p.eat(TEMPLATE_KW);
        match p.current() {
            IDENT => {
                let id = p.name_at(p.pos());
                let name = p.scopes.text(id);
                p.bump(IDENT);
                info.sym = if info.segments == 0 && !info.qualified {
                    p.scopes.lookup(id)
                } else {
                    p.scopes.lookup_member(id)
                };
                info.ctor_like = info.segments > 0 && id == prev;
                info.template_id = false;
                if p.at(L_ANGLE) && starts_template_args(p, info.sym, ctx, after_template) {
                    template_arg_list(p);
                    info.template_id = true;
                }
                info.last = name;
                prev = id;
            }
            OPERATOR_KW => {
                operator_name(p);
                info.operator = true;
                info.sym = Some(Sym::Value);
                info.last = "operator";
                if p.at(L_ANGLE) && starts_template_args(p, None, AngleCtx::Expr, after_template) {
                    template_arg_list(p);
                }
            }
            TILDE if p.nth_at(1, IDENT) => {
                let d = p.start();
                p.bump(TILDE);
                info.last = p.current_text();
                p.bump(IDENT);
                // `~Box<T>()` in a class template
                if p.at(L_ANGLE) && scan_template_args(p, p.pos()).is_some() {
                    template_arg_list(p);
                }
                d.complete(p, DESTRUCTOR_NAME);
                info.destructor = true;
                info.sym = Some(Sym::Value);
            }
            _ => {
                p.error_expected("a name");
                break;
            }
        }
        info.segments += 1;
        if p.at(COLON2)
            && matches!(p.nth(1), IDENT | TEMPLATE_KW | OPERATOR_KW | TILDE)
            && !info.operator
            && !info.destructor
        {
            p.bump(COLON2);
            info.qualified = true;
            continue;
        }
        break;
    }
    info
}

/// `operator+`, `operator()`, `operator[]`, `operator new[]`, `operator float4`,
/// `operator""_x`.
pub(crate) fn operator_name(p: &mut Parser<'_>) {
    let m = p.start();
    p.bump(OPERATOR_KW);
    match p.current() {
        L_PAREN if p.nth_at(1, R_PAREN) => {
            p.bump(L_PAREN);
            p.bump(R_PAREN);
        }
        L_BRACK if p.nth_at(1, R_BRACK) => {
            p.bump(L_BRACK);
            p.bump(R_BRACK);
        }
        NEW_KW | DELETE_KW => {
            p.bump_any();
            if p.at(L_BRACK) && p.nth_at(1, R_BRACK) {
                p.bump(L_BRACK);
                p.bump(R_BRACK);
            }
        }
        STRING_LIT => {
            p.bump(STRING_LIT);
            if p.at(IDENT) {
                p.bump(IDENT);
            }
        }
        k if k.is_punct() && !matches!(k, L_PAREN | L_CURLY | R_CURLY | SEMI | R_PAREN | R_BRACK | L_BRACK) => {
            p.bump_any();
        }
        _ => {
            // conversion operator: `operator float4`, `operator const T&`
            types::conversion_type(p);
        }
    }
    m.complete(p, OPERATOR_NAME);
}

/// Decides whether the `<` at the current position opens template arguments.
pub(crate) fn starts_template_args(p: &Parser<'_>, sym: Option<Sym>, ctx: AngleCtx, after_template: bool) -> bool {
    if after_template {
        return true;
    }
    match sym {
        Some(Sym::Template | Sym::ValueTemplate) => return true,
        Some(Sym::Value | Sym::Type | Sym::Namespace) => return false,
        None => {}
    }
    let Some(end) = scan_template_args(p, p.pos()) else { return false };
    let next = p.kinds.get(end).copied().unwrap_or(EOF);
    match ctx {
        AngleCtx::Member => next == L_PAREN,
        AngleCtx::Expr => {
            matches!(next, L_PAREN | COLON2 | L_CURLY | R_PAREN | COMMA | SEMI | R_BRACK | R_CURLY | DOT3)
        }
        AngleCtx::Type => {
            matches!(
                next,
                L_PAREN
                    | COLON2
                    | L_CURLY
                    | R_PAREN
                    | COMMA
                    | SEMI
                    | R_BRACK
                    | R_ANGLE
                    | SHR
                    | DOT3
                    | IDENT
                    | STAR
                    | AMP
                    | AMP2
                    | L_BRACK
                    | CONST_KW
                    | VOLATILE_KW
                    | EQ
                    | OPERATOR_KW
                    | TILDE
            ) || next.is_address_space()
        }
    }
}

/// From a `<` at `start`, finds the index just after its matching `>` if the tokens in
/// between can be template arguments. Nested `<` are assumed to open nested lists.
pub(crate) fn scan_template_args(p: &Parser<'_>, start: usize) -> Option<usize> {
    let kinds = &p.kinds;
    if kinds.get(start) != Some(&L_ANGLE) {
        return None;
    }
    let mut angle = 1i32;
    let mut nest = 0i32; // () [] {}
    let mut i = start + 1;
    let limit = (start + 512).min(kinds.len());
    while i < limit {
        let k = kinds[i];
        match k {
            L_PAREN | L_BRACK => nest += 1,
            R_PAREN | R_BRACK => {
                nest -= 1;
                if nest < 0 {
                    return None;
                }
            }
            L_CURLY => nest += 1,
            R_CURLY => {
                nest -= 1;
                if nest < 0 {
                    return None;
                }
            }
            SEMI => return None,
            _ if nest > 0 => {}
            L_ANGLE => angle += 1,
            R_ANGLE => angle -= 1,
            SHR => {
                angle -= 2;
                // `W<int>>` inside another list: the second `>` of the token is the outer
                // list's, and is what follows this one (the parse splits the token)
                if angle < 0 {
                    return Some(i);
                }
            }
            GTEQ | SHREQ => return if angle <= 2 { Some(i + 1) } else { None },
            AMP2 | PIPE2 | EQ | PLUSEQ | MINUSEQ | STAREQ | SLASHEQ | PERCENTEQ | AMPEQ | PIPEEQ | CARETEQ | SHLEQ => {
                return None;
            }
            RETURN_KW | IF_KW | FOR_KW | WHILE_KW => return None,
            _ => {}
        }
        if angle <= 0 {
            // `>>` may close this list and an outer one
            return Some(i + 1);
        }
        i += 1;
    }
    None
}

/// `< arg, arg... >`
pub(crate) fn template_arg_list(p: &mut Parser<'_>) {
    let m = p.start();
    p.bump(L_ANGLE);
    if !p.enter() {
        m.complete(p, TEMPLATE_ARG_LIST);
        return;
    }
    while !p.at_eof() && !p.at_closing_angle() {
        let a = p.start();
        if looks_like_type_arg(p) {
            types::type_id(p);
        } else if exprs::at_expr_start(p) {
            exprs::expr_in_template_arg(p);
        } else {
            a.abandon(p);
            break;
        }
        p.eat(DOT3);
        a.complete(p, TEMPLATE_ARG);
        if !p.eat(COMMA) {
            break;
        }
    }
    if !p.eat_closing_angle() {
        p.error_expected("`>`");
        // skip to the closing angle if it is near
        if let Some(end) = scan_template_args_from_inside(p) {
            let e = p.start();
            while p.pos() + 1 < end {
                p.bump_any();
            }
            e.complete(p, ERROR);
            p.eat_closing_angle();
        }
    }
    p.leave();
    m.complete(p, TEMPLATE_ARG_LIST);
}

fn scan_template_args_from_inside(p: &Parser<'_>) -> Option<usize> {
    let mut i = p.pos();
    let mut nest = 0;
    while i < p.kinds.len() && i < p.pos() + 64 {
        match p.kinds[i] {
            L_PAREN | L_BRACK => nest += 1,
            R_PAREN | R_BRACK if nest > 0 => nest -= 1,
            R_PAREN | R_BRACK | SEMI | L_CURLY | R_CURLY => return None,
            R_ANGLE | SHR if nest == 0 => return Some(i + 1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// Whether a template argument here reads as a type rather than an expression.
pub(crate) fn looks_like_type_arg(p: &mut Parser<'_>) -> bool {
    let k = p.current();
    if k.is_builtin_type_keyword() && !p.nth_at(1, L_PAREN) && !p.nth_at(1, L_CURLY) {
        return true;
    }
    if k.is_builtin_type_keyword() {
        // `float(x)` is a construction, `float(float)` a function type, `float (*)(float)`
        // a pointer to one
        return p.nth(1) == L_PAREN && parens_hold_params(p, p.pos() + 1);
    }
    if matches!(k, CONST_KW | VOLATILE_KW | TYPENAME_KW | STRUCT_KW | CLASS_KW | ENUM_KW | UNION_KW | DECLTYPE_KW)
        || k.is_address_space()
    {
        return true;
    }
    if k == IDENT || (k == COLON2 && p.nth_at(1, IDENT)) {
        let Some(scan) = scan_path(p, p.pos(), AngleCtx::Type) else { return false };
        let next = p.kinds.get(scan.end).copied().unwrap_or(EOF);
        let next2 = p.kinds.get(scan.end + 1).copied().unwrap_or(EOF);
        // what may follow a type inside template arguments: pointer and reference
        // operators that no operand follows, or the end of the argument
        let pointer_type_follows = (matches!(next, STAR | AMP | AMP2)
            && matches!(next2, COMMA | R_ANGLE | SHR | STAR | AMP | CONST_KW | R_PAREN))
            || (matches!(next, STAR | AMP | AMP2) && next2.is_address_space());
        let type_follows = matches!(next, COMMA | R_ANGLE | SHR | GTEQ | DOT3) || pointer_type_follows;
        // unknown variable templates (`is_same_v<A, B>`) are values by convention
        if scan.sym.is_none() && p.scopes.text(scan.last).ends_with("_v") {
            return false;
        }
        // `F<float(float)>` names a function type; `S<vec<int, 2>(1).x>` constructs a value
        let function_type = next == L_PAREN && parens_hold_params(p, scan.end);
        return match scan.sym {
            Some(Sym::Type) => {
                type_follows || function_type || matches!(next, CONST_KW | VOLATILE_KW) || next.is_address_space()
            }
            Some(Sym::Template) => {
                (scan.template_id && (type_follows || function_type || matches!(next, CONST_KW | VOLATILE_KW)))
                    || (!scan.template_id && !matches!(next, L_PAREN))
            }
            // `is_float<T>()`, `is_same_v<A, B>`: a function or variable template makes a value
            Some(Sym::Value | Sym::Namespace | Sym::ValueTemplate) => false,
            // an unknown member of a class or enum (`T::value`, `Mode::fast`) is a value,
            // as C++ reads a qualified name without `typename` in a template argument
            None if scan.segments > 1 => pointer_type_follows,
            None => type_follows,
        };
    }
    false
}

/// Whether the `(` at `open` starts a parameter list (of a function type) rather than
/// arguments: it is empty, or its first item starts with a type.
fn parens_hold_params(p: &Parser<'_>, open: usize) -> bool {
    let kinds = &p.kinds;
    let k = kinds.get(open + 1).copied().unwrap_or(EOF);
    let k2 = kinds.get(open + 2).copied().unwrap_or(EOF);
    // `(*)(float)`, `(&)[4]`, `(S::*)`: the parentheses of an abstract declarator
    if (matches!(k, STAR | AMP | AMP2 | CARET) && k2 == R_PAREN) || types::at_member_pointer(p, open + 1) {
        return true;
    }
    if matches!(k, R_PAREN | DOT3 | CONST_KW | VOLATILE_KW | TYPENAME_KW | STRUCT_KW | CLASS_KW | ENUM_KW | UNION_KW)
        || k.is_address_space()
    {
        return true;
    }
    if k.is_builtin_type_keyword() {
        // `float(x)` constructs
        return !matches!(k2, L_PAREN | L_CURLY);
    }
    if k == IDENT || (k == COLON2 && k2 == IDENT) {
        let Some(scan) = scan_path(p, open + 1, AngleCtx::Type) else { return false };
        let after = kinds.get(scan.end).copied().unwrap_or(EOF);
        let is_type = match scan.sym {
            Some(Sym::Type) => true,
            Some(Sym::Template) => scan.template_id,
            _ => false,
        };
        return is_type && !matches!(after, L_PAREN | L_CURLY | DOT | ARROW);
    }
    false
}

/// The result of scanning a path without consuming it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ScanPath {
    /// Index just after the path.
    pub end: usize,
    /// The last name's number (see [`Parser::name_at`]).
    pub last: u32,
    pub sym: Option<Sym>,
    pub template_id: bool,
    pub segments: usize,
    pub ctor_like: bool,
    /// The path begins with a template type parameter (`T::value`): what follows is a
    /// member of a type not known yet.
    pub dependent: bool,
}

/// Scans a path starting at `start` (same rules as [`path`]) without consuming it.
pub(crate) fn scan_path(p: &Parser<'_>, start: usize, ctx: AngleCtx) -> Option<ScanPath> {
    let kinds = &p.kinds;
    let mut i = start;
    let mut qualified = false;
    if kinds.get(i) == Some(&COLON2) {
        i += 1;
        qualified = true;
    }
    let mut out = ScanPath {
        end: i,
        last: u32::MAX,
        sym: None,
        template_id: false,
        segments: 0,
        ctor_like: false,
        dependent: false,
    };
    loop {
        let after_template = kinds.get(i) == Some(&TEMPLATE_KW);
        if after_template {
            i += 1;
        }
        if kinds.get(i) != Some(&IDENT) {
            return if out.segments > 0 { Some(out) } else { None };
        }
        let id = p.name_at(i);
        let sym = if out.segments == 0 && !qualified { p.scopes.lookup(id) } else { p.scopes.lookup_member(id) };
        if out.segments == 0 && !qualified {
            out.dependent = p.scopes.is_type_param(id);
        }
        out.ctor_like = out.segments > 0 && id == out.last;
        i += 1;
        out.template_id = false;
        if kinds.get(i) == Some(&L_ANGLE) {
            let take = after_template
                || match sym {
                    Some(Sym::Template | Sym::ValueTemplate) => true,
                    Some(_) => false,
                    None => {
                        // same decision as `starts_template_args`, at index `i`
                        match scan_template_args(p, i) {
                            Some(end) => {
                                let next = kinds.get(end).copied().unwrap_or(EOF);
                                match ctx {
                                    AngleCtx::Member => next == L_PAREN,
                                    AngleCtx::Expr => matches!(
                                        next,
                                        L_PAREN | COLON2 | L_CURLY | R_PAREN | COMMA | SEMI | R_BRACK | R_CURLY | DOT3
                                    ),
                                    AngleCtx::Type => {
                                        !matches!(next, PLUS | MINUS | SLASH | PERCENT | PIPE | CARET | QUESTION | DOT)
                                    }
                                }
                            }
                            None => false,
                        }
                    }
                };
            if take {
                i = scan_template_args(p, i)?;
                out.template_id = true;
            }
        }
        out.last = id;
        out.sym = sym;
        out.segments += 1;
        out.end = i;
        if kinds.get(i) == Some(&COLON2) && matches!(kinds.get(i + 1), Some(IDENT | TEMPLATE_KW)) {
            i += 1;
            continue;
        }
        return Some(out);
    }
}
