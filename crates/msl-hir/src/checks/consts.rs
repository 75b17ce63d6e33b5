//! Checks of constant expressions: `static_assert` outside and inside functions and in
//! every instantiation the unit makes (with the place that instantiates it as related),
//! constant evaluation that exceeds its budget, and template instantiations that run away.

use std::sync::Arc;

use msl_syntax::{Severity, TextRange};

use super::HirDiagnostic;
use crate::body::{Body, BodySourceMap, Stmt};
use crate::consteval::{EvalError, Evaluator};
use crate::db::{Db, FunctionId, Instance, Unit};
use crate::infer::Resolver;

/// The failed `static_assert`s of a unit; ranges are tree ranges.
pub fn check_static_asserts(db: &dyn Db, unit: Unit) -> Vec<HirDiagnostic> {
    if !may_assert(db, unit) {
        return Vec::new();
    }
    let parse = crate::db::parse_unit(db, unit);
    let mut out = Vec::new();
    let failed = namespace_static_asserts(db, unit);
    if !failed.is_empty() {
        let sources = crate::db::unit_def_source(db, unit);
        for (i, d) in failed.iter() {
            if let Some(&range) = sources.static_asserts.get(*i) {
                out.push(HirDiagnostic { range, ..d.clone() });
            }
        }
    }
    let starts = crate::db::function_offsets(parse.green());
    let mut in_templates = false;
    for (i, f) in crate::db::functions(db, unit).into_iter().enumerate() {
        let (template, found) = &**function_static_asserts(db, f);
        in_templates |= *template;
        let start = starts.get(i).copied().unwrap_or_default();
        out.extend(found.iter().map(|d| HirDiagnostic { range: d.range + start, ..d.clone() }));
    }
    // each instantiation, with what its parameters stand for in the message (made only
    // when a template asserts something)
    if in_templates {
        let instances = crate::db::assert_instances(db, unit);
        for (inst, site) in instances.list.iter().zip(&instances.sites) {
            let i = *inst.function(db).index(db) as usize;
            let start = starts.get(i).copied().unwrap_or_default();
            let related: Vec<(TextRange, String)> = site_range(db, unit, &starts, *site)
                .map(|r| (r, "instantiated here".to_string()))
                .into_iter()
                .collect();
            out.extend(instance_static_asserts(db, *inst).iter().map(|d| HirDiagnostic {
                range: d.range + start,
                related: related.clone(),
                ..d.clone()
            }));
        }
    }
    out.sort_by_key(|d| (d.range.start(), d.message.clone()));
    out.dedup_by(|a, b| a.range == b.range && a.message == b.message);
    out
}

/// Whether some file of the unit mentions `static_assert` (most assert nothing, and then
/// nothing here is computed).
#[salsa::tracked]
pub fn may_assert(db: &dyn Db, unit: Unit) -> bool {
    crate::db::parse_unit(db, unit).files().iter().any(|f| f.text.contains("static_assert"))
}

/// The resolver of function `f`'s definition, with `bindings` for an instantiation.
fn function_resolver<'a>(
    defs: &'a crate::defs::Defs,
    f: u32,
    bindings: &[(Arc<str>, crate::ty::Ty)],
) -> Option<Resolver<'a>> {
    let def = (*defs.function_defs.get(f as usize)?)?;
    let d = defs.def(def);
    let r = Resolver::new(defs, d.scope, d.generics.clone());
    Some(if bindings.is_empty() { r } else { r.with_bindings(bindings) })
}

/// The failed `static_assert`s outside functions, by their number among the unit's
/// (their places are in the source map). Depends on the definitions only.
#[salsa::tracked(returns(ref))]
pub fn namespace_static_asserts(db: &dyn Db, unit: Unit) -> Arc<Vec<(usize, HirDiagnostic)>> {
    let defs = crate::db::unit_defs(db, unit);
    let mut out = Vec::new();
    for (i, a) in defs.static_asserts.iter().enumerate() {
        // in a class template: checked when instantiated
        if a.generics.is_some() {
            continue;
        }
        let r = Resolver::new(defs, a.scope, None);
        let result = Evaluator::new(&r).eval_const(&a.cond);
        if let Some(d) = judge(result, a.message.as_deref(), TextRange::default(), None) {
            out.push((i, d));
        }
    }
    Arc::new(out)
}

/// The failed `static_assert`s of a function's body (ranges relative to its start), and
/// whether it is a template that asserts something (checked in its instantiations).
#[salsa::tracked(returns(ref))]
pub fn function_static_asserts<'db>(db: &'db dyn Db, f: FunctionId<'db>) -> Arc<(bool, Vec<HirDiagnostic>)> {
    // only the bodies that assert something are lowered here
    let asserts = crate::db::function_green(db, f)
        .as_ref()
        .is_some_and(|g| green_has(&g.0, msl_syntax::SyntaxKind::STATIC_ASSERT_KW));
    if !asserts {
        return Arc::new((false, Vec::new()));
    }
    let result = crate::db::infer_function(db, f);
    if result.in_template {
        return Arc::new((true, Vec::new()));
    }
    let defs = crate::db::unit_defs(db, *f.unit(db));
    let Some(r) = function_resolver(defs, *f.index(db), &[]) else { return Arc::new((false, Vec::new())) };
    let (body, map) = &**crate::db::function_body(db, f);
    let mut out = Vec::new();
    body_asserts(&r, body, map, &[&result.discarded[..], &result.undecided[..]].concat(), 0.into(), None, &mut out);
    Arc::new((false, out))
}

/// The failed `static_assert`s of an instantiation (ranges relative to the template's
/// start).
#[salsa::tracked(returns(ref))]
pub fn instance_static_asserts<'db>(db: &'db dyn Db, inst: Instance<'db>) -> Arc<Vec<HirDiagnostic>> {
    let f = *inst.function(db);
    if !function_static_asserts(db, f).0 {
        return Arc::new(Vec::new());
    }
    let defs = crate::db::unit_defs(db, *f.unit(db));
    let Some(r) = function_resolver(defs, *f.index(db), inst.args(db)) else { return Arc::new(Vec::new()) };
    let (body, map) = &**crate::db::function_body(db, f);
    let result = crate::db::infer_instance(db, inst);
    let args = shown_args(inst.args(db));
    let mut out = Vec::new();
    body_asserts(
        &r,
        body,
        map,
        &[&result.discarded[..], &result.undecided[..]].concat(),
        0.into(),
        Some(&args),
        &mut out,
    );
    Arc::new(out)
}

/// Whether a green tree holds a token of `kind`.
fn green_has(node: &rowan::GreenNodeData, kind: msl_syntax::SyntaxKind) -> bool {
    let raw = rowan::SyntaxKind(kind as u16);
    node.children().any(|c| match c {
        rowan::NodeOrToken::Node(n) => green_has(n, kind),
        rowan::NodeOrToken::Token(t) => t.kind() == raw,
    })
}

fn body_asserts(
    r: &Resolver<'_>,
    body: &Body,
    map: &BodySourceMap,
    discarded: &[crate::body::StmtId],
    start: msl_syntax::TextSize,
    instance: Option<&str>,
    out: &mut Vec<HirDiagnostic>,
) {
    let skipped: Vec<usize> = discarded.iter().flat_map(|s| body.stmts_within(*s)).map(|s| s.0 as usize).collect();
    for (k, s) in body.stmts.iter().enumerate() {
        let Stmt::StaticAssert { cond: Some(c), message } = s else { continue };
        if skipped.contains(&k) {
            continue;
        }
        let Some(&range) = map.stmt_ranges.get(k) else { continue };
        let result = Evaluator::new(r).eval(body, *c);
        if let Some(d) = judge(result, message.as_deref(), range + start, instance) {
            out.push(d);
        }
    }
}

fn judge(
    result: Result<i64, EvalError>,
    message: Option<&str>,
    range: TextRange,
    instance: Option<&str>,
) -> Option<HirDiagnostic> {
    let within =
        instance.filter(|a| !a.is_empty()).map(|a| format!(" (in the instantiation with {a})")).unwrap_or_default();
    let (code, message) = match result {
        Ok(0) => (
            "E1801",
            match message.filter(|m| !m.is_empty()) {
                Some(m) => format!("static assertion failed{within}: {m}"),
                None => format!("static assertion failed{within}"),
            },
        ),
        Err(EvalError::Steps) => (
            "E1802",
            format!(
                "constant evaluation stopped after {} steps{within}: a loop that does not end?",
                crate::consteval::STEP_BUDGET
            ),
        ),
        Err(EvalError::Depth) => (
            "E1802",
            format!(
                "constant evaluation stopped at {} nested calls{within}: a recursion without a base case?",
                crate::consteval::DEPTH_BUDGET
            ),
        ),
        Err(EvalError::DivideByZero) => ("E1803", format!("division by zero while computing a constant{within}")),
        _ => return None,
    };
    Some(HirDiagnostic {
        range,
        severity: Severity::Error,
        code,
        message,
        hint: None,
        fixes: Vec::new(),
        related: Vec::new(),
    })
}

/// What an instantiation's parameters stand for (`T = float, N = 4`), cut short when long
/// (arguments that grow at each step can be thousands of characters).
pub(crate) fn shown_args(args: &[(Arc<str>, crate::ty::Ty)]) -> String {
    const LIMIT: usize = 160;
    let text =
        args.iter().map(|(n, t)| format!("{n} = {}", crate::infer::display_bound(t))).collect::<Vec<_>>().join(", ");
    match text.char_indices().nth(LIMIT) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// The tree range of the expression at `site`.
pub(crate) fn site_range(
    db: &dyn Db,
    unit: Unit,
    starts: &[msl_syntax::TextSize],
    site: Option<crate::db::InstanceSite>,
) -> Option<TextRange> {
    let site = site?;
    let f = FunctionId::new(db, unit, site.function);
    let (_, map) = &**crate::db::function_body(db, f);
    Some(*map.expr_ranges.get(site.at.0 as usize)? + *starts.get(site.function as usize)?)
}

/// Templates that instantiate themselves without end (E1804), and constants of the
/// unit's namespaces whose evaluation runs out of budget (E1802); ranges are tree ranges.
/// Instantiations are followed only when the unit's function templates may reach one
/// another in a cycle (see [`may_run_away`]) or a template asserts something.
pub fn check_runaway(db: &dyn Db, unit: Unit) -> Vec<HirDiagnostic> {
    let mut out = Vec::new();
    let limits = namespace_constant_limits(db, unit);
    if !limits.is_empty() {
        let sources = crate::db::unit_def_source(db, unit);
        for (id, d) in limits.iter() {
            if let Some(s) = sources.get(*id) {
                out.push(HirDiagnostic { range: s.name, ..d.clone() });
            }
        }
    }
    if !*may_run_away(db, unit) {
        return out;
    }
    let instances = crate::db::unit_instances(db, unit);
    if instances.runaways.is_empty() {
        return out;
    }
    let parse = crate::db::parse_unit(db, unit);
    let starts = crate::db::function_offsets(parse.green());
    let defs = crate::db::unit_defs(db, unit);
    for r in &instances.runaways {
        let args = shown_args(&r.args);
        let name = &defs.def(r.def).name;
        let message = if r.depth {
            format!(
                "template instantiations nested more than {} deep: `{name}` with {args} asks for one more \
                 (a recursion on template arguments that never ends?)",
                crate::db::MAX_INSTANCE_DEPTH
            )
        } else {
            format!(
                "more than {} template instantiations: `{name}` with {args} is one too many \
                 (template arguments that grow with every call?)",
                crate::db::MAX_INSTANCES
            )
        };
        let Some(range) = site_range(db, unit, &starts, r.site) else { continue };
        let related = match site_range(db, unit, &starts, r.root) {
            Some(root) if r.root != r.site => vec![(root, "the chain of instantiations starts here".to_string())],
            _ => Vec::new(),
        };
        out.push(HirDiagnostic {
            range,
            severity: Severity::Error,
            code: "E1804",
            message,
            hint: None,
            fixes: Vec::new(),
            related,
        });
    }
    out
}

/// Whether the unit's function templates may call one another in a cycle (a template
/// whose body names a template that names ... the first): only then can instantiations
/// run away. Read from the names in the templates' bodies, so it errs on the side of yes.
#[salsa::tracked]
pub fn may_run_away(db: &dyn Db, unit: Unit) -> bool {
    let tree = crate::db::item_tree(db, unit);
    // each name of a function template (overloads share one)
    let mut templates: rustc_hash::FxHashMap<&str, usize> = rustc_hash::FxHashMap::default();
    for f in tree.functions.iter().filter(|f| f.context.template) {
        let next = templates.len();
        templates.entry(f.name.as_str()).or_insert(next);
    }
    if templates.is_empty() {
        return false;
    }
    // an edge from each template name to the template names its bodies mention
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); templates.len()];
    for (i, f) in tree.functions.iter().enumerate() {
        let Some(&from) = f.context.template.then(|| templates.get(f.name.as_str())).flatten() else { continue };
        for name in function_names(db, FunctionId::new(db, unit, i as u32)).iter() {
            if let Some(&to) = templates.get(&**name) {
                edges[from].push(to);
            }
        }
    }
    // a cycle: a depth-first walk meets a name still on its path
    let mut state = vec![0u8; edges.len()];
    for s in 0..edges.len() {
        if state[s] != 0 {
            continue;
        }
        let mut path: Vec<(usize, usize)> = vec![(s, 0)];
        state[s] = 1;
        while let Some((n, k)) = path.last_mut() {
            let n = *n;
            if let Some(&next) = edges[n].get(*k) {
                *k += 1;
                match state[next] {
                    0 => {
                        state[next] = 1;
                        path.push((next, 0));
                    }
                    1 => return true,
                    _ => {}
                }
            } else {
                state[n] = 2;
                path.pop();
            }
        }
    }
    false
}

/// The unit's functions (by number) that may lead to a template asserting something:
/// those templates, and every function whose body names one of them or names a template
/// that does, and so on (see [`functions_reaching`]); the instantiations of the rest
/// cannot reach an assertion.
#[salsa::tracked(returns(ref))]
pub fn functions_reaching_asserts(db: &dyn Db, unit: Unit) -> Arc<Vec<u32>> {
    let list = crate::db::functions(db, unit);
    let targets: Vec<bool> = list.iter().map(|f| function_static_asserts(db, *f).0).collect();
    let reaching = functions_reaching(db, unit, &targets, |_| true);
    Arc::new((0..list.len() as u32).filter(|i| reaching[*i as usize]).collect())
}

/// Which of the unit's functions may lead to one of `targets` (by number): the targets,
/// and every function `may_follow` allows whose body names one of them, or names a
/// template that does, and so on. Read from the names in the bodies, so it errs on the
/// side of more.
pub(crate) fn functions_reaching(
    db: &dyn Db,
    unit: Unit,
    targets: &[bool],
    may_follow: impl Fn(usize) -> bool,
) -> Vec<bool> {
    let tree = crate::db::item_tree(db, unit);
    let list = crate::db::functions(db, unit);
    let mut names: rustc_hash::FxHashSet<&str> = rustc_hash::FxHashSet::default();
    let mut reaching = vec![false; list.len()];
    for (i, _) in targets.iter().enumerate().filter(|(_, t)| **t) {
        reaching[i] = true;
        if let Some(item) = tree.functions.get(i) {
            names.insert(item.name.as_str());
        }
    }
    let mut changed = !names.is_empty();
    while changed {
        changed = false;
        for (i, f) in list.iter().enumerate() {
            if reaching[i] || !may_follow(i) || !function_names(db, *f).iter().any(|n| names.contains(&**n)) {
                continue;
            }
            reaching[i] = true;
            changed = true;
            if let Some(item) = tree.functions.get(i).filter(|item| item.context.template) {
                names.insert(item.name.as_str());
            }
        }
    }
    reaching
}

/// The names a function's body calls or names with template arguments (an identifier
/// followed by `(` or `<`), each once; not its own name in its declaration. Kept per
/// function, so an edit reads again only the function it changes.
#[salsa::tracked(returns(ref))]
pub fn function_names<'db>(db: &'db dyn Db, f: FunctionId<'db>) -> Arc<Vec<Arc<str>>> {
    use msl_syntax::SyntaxKind as K;
    let Some(g) = crate::db::function_green(db, f) else { return Arc::default() };
    let mut names: rustc_hash::FxHashSet<&str> = rustc_hash::FxHashSet::default();
    // the body and a constructor's initializers: what the function does
    for part in g.0.children().filter_map(|c| c.into_node()) {
        let kind = K::from(part.kind().0);
        if matches!(kind, K::COMPOUND_STMT | K::CTOR_INITIALIZER) {
            let mut pending: Option<&str> = None;
            green_names(part, &mut pending, &mut names);
        }
    }
    let mut out: Vec<Arc<str>> = names.into_iter().map(Arc::from).collect();
    out.sort();
    Arc::new(out)
}

/// The identifiers of a green tree followed by `(` or `<` (trivia between them ignored),
/// walked without building syntax nodes. `pending` is the identifier just seen.
fn green_names<'g>(
    node: &'g rowan::GreenNodeData,
    pending: &mut Option<&'g str>,
    names: &mut rustc_hash::FxHashSet<&'g str>,
) {
    use msl_syntax::SyntaxKind as K;
    for c in node.children() {
        match c {
            rowan::NodeOrToken::Node(n) => green_names(n, pending, names),
            rowan::NodeOrToken::Token(t) => {
                let kind = K::from(t.kind().0);
                if kind.is_trivia() {
                    continue;
                }
                if let Some(name) = pending.take()
                    && matches!(kind, K::L_PAREN | K::L_ANGLE)
                {
                    names.insert(name);
                }
                if kind == K::IDENT {
                    *pending = Some(t.text());
                }
            }
        }
    }
}

/// The constants of the unit's namespaces (`constexpr` and `constant` variables outside
/// classes and templates) whose evaluation runs out of budget: the compiler must compute
/// them, so a runaway is an error at the variable. Depends on the definitions only (the
/// ranges are left empty: the variable's place is in the source map).
#[salsa::tracked(returns(ref))]
pub fn namespace_constant_limits(db: &dyn Db, unit: Unit) -> Arc<Vec<(crate::ty::DefId, HirDiagnostic)>> {
    use crate::defs::{DefKind, ScopeKind};
    let defs = crate::db::unit_defs(db, unit);
    let mut out = Vec::new();
    for (k, d) in defs.defs.iter().enumerate() {
        let DefKind::Variable { init: Some(_), .. } = &d.kind else { continue };
        if d.generics.is_some() || !matches!(defs.scope(d.scope).kind, ScopeKind::Namespace | ScopeKind::Global) {
            continue;
        }
        let id = crate::ty::DefId(k as u32);
        let r = Resolver::new(defs, d.scope, None);
        let result = Evaluator::new(&r).def_value(id);
        if !result.is_err_and(|e| e.is_budget()) {
            continue;
        }
        if let Some(d) = judge(result, None, TextRange::default(), None) {
            out.push((id, HirDiagnostic { message: format!("`{}`: {}", defs.def(id).name, d.message), ..d }));
        }
    }
    Arc::new(out)
}
