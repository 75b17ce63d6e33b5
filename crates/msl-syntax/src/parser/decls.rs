//! Declarations: functions (entry points included), variables, structs and classes,
//! enums, typedefs and aliases, namespaces, templates and their instantiations.

use super::names::{self, AngleCtx};
use super::symbols::Sym;
use super::types::{self, DeclCtx, DeclaratorInfo};
use super::{Parser, Word, attrs, exprs, stmts};
use crate::SyntaxKind::*;

pub(crate) fn source_file(p: &mut Parser<'_>) {
    // when streaming, the receiver of the events opens and closes the root
    let m = (!p.streaming()).then(|| p.start());
    while !p.at_eof() {
        let before = p.pos();
        declaration(p, DeclCtx::Namespace);
        if p.pos() == before {
            top_level_junk(p);
        }
        // no node is open here
        p.hand_off_events(false);
    }
    if let Some(m) = m {
        m.complete(p, SOURCE_FILE);
    }
}

/// Something that cannot start a declaration at namespace scope: report it once and skip
/// to a point where parsing can resume.
fn top_level_junk(p: &mut Parser<'_>) {
    let msg = match p.current() {
        R_CURLY => "unexpected `}`: there is no block or declaration to close here".to_string(),
        R_BRACK if p.nth_at(1, R_BRACK) => "unexpected `]]` without a matching `[[`".to_string(),
        _ => format!("expected a declaration, found {}", p.describe_current()),
    };
    p.error(msg);
    let m = p.start();
    // skip to the end of this line's junk: stop before anything that starts a new line
    p.bump_any();
    while !p.at_eof() && p.nth_flags(0) & super::FIRST_ON_LINE == 0 && !p.at(SEMI) && !p.at(L_CURLY) {
        p.bump_any();
    }
    p.eat(SEMI);
    m.complete(p, ERROR);
}

/// A declaration in a namespace, class or block. Returns the name it declares and what it
/// is, when that is known.
pub(crate) fn declaration<'a>(p: &mut Parser<'a>, ctx: DeclCtx) -> Option<(&'a str, Sym)> {
    if !p.enter() {
        return None;
    }
    let r = declaration_inner(p, ctx);
    p.leave();
    r
}

fn declaration_inner<'a>(p: &mut Parser<'a>, ctx: DeclCtx) -> Option<(&'a str, Sym)> {
    match p.current() {
        SEMI => {
            let m = p.start();
            p.bump(SEMI);
            m.complete(p, EMPTY_DECL);
            None
        }
        NAMESPACE_KW => namespace(p),
        INLINE_KW if p.nth_at(1, NAMESPACE_KW) => namespace(p),
        USING_KW => using(p),
        TEMPLATE_KW => template(p, ctx),
        EXTERN_KW if p.nth_at(1, TEMPLATE_KW) => template(p, ctx),
        EXTERN_KW if p.nth_at(1, STRING_LIT) => {
            let m = p.start();
            p.bump(EXTERN_KW);
            p.bump(STRING_LIT);
            if p.at(L_CURLY) {
                decl_list(p, ctx);
            } else {
                declaration(p, ctx);
            }
            m.complete(p, LINKAGE_SPEC);
            None
        }
        STATIC_ASSERT_KW => {
            static_assert(p);
            None
        }
        PUBLIC_KW | PRIVATE_KW | PROTECTED_KW if ctx == DeclCtx::Class => {
            let m = p.start();
            p.bump_any();
            p.expect(COLON);
            m.complete(p, ACCESS_SPECIFIER);
            None
        }
        EXPORT_KW => {
            p.bump(EXPORT_KW);
            declaration(p, ctx)
        }
        IDENT if matches!(ctx, DeclCtx::Namespace | DeclCtx::Class) && at_unknown_invocation(p) => {
            unknown_invocation(p);
            None
        }
        _ => simple_declaration(p, ctx),
    }
}

/// At `name(...)` standing alone where a declaration goes, `name` being neither declared
/// nor a macro: no C++ declaration has that form, but the invocation of a macro from a
/// missing header does (`instantiate_kernel("k", k, float)`). It must end at a `;`, a line
/// break, a `}` or the end of the input, or be followed by another such invocation (a
/// macro that expands to several on one line).
pub(crate) fn at_unknown_invocation(p: &Parser<'_>) -> bool {
    let kinds = &p.kinds;
    let mut at = p.pos();
    // each step moves past a group, so this ends
    loop {
        if kinds.get(at) != Some(&IDENT) || kinds.get(at + 1) != Some(&L_PAREN) || p.word_at(at) != Word::Plain {
            return false;
        }
        if p.scopes.lookup(p.name_at(at)).is_some() {
            return false;
        }
        let Some(end) = super::skip_group(kinds, at + 1, L_PAREN, R_PAREN) else { return false };
        match kinds.get(end) {
            None | Some(SEMI | R_CURLY) => return true,
            Some(_) if p.starts_line(end) => return true,
            Some(IDENT) => at = end,
            Some(_) => return false,
        }
    }
}

/// An UNKNOWN_MACRO_CALL in place of a declaration (see [`at_unknown_invocation`]). In a
/// unit whose headers were all found, it is an error; otherwise the macro is most likely
/// in the missing header, which is reported already.
fn unknown_invocation(p: &mut Parser<'_>) {
    if !p.incomplete {
        let name = p.current_text();
        p.error(format!("`{name}(...)` is not a declaration: no macro, type or function named `{name}` is known here"));
    }
    let m = p.start();
    p.bump(IDENT);
    p.skip_balanced();
    p.eat(SEMI);
    m.complete(p, UNKNOWN_MACRO_CALL);
}

/// `{ declarations }` for namespaces and linkage specifications.
fn decl_list(p: &mut Parser<'_>, ctx: DeclCtx) {
    let m = p.start();
    let open = p.pos();
    p.bump(L_CURLY);
    loop {
        if p.at(R_CURLY) {
            p.bump(R_CURLY);
            break;
        }
        if p.at_eof() {
            p.error_at(
                "this `{` is never closed: expected `}` before the end of the file",
                super::ErrorAt::Token(open as u32),
            );
            break;
        }
        let before = p.pos();
        declaration(p, ctx);
        if p.pos() == before {
            top_level_junk(p);
        }
    }
    m.complete(p, DECL_LIST);
}

fn namespace<'a>(p: &mut Parser<'a>) -> Option<(&'a str, Sym)> {
    let m = p.start();
    p.eat(INLINE_KW);
    p.bump(NAMESPACE_KW);
    attrs::attrs(p);
    let mut name = None;
    if p.at(IDENT) && p.nth_at(1, EQ) {
        // namespace alias
        let n = p.start();
        name = Some(p.current_text());
        p.bump(IDENT);
        n.complete(p, NAME);
        p.bump(EQ);
        if names::at_path_start(p) {
            names::path_node(p, AngleCtx::Type);
        } else {
            p.error_expected("a namespace name");
        }
        p.expect(SEMI);
        m.complete(p, NAMESPACE_ALIAS);
        if let Some(n) = name {
            p.scopes.declare(n, Sym::Namespace);
        }
        return name.map(|n| (n, Sym::Namespace));
    }
    if p.at(IDENT) {
        let n = p.start();
        name = Some(p.current_text());
        p.bump(IDENT);
        while p.at(COLON2) && matches!(p.nth(1), IDENT | INLINE_KW) {
            p.bump(COLON2);
            p.eat(INLINE_KW);
            if p.at(IDENT) {
                p.scopes.declare(p.current_text(), Sym::Namespace);
                p.bump(IDENT);
            }
        }
        n.complete(p, NAME);
    }
    if let Some(n) = name {
        p.scopes.declare(n, Sym::Namespace);
    }
    attrs::attrs(p);
    if p.at(L_CURLY) {
        decl_list(p, DeclCtx::Namespace);
    } else {
        p.error_expected("`{`");
    }
    m.complete(p, NAMESPACE);
    name.map(|n| (n, Sym::Namespace))
}

fn using<'a>(p: &mut Parser<'a>) -> Option<(&'a str, Sym)> {
    let m = p.start();
    p.bump(USING_KW);
    if p.at(NAMESPACE_KW) {
        p.bump(NAMESPACE_KW);
        if names::at_path_start(p) {
            names::path_node(p, AngleCtx::Type);
        } else {
            p.error_expected("a namespace name");
        }
        p.expect(SEMI);
        m.complete(p, USING_DIRECTIVE);
        return None;
    }
    if p.at(IDENT) && (p.nth_at(1, EQ) || (p.nth_at(1, L_BRACK) && p.nth_at(2, L_BRACK))) {
        // alias declaration
        let name = p.current_text();
        let n = p.start();
        p.bump(IDENT);
        n.complete(p, NAME);
        attrs::attrs(p);
        p.expect(EQ);
        types::type_id(p);
        p.expect(SEMI);
        m.complete(p, ALIAS_DECL);
        p.scopes.declare(name, Sym::Type);
        return Some((name, Sym::Type));
    }
    p.eat(TYPENAME_KW);
    p.eat(ENUM_KW);
    let mut declared = None;
    if names::at_path_start(p) {
        let info = names::path_node(p, AngleCtx::Type);
        if !info.last.is_empty() {
            let sym = p.scopes.lookup_member(p.scopes.intern(info.last)).unwrap_or(Sym::Value);
            p.scopes.declare(info.last, sym);
            declared = Some((info.last, sym));
        }
    } else {
        p.error_expected("a name");
    }
    while p.eat(COMMA) {
        if names::at_path_start(p) {
            names::path_node(p, AngleCtx::Type);
        }
    }
    p.expect(SEMI);
    m.complete(p, USING_DECL);
    declared
}

fn static_assert(p: &mut Parser<'_>) {
    let m = p.start();
    p.bump(STATIC_ASSERT_KW);
    if p.expect(L_PAREN) {
        if exprs::expr_no_comma(p).is_none() {
            p.error_expected("a constant expression");
        }
        if p.eat(COMMA) {
            if p.at(STRING_LIT) {
                let l = p.start();
                while p.at(STRING_LIT) {
                    p.bump(STRING_LIT);
                }
                l.complete(p, LITERAL);
            } else {
                p.error_expected("a message string");
            }
        }
        p.expect(R_PAREN);
    }
    p.expect(SEMI);
    m.complete(p, STATIC_ASSERT);
}

/// `template <params> decl`, `template<> decl` (specialization), `template decl` and
/// `extern template decl` (explicit instantiation).
fn template<'a>(p: &mut Parser<'a>, ctx: DeclCtx) -> Option<(&'a str, Sym)> {
    let m = p.start();
    let is_extern = p.eat(EXTERN_KW);
    p.bump(TEMPLATE_KW);
    if !is_extern && p.at(L_ANGLE) {
        p.scopes.push();
        template_params(p);
        p.pending_template = true;
        let declared = declaration(p, ctx);
        p.pending_template = false;
        p.scopes.pop();
        m.complete(p, TEMPLATE_DECL);
        if let Some((name, sym)) = declared {
            let sym = match sym {
                Sym::Namespace => sym,
                Sym::Value | Sym::ValueTemplate => Sym::ValueTemplate,
                Sym::Type | Sym::Template => Sym::Template,
            };
            p.scopes.declare(name, sym);
            return Some((name, sym));
        }
        return None;
    }
    declaration(p, ctx);
    m.complete(p, EXPLICIT_INSTANTIATION);
    None
}

/// `< typename T, int N = 4, template <class> class TT, typename... Ts >`
pub(crate) fn template_params(p: &mut Parser<'_>) {
    let m = p.start();
    p.bump(L_ANGLE);
    while !p.at_eof() && !p.at_closing_angle() {
        template_param(p);
        if !p.eat(COMMA) {
            break;
        }
    }
    if !p.eat_closing_angle() {
        p.error_expected("`>` to close the template parameter list");
    }
    m.complete(p, TEMPLATE_PARAM_LIST);
}

fn template_param(p: &mut Parser<'_>) {
    let m = p.start();
    match p.current() {
        // `typename T`, but not `typename X::type N` or `typename enable_if<...>::type = 0`
        // (non-type parameters of a dependent type)
        TYPENAME_KW | CLASS_KW
            if !(p.nth_at(1, COLON2) || (p.nth_at(1, IDENT) && matches!(p.nth(2), COLON2 | L_ANGLE))) =>
        {
            p.bump_any();
            p.eat(DOT3);
            if p.at(IDENT) {
                let name = p.current_text();
                let n = p.start();
                p.bump(IDENT);
                n.complete(p, NAME);
                p.scopes.declare_type_param(name);
            }
            if p.eat(EQ) {
                types::type_id(p);
            }
            m.complete(p, TYPE_PARAM);
        }
        TEMPLATE_KW => {
            p.bump(TEMPLATE_KW);
            if p.at(L_ANGLE) {
                p.scopes.push();
                template_params(p);
                p.scopes.pop();
            }
            if !p.eat(CLASS_KW) && !p.eat(TYPENAME_KW) {
                p.error_expected("`class` or `typename`");
            }
            p.eat(DOT3);
            if p.at(IDENT) {
                let name = p.current_text();
                let n = p.start();
                p.bump(IDENT);
                n.complete(p, NAME);
                p.scopes.declare(name, Sym::Template);
            }
            if p.eat(EQ) && names::at_path_start(p) {
                names::path_node(p, AngleCtx::Type);
            }
            m.complete(p, TEMPLATE_TEMPLATE_PARAM);
        }
        _ => {
            attrs::attrs(p);
            let spec = types::decl_specifiers(p, DeclCtx::TemplateParam);
            if !spec.any {
                p.error_expected("a template parameter");
                m.complete(p, NON_TYPE_PARAM);
                if !p.at(COMMA) && !p.at_closing_angle() && !p.at_eof() {
                    p.bump_any();
                }
                return;
            }
            let d = types::declarator(p, DeclCtx::TemplateParam, true);
            if let Some(name) = d.name {
                p.scopes.declare(name, Sym::Value);
            }
            if p.eat(EQ) && exprs::expr_in_template_arg(p).is_none() {
                p.error_expected("a default value");
            }
            m.complete(p, NON_TYPE_PARAM);
        }
    }
}

/// Is a class definition (`struct S {`, `struct S : Base {`, `struct {`) ahead at `i`?
fn at_class_definition(p: &Parser<'_>) -> bool {
    let kinds = &p.kinds;
    let mut i = p.pos();
    if !matches!(kinds.get(i), Some(STRUCT_KW | CLASS_KW | UNION_KW | ENUM_KW)) {
        return false;
    }
    let is_enum = kinds[i] == ENUM_KW;
    i += 1;
    let scoped = is_enum && matches!(kinds.get(i), Some(CLASS_KW | STRUCT_KW));
    if scoped {
        i += 1;
    }
    // attributes
    loop {
        if kinds.get(i) == Some(&L_BRACK) && kinds.get(i + 1) == Some(&L_BRACK) {
            let Some(next) = super::skip_group(kinds, i, L_BRACK, R_BRACK) else { return false };
            i = next;
        } else if p.word_at(i) == Word::Attribute || kinds.get(i) == Some(&ALIGNAS_KW) {
            let Some(next) = super::skip_group(kinds, i + 1, L_PAREN, R_PAREN) else { return false };
            i = next;
        } else {
            break;
        }
    }
    if matches!(kinds.get(i), Some(IDENT | COLON2)) {
        match names::scan_path(p, i, AngleCtx::Type) {
            Some(scan) => i = scan.end,
            None => return false,
        }
    }
    if p.word_at(i) == Word::Final {
        i += 1;
    }
    // `enum class E;` declares the enum itself (an opaque declaration), as `enum E : int;` does
    let opaque_scoped = is_enum && scoped && kinds.get(i) == Some(&SEMI);
    matches!(kinds.get(i), Some(L_CURLY | COLON)) || opaque_scoped
}

/// Parses `struct/class/union [attrs] [name] [final] [: bases] [{ members }]` without an
/// enclosing node. Returns the name and whether it was a definition.
fn class_head_and_body<'a>(p: &mut Parser<'a>, templated: bool) -> (Option<&'a str>, bool) {
    p.bump_any(); // struct / class / union
    attrs::attrs(p);
    let mut name = None;
    if names::at_path_start(p) && !p.at(OPERATOR_KW) {
        let n = p.start();
        let info = names::path(p, AngleCtx::Type);
        n.complete(p, NAME);
        name = Some(info.last);
        if !info.qualified && !info.template_id {
            p.scopes.declare(info.last, if templated { Sym::Template } else { Sym::Type });
        }
    }
    if p.current_word() == Word::Final {
        p.bump(IDENT);
    }
    attrs::attrs(p);
    if p.at(COLON) {
        let b = p.start();
        p.bump(COLON);
        loop {
            let s = p.start();
            attrs::attrs(p);
            while matches!(p.current(), VIRTUAL_KW | PUBLIC_KW | PRIVATE_KW | PROTECTED_KW) {
                p.bump_any();
            }
            if names::at_path_start(p) {
                names::path(p, AngleCtx::Type);
            } else if p.at(DECLTYPE_KW) {
                types::type_id_no_declarator(p);
            } else {
                p.error_expected("a base class");
            }
            p.eat(DOT3);
            s.complete(p, BASE_SPECIFIER);
            if !p.eat(COMMA) {
                break;
            }
        }
        b.complete(p, BASE_CLAUSE);
    }
    if !p.at(L_CURLY) {
        return (name, false);
    }
    member_list(p, name.unwrap_or(""));
    (name, true)
}

fn member_list<'a>(p: &mut Parser<'a>, class_name: &'a str) {
    let m = p.start();
    let open = p.pos();
    p.bump(L_CURLY);
    p.class_names.push(class_name);
    p.scopes.push();
    loop {
        if p.at(R_CURLY) {
            p.bump(R_CURLY);
            break;
        }
        if p.at_eof() {
            p.error_at(
                "this `{` is never closed: expected `}` before the end of the file",
                super::ErrorAt::Token(open as u32),
            );
            break;
        }
        if stmts::at_top_level_item_start(p) && !p.at(TEMPLATE_KW) {
            p.error_at(
                "this `{` is not closed before the next top-level declaration: expected `}`",
                super::ErrorAt::Token(open as u32),
            );
            break;
        }
        let before = p.pos();
        declaration(p, DeclCtx::Class);
        if p.pos() == before {
            let found = p.describe_current();
            p.err_and_bump(format!("expected a member declaration, found {found}"));
        }
    }
    p.scopes.pop();
    p.class_names.pop();
    m.complete(p, MEMBER_LIST);
}

/// A class specifier inside declaration specifiers: a STRUCT node when it defines the
/// class, an ELABORATED_TYPE otherwise. Returns whether it was a definition.
pub(crate) fn class_specifier(p: &mut Parser<'_>, templated: bool) -> bool {
    let m = p.start();
    let (name, defined) = class_head_and_body(p, templated);
    p.last_class_name = name;
    m.complete(p, if defined { STRUCT } else { ELABORATED_TYPE });
    defined
}

/// `enum [class] [name] [: type] [{ enumerators }]` without an enclosing node.
fn enum_head_and_body<'a>(p: &mut Parser<'a>) -> (Option<&'a str>, bool) {
    p.bump(ENUM_KW);
    let scoped = p.eat(CLASS_KW) || p.eat(STRUCT_KW);
    attrs::attrs(p);
    let mut name = None;
    if names::at_path_start(p) {
        let n = p.start();
        let info = names::path(p, AngleCtx::Type);
        n.complete(p, NAME);
        name = Some(info.last);
        if !info.qualified {
            p.scopes.declare(info.last, Sym::Type);
        }
    }
    attrs::attrs(p);
    if p.at(COLON) {
        p.bump(COLON);
        types::type_id(p);
    }
    if !p.at(L_CURLY) {
        return (name, false);
    }
    let l = p.start();
    p.bump(L_CURLY);
    while !p.at_eof() && !p.at(R_CURLY) {
        if p.at(IDENT) {
            let e = p.start();
            let n = p.start();
            let ename = p.current_text();
            p.bump(IDENT);
            n.complete(p, NAME);
            attrs::attrs(p);
            if p.eat(EQ) && exprs::expr_no_comma(p).is_none() {
                p.error_expected("a value");
            }
            e.complete(p, ENUMERATOR);
            if !scoped {
                p.scopes.declare(ename, Sym::Value);
            }
        } else if matches!(p.current(), SEMI) || stmts::at_top_level_item_start(p) {
            break;
        } else {
            let found = p.describe_current();
            p.err_and_bump(format!("expected an enumerator, found {found}"));
            continue;
        }
        if !p.at(R_CURLY) && !p.eat(COMMA) {
            p.error_expected("`,` or `}`");
            if !p.at(IDENT) {
                break;
            }
        }
    }
    p.expect(R_CURLY);
    l.complete(p, ENUMERATOR_LIST);
    (name, true)
}

pub(crate) fn enum_specifier(p: &mut Parser<'_>) -> bool {
    let m = p.start();
    let (_, defined) = enum_head_and_body(p);
    m.complete(p, if defined { ENUM } else { ELABORATED_TYPE });
    defined
}

/// Declarations that start with specifiers: functions, variables, typedefs, fields,
/// class and enum definitions.
fn simple_declaration<'a>(p: &mut Parser<'a>, ctx: DeclCtx) -> Option<(&'a str, Sym)> {
    let m = p.start();
    let templated = p.pending_template;
    // A class or enum definition on its own is the item itself.
    let leading_attrs = attrs::attrs(p);
    p.last_class_name = None;
    if at_class_definition(p) {
        p.pending_template = false;
        let is_enum = p.at(ENUM_KW);
        let (name, _) = if is_enum { enum_head_and_body(p) } else { class_head_and_body(p, templated) };
        let kind = if is_enum { ENUM } else { STRUCT };
        // declarators may follow: `struct S { ... } s, *ps;`
        if !p.at(SEMI) {
            init_declarators(p, ctx, false, false);
        }
        expect_decl_semi(p);
        m.complete(p, kind);
        return name.map(|n| (n, Sym::Type));
    }
    if at_deduction_guide(p) {
        p.pending_template = false;
        deduction_guide(p);
        m.complete(p, DEDUCTION_GUIDE);
        return None;
    }
    let spec = types::decl_specifiers(p, ctx);
    p.pending_template = false;
    if !spec.any && !leading_attrs {
        // constructors, destructors and conversion operators have no specifiers
        let ctor_like = matches!(p.current(), IDENT | TILDE | OPERATOR_KW | COLON2);
        if !ctor_like {
            m.abandon(p);
            return None;
        }
    }
    if p.at(SEMI) {
        // `struct S;`, `enum E : int;`, `friend class X;`, `int;`
        p.bump(SEMI);
        let done = m.complete(p, VAR_DECL);
        if spec.friend {
            // a friend declaration names a class elsewhere: it declares nothing here
            done.precede(p).complete(p, FRIEND_DECL);
            return None;
        }
        return p.last_class_name.take().map(|n| (n, Sym::Type));
    }
    // first declarator
    let id = p.start();
    p.scopes.push();
    let d = types::declarator(p, ctx, false);
    if d.is_function && at_function_body(p, ctx) {
        id.abandon(p);
        function_rest(p);
        p.scopes.pop();
        let done = m.complete(p, FUNCTION);
        if spec.friend {
            done.precede(p).complete(p, FRIEND_DECL);
        }
        return declare_name(p, d, spec.typedef);
    }
    p.scopes.pop();
    let declared = declare_name(p, d, spec.typedef);
    init_declarator_rest(p, ctx, d);
    id.complete(p, INIT_DECLARATOR);
    let mut count = 1;
    if p.at(COMMA) {
        p.bump(COMMA);
        init_declarators(p, ctx, spec.typedef, true);
        count += 1;
    }
    expect_decl_semi(p);
    let kind = if spec.typedef {
        TYPEDEF_DECL
    } else if count == 1 && d.is_function {
        FUNCTION
    } else {
        VAR_DECL
    };
    let done = m.complete(p, kind);
    if spec.friend {
        done.precede(p).complete(p, FRIEND_DECL);
    }
    declared
}

/// At `[explicit] Name(params) -> Name<args>;`, where `Name` is a class template: a
/// deduction guide.
fn at_deduction_guide(p: &Parser<'_>) -> bool {
    let kinds = &p.kinds;
    let mut i = p.pos();
    if kinds.get(i) == Some(&EXPLICIT_KW) {
        i += 1;
        if kinds.get(i) == Some(&L_PAREN) {
            let Some(next) = super::skip_group(kinds, i, L_PAREN, R_PAREN) else { return false };
            i = next;
        }
    }
    if kinds.get(i) != Some(&IDENT) || kinds.get(i + 1) != Some(&L_PAREN) {
        return false;
    }
    if p.scopes.lookup(p.name_at(i)) != Some(Sym::Template) {
        return false;
    }
    super::skip_group(kinds, i + 1, L_PAREN, R_PAREN).is_some_and(|close| kinds.get(close) == Some(&ARROW))
}

/// The inside of a DEDUCTION_GUIDE node (see [`at_deduction_guide`]).
fn deduction_guide(p: &mut Parser<'_>) {
    if p.eat(EXPLICIT_KW) && p.at(L_PAREN) {
        p.skip_balanced();
    }
    let n = p.start();
    p.bump(IDENT);
    n.complete(p, NAME);
    // the parameters' names are local to the guide
    p.scopes.push();
    types::params(p, DeclCtx::Param);
    p.scopes.pop();
    let r = p.start();
    p.bump(ARROW);
    types::type_id(p);
    r.complete(p, TRAILING_RETURN);
    expect_decl_semi(p);
}

fn declare_name<'a>(p: &mut Parser<'a>, d: DeclaratorInfo<'a>, typedef: bool) -> Option<(&'a str, Sym)> {
    if d.bindings {
        for name in std::mem::take(&mut p.binding_names) {
            p.scopes.declare(name, Sym::Value);
        }
        return None;
    }
    let name = d.name?;
    if d.qualified || d.operator || d.template_id || (d.is_function && p.class_names.last() == Some(&name)) {
        // out-of-class members, operators, and constructors do not declare a new name
        // (and a constructor template must not turn its class into a value template)
        return None;
    }
    let sym = if typedef { Sym::Type } else { Sym::Value };
    p.scopes.declare(name, sym);
    Some((name, sym))
}

/// `; ` at the end of a declaration, with a message that says which declaration.
fn expect_decl_semi(p: &mut Parser<'_>) {
    if p.eat(SEMI) {
        return;
    }
    if p.pos() > 0 && p.kinds.get(p.pos() - 1) == Some(&R_CURLY) {
        p.error_expected("`;` after the closing `}` of the declaration");
    } else {
        p.error_expected("`;`");
    }
}

/// Declarators after the first one (`, *b = 2, c[4]`), or all of them after a class
/// definition.
fn init_declarators(p: &mut Parser<'_>, ctx: DeclCtx, typedef: bool, after_comma: bool) {
    let mut after_comma = after_comma;
    loop {
        if !after_comma
            && !matches!(p.current(), IDENT | STAR | AMP | AMP2 | L_PAREN | COLON2)
            && !attrs::at_any_attr(p)
        {
            break;
        }
        let id = p.start();
        p.scopes.push();
        let d = types::declarator(p, ctx, false);
        p.scopes.pop();
        declare_name(p, d, typedef);
        init_declarator_rest(p, ctx, d);
        id.complete(p, INIT_DECLARATOR);
        if !p.eat(COMMA) {
            break;
        }
        after_comma = true;
    }
}

/// What may follow a declarator that is not a function definition: an initializer or,
/// in a class, a bit-field width or a pure specifier.
fn init_declarator_rest(p: &mut Parser<'_>, ctx: DeclCtx, d: DeclaratorInfo<'_>) {
    match p.current() {
        EQ if d.is_function && matches!(p.nth(1), INT_NUMBER | DEFAULT_KW | DELETE_KW) => {
            let m = p.start();
            p.bump(EQ);
            let k = if p.at(INT_NUMBER) { PURE_SPECIFIER } else { DEFAULTED_BODY };
            p.bump_any();
            m.complete(p, k);
        }
        EQ => {
            let m = p.start();
            p.bump(EQ);
            exprs::initializer_clause(p);
            m.complete(p, INITIALIZER);
        }
        L_CURLY => {
            let m = p.start();
            exprs::init_list(p);
            m.complete(p, INITIALIZER);
        }
        L_PAREN => {
            let m = p.start();
            exprs::arg_list(p);
            m.complete(p, INITIALIZER);
        }
        COLON if ctx == DeclCtx::Class => {
            let m = p.start();
            p.bump(COLON);
            if exprs::conditional_expr(p).is_none() {
                p.error_expected("a bit-field width");
            }
            m.complete(p, BIT_FIELD);
            if p.at(EQ) || p.at(L_CURLY) {
                init_declarator_rest(p, ctx, d);
            }
        }
        _ => {}
    }
}

fn at_function_body(p: &mut Parser<'_>, ctx: DeclCtx) -> bool {
    match p.current() {
        L_CURLY | TRY_KW => true,
        COLON => matches!(ctx, DeclCtx::Class | DeclCtx::Namespace),
        EQ => matches!(p.nth(1), DEFAULT_KW | DELETE_KW),
        _ => false,
    }
}

/// After a function's declarator: constructor initializers and the body.
fn function_rest(p: &mut Parser<'_>) {
    if p.at(EQ) {
        let m = p.start();
        p.bump(EQ);
        p.bump_any();
        m.complete(p, DEFAULTED_BODY);
        p.expect(SEMI);
        return;
    }
    let is_try = p.eat(TRY_KW);
    if p.at(COLON) {
        let c = p.start();
        p.bump(COLON);
        loop {
            let mi = p.start();
            if names::at_path_start(p) {
                names::path(p, AngleCtx::Type);
            } else if p.at(DECLTYPE_KW) {
                types::type_id_no_declarator(p);
            } else {
                p.error_expected("a member to initialize");
                mi.abandon(p);
                break;
            }
            if p.at(L_PAREN) {
                exprs::arg_list(p);
            } else if p.at(L_CURLY) {
                exprs::init_list(p);
            } else {
                p.error_expected("`(` or `{`");
            }
            p.eat(DOT3);
            mi.complete(p, MEM_INITIALIZER);
            if !p.eat(COMMA) {
                break;
            }
        }
        c.complete(p, CTOR_INITIALIZER);
    }
    if p.at(L_CURLY) {
        p.note_body_start();
        stmts::compound_stmt(p);
    } else {
        p.error_expected("a function body `{ ... }`");
    }
    if is_try {
        while p.at(CATCH_KW) {
            let c = p.start();
            p.bump(CATCH_KW);
            if p.at(L_PAREN) {
                p.skip_balanced();
            }
            if p.at(L_CURLY) {
                stmts::compound_stmt(p);
            }
            c.complete(p, CATCH_CLAUSE);
        }
    }
}

/// A declaration used as a condition or `for` initializer: no trailing `;`.
pub(crate) fn condition_declaration(p: &mut Parser<'_>) {
    let m = p.start();
    attrs::attrs(p);
    types::decl_specifiers(p, DeclCtx::Condition);
    loop {
        let id = p.start();
        let d = types::declarator(p, DeclCtx::Condition, false);
        declare_name(p, d, false);
        if !p.at(COLON) {
            init_declarator_rest(p, DeclCtx::Condition, d);
        }
        id.complete(p, INIT_DECLARATOR);
        if !p.eat(COMMA) {
            break;
        }
    }
    m.complete(p, VAR_DECL);
}
