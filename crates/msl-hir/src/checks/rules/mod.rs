//! Rules on the semantic model: each family reads a function's lowered body and its
//! inference (types, resolutions) and never re-derives types from text. A rule owns its
//! code (a [`Rule`]), its messages and fixes; its documentation is in `codes.rs` and its
//! fixtures under `fixtures/check/`. Every family is registered in [`check`].
//!
//! The first rule holds here too: when the model does not know (a template, an unknown
//! type, an incomplete unit), a rule stays silent.

mod classes;
mod constructors;
mod instances;
mod library;
mod members;
mod metal;
mod operators;
mod program;
mod returns;
mod scopes;
mod templates;
mod types;
mod values;
mod writes;

pub(crate) use instances::check_instances;
pub(crate) use program::{BodyShift, Specialization, check_program, kept_over_body_edits};

use msl_syntax::{Severity, TextRange};

use super::{Fix, HirDiagnostic};
use crate::body::{Body, BodySourceMap, Expr, ExprId, Stmt, StmtId};
use crate::db::{Db, FunctionId};
use crate::defs::Defs;
use crate::infer::InferenceResult;
use crate::items::ItemTree;
use crate::ty::DefId;

/// A rule of the model: its code and severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rule {
    /// A local used before its declaration or outside the block that declares it.
    NotInScope,
    /// A local or parameter declared twice in one scope.
    Redeclared,
    /// A write to a temporary value (the result of arithmetic or of a call).
    NotAssignable,
    /// A write through a reference or pointer to `const`, or in a `const` member function.
    ConstWrite,
    /// A vector (or anything else that is no single `bool`) as a statement's condition.
    ConditionType,
    /// A call of a variable that is no function.
    NotCallable,
    /// The result of a `void` function used as a value.
    VoidValue,
    /// `as_type` between types of different sizes.
    AsTypeSize,
    /// A private or protected member named outside its class.
    Inaccessible,
    /// A non-static member used without an object.
    NoObject,
    /// A member function called on an object whose qualifiers or address space it does
    /// not take.
    ObjectQualifiers,
    /// Template arguments of the wrong number or kind.
    TemplateArguments,
    /// A call of the unit's functions that no declaration takes.
    NoMatchingCall,
    /// `return;` in a function that returns a value.
    ReturnWithoutValue,
    /// `return e;` in a function that returns `void`.
    ReturnValueFromVoid,
    /// An operator between operands it does not take (`%` or a bit operator on floats).
    OperandTypes,
    /// A member that the class does not have.
    NoSuchMember,
    /// A type name that nothing declares.
    UnknownType,
    /// A library call whose arguments no form of the function takes.
    LibraryArguments,
    /// A texture variable of a function that may be written.
    LocalTextureAccess,
    /// A value used where no implicit conversion to the target type exists.
    NoConversion,
    /// An object of a class initialized in a way no constructor of the class takes.
    NoConstructor,
    /// A value that must be a constant expression and is not.
    NotConstant,
    /// A call that chooses a deleted function.
    DeletedFunction,
    /// A brace initializer with more values than the aggregate has members.
    ExtraInitializer,
    /// A function parameter pack used without being expanded.
    UnexpandedPack,
    /// A name that lookup finds in two namespaces (through using-directives).
    Ambiguous,
}

impl Rule {
    pub(crate) fn code(self) -> &'static str {
        match self {
            Rule::NotInScope => "E1401",
            Rule::Redeclared => "E1406",
            Rule::NotAssignable => "E1715",
            Rule::ConstWrite => "E1704",
            Rule::ConditionType => "E1716",
            Rule::NotCallable => "E1717",
            Rule::VoidValue => "E1718",
            Rule::AsTypeSize => "E1719",
            Rule::Inaccessible => "E1720",
            Rule::NoObject => "E1721",
            Rule::ObjectQualifiers => "E1722",
            Rule::TemplateArguments => "E1723",
            Rule::NoMatchingCall => "E1724",
            Rule::ReturnWithoutValue => "E1712",
            Rule::ReturnValueFromVoid => "E1713",
            Rule::OperandTypes => "E1703",
            Rule::NoSuchMember => "E1714",
            Rule::UnknownType => "E1405",
            Rule::LibraryArguments => "E1708",
            Rule::LocalTextureAccess => "E1608",
            Rule::NoConversion => "E1702",
            Rule::NoConstructor => "E1725",
            Rule::NotConstant => "E1726",
            Rule::DeletedFunction => "E1727",
            Rule::ExtraInitializer => "E1709",
            Rule::UnexpandedPack => "E1728",
            Rule::Ambiguous => "E1413",
        }
    }

    pub(crate) fn severity(self) -> Severity {
        match self {
            Rule::NotInScope
            | Rule::Redeclared
            | Rule::NotAssignable
            | Rule::ConstWrite
            | Rule::ConditionType
            | Rule::NotCallable
            | Rule::VoidValue
            | Rule::AsTypeSize
            | Rule::Inaccessible
            | Rule::NoObject
            | Rule::ObjectQualifiers
            | Rule::TemplateArguments
            | Rule::NoMatchingCall
            | Rule::ReturnWithoutValue
            | Rule::ReturnValueFromVoid
            | Rule::OperandTypes
            | Rule::NoSuchMember
            | Rule::UnknownType
            | Rule::LibraryArguments
            | Rule::LocalTextureAccess
            | Rule::NoConversion
            | Rule::NoConstructor
            | Rule::NotConstant
            | Rule::DeletedFunction
            | Rule::ExtraInitializer
            | Rule::UnexpandedPack
            | Rule::Ambiguous => Severity::Error,
        }
    }
}

/// What the rules of one function read.
pub(crate) struct RuleCx<'a> {
    pub body: &'a Body,
    pub map: &'a BodySourceMap,
    pub infer: &'a InferenceResult,
    pub defs: &'a Defs,
    pub tree: &'a ItemTree,
    /// The function's definition, when the unit's definitions have it.
    pub def: Option<DefId>,
    /// Every name the function may use is known to the unit (it is complete, the
    /// function is no member of a class with bases nor defined outside its class).
    pub names_checkable: bool,
    /// Every header of the unit was found and is modelled, and the function is no member
    /// of a class with bases: a declaration the definitions do not list does not exist.
    pub unit_complete: bool,
    /// Statements inside lambdas (their `return`s are the lambda's).
    pub in_lambda: Vec<bool>,
    out: Vec<HirDiagnostic>,
}

/// A diagnostic being made: `cx.report(rule, range, message).hint(..).fix(..)`.
pub(crate) struct Report<'r>(&'r mut HirDiagnostic);

impl Report<'_> {
    pub(crate) fn hint(self, hint: impl Into<String>) -> Self {
        self.0.hint = Some(hint.into());
        self
    }

    pub(crate) fn fix(self, fix: Fix) -> Self {
        self.0.fixes.push(fix);
        self
    }

    pub(crate) fn related(self, range: TextRange, message: impl Into<String>) -> Self {
        self.0.related.push((range, message.into()));
        self
    }
}

impl<'a> RuleCx<'a> {
    /// The context of a function's rules, with `infer` the inference they read (of the
    /// function, or of one of its instantiations).
    pub(crate) fn new(
        db: &'a dyn Db,
        function: FunctionId<'a>,
        infer: &'a InferenceResult,
        names_checkable: bool,
        unit_complete: bool,
    ) -> RuleCx<'a> {
        let unit = *function.unit(db);
        let (body, map) = &**crate::db::function_body(db, function);
        let defs = crate::db::unit_defs(db, unit);
        RuleCx {
            body,
            map,
            infer,
            defs,
            tree: crate::item_tree(db, unit),
            def: defs.function_defs.get(*function.index(db) as usize).copied().flatten(),
            names_checkable,
            unit_complete,
            in_lambda: lambda_statements(body),
            out: Vec::new(),
        }
    }

    pub(crate) fn report(&mut self, rule: Rule, range: TextRange, message: impl Into<String>) -> Report<'_> {
        self.out.push(HirDiagnostic {
            range,
            severity: rule.severity(),
            code: rule.code(),
            message: message.into(),
            hint: None,
            fixes: Vec::new(),
            related: Vec::new(),
        });
        let last = self.out.len() - 1;
        Report(&mut self.out[last])
    }

    /// The range of an expression (relative to the function's start).
    pub(crate) fn range(&self, e: ExprId) -> TextRange {
        self.map.expr_ranges[e.0 as usize]
    }

    /// The range of `name` where it ends the expression `e` (a member's name in `s.m`, the
    /// last segment of a path); the whole expression when it is shorter.
    pub(crate) fn name_range(&self, e: ExprId, name: &str) -> TextRange {
        let range = self.range(e);
        let len = msl_syntax::TextSize::of(name);
        if !name.is_empty() && range.len() >= len { TextRange::new(range.end() - len, range.end()) } else { range }
    }

    /// Whether the model is sure of what an expression is: inferred, not discarded, not
    /// in a branch of an undecided `if constexpr`.
    pub(crate) fn decided(&self, e: ExprId) -> bool {
        !self.infer.is_discarded(e)
    }
}

/// Runs every rule family on a function. Ranges are relative to the function's start.
pub(crate) fn check(
    db: &dyn Db,
    function: FunctionId<'_>,
    names_checkable: bool,
    unit_complete: bool,
) -> Vec<HirDiagnostic> {
    if crate::db::function_body(db, function).0.root.is_none() {
        return Vec::new();
    }
    let infer = crate::db::infer_function(db, function);
    let mut cx = RuleCx::new(db, function, infer, names_checkable, unit_complete);
    // a branch of an `if constexpr` whose condition is not known may be discarded when
    // the function is compiled: then nothing in the body is sure
    templates::constexpr_conditions(&mut cx);
    if !infer.undecided.is_empty() {
        return cx.out;
    }
    let syntax =
        crate::db::function_green(db, function).as_ref().map(|g| msl_syntax::SyntaxNode::new_root(g.0.clone()));
    scopes::check(&mut cx, syntax.as_ref());
    returns::check(&mut cx);
    operators::check(&mut cx);
    members::check(&mut cx);
    writes::check(&mut cx);
    values::check(&mut cx);
    values::as_type_sizes(&mut cx);
    classes::check(&mut cx);
    constructors::check(&mut cx, syntax.as_ref());
    templates::check(&mut cx);
    library::check(&mut cx);
    metal::check(&mut cx);
    types::check(&mut cx, syntax.as_ref());
    dependent_names(&mut cx, syntax.as_ref());
    templates::unexpanded_packs(&mut cx, syntax.as_ref());
    cx.out
}

/// E1412 in the body of a template (the declarations around it are judged with the unit,
/// see `program.rs`).
fn dependent_names(cx: &mut RuleCx, syntax: Option<&msl_syntax::SyntaxNode>) {
    let (Some(syntax), Some(def)) = (syntax, cx.def) else { return };
    let mut names: Vec<String> = Vec::new();
    let mut generics = cx.defs.def(def).generics.as_deref();
    while let Some(g) = generics {
        names.extend(
            g.params
                .iter()
                .filter(|p| matches!(p.kind, crate::defs::GenericKind::Type { .. }))
                .map(|p| p.name.to_string()),
        );
        generics = g.parent.as_deref();
    }
    if names.is_empty() {
        return;
    }
    for (range, name) in program::body_dependent_types(syntax.green(), &names) {
        cx.out.push(program::missing_typename_finding(range, &name));
    }
}

/// For each statement, whether it lies in a lambda's body.
fn lambda_statements(body: &Body) -> Vec<bool> {
    let mut inside = vec![false; body.stmts.len()];
    for e in &body.exprs {
        if let Expr::Lambda { body: Some(s), .. } = e {
            mark(body, *s, &mut inside);
        }
    }
    inside
}

fn mark(body: &Body, s: StmtId, inside: &mut [bool]) {
    let mut stack = vec![s];
    while let Some(s) = stack.pop() {
        let Some(slot) = inside.get_mut(s.0 as usize) else { continue };
        if *slot {
            continue;
        }
        *slot = true;
        stack.extend(child_stmts(&body.stmts[s.0 as usize]));
    }
}

/// The statements directly inside a statement.
pub(crate) fn child_stmts(s: &Stmt) -> Vec<StmtId> {
    match s {
        Stmt::Block(v) => v.clone(),
        Stmt::If { init, then, other, .. } => [*init, *then, *other].into_iter().flatten().collect(),
        Stmt::While { body, .. } | Stmt::Do { body, .. } | Stmt::RangeFor { body, .. } => {
            body.iter().copied().collect()
        }
        Stmt::For { init, body, .. } | Stmt::Switch { init, body, .. } => {
            [*init, *body].into_iter().flatten().collect()
        }
        _ => Vec::new(),
    }
}
