//! Checks of constant expressions: `static_assert` outside and inside functions and in
//! every instantiation the unit makes, and constant evaluation that exceeds its budget.

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
        for inst in crate::db::unit_instances(db, unit).iter() {
            let i = *inst.function(db).index(db) as usize;
            let start = starts.get(i).copied().unwrap_or_default();
            out.extend(
                instance_static_asserts(db, *inst)
                    .iter()
                    .map(|d| HirDiagnostic { range: d.range + start, ..d.clone() }),
            );
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
    let args = inst
        .args(db)
        .iter()
        .map(|(n, t)| format!("{n} = {}", crate::infer::display_bound(t)))
        .collect::<Vec<_>>()
        .join(", ");
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
    Some(HirDiagnostic { range, severity: Severity::Error, code, message, hint: None, fixes: Vec::new() })
}
