//! Types of declarations and expressions inside one function: the parameters and locals
//! (scope-aware), and a bottom-up typing of expressions from them, the unit's item tree
//! (structs, functions, aliases) and the library. Every answer is sure or absent.

use msl_syntax::ast::{self, AstNode};
use msl_syntax::{SyntaxKind, SyntaxNode, TextRange, TextSize};
use rustc_hash::{FxHashMap, FxHashSet};

use super::ty::{Space, Target, Texture, Ty, matrix_product};
use super::{Checker, NameCounts, canonical_keywords, check_swizzle, each_declaration, strip_metal, strip_parens};
use crate::items::{Overload, TypeOp, TypeRef};

/// How an argument fits a parameter of a function of the unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fit {
    /// The argument has the parameter's type (or the type it refers to).
    Exact,
    /// It converts, or the checks cannot tell.
    Other,
    /// It surely does not convert.
    No,
}

/// What overload resolution among a name's functions of the unit can tell about a call.
#[derive(Debug)]
pub(super) enum Selection<'t> {
    /// The call can only mean this overload.
    One(&'t Overload),
    /// Several may fit (or the arguments are not known well enough).
    Unsure,
    /// Some overloads take that many arguments, but none takes these.
    NoneFits,
}

/// A parameter or local variable declared once in the function.
#[derive(Debug, Clone)]
pub(super) struct Local {
    pub(super) ty: Ty,
    /// The address space of the variable's own storage (for a reference, of what it
    /// refers to), when sure.
    pub(super) space: Option<Space>,
    /// For a pointer declared with an address space: where that keyword is written.
    pub(super) space_at: Option<TextRange>,
    /// For locals: where the name can be used.
    visibility: Option<Visibility>,
}

impl Local {
    /// A parameter of the function (locals have a scope).
    pub(super) fn is_parameter(&self) -> bool {
        self.visibility.is_none()
    }
}

/// The function's parameters and locals with their types.
#[derive(Debug, Default)]
pub(super) struct TypedLocals {
    vars: FxHashMap<String, Local>,
    /// Every name the function declares (also those declared more than once, which are
    /// not typed): such a name hides the unit's and the library's.
    names: FxHashSet<String>,
    /// Types of expressions already computed, by node (once every local is typed: the
    /// checks ask for the same subexpressions many times).
    memo: std::cell::RefCell<FxHashMap<(TextRange, SyntaxKind), Option<Ty>>>,
    complete: bool,
}

impl TypedLocals {
    /// The variable `name` used at `at`, when it is visible there.
    pub(super) fn get(&self, name: &str, at: TextRange) -> Option<&Local> {
        let l = self.vars.get(name)?;
        if l.visibility.is_some_and(|v| !v.covers(at)) {
            return None;
        }
        Some(l)
    }

    /// Whether the function declares `name` (a parameter or a local).
    pub(super) fn has_value(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    /// The pointer variables declared with an address space.
    pub(super) fn has_pointers(&self) -> bool {
        self.vars.values().any(|l| l.space_at.is_some())
    }

    /// The local `name`'s declaration entry, wherever it is used.
    pub(super) fn declared(&self, name: &str) -> Option<&Local> {
        self.vars.get(name)
    }
}

/// Where a local variable can be named: after its declarator, to the end of the block
/// (or statement) that declares it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Visibility {
    from: TextSize,
    scope: TextRange,
}

impl Visibility {
    pub(super) fn covers(&self, range: TextRange) -> bool {
        range.start() >= self.from && self.scope.contains_range(range)
    }
}

pub(super) fn visibility_of(declarator: &SyntaxNode) -> Option<Visibility> {
    let scope = declarator.ancestors().find(|a| {
        matches!(
            a.kind(),
            SyntaxKind::COMPOUND_STMT
                | SyntaxKind::FOR_STMT
                | SyntaxKind::RANGE_FOR_STMT
                | SyntaxKind::IF_STMT
                | SyntaxKind::WHILE_STMT
                | SyntaxKind::SWITCH_STMT
                | SyntaxKind::LAMBDA_EXPR
        )
    })?;
    Some(Visibility { from: declarator.text_range().end(), scope: scope.text_range() })
}

/// The template arguments of a compact type text: `texture2d<half,access::read>` gives
/// `texture2d` and `["half", "access::read"]`.
fn split_template(text: &str) -> (&str, Vec<&str>) {
    let Some(open) = text.find('<') else { return (text, Vec::new()) };
    let Some(inner) = text[open + 1..].strip_suffix('>') else { return (text, Vec::new()) };
    let args = msl_stdlib::split_top_level(inner).into_iter().map(str::trim).collect();
    (&text[..open], args)
}

impl Checker<'_> {
    /// The parameters and locals declared once in the function, typed.
    pub(super) fn typed_locals(&self, root: &SyntaxNode, vars: &[SyntaxNode], counts: &NameCounts) -> TypedLocals {
        let mut out = TypedLocals { names: counts.keys().cloned().collect(), ..TypedLocals::default() };
        let mut autos: Vec<(String, ast::Expr, Visibility)> = Vec::new();
        each_declaration(root, vars, |spec, decl, name, visibility| {
            if counts.get(&name).copied() != Some(1) {
                return;
            }
            let r = TypeRef::from_syntax(Some(&spec), Some(&decl));
            let auto = r.base == "auto";
            if auto
                && r.ops.is_empty()
                && let (Some(v), Some(init)) = (
                    visibility,
                    decl.syntax().parent().and_then(ast::InitDeclarator::cast).and_then(|d| d.initializer()?.expr()),
                )
            {
                autos.push((name.clone(), init, v));
            }
            let ty = if auto { Ty::Unknown } else { self.resolve(&r) };
            let written_space = spec.address_space();
            // `static` and `constexpr` locals may live elsewhere than the thread's memory
            let placed_elsewhere = spec.has(SyntaxKind::STATIC_KW) || spec.has(SyntaxKind::CONSTEXPR_KW);
            let space = match &ty {
                Ty::Reference(t) => t.space,
                _ if r.ops.iter().any(|o| matches!(o, TypeOp::Pointer { .. })) => Some(Space::Thread),
                _ if placed_elsewhere => None,
                _ => match &written_space {
                    Some(s) => Space::from_keyword(s.text()),
                    None => Some(Space::Thread),
                },
            };
            let one_star = matches!(r.ops.as_slice(), [TypeOp::Pointer { .. }]);
            let space_at = one_star
                .then(|| decl.ptr_operators().next().and_then(|o| o.address_space()).or(written_space))
                .flatten()
                .map(|t| t.text_range());
            out.vars.insert(name, Local { ty, space, space_at, visibility });
        });
        // `auto` variables, in order: each takes its initializer's type, which may
        // involve the ones before it
        for (name, init, visibility) in autos {
            if let Some(ty) = self.expr_ty(&init, &out)
                && let Some(l) = out.vars.get_mut(&name)
            {
                l.ty = ty;
                l.visibility = Some(visibility);
            }
        }
        out.complete = true;
        out
    }

    /// The type of a local declarator: as typed with the locals (so `auto` has its
    /// initializer's), or resolved here for a name declared more than once.
    pub(super) fn declarator_ty(
        &self,
        spec: &ast::DeclSpecifiers,
        d: &ast::InitDeclarator,
        locals: &TypedLocals,
    ) -> Ty {
        let declared = d.name().and_then(|n| locals.declared(&n.text()).map(|l| l.ty.clone()));
        declared.unwrap_or_else(|| self.resolve(&TypeRef::from_syntax(Some(spec), d.declarator().as_ref())))
    }

    /// The type a declaration writes.
    pub(super) fn resolve(&self, r: &TypeRef) -> Ty {
        if !r.is_known() {
            return Ty::Unknown;
        }
        let mut ty = self.base_ty(&r.base);
        let mut space = r.space.as_deref().and_then(Space::from_keyword);
        let mut is_const = r.is_const;
        let mut first = true;
        for op in &r.ops {
            ty = match op {
                TypeOp::Pointer { space: own, is_const: own_const } => {
                    // `float device *p` puts the space after the type
                    if first && space.is_none() {
                        space = own.as_deref().and_then(Space::from_keyword);
                    }
                    let t = Ty::Pointer(Box::new(Target { space, is_const, ty }));
                    space = own.as_deref().and_then(Space::from_keyword);
                    is_const = *own_const;
                    t
                }
                TypeOp::Reference => {
                    let t = Ty::Reference(Box::new(Target { space, is_const, ty }));
                    space = None;
                    is_const = false;
                    t
                }
                TypeOp::Array(n) => Ty::Array(Box::new(ty), *n),
            };
            first = false;
        }
        ty
    }

    /// The type a type specifier names (following the unit's aliases).
    fn base_ty(&self, text: &str) -> Ty {
        if let Some(t) = self.named_ty(text) {
            return t;
        }
        let name = self.tree.resolve_alias(strip_metal(text));
        let name = strip_metal(name);
        if name.is_empty() {
            return Ty::Unknown;
        }
        if let Some(s) = self.known_struct(name) {
            return Ty::Struct(s);
        }
        let (head, args) = split_template(name);
        if self.tree.types.contains(head) || self.tree.typedefs.contains_key(head) {
            let sure_enum = self.tree.enums.contains(head)
                && !self.tree.unsure_structs.contains(head)
                && !self.tree.fields.contains_key(head)
                && !self.tree.typedefs.contains_key(head)
                && args.is_empty();
            return if sure_enum { Ty::Enum(head.to_string()) } else { Ty::Unknown };
        }
        let scalar = |t: &str| self.named_ty(t).filter(|t| matches!(t, Ty::Scalar(_))).unwrap_or(Ty::Unknown);
        match (head, args.as_slice()) {
            ("sampler", []) => Ty::Sampler,
            ("atomic_int", []) => Ty::Atomic(Box::new(Ty::Scalar("int"))),
            ("atomic_uint", []) => Ty::Atomic(Box::new(Ty::Scalar("uint"))),
            ("atomic_bool", []) => Ty::Atomic(Box::new(Ty::Scalar("bool"))),
            ("atomic_float", []) => Ty::Atomic(Box::new(Ty::Scalar("float"))),
            ("atomic", [t]) => Ty::Atomic(Box::new(scalar(t))),
            ("vec", [t, n]) => match (scalar(t), n.parse::<usize>()) {
                (Ty::Scalar(e), Ok(n)) if (2..=4).contains(&n) => Ty::Vector(e, n, false),
                _ => Ty::Unknown,
            },
            _ if (head.starts_with("texture") || head.starts_with("depth")) && self.lib.type_named(head).is_some() => {
                let elem = match args.first() {
                    Some(t) => scalar(t),
                    None if head.starts_with("depth") => Ty::Scalar("float"),
                    None => Ty::Unknown,
                };
                let access = match args.get(1) {
                    Some(a) => match strip_metal(a).trim_start_matches("access::") {
                        "sample" => Some("sample"),
                        "read" => Some("read"),
                        "write" => Some("write"),
                        "read_write" => Some("read_write"),
                        // a template parameter or a macro: unknown
                        _ => None,
                    },
                    // multisampled textures and texture buffers default to other accesses
                    None if head.ends_with("_ms") || head.ends_with("_ms_array") || head == "texture_buffer" => None,
                    None => Some("sample"),
                };
                Ty::Texture(Box::new(Texture { kind: head.to_string(), elem, access }))
            }
            _ => Ty::Unknown,
        }
    }

    /// The struct of the unit a type name stands for, when its fields are known for sure
    /// (defined once, not in a template, no bases) and no template parameter or other
    /// value of the unit has that name.
    pub(super) fn known_struct(&self, text: &str) -> Option<String> {
        let name = self.tree.resolve_alias(strip_metal(text));
        (self.tree.fields.contains_key(name) && !self.tree.value_names.contains(name)).then(|| name.to_string())
    }

    /// Whether a value of type `source` implicitly converts to `target` (see
    /// [`Ty::converts_from`]); for structs of the unit: an aggregate (no constructor, no
    /// operator) takes no single value but its own type, and a struct without operators
    /// does not become a number.
    pub(super) fn converts(&self, target: &Ty, source: &Ty) -> bool {
        match (target, source) {
            (Ty::Struct(a), Ty::Struct(b)) => {
                a == b || !self.is_aggregate(a) || self.has_operators(b) || self.tree.may_derive_from(b, a)
            }
            (Ty::Struct(s), other) if other.is_numeric() || matches!(other, Ty::Pointer(_)) => !self.is_aggregate(s),
            (t, Ty::Struct(s)) if t.is_numeric() => self.has_operators(s),
            _ => target.converts_from(source),
        }
    }

    /// A struct of the unit with neither constructors nor operators (nor bases, which
    /// may bring constructors along).
    pub(super) fn is_aggregate(&self, s: &str) -> bool {
        let Some(fields) = self.tree.fields.get(s).filter(|_| !self.tree.bases.contains_key(s)) else { return false };
        let constructor = format!("{s}()");
        !fields.keys().any(|k| *k == constructor || k.starts_with("operator"))
    }

    /// A struct of the unit that declares an operator (a conversion, an assignment).
    pub(super) fn has_operators(&self, s: &str) -> bool {
        self.tree.declares_operators(s)
    }

    /// The type of a member (`name`) or method (`name()`) of a struct of the unit.
    fn member_ty(&self, s: &str, member: &str) -> Option<Ty> {
        self.resolve(self.tree.field_type(s, member)?).value().known()
    }

    /// The type a call to a function of the unit returns: the overload the call selects
    /// when resolution is sure of it, or the type every function of the name returns. None
    /// when a variable hides the name or the library has a function of that name.
    fn user_call_ty(&self, name: &str, call: &ast::CallExpr, locals: &TypedLocals) -> Option<Ty> {
        if locals.has_value(name) || self.tree.value_names.contains(name) || !self.lib.lookup(name).is_empty() {
            return None;
        }
        if let Some(Some(overloads)) = self.tree.overloads.get(name)
            && overloads.len() > 1
        {
            let args: Vec<ast::Expr> = call.args().collect();
            return match self.select_overload(overloads, &args, locals) {
                Selection::One(o) => self.resolve(&o.returns).value().known(),
                _ => None,
            };
        }
        self.resolve(self.tree.returns.get(name)?).value().known()
    }

    /// How the argument `arg` fits a parameter of type `param`: pointers must point into
    /// the parameter's address space; numbers and structs must convert (see
    /// [`Checker::converts`]); anything else is not judged.
    pub(super) fn fit(&self, param: &Ty, arg: &ast::Expr, locals: &TypedLocals) -> Fit {
        // a reference parameter binds to a value of the type it refers to
        let param = param.clone().value();
        if matches!(arg, ast::Expr::Pack(_)) || param == Ty::Unknown {
            return Fit::Other;
        }
        if let Ty::Pointer(t) = &param {
            if let (Some(space), Some(source)) = (t.space, self.pointer_space(arg, locals))
                && space != source
            {
                return Fit::No;
            }
            let Some(Ty::Pointer(source)) = self.expr_ty(arg, locals) else { return Fit::Other };
            // pointers to different numbers or structs do not convert into each other, but
            // a pointer to a struct converts to a pointer to its base
            let judged = |t: &Ty| t.is_numeric() || matches!(t, Ty::Struct(_));
            let derived =
                matches!((&source.ty, &t.ty), (Ty::Struct(d), Ty::Struct(b)) if self.tree.may_derive_from(d, b));
            if judged(&t.ty) && judged(&source.ty) && t.ty != source.ty && !derived {
                return Fit::No;
            }
            return if source.ty == t.ty && source.space == t.space { Fit::Exact } else { Fit::Other };
        }
        let Some(source) = self.expr_ty(arg, locals) else { return Fit::Other };
        if (param.is_numeric() || matches!(param, Ty::Struct(_))) && !self.converts(&param, &source) {
            return Fit::No;
        }
        if param == source { Fit::Exact } else { Fit::Other }
    }

    /// Overload resolution among functions of the unit, as far as it is sure: the
    /// overloads that take this many arguments and may take each of them. One is selected
    /// when it is the only one left, or, when all overloads are in one namespace (so that
    /// none hides another), the only one every argument matches exactly (no other can then
    /// be better).
    pub(super) fn select_overload<'t>(
        &self,
        overloads: &'t [Overload],
        args: &[ast::Expr],
        locals: &TypedLocals,
    ) -> Selection<'t> {
        if args.iter().any(|a| matches!(a, ast::Expr::Pack(_))) {
            return Selection::Unsure;
        }
        let mut by_count = overloads.iter().filter(|o| (o.required..=o.params.len()).contains(&args.len())).peekable();
        if by_count.peek().is_none() {
            return Selection::Unsure;
        }
        let mut viable: Vec<(&Overload, bool)> = Vec::new();
        'overloads: for o in by_count {
            let mut exact = true;
            for (p, a) in o.params.iter().zip(args) {
                match self.fit(&self.resolve(p), a, locals) {
                    Fit::No => continue 'overloads,
                    Fit::Other => exact = false,
                    Fit::Exact => {}
                }
            }
            // defaulted parameters are conversions of nothing: not an exact match
            viable.push((o, exact && args.len() == o.params.len()));
        }
        let one_namespace = overloads
            .first()
            .is_some_and(|f| f.namespace.is_some() && overloads.iter().all(|o| o.namespace == f.namespace));
        let mut exact = viable.iter().filter(|(_, e)| *e && one_namespace);
        match (viable.as_slice(), exact.next(), exact.next()) {
            ([], ..) => Selection::NoneFits,
            ([(one, _)], ..) => Selection::One(one),
            (_, Some((one, _)), None) => Selection::One(one),
            _ => Selection::Unsure,
        }
    }

    /// The builtin numeric type a call to a library function returns, from the types of
    /// its arguments (see `Stdlib::call_result`).
    fn library_call_ty(&self, name: &str, call: &ast::CallExpr, locals: &TypedLocals) -> Option<Ty> {
        let args: Vec<Option<String>> = call
            .arg_list()?
            .args()
            .map(|a| match self.expr_ty(&a, locals) {
                // packed vectors reach the library through a conversion
                Some(t @ (Ty::Scalar(_) | Ty::Vector(_, _, false) | Ty::Matrix(..))) => Some(t.to_string()),
                _ => None,
            })
            .collect();
        let args: Vec<Option<&str>> = args.iter().map(|a| a.as_deref()).collect();
        Ty::parse(&self.lib.call_result(name, &args)?)
    }

    /// What `t.read(...)`, `t.sample(...)`, `t.gather(...)` and `t.get_width()` return for a
    /// texture whose element type is a plain scalar: four components of it for color
    /// textures, the scalar itself when a depth texture is read or sampled, and `uint` for
    /// sizes.
    fn texture_call_ty(&self, texture: &Texture, method: &str) -> Option<Ty> {
        if matches!(
            method,
            "get_width" | "get_height" | "get_depth" | "get_array_size" | "get_num_mip_levels" | "get_num_samples"
        ) {
            return Some(Ty::Scalar("uint"));
        }
        let Ty::Scalar(elem) = &texture.elem else { return None };
        if !matches!(*elem, "float" | "half" | "int" | "uint" | "short" | "ushort") {
            return None;
        }
        match method {
            "read" | "sample" if texture.is_depth() => Some(Ty::Scalar(elem)),
            "read" | "sample" | "gather" => Some(Ty::Vector(elem, 4, false)),
            _ => None,
        }
    }

    /// The type a type-id names (`float3`, `device float *`).
    pub(super) fn type_id_ty(&self, ty: &ast::Type) -> Option<Ty> {
        let r = TypeRef::from_syntax(ty.decl_specifiers().as_ref(), ty.declarator().as_ref());
        self.resolve(&r).known()
    }

    /// The builtin numeric type named by declaration specifiers, if it is one.
    pub(super) fn spec_ty(&self, spec: &ast::DeclSpecifiers) -> Option<Ty> {
        match spec.type_spec()? {
            ast::TypeSpec::Builtin(b) => Ty::parse(&canonical_keywords(&b.text())?),
            ast::TypeSpec::Path(p) if p.template_args().is_none() => self.named_ty(&p.text()),
            _ => None,
        }
    }

    /// The builtin numeric type a type name stands for (following the unit's aliases).
    pub(super) fn named_ty(&self, text: &str) -> Option<Ty> {
        let name = self.tree.resolve_alias(strip_metal(text));
        if let Some(n) = self.numeric_name(name) {
            return Ty::parse(&n);
        }
        // matrices
        if self.tree.types.contains(name) || self.tree.typedefs.contains_key(name) {
            return None;
        }
        let t = self.lib.type_named(name)?;
        (t.kind == "matrix").then(|| Ty::parse(t.name)).flatten()
    }

    /// The address space of the object an lvalue expression designates, when sure.
    pub(super) fn place_space(&self, e: &ast::Expr, locals: &TypedLocals) -> Option<Space> {
        match strip_parens(e)? {
            ast::Expr::Path(p) if !p.is_qualified() && p.template_args().is_none() => {
                locals.get(p.name()?.text(), p.syntax().text_range())?.space
            }
            ast::Expr::Index(i) => {
                let base = i.base()?;
                match self.expr_ty(&base, locals)? {
                    Ty::Pointer(t) => t.space,
                    Ty::Array(..) | Ty::Vector(..) | Ty::Matrix(..) => self.place_space(&base, locals),
                    _ => None,
                }
            }
            ast::Expr::Member(m) if m.is_arrow() => self.expr_ty(&m.base()?, locals)?.pointee()?.space,
            ast::Expr::Member(m) => {
                let base = m.base()?;
                match self.expr_ty(&base, locals)? {
                    Ty::Struct(_) | Ty::Vector(..) => self.place_space(&base, locals),
                    _ => None,
                }
            }
            ast::Expr::Prefix(p) if p.op_kind().is_some_and(|k| k == SyntaxKind::STAR) => {
                self.expr_ty(&p.operand()?, locals)?.pointee()?.space
            }
            _ => None,
        }
    }

    /// The address space a pointer-valued expression points into: a pointer's, or an
    /// array's that decays to a pointer to its first element.
    pub(super) fn pointer_space(&self, e: &ast::Expr, locals: &TypedLocals) -> Option<Space> {
        match self.expr_ty(e, locals)? {
            Ty::Pointer(t) => t.space,
            Ty::Array(..) => self.place_space(e, locals),
            _ => None,
        }
    }

    /// Whether `name` names a function of the unit and nothing else.
    pub(super) fn names_function(&self, name: &str, locals: &TypedLocals) -> bool {
        self.tree.returns.contains_key(name)
            && !locals.has_value(name)
            && !self.tree.value_names.contains(name)
            && !self.tree.types.contains(name)
            && !self.tree.typedefs.contains_key(name)
            && self.lib.lookup(name).is_empty()
    }

    /// The type of an expression, when it follows from what is known for sure.
    pub(super) fn expr_ty(&self, e: &ast::Expr, locals: &TypedLocals) -> Option<Ty> {
        if !locals.complete {
            return self.compute_expr_ty(e, locals);
        }
        let key = (e.syntax().text_range(), e.syntax().kind());
        if let Some(known) = locals.memo.borrow().get(&key) {
            return known.clone();
        }
        let ty = self.compute_expr_ty(e, locals);
        locals.memo.borrow_mut().insert(key, ty.clone());
        ty
    }

    fn compute_expr_ty(&self, e: &ast::Expr, locals: &TypedLocals) -> Option<Ty> {
        use SyntaxKind::*;
        match e {
            ast::Expr::Literal(l) => literal_ty(l),
            ast::Expr::Path(p) if !p.is_qualified() && p.template_args().is_none() => {
                let name = p.name()?;
                if let Some(l) = locals.get(name.text(), p.syntax().text_range()) {
                    return l.ty.clone().value().known();
                }
                self.names_function(name.text(), locals).then(|| Ty::Function(name.text().to_string()))
            }
            ast::Expr::Paren(p) => self.expr_ty(&p.expr()?, locals),
            ast::Expr::Prefix(p) => {
                let op = p.op_kind()?;
                let operand = p.operand()?;
                match op {
                    STAR => match self.expr_ty(&operand, locals)? {
                        Ty::Pointer(t) => t.ty.known(),
                        Ty::Array(e, _) => e.known(),
                        _ => None,
                    },
                    AMP => {
                        let lvalue = matches!(
                            strip_parens(&operand)?,
                            ast::Expr::Path(_) | ast::Expr::Index(_) | ast::Expr::Member(_) | ast::Expr::Prefix(_)
                        );
                        let ty = self.expr_ty(&operand, locals);
                        if !lvalue || matches!(ty, Some(Ty::Function(_) | Ty::Struct(_))) {
                            // a struct may overload `&`
                            return None;
                        }
                        let space = self.place_space(&operand, locals);
                        if space.is_none() && ty.is_none() {
                            return None;
                        }
                        Some(Ty::Pointer(Box::new(Target { space, is_const: false, ty: ty.unwrap_or(Ty::Unknown) })))
                    }
                    MINUS | PLUS | TILDE => match self.expr_ty(&operand, locals)? {
                        t @ Ty::Scalar(_) => Some(t.promoted()),
                        t @ (Ty::Vector(..) | Ty::Matrix(..)) => Some(t.unpacked()),
                        _ => None,
                    },
                    BANG => match self.expr_ty(&operand, locals)? {
                        Ty::Scalar(_) => Some(Ty::Scalar("bool")),
                        Ty::Vector(_, n, _) => Some(Ty::Vector("bool", n, false)),
                        _ => None,
                    },
                    PLUS2 | MINUS2 => {
                        self.expr_ty(&operand, locals).filter(|t| matches!(t, Ty::Scalar(_) | Ty::Pointer(_)))
                    }
                    _ => None,
                }
            }
            ast::Expr::Call(c) if matches!(c.callee(), Some(ast::Expr::Member(_))) => {
                let Some(ast::Expr::Member(m)) = c.callee() else { return None };
                if m.template_args().is_some() {
                    return None;
                }
                let method = m.member()?;
                match self.member_base_ty(&m, locals)? {
                    // a method of a struct of the unit
                    Ty::Struct(s) => self.member_ty(&s, &format!("{}()", method.text())),
                    Ty::Texture(t) if !m.is_arrow() => self.texture_call_ty(&t, method.text()),
                    _ => None,
                }
            }
            ast::Expr::Call(c) => {
                let Some(ast::Expr::Path(p)) = c.callee() else { return None };
                // `as_type<T>(x)` is a `T`
                if let Some(args) = p.template_args()
                    && p.name().is_some_and(|n| n.text() == "as_type")
                    && matches!(strip_metal(&p.text()).split('<').next(), Some("as_type"))
                    && !self.tree.declared.contains("as_type")
                {
                    let mut list = args.args();
                    let (Some(arg), None) = (list.next(), list.next()) else { return None };
                    return self.type_id_ty(&arg.ty()?);
                }
                // `float3(...)`: a type name called like a function; else a function
                let text = p.text();
                if p.template_args().is_some() || !(text == strip_metal(&text) || text.starts_with("metal::")) {
                    return None;
                }
                let name = p.name()?;
                if !p.is_qualified() && self.tree.returns.contains_key(name.text()) {
                    return self.user_call_ty(name.text(), c, locals);
                }
                if locals.has_value(name.text()) {
                    return None;
                }
                // `S(a, b)`: a struct of the unit constructed
                if !p.is_qualified()
                    && let Some(s) = self.known_struct(name.text())
                {
                    return Some(Ty::Struct(s));
                }
                if self.tree.declared.contains(name.text()) {
                    return None;
                }
                if let Some(ty) = self.named_ty(&text) {
                    return Some(ty);
                }
                self.library_call_ty(name.text(), c, locals)
            }
            // `(float3)x`, `static_cast<float3>(x)`: the type named
            ast::Expr::Cast(c) => self.type_id_ty(&c.ty()?),
            ast::Expr::CxxCast(c)
                if c.keyword().is_some_and(|k| matches!(k.text(), "static_cast" | "reinterpret_cast")) =>
            {
                self.type_id_ty(&c.ty()?).map(Ty::value)
            }
            ast::Expr::Construct(c) => self.type_id_ty(&c.ty()?),
            ast::Expr::Member(m) if m.template_args().is_none() => {
                let member = m.member()?;
                match self.member_base_ty(m, locals)? {
                    Ty::Struct(s) => self.member_ty(&s, member.text()),
                    Ty::Vector(elem, size, _) if !m.is_arrow() => {
                        let name = member.text();
                        check_swizzle(name, "", size, false, false).ok()?;
                        Some(if name.len() == 1 { Ty::Scalar(elem) } else { Ty::Vector(elem, name.len(), false) })
                    }
                    _ => None,
                }
            }
            ast::Expr::Index(i) => match self.expr_ty(&i.base()?, locals)? {
                Ty::Pointer(t) => t.ty.known(),
                Ty::Array(e, _) => e.known(),
                Ty::Vector(elem, _, _) => Some(Ty::Scalar(elem)),
                Ty::Matrix(elem, _, rows) => Some(Ty::Vector(elem, rows, false)),
                _ => None,
            },
            ast::Expr::Postfix(p) if p.op_kind().is_some_and(|k| matches!(k, PLUS2 | MINUS2)) => {
                self.expr_ty(&p.operand()?, locals).filter(|t| matches!(t, Ty::Scalar(_) | Ty::Pointer(_)))
            }
            ast::Expr::Bin(b) => {
                let op = b.op_kind()?;
                let arithmetic = matches!(op, PLUS | MINUS | STAR | SLASH | PERCENT);
                let comparison = matches!(op, EQ2 | NEQ | L_ANGLE | R_ANGLE | LTEQ | GTEQ);
                let logical = matches!(op, AMP2 | PIPE2);
                if !(arithmetic || comparison || logical) {
                    return None;
                }
                let (l, r) = (self.expr_ty(&b.lhs()?, locals)?, self.expr_ty(&b.rhs()?, locals)?);
                if logical {
                    return matches!((&l, &r), (Ty::Scalar(_), Ty::Scalar(_))).then(|| Ty::Scalar("bool"));
                }
                // pointer arithmetic
                match (&l, &r) {
                    (Ty::Pointer(_), Ty::Scalar(_)) if matches!(op, PLUS | MINUS) => return Some(l),
                    (Ty::Scalar(_), Ty::Pointer(_)) if op == PLUS => return Some(r),
                    (Ty::Pointer(_), _) | (_, Ty::Pointer(_)) => return None,
                    _ => {}
                }
                let result = if op == STAR
                    && let Some(product) = matrix_product(&l, &r)
                {
                    product?
                } else {
                    match (&l, &r) {
                        (Ty::Vector(..), Ty::Vector(..)) if l.same_vector(&r) => l.unpacked(),
                        (Ty::Vector(..), Ty::Scalar(_)) => l.unpacked(),
                        (Ty::Scalar(_), Ty::Vector(..)) => r.unpacked(),
                        (Ty::Scalar(a), Ty::Scalar(b)) => Ty::Scalar(arithmetic_scalar(a, b)?),
                        _ => return None,
                    }
                };
                if comparison {
                    return match result {
                        Ty::Scalar(_) => Some(Ty::Scalar("bool")),
                        Ty::Vector(_, n, _) => Some(Ty::Vector("bool", n, false)),
                        _ => None,
                    };
                }
                Some(result)
            }
            ast::Expr::Conditional(c) => {
                let (a, b) = (self.expr_ty(&c.then_expr()?, locals)?, self.expr_ty(&c.else_expr()?, locals)?);
                (a == b).then_some(a)
            }
            _ => None,
        }
    }

    /// The type whose member `m` reaches: the base's for `.`, what it points at for `->`.
    pub(super) fn member_base_ty(&self, m: &ast::MemberExpr, locals: &TypedLocals) -> Option<Ty> {
        let base = self.expr_ty(&m.base()?, locals)?;
        if m.is_arrow() {
            return match base {
                Ty::Pointer(t) => t.ty.known(),
                _ => None,
            };
        }
        Some(base)
    }
}

/// The type of a literal, by its suffix.
fn literal_ty(l: &ast::Literal) -> Option<Ty> {
    let tok = l.token()?;
    let text = tok.text().to_ascii_lowercase();
    let name = match l.kind()? {
        ast::LiteralKind::Bool => "bool",
        ast::LiteralKind::Float => {
            let hex = text.starts_with("0x");
            if text.ends_with("bf") {
                "bfloat"
            } else if text.ends_with('h') {
                "half"
            } else if text.ends_with('f') && (!hex || text.contains('p')) {
                "float"
            } else {
                return None;
            }
        }
        ast::LiteralKind::Int => {
            let suffix: String = text.chars().rev().take_while(|c| matches!(c, 'u' | 'l')).collect();
            match (suffix.contains('u'), suffix.contains('l')) {
                (false, false) => "int",
                (true, false) => "uint",
                (false, true) => "long",
                (true, true) => "ulong",
            }
        }
        _ => return None,
    };
    Some(Ty::Scalar(name))
}

/// The type arithmetic between two scalars computes in (the usual arithmetic
/// conversions), when Metal's rules make it plain: integers promote and the wider or
/// unsigned one wins; a floating type wins over an integer; `half` with `float` is `float`.
fn arithmetic_scalar(a: &'static str, b: &'static str) -> Option<&'static str> {
    const INTEGERS: &[&str] = &["bool", "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong"];
    let rank = |t: &str| INTEGERS.iter().position(|i| *i == t).map(|i| i.max(5));
    match (rank(a), rank(b)) {
        (Some(x), Some(y)) => Some(INTEGERS[x.max(y)]),
        (Some(_), None) => Some(b),
        (None, Some(_)) => Some(a),
        (None, None) if a == b => Some(a),
        (None, None) => match (a, b) {
            ("half", "float") | ("float", "half") => Some("float"),
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_texts_split() {
        assert_eq!(split_template("texture2d<half,access::read>"), ("texture2d", vec!["half", "access::read"]));
        assert_eq!(split_template("float4"), ("float4", vec![]));
        assert_eq!(split_template("vec<float,4>"), ("vec", vec!["float", "4"]));
        assert_eq!(split_template("a<b<c,d>,e>"), ("a", vec!["b<c,d>", "e"]));
    }

    #[test]
    fn scalar_arithmetic() {
        assert_eq!(arithmetic_scalar("ushort", "uchar"), Some("int"));
        assert_eq!(arithmetic_scalar("int", "uint"), Some("uint"));
        assert_eq!(arithmetic_scalar("float", "int"), Some("float"));
        assert_eq!(arithmetic_scalar("half", "int"), Some("half"));
        assert_eq!(arithmetic_scalar("half", "float"), Some("float"));
        assert_eq!(arithmetic_scalar("bfloat", "half"), None);
        assert_eq!(arithmetic_scalar("long", "uint"), Some("long"));
    }
}
