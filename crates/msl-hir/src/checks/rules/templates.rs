//! Templates and calls (C++17 [temp.arg], [temp.deduct], [over.match]):
//! - a class template named with more arguments than it has parameters, fewer than those
//!   without defaults, or a literal value for a type parameter or a type keyword for a
//!   value parameter; a function template given more explicit arguments than it has
//!   parameters: E1723;
//! - a call of a function of the unit that none of its declarations takes, although the
//!   number of arguments fits one (argument types that do not convert, template arguments
//!   that cannot be deduced consistently): E1724. Only where every argument's type is
//!   sure, every declaration of the name is a function of the unit, and the library has
//!   no function of that name.

use msl_syntax::{SyntaxKind, SyntaxNode};

use super::{Rule, RuleCx};
use crate::body::{Expr, ExprId};
use crate::defs::{DefKind, GenericKind, Generics};
use crate::ty::{DefId, TyKind, TypeArgRef, TypeBase, TypeRef, TypeRefOp};

pub(super) fn check(cx: &mut RuleCx) {
    if cx.infer.in_template {
        return;
    }
    let mut reports = Vec::new();
    // types written in the body: locals and the types of constructions and casts
    for (i, l) in cx.body.locals.iter().enumerate() {
        if let Some(&at) = cx.map.local_ranges.get(i) {
            class_arguments(cx, &l.ty, at, &mut reports);
        }
    }
    for (i, e) in cx.body.exprs.iter().enumerate() {
        let id = ExprId(i as u32);
        if !cx.decided(id) {
            continue;
        }
        match e {
            Expr::Construct { ty, .. } | Expr::Cast { ty, .. } => class_arguments(cx, ty, cx.range(id), &mut reports),
            Expr::Call { callee, .. } => function_arguments(cx, *callee, &mut reports),
            _ => {}
        }
    }
    for (at, message, hint) in reports {
        cx.report(Rule::TemplateArguments, at, message).hint(hint);
    }
    unmatched_calls(cx);
    deduction(cx);
    nontype_arguments(cx);
    deduced_classes(cx);
}

/// E1723: a class template named without arguments where its arguments cannot be
/// deduced ([dcl.type.class.deduct], [over.match.class.deduct]): as a parameter's type,
/// for a variable without an initializer, or with arguments from which no constructor
/// deduces every parameter (and the template has no deduction guides).
fn deduced_classes(cx: &mut RuleCx) {
    let mut found = Vec::new();
    for (i, l) in cx.body.locals.iter().enumerate() {
        let TypeBase::Path(p) = &l.ty.base else { continue };
        if p.global || p.segments.len() != 1 || p.segments[0].args.is_some() || !l.ty.ops.is_empty() {
            continue;
        }
        let name = &*p.segments[0].name;
        // the model lowers the name to a template without arguments
        let template = cx.infer.local_types.get(i).is_some_and(|t| {
            matches!(t.non_reference().strip().kind(), TyKind::Class { def, .. } if cx.defs.def(*def).generics.is_some())
        });
        if !template && !cx.tree.types.contains(name) {
            continue;
        }
        let Some((class, g)) = only_template(cx, name, true) else { continue };
        if g.parent.is_some() || g.params.iter().any(|p| p.pack) {
            continue;
        }
        if cx.defs.deduction_guides.iter().any(|gd| &*gd.name == name) {
            continue;
        }
        let Some(&at) = cx.map.local_ranges.get(i) else { continue };
        let problem = match (l.kind, l.init) {
            (crate::body::LocalKind::Param, _) => {
                format!("a parameter's type needs the template arguments of `{name}`")
            }
            (crate::body::LocalKind::Var, None) => {
                format!("`{name}` is a template: without an initializer its arguments cannot be deduced")
            }
            (crate::body::LocalKind::Var, Some(init)) => {
                let args: Vec<ExprId> = match cx.body.exprs.get(init.0 as usize) {
                    Some(Expr::InitList { elems }) => elems.clone(),
                    _ => vec![init],
                };
                let types: Vec<crate::ty::Ty> = args.iter().map(|a| cx.infer.type_of(*a).non_reference()).collect();
                if types
                    .iter()
                    .any(|t| t.is_uncertain() || !matches!(t.strip().kind(), TyKind::Scalar(_) | TyKind::Vector { .. }))
                {
                    continue;
                }
                let Some(inner) = cx.defs.inner_scope(class) else { continue };
                let ctors: Vec<&crate::defs::FunctionData> = cx
                    .defs
                    .lookup_in(inner, name)
                    .into_iter()
                    .filter_map(|c| match &cx.defs.def(c).kind {
                        DefKind::Function(f) if f.ret.is_none() && !f.qualified && !f.variadic => Some(&**f),
                        _ => None,
                    })
                    .collect();
                // with no constructor: an aggregate (deduced from its members in C++20, not here)
                if ctors.is_empty() {
                    continue;
                }
                let fitting: Vec<&&crate::defs::FunctionData> = ctors
                    .iter()
                    .filter(|f| {
                        (f.params.iter().filter(|p| !p.has_default).count()..=f.params.len()).contains(&args.len())
                    })
                    .collect();
                if fitting.is_empty() {
                    continue;
                }
                let reasons: Vec<Option<String>> =
                    fitting.iter().map(|f| deduce(cx, class, &g, f, &[], &types)).collect();
                match reasons.iter().find_map(|r| r.clone()) {
                    Some(reason) if reasons.iter().all(Option::is_some) => {
                        format!("the arguments of `{name}` cannot be deduced from this initializer: {reason}")
                    }
                    _ => continue,
                }
            }
            _ => continue,
        };
        found.push((at, problem, name.to_string()));
    }
    for (at, problem, name) in found {
        cx.report(Rule::TemplateArguments, at, problem).hint(format!("write the template arguments: `{name}<...>`"));
    }
}

/// E1726: a value template argument of a function template that is a variable whose
/// value is known only when the program runs (a parameter, a local that is not `const`),
/// or a floating-point constant for an integer parameter (a narrowing conversion, which
/// a converted constant expression may not make: [temp.arg.nontype]/2, [expr.const]/5).
fn nontype_arguments(cx: &mut RuleCx) {
    let mut found = Vec::new();
    for e in &cx.body.exprs {
        let Expr::Call { callee, .. } = e else { continue };
        let Some(Expr::Path(p)) = cx.body.exprs.get(callee.0 as usize) else { continue };
        if p.global || p.segments.len() != 1 || !cx.decided(*callee) {
            continue;
        }
        let seg = &p.segments[0];
        let Some(args) = &seg.args else { continue };
        let Some((_, g)) = only_template(cx, &seg.name, false) else { continue };
        let at = cx.range(*callee);
        for (a, gp) in args.iter().zip(&g.params) {
            let GenericKind::Value { ty, .. } = &gp.kind else { continue };
            if gp.pack {
                break;
            }
            let name = match a {
                TypeArgRef::Type(t) => match &t.base {
                    TypeBase::Path(path)
                        if !path.global
                            && path.segments.len() == 1
                            && path.segments[0].args.is_none()
                            && t.ops.is_empty() =>
                    {
                        path.segments[0].name.clone()
                    }
                    _ => continue,
                },
                TypeArgRef::Expr(text) if text.chars().all(|c| c.is_alphanumeric() || c == '_') => text.clone(),
                _ => continue,
            };
            let Some(local) = local_in_scope(cx, &name, at) else { continue };
            let l = &cx.body.locals[local];
            let integral = matches!(&ty.base, TypeBase::Builtin(b) if !b.contains("float") && !b.contains("half") && &**b != "auto")
                || matches!(&ty.base, TypeBase::Path(tp) if tp.segments.len() == 1
                    && crate::ty::Scalar::from_name(&tp.segments[0].name).is_some_and(|s| !s.is_float()));
            let local_ty = cx.infer.local_types.get(local).cloned().unwrap_or_else(crate::ty::Ty::unknown);
            if local_ty.is_uncertain() || !matches!(local_ty.non_reference().strip().kind(), TyKind::Scalar(_)) {
                continue;
            }
            let problem = match l.kind {
                crate::body::LocalKind::Param => {
                    format!("`{name}` is a parameter: its value is known only when the function runs")
                }
                crate::body::LocalKind::Var if !l.ty.cv.is_const => {
                    format!("`{name}` is a variable that is not `const`: it is not a constant expression")
                }
                crate::body::LocalKind::Var
                    if integral && matches!(local_ty.strip().kind(), TyKind::Scalar(s) if s.is_float()) =>
                {
                    format!(
                        "`{name}` is a `{}`; an integer template parameter takes no floating-point value",
                        local_ty.strip()
                    )
                }
                _ => continue,
            };
            found.push((at, problem, gp.name.clone()));
        }
    }
    for (at, problem, param) in found {
        cx.report(Rule::NotConstant, at, format!("the template argument for `{param}` must be a constant: {problem}"))
            .hint("use a `constexpr` value, or make it a function parameter instead of a template parameter");
    }
}

/// The local named `name` in scope at `at` (the innermost one declared before it).
fn local_in_scope(cx: &RuleCx, name: &str, at: msl_syntax::TextRange) -> Option<usize> {
    let mut best: Option<(usize, msl_syntax::TextSize)> = None;
    for (i, l) in cx.body.locals.iter().enumerate() {
        if &*l.name != name {
            continue;
        }
        let (Some(decl), Some(&end)) = (cx.map.local_ranges.get(i), cx.map.local_scope_ends.get(i)) else { continue };
        if decl.end() <= at.start() && at.end() <= end && best.is_none_or(|(_, s)| decl.start() > s) {
            best = Some((i, decl.start()));
        }
    }
    best.map(|(i, _)| i)
}

/// E1726: `if constexpr` whose condition reads a parameter or a variable that is not
/// `const` ([stmt.if]/2: the condition is a constant expression). Only where the variable
/// is an operand of operators (not under `sizeof`, a member access or a call).
pub(super) fn constexpr_conditions(cx: &mut RuleCx) {
    let mut found = Vec::new();
    for s in &cx.body.stmts {
        let crate::body::Stmt::If { cond: Some(c), constexpr: true, .. } = s else { continue };
        let mut stack = vec![*c];
        while let Some(e) = stack.pop() {
            match cx.body.exprs.get(e.0 as usize) {
                Some(Expr::Binary { lhs, rhs, .. }) => stack.extend([*lhs, *rhs]),
                Some(Expr::Unary { expr, op }) if !matches!(op, crate::body::UnaryOp::AddrOf) => stack.push(*expr),
                Some(Expr::Local(l)) => {
                    let Some(local) = cx.body.locals.get(l.0 as usize) else { continue };
                    // an object of a class may convert to a constant (`integral_constant`)
                    let number = cx.infer.local_types.get(l.0 as usize).is_some_and(|t| {
                        !t.is_uncertain()
                            && matches!(t.non_reference().strip().kind(), TyKind::Scalar(_) | TyKind::Vector { .. })
                    });
                    if !number {
                        continue;
                    }
                    let runtime = match local.kind {
                        crate::body::LocalKind::Param => true,
                        crate::body::LocalKind::Var => !local.ty.cv.is_const,
                        _ => false,
                    };
                    if runtime {
                        found.push((e, local.name.clone(), local.kind == crate::body::LocalKind::Param));
                    }
                }
                _ => {}
            }
        }
    }
    for (e, name, param) in found {
        let at = cx.range(e);
        let what = if param { "a parameter" } else { "a variable that is not `const`" };
        cx.report(Rule::NotConstant, at, format!("`if constexpr` needs a constant condition, but `{name}` is {what}"))
            .hint("use a plain `if`, or make the value a template parameter or a `constexpr` constant");
    }
}

/// E1724: a call of the unit's only function template of that name whose template
/// arguments cannot be deduced ([temp.deduct.call]): a parameter `T` (by value or
/// reference) given arguments of two types, a template parameter that no parameter
/// mentions and nothing gives explicitly, an explicit `T` that a non-`const` `T&`
/// cannot bind to, a pointer parameter in one address space given a pointer into
/// another. Every argument's type must be sure.
fn deduction(cx: &mut RuleCx) {
    let mut found = Vec::new();
    for (i, e) in cx.body.exprs.iter().enumerate() {
        let Expr::Call { callee, args } = e else { continue };
        let call = ExprId(i as u32);
        let Some(Expr::Path(p)) = cx.body.exprs.get(callee.0 as usize) else { continue };
        if p.global || p.segments.len() != 1 || !cx.decided(call) {
            continue;
        }
        // a call the model resolved to a function template, or did not resolve
        match cx.infer.resolutions.get(callee) {
            Some(crate::infer::Resolution::Def(d)) if cx.defs.def(*d).generics.is_some() => {}
            None if cx.infer.unresolved_calls.contains(&call) => {}
            _ => continue,
        }
        let seg = &p.segments[0];
        let Some((id, g)) = only_template(cx, &seg.name, false) else { continue };
        let DefKind::Function(f) = &cx.defs.def(id).kind else { continue };
        if g.parent.is_some() || g.params.iter().any(|p| p.pack) || f.variadic || cx.defs.owner_class(id).is_some() {
            continue;
        }
        let least = f.params.iter().filter(|p| !p.has_default).count();
        if !(least..=f.params.len()).contains(&args.len()) {
            continue;
        }
        let types: Vec<crate::ty::Ty> = args.iter().map(|a| cx.infer.type_of(*a).non_reference()).collect();
        if types.iter().any(|t| t.is_uncertain()) {
            continue;
        }
        let explicit = seg.args.as_deref().unwrap_or(&[]);
        if explicit.len() > g.params.len() {
            continue;
        }
        if let Some(problem) = deduce(cx, id, &g, f, explicit, &types) {
            found.push((*callee, seg.name.clone(), problem));
        }
    }
    for (callee, name, problem) in found {
        let at = cx.range(callee);
        let hint = if problem.starts_with(ENABLE_IF_REMOVES) {
            "pass an argument of a type the condition accepts, or declare an overload for this type"
        } else {
            "convert the arguments to one type, or give the template arguments explicitly (`f<float>(...)`)"
        };
        cx.report(Rule::NoMatchingCall, at, format!("`{name}` cannot be called with these arguments: {problem}"))
            .hint(hint);
    }
}

/// Why deduction fails, when it surely does.
fn deduce(
    cx: &RuleCx,
    id: DefId,
    g: &std::sync::Arc<Generics>,
    f: &crate::defs::FunctionData,
    explicit: &[TypeArgRef],
    args: &[crate::ty::Ty],
) -> Option<String> {
    let mut deduced: Vec<Option<(crate::ty::Ty, usize)>> = vec![None; g.params.len()];
    for (k, a) in explicit.iter().enumerate() {
        if let (TypeArgRef::Type(t), GenericKind::Type { .. }) = (a, &g.params[k].kind) {
            let lowered = t.lower(&crate::infer::Resolver::new(cx.defs, crate::defs::ScopeId::GLOBAL, None)).ty;
            if lowered.is_uncertain() {
                return None;
            }
            deduced[k] = Some((lowered, usize::MAX));
        }
    }
    for (i, (p, a)) in f.params.iter().zip(args).enumerate() {
        let TypeBase::Path(path) = &p.ty.base else { continue };
        if path.global || path.segments.len() != 1 || path.segments[0].args.is_some() {
            continue;
        }
        let Some(k) = g.params.iter().position(|gp| gp.name == path.segments[0].name) else { continue };
        if !matches!(g.params[k].kind, GenericKind::Type { .. }) {
            continue;
        }
        let a_stripped = a.strip();
        match p.ty.ops.as_slice() {
            [] | [TypeRefOp::Reference { rvalue: false }] => {
                let lvalue_ref = !p.ty.ops.is_empty() && !p.ty.cv.is_const;
                if !matches!(a_stripped.kind(), TyKind::Scalar(_) | TyKind::Vector { .. } | TyKind::Matrix { .. }) {
                    continue;
                }
                match &deduced[k] {
                    Some((t, usize::MAX)) if lvalue_ref && t.strip() != a_stripped => {
                        return Some(format!(
                            "a `{} &` cannot refer to argument {} of type `{a_stripped}`",
                            t.strip(),
                            i + 1
                        ));
                    }
                    Some((t, from)) if *from != usize::MAX && t.strip() != a_stripped => {
                        return Some(format!(
                            "`{}` would be `{}` from argument {} but `{a_stripped}` from argument {}",
                            g.params[k].name,
                            t.strip(),
                            from + 1,
                            i + 1
                        ));
                    }
                    Some(_) => {}
                    None => deduced[k] = Some((a_stripped, i)),
                }
            }
            [TypeRefOp::Pointer { .. }] => {
                let (Some(want), TyKind::Pointer { space: Some(have), .. }) = (p.ty.space, a_stripped.kind()) else {
                    continue;
                };
                if want != *have {
                    return Some(format!(
                        "argument {} points into `{}` memory, the parameter into `{}` memory",
                        i + 1,
                        have.keyword(),
                        want.keyword()
                    ));
                }
            }
            _ => {}
        }
    }
    // parameters nothing gives: not explicit, no default, named by no function parameter
    for (k, gp) in g.params.iter().enumerate() {
        let has_default = match &gp.kind {
            GenericKind::Type { default } => default.is_some(),
            GenericKind::Value { has_default, .. } => *has_default,
            GenericKind::Template => return None,
        };
        if k < explicit.len() || has_default || deduced[k].is_some() {
            continue;
        }
        if f.params.iter().any(|p| mentions(&p.ty, &gp.name)) {
            continue;
        }
        return Some(format!("nothing gives the template parameter `{}` (no argument has its type)", gp.name));
    }
    excluded_by_enable_if(cx, id, g, f, explicit.len(), &deduced)
}

/// How a failure of [`excluded_by_enable_if`] begins.
const ENABLE_IF_REMOVES: &str = "`enable_if` removes it";

/// SFINAE ([temp.deduct]/8): an `enable_if_t<C, X>` in the template's parameters (a
/// default) or in its return type names no type when `C` is false for the deduced
/// arguments, which removes the template from the call's candidates. Only judged when
/// every type parameter is a scalar deduced from an argument or given explicitly (other
/// than the ones `enable_if` defaults), and the condition evaluates.
fn excluded_by_enable_if(
    cx: &RuleCx,
    id: DefId,
    g: &std::sync::Arc<Generics>,
    f: &crate::defs::FunctionData,
    explicit: usize,
    deduced: &[Option<(crate::ty::Ty, usize)>],
) -> Option<String> {
    let mut bindings: rustc_hash::FxHashMap<std::sync::Arc<str>, crate::ty::Ty> = Default::default();
    let mut conditions: Vec<&TypeRef> = Vec::new();
    for (k, gp) in g.params.iter().enumerate() {
        match (&gp.kind, &deduced[k]) {
            (GenericKind::Type { .. }, Some((t, _))) if matches!(t.kind(), TyKind::Scalar(_)) => {
                bindings.insert(gp.name.clone(), t.clone());
            }
            (GenericKind::Type { default: Some(d) }, None) if k >= explicit && enable_if_condition(d).is_some() => {
                conditions.push(d)
            }
            (GenericKind::Value { ty, has_default: true }, _) if k >= explicit && enable_if_condition(ty).is_some() => {
                conditions.push(ty)
            }
            (GenericKind::Value { .. }, _) => {}
            _ => return None,
        }
    }
    conditions.extend(f.ret.as_ref().filter(|r| enable_if_condition(r).is_some()));
    if conditions.is_empty() {
        return None;
    }
    let mut env = crate::infer::Resolver::new(cx.defs, cx.defs.def(id).scope, Some(g.clone()));
    env.bindings = Some(std::sync::Arc::new(bindings.clone()));
    for c in conditions {
        let Some(text) = enable_if_condition(c) else { continue };
        if crate::ty::TypeEnv::const_value(&env, &text) != Some(0) {
            continue;
        }
        let mut args: Vec<String> = bindings.iter().map(|(n, t)| format!("{n} = {t}")).collect();
        args.sort();
        return Some(format!("{ENABLE_IF_REMOVES}, since `{text}` is false for {}", args.join(", ")));
    }
    None
}

/// The condition of `enable_if_t<C, X>` (or `enable_if<C, X>::type`, qualified by
/// `metal::` or not), as written.
fn enable_if_condition(t: &TypeRef) -> Option<std::sync::Arc<str>> {
    if !t.ops.is_empty() {
        return None;
    }
    let TypeBase::Path(p) = &t.base else { return None };
    let n = p.segments.len();
    let (seg, qualifiers) = match p.segments.last() {
        Some(last) if &*last.name == "enable_if_t" => (last, &p.segments[..n - 1]),
        Some(last) if &*last.name == "type" && n >= 2 && &*p.segments[n - 2].name == "enable_if" => {
            (&p.segments[n - 2], &p.segments[..n - 2])
        }
        _ => return None,
    };
    if !qualifiers.iter().all(|q| &*q.name == "metal" && q.args.is_none()) {
        return None;
    }
    match seg.args.as_deref()?.first()? {
        TypeArgRef::Expr(e) => Some(e.clone()),
        TypeArgRef::Value(v) => Some(v.to_string().into()),
        TypeArgRef::Type(_) => None,
    }
}

/// Whether a written type names `name` anywhere (in its arguments, array bounds, ...).
fn mentions(t: &TypeRef, name: &str) -> bool {
    let in_args = |args: &[TypeArgRef]| {
        args.iter().any(|a| match a {
            TypeArgRef::Type(t) => mentions(t, name),
            TypeArgRef::Expr(text) => text.split(|c: char| !c.is_alphanumeric() && c != '_').any(|w| w == name),
            TypeArgRef::Value(_) => false,
        })
    };
    let base = match &t.base {
        TypeBase::Path(p) => p.segments.iter().any(|s| &*s.name == name || s.args.as_deref().is_some_and(in_args)),
        TypeBase::Builtin(_) => false,
        _ => true,
    };
    base || t.ops.iter().any(|op| match op {
        TypeRefOp::Array(Some(len)) => format!("{len:?}").contains(name),
        TypeRefOp::Function { params, .. } => params.iter().any(|p| mentions(p, name)),
        _ => false,
    })
}

type Reports = Vec<(msl_syntax::TextRange, String, String)>;

/// The only definition named `name` in the unit, when it is a template of the kind asked.
fn only_template(cx: &RuleCx, name: &str, class: bool) -> Option<(DefId, std::sync::Arc<Generics>)> {
    if crate::ty::numeric_type(name).is_some() || cx.defs.declared_templates.iter().any(|n| &**n == name) {
        return None;
    }
    let mut found = None;
    for id in cx.defs.named(name) {
        let d = cx.defs.def(id);
        // a class's constructors carry its name
        if class && matches!(&d.kind, DefKind::Function(f) if f.ret.is_none()) && cx.defs.owner_class(id).is_some() {
            continue;
        }
        let fits = match &d.kind {
            DefKind::Class { pattern: None, .. } => class,
            DefKind::Function(_) => !class,
            _ => false,
        };
        // a second definition (an overload, a specialization, a namesake elsewhere): unsure
        if !fits || found.is_some() {
            return None;
        }
        found = Some((id, d.generics.clone()?));
    }
    let lib = msl_stdlib::Stdlib::get();
    if !lib.lookup(name).is_empty() || msl_syntax::is_library_name(name) {
        return None;
    }
    found
}

/// What parameters take: (least, most) arguments (`usize::MAX` with a pack).
fn counts(g: &Generics) -> (usize, usize) {
    let pack = g.params.iter().any(|p| p.pack);
    // the parameters before the first with a default (defaults come last) or the pack
    let required = g
        .params
        .iter()
        .take_while(|p| {
            !p.pack
                && match &p.kind {
                    GenericKind::Type { default } => default.is_none(),
                    GenericKind::Value { has_default, .. } => !has_default,
                    // a template template parameter's default is not kept
                    GenericKind::Template => false,
                }
        })
        .count();
    (required, if pack { usize::MAX } else { g.params.len() })
}

fn class_arguments(cx: &RuleCx, ty: &TypeRef, at: msl_syntax::TextRange, out: &mut Reports) {
    let TypeBase::Path(p) = &ty.base else { return };
    if p.global || p.segments.len() != 1 {
        return;
    }
    let seg = &p.segments[0];
    let Some((_, g)) = only_template(cx, &seg.name, true) else { return };
    let args: &[TypeArgRef] = seg.args.as_deref().unwrap_or(&[]);
    if seg.args.is_none() {
        // without arguments: class template argument deduction may apply (C++17)
        return;
    }
    let (least, most) = counts(&g);
    let name = &seg.name;
    if args.len() > most {
        out.push((
            at,
            format!("`{name}` takes at most {most} template argument{}, but {} were given", plural(most), args.len()),
            format!("remove the extra arguments of `{name}<...>`"),
        ));
        return;
    }
    if args.len() < least {
        out.push((
            at,
            format!("`{name}` needs {least} template argument{}, but {} given", plural(least), was_were(args.len())),
            format!("give every parameter of `{name}` without a default an argument"),
        ));
        return;
    }
    kinds(cx, name, &g, args, at, out);
}

fn kinds(cx: &RuleCx, name: &str, g: &Generics, args: &[TypeArgRef], at: msl_syntax::TextRange, out: &mut Reports) {
    for (k, (a, p)) in args.iter().zip(&g.params).enumerate() {
        if p.pack {
            return;
        }
        match (&p.kind, a) {
            (GenericKind::Value { .. }, TypeArgRef::Type(t)) if names_type(cx, t) => out.push((
                at,
                format!("template argument {} of `{name}` must be a value, not the type `{}`", k + 1, type_text(t)),
                format!("`{}` is a value parameter", p.name),
            )),
            (GenericKind::Template, TypeArgRef::Type(t)) if names_plain_class(cx, t) => out.push((
                at,
                format!(
                    "template argument {} of `{name}` must be a class template, but `{}` is a class",
                    k + 1,
                    type_text(t)
                ),
                format!("`{}` is a template template parameter: pass a template such as `S` of `template <typename T> struct S`", p.name),
            )),
            (GenericKind::Type { .. }, TypeArgRef::Value(v)) => out.push((
                at,
                format!("template argument {} of `{name}` must be a type, not the value `{v}`", k + 1),
                format!("`{}` is a type parameter", p.name),
            )),
            (GenericKind::Value { .. }, TypeArgRef::Type(t))
                if matches!(&t.base, TypeBase::Builtin(_)) && t.ops.is_empty() =>
            {
                out.push((
                    at,
                    format!("template argument {} of `{name}` must be a value, not a type", k + 1),
                    format!("`{}` is a value parameter", p.name),
                ))
            }
            _ => {}
        }
    }
}

/// `f<A, B, C>(...)` for a function template with fewer parameters.
fn function_arguments(cx: &RuleCx, callee: ExprId, out: &mut Reports) {
    let Some(Expr::Path(p)) = cx.body.exprs.get(callee.0 as usize) else { return };
    if p.global || p.segments.len() != 1 {
        return;
    }
    let seg = &p.segments[0];
    let Some(args) = &seg.args else { return };
    let Some((_, g)) = only_template(cx, &seg.name, false) else { return };
    let (_, most) = counts(&g);
    let name = &seg.name;
    if args.len() > most {
        out.push((
            cx.range(callee),
            format!("`{name}` takes at most {most} template argument{}, but {} were given", plural(most), args.len()),
            format!("remove the extra arguments of `{name}<...>`"),
        ));
    } else {
        kinds(cx, name, &g, args, cx.range(callee), out);
    }
}

/// A single name, as written.
fn single_name(t: &TypeRef) -> Option<&str> {
    let TypeBase::Path(p) = &t.base else { return None };
    (!p.global && p.segments.len() == 1 && p.segments[0].args.is_none() && t.ops.is_empty())
        .then(|| &*p.segments[0].name)
}

fn type_text(t: &TypeRef) -> String {
    single_name(t).map_or_else(|| "type".to_string(), str::to_string)
}

/// Whether a template argument written as a name surely names a type: a numeric type of
/// the library, or only classes of the unit (no variable, constant or enumerator).
fn names_type(cx: &RuleCx, t: &TypeRef) -> bool {
    let Some(name) = single_name(t) else { return false };
    let named = cx.defs.named(name);
    if named.is_empty() {
        return crate::ty::numeric_type(name).is_some() && !cx.tree.declared.contains(name);
    }
    named.iter().all(|&d| matches!(cx.defs.def(d).kind, DefKind::Class { .. }))
}

/// Whether a template argument names only classes of the unit that are no templates.
fn names_plain_class(cx: &RuleCx, t: &TypeRef) -> bool {
    let Some(name) = single_name(t) else { return false };
    let named = cx.defs.named(name);
    !named.is_empty()
        && named.iter().all(|&d| {
            let data = cx.defs.def(d);
            matches!(data.kind, DefKind::Class { pattern: None, .. }) && data.generics.is_none()
        })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn was_were(n: usize) -> String {
    if n == 1 { "1 was".into() } else { format!("{n} were") }
}

/// E1724: calls of the unit's functions that no declaration takes.
fn unmatched_calls(cx: &mut RuleCx) {
    let lib = msl_stdlib::Stdlib::get();
    let mut found = Vec::new();
    for &e in &cx.infer.unresolved_calls {
        let Some(Expr::Call { callee, args }) = cx.body.exprs.get(e.0 as usize) else { continue };
        let Some(Expr::Path(p)) = cx.body.exprs.get(callee.0 as usize) else { continue };
        if p.global || p.segments.len() != 1 || !cx.decided(e) {
            continue;
        }
        let name = &*p.segments[0].name;
        if !lib.lookup(name).is_empty() || msl_syntax::is_library_name(name) || name.starts_with("operator") {
            continue;
        }
        let types: Vec<crate::ty::Ty> = args.iter().map(|a| cx.infer.type_of(*a)).collect();
        // numbers only: where the model's overload resolution is complete
        let number =
            |t: &crate::ty::Ty| matches!(t.non_reference().strip().kind(), TyKind::Scalar(_) | TyKind::Vector { .. });
        if types.iter().any(|t| t.is_uncertain() || !number(t)) {
            continue;
        }
        let candidates: Vec<&crate::defs::DefData> = cx.defs.named(name).into_iter().map(|d| cx.defs.def(d)).collect();
        if candidates.is_empty() {
            continue;
        }
        let mut arity_fits = false;
        let mut templates = 0;
        let mut sure = true;
        for d in &candidates {
            let DefKind::Function(f) = &d.kind else {
                sure = false;
                break;
            };
            // members may be called through `this`, and a class's scope is not judged here
            if cx.defs.scope(d.scope).kind == crate::defs::ScopeKind::Class || f.variadic {
                sure = false;
                break;
            }
            // parameters of number types or of a template parameter, by value or reference
            let simple = f.params.iter().all(|p| {
                let by_value_or_ref =
                    p.ty.ops.is_empty() || matches!(p.ty.ops.as_slice(), [TypeRefOp::Reference { .. }]);
                let base = match &p.ty.base {
                    TypeBase::Builtin(_) => true,
                    TypeBase::Path(path) => {
                        path.segments.len() == 1
                            && path.segments[0].args.is_none()
                            && (crate::ty::numeric_type(&path.segments[0].name).is_some()
                                || d.generics.as_ref().is_some_and(|g| g.find(&path.segments[0].name).is_some()))
                    }
                    _ => false,
                };
                by_value_or_ref && base
            });
            if !simple {
                sure = false;
                break;
            }
            let least = f.params.iter().filter(|p| !p.has_default).count();
            let pack = d.generics.as_ref().is_some_and(|g| g.params.iter().any(|p| p.pack));
            if pack {
                sure = false;
                break;
            }
            if (least..=f.params.len()).contains(&args.len()) {
                arity_fits = true;
            }
            if d.generics.is_some() {
                templates += 1;
            }
        }
        // calls of functions that are no templates are the argument checks' (E1710)
        if !sure || !arity_fits || templates != candidates.len() {
            continue;
        }
        let listed: Vec<String> = types.iter().map(|t| format!("`{}`", t.non_reference())).collect();
        found.push((*callee, name.to_string(), listed.join(", "), templates == candidates.len()));
    }
    for (callee, name, listed, all_templates) in found {
        let at = cx.range(callee);
        let (message, hint) = if all_templates {
            (
                format!("no instance of the template `{name}` takes arguments of types {listed}"),
                "its template arguments cannot be deduced from these arguments consistently; convert the arguments to one type, or give the template arguments explicitly".to_string(),
            )
        } else {
            (
                format!("no declaration of `{name}` takes arguments of types {listed}"),
                format!("convert the arguments to the parameter types of `{name}`"),
            )
        };
        cx.report(Rule::NoMatchingCall, at, message).hint(hint);
    }
}

/// E1728: a function parameter pack named outside every expansion ([temp.variadic]/7: a
/// pack must be expanded with `...`, folded, or counted with `sizeof...`). Read from the
/// function's syntax: a use under an argument or initializer expansion, a fold, a
/// `sizeof`, a lambda or template arguments is left alone, as is a name the body
/// declares again.
pub(super) fn unexpanded_packs(cx: &mut RuleCx, syntax: Option<&SyntaxNode>) {
    use msl_syntax::ast::AstNode;
    let Some(syntax) = syntax else { return };
    let Some(f) = msl_syntax::ast::Function::cast(syntax.clone()) else { return };
    let Some(params) = f.param_list() else { return };
    let packs: Vec<String> = params
        .params()
        .filter(|p| {
            p.declarator().is_some_and(|d| d.syntax().descendants_with_tokens().any(|t| t.kind() == SyntaxKind::DOT3))
        })
        .filter_map(|p| p.name().map(|n| n.text()))
        .collect();
    if packs.is_empty() {
        return;
    }
    let Some(body) = f.body() else { return };
    let body = body.syntax().clone();
    if body.descendants().any(|d| d.kind() == SyntaxKind::ERROR) {
        return;
    }
    let redeclared = |name: &str| {
        body.descendants()
            .filter(|n| n.kind() == SyntaxKind::NAME && n.parent().is_some_and(|p| p.kind() == SyntaxKind::DECLARATOR))
            .any(|n| n.text() == name)
    };
    let packs: Vec<String> = packs.into_iter().filter(|p| !redeclared(p)).collect();
    for use_ in body.descendants().filter(|n| n.kind() == SyntaxKind::PATH_EXPR) {
        let mut idents = use_.children_with_tokens().filter_map(|e| e.into_token()).filter(|t| !t.kind().is_trivia());
        let (Some(ident), None) = (idents.next(), idents.next()) else { continue };
        if ident.kind() != SyntaxKind::IDENT || !packs.iter().any(|p| p == ident.text()) {
            continue;
        }
        let expanded = use_.ancestors().take_while(|a| a != &body).any(|a| {
            matches!(
                a.kind(),
                SyntaxKind::PACK_EXPANSION
                    | SyntaxKind::FOLD_EXPR
                    | SyntaxKind::SIZEOF_EXPR
                    | SyntaxKind::LAMBDA_EXPR
                    | SyntaxKind::TEMPLATE_ARG_LIST
            )
        });
        if expanded {
            continue;
        }
        let name = ident.text().to_string();
        cx.report(
            Rule::UnexpandedPack,
            ident.text_range(),
            format!("`{name}` is a parameter pack: it must be expanded with `...` where it is used"),
        )
        .hint(format!("pass it on as `{name}...`, or fold it, as in `({name} + ...)`"));
    }
}
