//! Declaration specifiers, declarators and type-ids.
//!
//! `const device float4 *p [[buffer(0)]]` is a DECL_SPECIFIERS node (`const device
//! float4`) followed by a DECLARATOR (`*p [[buffer(0)]]`).

use super::attrs;
use super::names::{self, AngleCtx};
use super::symbols::Sym;
use super::{Parser, Word, decls, exprs};
use crate::SyntaxKind::{self, *};

/// Where a declaration appears; decides what its specifiers and declarators may hold.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum DeclCtx {
    Namespace,
    Class,
    Block,
    Param,
    TypeId,
    Condition,
    TemplateParam,
}

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SpecInfo {
    pub any: bool,
    pub has_type: bool,
    pub typedef: bool,
    pub friend: bool,
    /// A class or enum was defined in the specifiers.
    pub defined_type: bool,
}

pub(crate) fn is_plain_specifier(k: SyntaxKind) -> bool {
    matches!(
        k,
        CONST_KW
            | VOLATILE_KW
            | STATIC_KW
            | EXTERN_KW
            | INLINE_KW
            | CONSTEXPR_KW
            | CONSTEVAL_KW
            | CONSTINIT_KW
            | MUTABLE_KW
            | REGISTER_KW
            | THREAD_LOCAL_KW
            | VIRTUAL_KW
            | FRIEND_KW
            | TYPEDEF_KW
            | KERNEL_KW
            | VERTEX_KW
            | FRAGMENT_KW
    ) || k.is_address_space()
}

/// `coherent(device)` or `coherent device`: Metal's memory-coherence qualifier.
fn is_contextual_qualifier(p: &mut Parser<'_>) -> bool {
    p.current_word() == Word::Coherent && (p.nth_at(1, L_PAREN) || p.nth(1).is_address_space())
}

fn coherent_spec(p: &mut Parser<'_>) {
    let c = p.start();
    p.bump_remap(IDENT);
    if p.at(L_PAREN) {
        p.skip_balanced();
    }
    c.complete(p, COHERENT_SPEC);
}

fn is_restrict(p: &mut Parser<'_>) -> bool {
    p.current_word() == Word::Restrict
}

/// Parses declaration specifiers. `class_name` is the class being defined, to recognise
/// its constructors.
pub(crate) fn decl_specifiers(p: &mut Parser<'_>, ctx: DeclCtx) -> SpecInfo {
    let m = p.start();
    let mut info = SpecInfo::default();
    loop {
        let k = p.current();
        if is_plain_specifier(k) {
            if k == TYPEDEF_KW {
                info.typedef = true;
            }
            if k == FRIEND_KW {
                info.friend = true;
            }
            p.bump_any();
        } else if k == EXPLICIT_KW {
            p.bump_any();
            if p.at(L_PAREN) {
                p.skip_balanced();
            }
        } else if k.is_builtin_type_keyword() {
            if info.has_type
                && !matches!(k, SIGNED_KW | UNSIGNED_KW | LONG_KW | SHORT_KW | INT_KW | CHAR_KW | DOUBLE_KW)
            {
                break;
            }
            let b = p.start();
            while p.current().is_builtin_type_keyword() {
                p.bump_any();
            }
            b.complete(p, BUILTIN_TYPE);
            info.has_type = true;
        } else if attrs::at_any_attr(p) {
            attrs::attrs(p);
        } else if is_contextual_qualifier(p) {
            coherent_spec(p);
        } else if matches!(p.current_word(), Word::Restrict | Word::Extension) {
            p.bump(IDENT);
        } else if matches!(k, STRUCT_KW | CLASS_KW | UNION_KW) && !info.has_type {
            let templated = std::mem::take(&mut p.pending_template);
            let defined = decls::class_specifier(p, templated);
            info.defined_type |= defined;
            info.has_type = true;
        } else if k == ENUM_KW && !info.has_type {
            let defined = decls::enum_specifier(p);
            info.defined_type |= defined;
            info.has_type = true;
        } else if k == TYPENAME_KW && !info.has_type {
            let t = p.start();
            p.bump(TYPENAME_KW);
            if names::at_path_start(p) {
                names::path(p, AngleCtx::Type);
            } else {
                p.error_expected("a type name");
            }
            t.complete(p, PATH_TYPE);
            info.has_type = true;
        } else if k == DECLTYPE_KW && !info.has_type {
            decltype_type(p);
            info.has_type = true;
        } else if (k == IDENT || (k == COLON2 && p.nth_at(1, IDENT))) && !info.has_type {
            if ctor_follows(p, ctx) {
                break;
            }
            if p.incomplete && at_unknown_specifier_macro(p) {
                // `EXPORT_FN float f()`: a macro of a missing header in front of the type
                let u = p.start();
                p.bump(IDENT);
                u.complete(p, UNKNOWN_MACRO_CALL);
                info.any = true;
                continue;
            }
            let t = p.start();
            names::path(p, AngleCtx::Type);
            t.complete(p, PATH_TYPE);
            info.has_type = true;
        } else {
            break;
        }
        info.any = true;
    }
    if info.any {
        m.complete(p, DECL_SPECIFIERS);
    } else {
        m.abandon(p);
    }
    info
}

/// An unknown name directly before a type keyword, a known type or another specifier:
/// in a unit with a missing header, a macro of it that expands to specifiers or nothing.
fn at_unknown_specifier_macro(p: &mut Parser<'_>) -> bool {
    if !p.at(IDENT) || p.current_word() != Word::Plain || p.scopes.lookup(p.name_at(p.pos())).is_some() {
        return false;
    }
    let next = p.nth(1);
    if next.is_builtin_type_keyword() || is_plain_specifier(next) || next == STRUCT_KW {
        return true;
    }
    next == IDENT && matches!(p.scopes.lookup(p.name_at(p.pos() + 1)), Some(Sym::Type | Sym::Template))
}

/// At a name that is a constructor or destructor declarator rather than a type:
/// `S(` inside `struct S`, or `S::S(` / `S::~S(` outside it.
fn ctor_follows(p: &mut Parser<'_>, ctx: DeclCtx) -> bool {
    if ctx == DeclCtx::Class && p.at(IDENT) && p.class_names.last().is_some_and(|c| *c == p.current_text()) {
        // `S(`, and in a class template `S<T>(` (the constructor named with the
        // template's arguments)
        match p.nth(1) {
            L_PAREN => return true,
            L_ANGLE => {
                if let Some(end) = names::scan_template_args(p, p.pos() + 1)
                    && p.kinds.get(end) == Some(&L_PAREN)
                {
                    return true;
                }
            }
            _ => {}
        }
    }
    if !matches!(ctx, DeclCtx::Namespace | DeclCtx::Class) {
        return false;
    }
    let Some(scan) = names::scan_path(p, p.pos(), AngleCtx::Type) else { return false };
    let next = p.kinds.get(scan.end).copied().unwrap_or(EOF);
    if scan.ctor_like && next == L_PAREN {
        return true;
    }
    // `S::~S()` and `S::operator+` start with a path that is not a type
    next == COLON2 && matches!(p.kinds.get(scan.end + 1), Some(TILDE | OPERATOR_KW))
}

/// `decltype(expr)` / `decltype(auto)` alone.
pub(crate) fn decltype_only(p: &mut Parser<'_>) -> super::CompletedMarker {
    let m = p.start();
    p.bump(DECLTYPE_KW);
    if p.expect(L_PAREN) {
        if p.at(AUTO_KW) {
            p.bump(AUTO_KW);
        } else {
            exprs::expr(p);
        }
        p.expect(R_PAREN);
    }
    m.complete(p, DECLTYPE_TYPE)
}

/// `decltype(expr)` / `decltype(auto)`, possibly followed by `::member`.
fn decltype_type(p: &mut Parser<'_>) {
    let c = decltype_only(p);
    if p.at(COLON2) && p.nth_at(1, IDENT) {
        let m = c.precede(p);
        p.bump(COLON2);
        names::path(p, AngleCtx::Type);
        m.complete(p, PATH_TYPE);
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct DeclaratorInfo<'a> {
    pub name: Option<&'a str>,
    /// The outermost suffix is a parameter list: this declares a function.
    pub is_function: bool,
    pub qualified: bool,
    pub operator: bool,
    /// The name has template arguments (`f<float>`): a specialization or instantiation of
    /// a template declared before, which declares no new name.
    pub template_id: bool,
    /// A structured binding (`auto [a, b]`): its names wait in the parser's
    /// `binding_names` to be declared (see `decls::declare_name`).
    pub bindings: bool,
}

/// Parses a declarator. Named declarators may stop before a parenthesised initializer
/// (`float4 v(1.0)`), which the caller parses.
pub(crate) fn declarator<'a>(p: &mut Parser<'a>, ctx: DeclCtx, abstract_ok: bool) -> DeclaratorInfo<'a> {
    let m = p.start();
    let mut info = DeclaratorInfo::default();
    if !p.enter() {
        m.complete(p, DECLARATOR);
        return info;
    }
    ptr_operators(p);
    let mut suffix_is_function = false;
    match p.current() {
        L_PAREN if is_nested_declarator(p, abstract_ok) => {
            let pm = p.start();
            p.bump(L_PAREN);
            let inner = declarator(p, ctx, abstract_ok);
            info.name = inner.name;
            info.qualified = inner.qualified;
            p.expect(R_PAREN);
            pm.complete(p, PAREN_DECLARATOR);
        }
        DOT3 => {
            p.bump(DOT3);
            if p.at(IDENT) {
                declarator_name(p, &mut info);
            }
        }
        // `auto [a, b] = ...`, `auto &[x, y] = ...`: a structured binding
        L_BRACK if !p.at_attr_start() && matches!(ctx, DeclCtx::Block | DeclCtx::Namespace | DeclCtx::Condition) => {
            binding_list(p);
            info.bindings = true;
        }
        IDENT | OPERATOR_KW | TILDE => declarator_name(p, &mut info),
        COLON2 if matches!(p.nth(1), IDENT | OPERATOR_KW | TILDE | TEMPLATE_KW) => declarator_name(p, &mut info),
        // `Class::*` pointer to member is handled by ptr_operators
        _ => {
            // `unsigned : 4;` is an unnamed bit-field
            let unnamed_bit_field = ctx == DeclCtx::Class && p.at(COLON);
            if !abstract_ok && !unnamed_bit_field {
                p.error_expected("a name");
            }
        }
    }
    attrs::attrs(p);
    // a structured binding has no suffixes: `(` and `{` start its initializer
    loop {
        if info.bindings {
            break;
        }
        match p.current() {
            L_BRACK if !p.at_attr_start() => {
                let a = p.start();
                p.bump(L_BRACK);
                if !p.at(R_BRACK) {
                    exprs::expr(p);
                }
                p.expect(R_BRACK);
                a.complete(p, ARRAY_SUFFIX);
                suffix_is_function = false;
            }
            L_PAREN => {
                if !abstract_ok && info.name.is_some() && !looks_like_params(p, ctx) {
                    break;
                }
                params(p, ctx);
                function_qualifiers(p);
                suffix_is_function = true;
            }
            _ if attrs::at_any_attr(p) => {
                attrs::attrs(p);
            }
            _ => break,
        }
    }
    info.is_function = suffix_is_function;
    p.leave();
    m.complete(p, DECLARATOR);
    info
}

/// `[a, b, c]`: the names are kept in `binding_names` for the caller to declare.
fn binding_list(p: &mut Parser<'_>) {
    let m = p.start();
    p.bump(L_BRACK);
    p.binding_names.clear();
    loop {
        if p.at(IDENT) {
            p.binding_names.push(p.current_text());
            let n = p.start();
            p.bump(IDENT);
            n.complete(p, NAME);
        } else {
            p.error_expected("a name to bind");
            if !p.at(COMMA) {
                break;
            }
        }
        if !p.eat(COMMA) {
            break;
        }
    }
    p.expect(R_BRACK);
    m.complete(p, BINDING_LIST);
}

fn declarator_name<'a>(p: &mut Parser<'a>, info: &mut DeclaratorInfo<'a>) {
    let n = p.start();
    // a plain identifier is a NAME; anything qualified or templated keeps the PATH shape
    if p.at(IDENT) && !matches!(p.nth(1), COLON2 | L_ANGLE) {
        info.name = Some(p.current_text());
        p.bump(IDENT);
        n.complete(p, NAME);
        return;
    }
    let path = names::path(p, AngleCtx::Type);
    info.name = Some(path.last);
    info.qualified = path.qualified;
    info.operator = path.operator;
    info.template_id = path.template_id;
    n.complete(p, NAME);
}

/// After `(` in a declarator: is this a nested declarator like `(*fp)` or `(&arr)`?
fn is_nested_declarator(p: &mut Parser<'_>, abstract_ok: bool) -> bool {
    match p.nth(1) {
        STAR | AMP | AMP2 | CARET => {
            // `(*p)` or `(&r)`; but an abstract `(*)` too
            true
        }
        // `(S::*pm)`: a pointer to member
        IDENT | COLON2 if at_member_pointer(p, p.pos() + 1) => true,
        IDENT if !abstract_ok => {
            // `T (x)` declares x; `T (x, y)` is an initializer
            matches!(p.nth(2), R_PAREN | L_BRACK)
                && !matches!(p.scopes.lookup(p.name_at(p.pos() + 1)), Some(Sym::Type | Sym::Template))
        }
        COLON2 => false,
        _ => false,
    }
}

/// Whether `S::*` (a pointer-to-member operator, `S` a possibly qualified class name)
/// starts at token `i`.
pub(crate) fn at_member_pointer(p: &Parser<'_>, i: usize) -> bool {
    if !matches!(p.kinds.get(i), Some(IDENT | COLON2)) {
        return false;
    }
    names::scan_path(p, i, AngleCtx::Type)
        .is_some_and(|scan| p.kinds.get(scan.end) == Some(&COLON2) && p.kinds.get(scan.end + 1) == Some(&STAR))
}

/// `*`, `&`, `&&`, `Class::*`, each with qualifiers: `* const device`.
fn ptr_operators(p: &mut Parser<'_>) {
    loop {
        match p.current() {
            STAR | AMP | AMP2 | CARET => {
                let m = p.start();
                p.bump_any();
                ptr_qualifiers(p);
                m.complete(p, PTR_OPERATOR);
            }
            IDENT | COLON2 => {
                // `Class::*`
                let Some(scan) = names::scan_path(p, p.pos(), AngleCtx::Type) else { return };
                if p.kinds.get(scan.end) == Some(&COLON2) && p.kinds.get(scan.end + 1) == Some(&STAR) {
                    let m = p.start();
                    names::path_node(p, AngleCtx::Type);
                    p.bump(COLON2);
                    p.bump(STAR);
                    ptr_qualifiers(p);
                    m.complete(p, PTR_OPERATOR);
                } else {
                    return;
                }
            }
            _ => return,
        }
    }
}

fn ptr_qualifiers(p: &mut Parser<'_>) {
    loop {
        let k = p.current();
        if matches!(k, CONST_KW | VOLATILE_KW) || k.is_address_space() || is_restrict(p) {
            p.bump_any();
        } else if is_contextual_qualifier(p) {
            coherent_spec(p);
        } else if attrs::at_any_attr(p) {
            attrs::attrs(p);
        } else {
            return;
        }
    }
}

/// Whether a `(` after a declarator name starts parameters (a function declarator)
/// rather than a parenthesised initializer.
fn looks_like_params(p: &mut Parser<'_>, ctx: DeclCtx) -> bool {
    debug_assert!(p.at(L_PAREN));
    if matches!(ctx, DeclCtx::Param | DeclCtx::TypeId | DeclCtx::TemplateParam) {
        return true;
    }
    let k = p.nth(1);
    if k == R_PAREN || k == DOT3 {
        return true;
    }
    if k.is_builtin_type_keyword() {
        // `float(x)` constructs, but `float (*fn)(float)` and `float (S::*pm)` declare
        if p.nth(2) == L_PAREN {
            return matches!(p.nth(3), STAR | AMP | AMP2 | CARET) || at_member_pointer(p, p.pos() + 3);
        }
        return p.nth(2) != L_CURLY;
    }
    if matches!(
        k,
        CONST_KW | VOLATILE_KW | TYPENAME_KW | STRUCT_KW | CLASS_KW | ENUM_KW | UNION_KW | REGISTER_KW | L_BRACK
    ) || k.is_address_space()
    {
        return true;
    }
    if k == DECLTYPE_KW {
        // `f(decltype(x) y)` declares; `v(decltype(x)(3))` constructs
        let Some(after) = super::skip_group(&p.kinds, p.pos() + 2, L_PAREN, R_PAREN) else { return false };
        return !matches!(p.kinds.get(after), Some(L_PAREN | L_CURLY | DOT | ARROW));
    }
    if k == IDENT || k == COLON2 {
        let Some(scan) = names::scan_path(p, p.pos() + 1, AngleCtx::Type) else { return false };
        let next = p.kinds.get(scan.end).copied().unwrap_or(EOF);
        return match scan.sym {
            Some(Sym::Type | Sym::Template) => !matches!(next, L_PAREN | L_CURLY | DOT | ARROW),
            Some(Sym::Value | Sym::Namespace | Sym::ValueTemplate) => false,
            None => match next {
                IDENT => true,
                _ if next.is_address_space() => true,
                STAR | AMP | AMP2 => {
                    let n2 = p.kinds.get(scan.end + 1).copied().unwrap_or(EOF);
                    n2.is_address_space() || matches!(n2, CONST_KW | STAR | AMP) || {
                        n2 == IDENT
                            && matches!(
                                p.kinds.get(scan.end + 2).copied().unwrap_or(EOF),
                                COMMA | R_PAREN | EQ | L_BRACK
                            )
                    }
                }
                _ => ctx == DeclCtx::Namespace && matches!(next, COMMA | R_PAREN) && scan.template_id,
            },
        };
    }
    false
}

/// `( params )`
pub(crate) fn params(p: &mut Parser<'_>, ctx: DeclCtx) {
    let m = p.start();
    p.bump(L_PAREN);
    let _ = ctx;
    while !p.at_eof() && !p.at(R_PAREN) {
        if p.at(DOT3) {
            p.bump(DOT3);
            continue;
        }
        if p.at(COMMA) {
            p.error("expected a parameter");
            p.bump(COMMA);
            continue;
        }
        if matches!(p.current(), SEMI | L_CURLY | R_CURLY) {
            break;
        }
        param(p);
        if !p.at(R_PAREN) && !p.eat(COMMA) {
            if matches!(p.current(), SEMI | L_CURLY | R_CURLY | EOF) {
                break;
            }
            p.error_expected("`,` or `)`");
            // skip what cannot be part of the list
            while !p.at_eof() && !matches!(p.current(), COMMA | R_PAREN | SEMI | L_CURLY | R_CURLY) {
                if matches!(p.current(), L_PAREN | L_BRACK) {
                    p.skip_balanced();
                } else {
                    p.bump_any();
                }
            }
            p.eat(COMMA);
        }
    }
    p.expect(R_PAREN);
    m.complete(p, PARAM_LIST);
}

/// A single parameter declaration (for `catch (T e)`).
pub(crate) fn params_single(p: &mut Parser<'_>) {
    param(p);
}

fn param(p: &mut Parser<'_>) {
    let m = p.start();
    attrs::attrs(p);
    let spec = decl_specifiers(p, DeclCtx::Param);
    if !spec.has_type && !spec.any {
        p.error_expected("a parameter declaration");
        if !matches!(p.current(), COMMA | R_PAREN) {
            p.bump_any();
        }
        m.complete(p, PARAM);
        return;
    }
    let d = declarator(p, DeclCtx::Param, true);
    if let Some(name) = d.name {
        p.scopes.declare(name, Sym::Value);
    }
    if p.at(EQ) {
        p.bump(EQ);
        exprs::initializer_clause(p);
    }
    m.complete(p, PARAM);
}

/// After a parameter list: `const`, `volatile`, an address space (MSL member
/// functions), `&`/`&&`, `noexcept`, `override`/`final`, attributes, `-> T`.
fn function_qualifiers(p: &mut Parser<'_>) {
    loop {
        let k = p.current();
        let qualifier = matches!(k, CONST_KW | VOLATILE_KW) || k.is_address_space();
        let ref_qualifier = matches!(k, AMP | AMP2) && !matches!(p.nth(1), IDENT | L_PAREN);
        if qualifier || ref_qualifier {
            p.bump_any();
        } else if k == NOEXCEPT_KW {
            let m = p.start();
            p.bump(NOEXCEPT_KW);
            if p.at(L_PAREN) {
                p.bump(L_PAREN);
                exprs::expr(p);
                p.expect(R_PAREN);
            }
            m.complete(p, NOEXCEPT_SPEC);
        } else if k == THROW_KW && p.nth_at(1, L_PAREN) {
            let m = p.start();
            p.bump(THROW_KW);
            p.skip_balanced();
            m.complete(p, NOEXCEPT_SPEC);
        } else if matches!(p.current_word(), Word::Override | Word::Final) {
            p.bump(IDENT);
        } else if attrs::at_any_attr(p) {
            attrs::attrs(p);
        } else if k == ARROW {
            let m = p.start();
            p.bump(ARROW);
            type_id(p);
            m.complete(p, TRAILING_RETURN);
        } else {
            return;
        }
    }
}

/// A type: `const device float4 *`, `texture2d<half, access::read>`, `float(float)`.
pub(crate) fn type_id(p: &mut Parser<'_>) {
    let m = p.start();
    let spec = decl_specifiers(p, DeclCtx::TypeId);
    if !spec.has_type && !spec.any {
        p.error_expected("a type");
    }
    // an abstract declarator, if anything declarator-like follows (`S::*` included)
    if matches!(p.current(), STAR | AMP | AMP2 | L_PAREN | CARET) || p.at(L_BRACK) || at_member_pointer(p, p.pos()) {
        declarator(p, DeclCtx::TypeId, true);
    }
    m.complete(p, TYPE);
}

/// A type-id without any declarator (`typename T::x` / `decltype(e)` before `(`).
pub(crate) fn type_id_no_declarator(p: &mut Parser<'_>) {
    let m = p.start();
    decl_specifiers(p, DeclCtx::TypeId);
    m.complete(p, TYPE);
}

/// The type in a `new` expression: specifiers, pointers and array bounds, but no
/// parameter list (a `(` after it holds the constructor arguments).
pub(crate) fn new_type_id(p: &mut Parser<'_>) {
    let m = p.start();
    let spec = decl_specifiers(p, DeclCtx::TypeId);
    if !spec.any {
        p.error_expected("a type");
    }
    if matches!(p.current(), STAR | AMP | AMP2) || (p.at(L_BRACK) && !p.at_attr_start()) {
        let d = p.start();
        ptr_operators(p);
        while p.at(L_BRACK) && !p.at_attr_start() {
            let a = p.start();
            p.bump(L_BRACK);
            if !p.at(R_BRACK) {
                exprs::expr(p);
            }
            p.expect(R_BRACK);
            a.complete(p, ARRAY_SUFFIX);
        }
        d.complete(p, DECLARATOR);
    }
    m.complete(p, TYPE);
}

/// The type after `operator` in a conversion function: specifiers and pointer
/// operators only (`operator const T&()`).
pub(crate) fn conversion_type(p: &mut Parser<'_>) {
    let m = p.start();
    let spec = decl_specifiers(p, DeclCtx::TypeId);
    if !spec.any {
        p.error_expected("an operator or a type");
    }
    if matches!(p.current(), STAR | AMP | AMP2) {
        let d = p.start();
        ptr_operators(p);
        d.complete(p, DECLARATOR);
    }
    m.complete(p, TYPE);
}

/// Whether a type-id (rather than an expression) starts here, as in `sizeof(T)`.
pub(crate) fn looks_like_type_id(p: &mut Parser<'_>) -> bool {
    let k = p.current();
    if k.is_builtin_type_keyword() {
        return !matches!(p.nth(1), L_PAREN | L_CURLY) || (p.nth(1) == L_PAREN && p.nth(2) == R_PAREN);
    }
    if matches!(k, CONST_KW | VOLATILE_KW | TYPENAME_KW | STRUCT_KW | CLASS_KW | ENUM_KW | UNION_KW)
        || k.is_address_space()
    {
        return true;
    }
    if k == DECLTYPE_KW {
        // `decltype(x)` alone or with pointers is a type; `decltype(x)(3)` or
        // `decltype(x)::member` in an expression is not
        let Some(after) = super::skip_group(&p.kinds, p.pos() + 1, L_PAREN, R_PAREN) else { return false };
        return matches!(p.kinds.get(after), Some(R_PAREN | STAR | AMP | AMP2 | L_BRACK | COMMA | R_ANGLE));
    }
    if k == IDENT || (k == COLON2 && p.nth_at(1, IDENT)) {
        let Some(scan) = names::scan_path(p, p.pos(), AngleCtx::Type) else { return false };
        let next = p.kinds.get(scan.end).copied().unwrap_or(EOF);
        return match scan.sym {
            Some(Sym::Type) => !matches!(next, L_PAREN | L_CURLY | DOT | ARROW | COLON2),
            Some(Sym::Template) => scan.template_id && !matches!(next, L_PAREN | L_CURLY | DOT | ARROW | COLON2),
            _ => false,
        };
    }
    false
}

/// `sizeof(X)`, `alignas(X)`: a type if it reads as one, else an expression.
pub(crate) fn type_or_expr(p: &mut Parser<'_>) {
    if looks_like_type_id(p) {
        type_id(p);
    } else {
        exprs::expr(p);
    }
}
