//! Types as declarations write them ([`TypeRef`]), and their lowering to [`Ty`].
//!
//! A `TypeRef` is syntax without trivia or positions: the type specifier, the qualifiers
//! next to it, and the declarator's operators in the order they apply. It holds no
//! meaning yet (names are not resolved), so it can live in the unit's definitions, which
//! must stay equal while a function body is edited. Lowering resolves its names through a
//! [`TypeEnv`] (the scope where the type is written) and falls back to the library.

use std::sync::Arc;

use msl_syntax::SyntaxKind;
use msl_syntax::ast::{self, AstNode};

use super::{AddressSpace, Cv, Scalar, TemplateArg, Ty, TyKind, numeric_type};

/// A type as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TypeRef {
    pub base: TypeBase,
    /// The qualifiers and address space among the specifiers (of the declared object, or of
    /// what the first pointer or reference operator designates).
    pub cv: Cv,
    pub space: Option<AddressSpace>,
    /// The declarator's operators, innermost (applied first) first.
    pub ops: Vec<TypeRefOp>,
}

/// The type specifier.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TypeBase {
    /// Keywords: `unsigned int`, `float`, `void`.
    Builtin(Arc<str>),
    /// `auto` (and `decltype(auto)`): the initializer decides.
    Auto,
    /// A named type, possibly qualified and with template arguments.
    Path(PathRef),
    /// `decltype(expression)`: the expression's text, decided by inference.
    Decltype(Arc<str>),
    /// A class or enum of the unit by its definition (`struct { int a; } s;` declares `s`
    /// of a class that has no name).
    Def(crate::ty::DefId),
    /// Nothing that names a type (a declaration not read, a class without a name).
    Unknown,
}

/// `a::b<int>::c`: each segment with its template arguments, if any.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PathRef {
    /// Starts with `::`.
    pub global: bool,
    pub segments: Vec<Segment>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Segment {
    pub name: Arc<str>,
    pub args: Option<Vec<TypeArgRef>>,
}

impl PathRef {
    /// The last segment's name.
    pub fn name(&self) -> &str {
        self.segments.last().map_or("", |s| &s.name)
    }
}

impl std::fmt::Display for PathRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.global {
            f.write_str("::")?;
        }
        for (i, s) in self.segments.iter().enumerate() {
            if i > 0 {
                f.write_str("::")?;
            }
            f.write_str(&s.name)?;
            if let Some(args) = &s.args {
                f.write_str("<")?;
                for (j, a) in args.iter().enumerate() {
                    if j > 0 {
                        f.write_str(", ")?;
                    }
                    match a {
                        TypeArgRef::Type(_) => f.write_str("T")?,
                        TypeArgRef::Value(v) => write!(f, "{v}")?,
                        TypeArgRef::Expr(e) => f.write_str(e)?,
                    }
                }
                f.write_str(">")?;
            }
        }
        Ok(())
    }
}

/// A template argument as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TypeArgRef {
    Type(TypeRef),
    /// An integer or `bool` literal (or a negated one).
    Value(i64),
    /// Any other expression, as written without trivia (`access::read`, `N + 1`).
    Expr(Arc<str>),
}

/// An operator of a declarator.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TypeRefOp {
    /// `*`, with the address space and qualifiers written after it (of the pointer
    /// itself, or of what the next operator designates).
    Pointer { space: Option<AddressSpace>, cv: Cv },
    /// `&` or `&&`.
    Reference { rvalue: bool },
    /// `[N]`: a literal bound, or the bound's text.
    Array(Option<ArrayLen>),
    /// `(params)`: a function type.
    Function { params: Vec<TypeRef>, variadic: bool },
    /// `S::*`: a pointer to a member (not modelled further).
    MemberPointer,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ArrayLen {
    Literal(u64),
    Expr(Arc<str>),
}

impl TypeRef {
    pub fn unknown() -> TypeRef {
        TypeRef { base: TypeBase::Unknown, cv: Cv::NONE, space: None, ops: Vec::new() }
    }

    /// What declaration specifiers and a declarator write (either may be missing).
    pub fn from_syntax(spec: Option<&ast::DeclSpecifiers>, decl: Option<&ast::Declarator>) -> TypeRef {
        let mut t = match spec {
            Some(spec) => TypeRef::from_specifiers(spec),
            None => TypeRef::unknown(),
        };
        if let Some(d) = decl {
            t.apply_declarator(d);
        }
        t
    }

    /// The type a type-id (`TYPE` node: `const device float *`, `float(int)`) writes.
    pub fn from_type(ty: &ast::Type) -> TypeRef {
        if ty.decl_specifiers().is_none()
            && let Some(ts) = ty.type_spec()
        {
            // a bare type specifier (`float(x)`, `S{...}`)
            let mut t = TypeRef { base: base_of(&ts), ..TypeRef::unknown() };
            if let Some(d) = ty.declarator() {
                t.apply_declarator(&d);
            }
            return t;
        }
        TypeRef::from_syntax(ty.decl_specifiers().as_ref(), ty.declarator().as_ref())
    }

    fn from_specifiers(spec: &ast::DeclSpecifiers) -> TypeRef {
        let cv = Cv { is_const: spec.has(SyntaxKind::CONST_KW), is_volatile: spec.has(SyntaxKind::VOLATILE_KW) };
        let space = spec.address_space().and_then(|t| AddressSpace::from_keyword(t.text()));
        // `constexpr` objects are const
        let cv = Cv { is_const: cv.is_const || spec.has(SyntaxKind::CONSTEXPR_KW), ..cv };
        let base = match spec.type_spec() {
            Some(ts) => base_of(&ts),
            None => TypeBase::Unknown,
        };
        TypeRef { base, cv, space, ops: Vec::new() }
    }

    /// Adds a declarator's operators: pointers and references first (left to right), then
    /// array and function suffixes (right to left), then those of a parenthesized inner
    /// declarator, which apply last (`float (*p)[4]` points to an array).
    fn apply_declarator(&mut self, decl: &ast::Declarator) {
        for op in decl.ptr_operators() {
            self.ops.push(pointer_op(&op));
        }
        let mut suffixes = Vec::new();
        let mut inner = None;
        for child in decl.syntax().children() {
            match child.kind() {
                SyntaxKind::ARRAY_SUFFIX => {
                    let len = ast::ArraySuffix::cast(child).and_then(|a| a.size()).map(|e| array_len(&e));
                    suffixes.push(TypeRefOp::Array(len));
                }
                SyntaxKind::PARAM_LIST => {
                    let Some(list) = ast::ParamList::cast(child) else { continue };
                    let params = list
                        .params()
                        .map(|p| TypeRef::from_syntax(p.decl_specifiers().as_ref(), p.declarator().as_ref()))
                        .collect();
                    suffixes.push(TypeRefOp::Function { params, variadic: list.is_variadic() });
                }
                SyntaxKind::PAREN_DECLARATOR => inner = ast::ParenDeclarator::cast(child).and_then(|p| p.inner()),
                _ => {}
            }
        }
        self.ops.extend(suffixes.into_iter().rev());
        if let Some(inner) = inner {
            self.apply_declarator(&inner);
        }
    }

    /// The type without its declarator's function suffix: what a function returns.
    pub fn returned(&self) -> Option<TypeRef> {
        let at = self.ops.iter().rposition(|op| matches!(op, TypeRefOp::Function { .. }))?;
        let mut t = self.clone();
        t.ops.truncate(at);
        Some(t)
    }

    /// Whether it is `auto` (its type comes from an initializer).
    pub fn is_auto(&self) -> bool {
        self.base == TypeBase::Auto
    }
}

fn pointer_op(op: &ast::PtrOperator) -> TypeRefOp {
    if op.syntax().children().any(|c| c.kind() == SyntaxKind::PATH) {
        return TypeRefOp::MemberPointer;
    }
    match op.kind_token().map(|t| t.kind()) {
        Some(SyntaxKind::AMP) => TypeRefOp::Reference { rvalue: false },
        Some(SyntaxKind::AMP2) => TypeRefOp::Reference { rvalue: true },
        _ => {
            let toks: Vec<_> = op.syntax().children_with_tokens().filter_map(|e| e.into_token()).collect();
            let cv = Cv {
                is_const: toks.iter().any(|t| t.kind() == SyntaxKind::CONST_KW),
                is_volatile: toks.iter().any(|t| t.kind() == SyntaxKind::VOLATILE_KW),
            };
            let space = op.address_space().and_then(|t| AddressSpace::from_keyword(t.text()));
            TypeRefOp::Pointer { space, cv }
        }
    }
}

fn array_len(e: &ast::Expr) -> ArrayLen {
    match literal_int(e) {
        Some(n) if n >= 0 => ArrayLen::Literal(n as u64),
        _ => ArrayLen::Expr(compact(e.syntax())),
    }
}

/// An integer or boolean literal, possibly negated or parenthesized.
fn literal_int(e: &ast::Expr) -> Option<i64> {
    let node = e.syntax();
    match node.kind() {
        SyntaxKind::LITERAL => {
            let tok = node.first_token()?;
            match tok.kind() {
                SyntaxKind::TRUE_KW => Some(1),
                SyntaxKind::FALSE_KW => Some(0),
                SyntaxKind::INT_NUMBER => parse_int(tok.text()),
                _ => None,
            }
        }
        SyntaxKind::PAREN_EXPR => node.children().find_map(ast::Expr::cast).and_then(|e| literal_int(&e)),
        SyntaxKind::PREFIX_EXPR => {
            let op = node.first_token()?;
            let inner = node.children().find_map(ast::Expr::cast)?;
            match op.kind() {
                SyntaxKind::MINUS => literal_int(&inner).map(|v| -v),
                SyntaxKind::PLUS => literal_int(&inner),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The value of an integer literal (`42`, `0x1F`, `0b101`, `017`, `1'000u`).
pub(crate) fn parse_int(text: &str) -> Option<i64> {
    // digit separators are rare: the text is copied only when it has them
    let owned: String;
    let t = if text.contains('\'') {
        owned = text.chars().filter(|c| *c != '\'').collect();
        owned.as_str()
    } else {
        text
    };
    let t = t.trim_end_matches(['u', 'U', 'l', 'L', 'z', 'Z']);
    let (radix, digits) = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        (16, h)
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        (2, b)
    } else if t.len() > 1 && t.starts_with('0') {
        (8, &t[1..])
    } else {
        (10, t)
    };
    u64::from_str_radix(digits, radix).ok().map(|v| v as i64)
}

/// A node's text without trivia, tokens separated by a space only where needed.
fn compact(node: &msl_syntax::SyntaxNode) -> Arc<str> {
    let mut out = String::new();
    ast::each_token(node, &mut |_, text| {
        let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        if word(out.chars().last()) && word(text.chars().next()) {
            out.push(' ');
        }
        out.push_str(text);
        true
    });
    Arc::from(out)
}

fn base_of(ts: &ast::TypeSpec) -> TypeBase {
    match ts {
        ast::TypeSpec::Builtin(b) => {
            let mut words = b.keywords();
            let Some(first) = words.next() else { return TypeBase::Builtin(Arc::from("")) };
            match words.next() {
                // one keyword, the usual case: no list is built
                None if first.text() == "auto" => TypeBase::Auto,
                None => TypeBase::Builtin(Arc::from(first.text())),
                Some(second) => {
                    let words: Vec<String> =
                        [first, second].into_iter().chain(words).map(|t| t.text().to_string()).collect();
                    if words.iter().any(|w| w == "auto") {
                        TypeBase::Auto
                    } else {
                        TypeBase::Builtin(Arc::from(words.join(" ")))
                    }
                }
            }
        }
        ast::TypeSpec::Path(p) => match path_of(p.syntax()) {
            Some(path) => TypeBase::Path(path),
            None => TypeBase::Unknown,
        },
        ast::TypeSpec::Decltype(d) => {
            let text = compact(d.syntax());
            if text.as_ref() == "decltype(auto)" { TypeBase::Auto } else { TypeBase::Decltype(text) }
        }
        ast::TypeSpec::Elaborated(e) => match e.syntax().children().find(|c| c.kind() == SyntaxKind::NAME) {
            Some(name) => path_of(&name).map_or(TypeBase::Unknown, TypeBase::Path),
            None => TypeBase::Unknown,
        },
        ast::TypeSpec::Struct(s) => match s.syntax().children().find(|c| c.kind() == SyntaxKind::NAME) {
            Some(name) => path_of(&name).map_or(TypeBase::Unknown, TypeBase::Path),
            None => TypeBase::Unknown,
        },
        ast::TypeSpec::Enum(e) => match e.syntax().children().find(|c| c.kind() == SyntaxKind::NAME) {
            Some(name) => path_of(&name).map_or(TypeBase::Unknown, TypeBase::Path),
            None => TypeBase::Unknown,
        },
    }
}

/// The path a PATH_TYPE, NAME or PATH node spells: identifiers with their template
/// argument lists; `None` when it holds something else (`decltype(x)::type`).
pub fn path_of(node: &msl_syntax::SyntaxNode) -> Option<PathRef> {
    let mut path = PathRef { global: false, segments: Vec::new() };
    for (i, el) in node.children_with_tokens().enumerate() {
        match el {
            rowan::NodeOrToken::Token(t) => match t.kind() {
                SyntaxKind::IDENT => path.segments.push(Segment { name: Arc::from(t.text()), args: None }),
                SyntaxKind::COLON2 if i == 0 || path.segments.is_empty() => path.global = true,
                // keywords a base specifier or a using-declaration may hold around the path
                SyntaxKind::COLON2
                | SyntaxKind::TYPENAME_KW
                | SyntaxKind::TEMPLATE_KW
                | SyntaxKind::PUBLIC_KW
                | SyntaxKind::PRIVATE_KW
                | SyntaxKind::PROTECTED_KW
                | SyntaxKind::VIRTUAL_KW
                | SyntaxKind::USING_KW
                | SyntaxKind::SEMI
                | SyntaxKind::DOT3 => {}
                k if k.is_trivia() => {}
                _ => return None,
            },
            rowan::NodeOrToken::Node(n) => match n.kind() {
                SyntaxKind::ATTRIBUTE_LIST => {}
                SyntaxKind::TEMPLATE_ARG_LIST => {
                    let args = ast::TemplateArgList::cast(n)?.args().map(|a| arg_of(&a)).collect();
                    path.segments.last_mut()?.args = Some(args);
                }
                _ => return None,
            },
        }
    }
    (!path.segments.is_empty()).then_some(path)
}

/// A template argument as written.
pub fn arg_of(a: &ast::TemplateArg) -> TypeArgRef {
    if let Some(t) = a.ty() {
        return TypeArgRef::Type(TypeRef::from_type(&t));
    }
    match a.expr() {
        Some(e) => match literal_int(&e) {
            Some(v) => TypeArgRef::Value(v),
            None => TypeArgRef::Expr(compact(e.syntax())),
        },
        None => TypeArgRef::Expr(Arc::from("")),
    }
}

/// What lowering needs of the place where a type is written.
pub trait TypeEnv {
    /// The type a path names here, its template arguments already lowered; `None` when
    /// nothing here declares it (the library is asked next).
    fn resolve_type(&self, path: &PathRef, args: &[TemplateArg]) -> Option<Ty>;
    /// The value of a constant expression written as a template argument or an array
    /// bound (a named constant, `N + 1`); `None` when not known.
    fn const_value(&self, _expr: &str) -> Option<i64> {
        None
    }
    /// The type of a class or enum of the unit, by its definition.
    fn def_type(&self, _id: crate::ty::DefId) -> Option<Ty> {
        None
    }
    /// The type `decltype(text)` names (`text` is the whole `decltype(...)`).
    fn decltype(&self, _text: &str) -> Option<Ty> {
        None
    }
}

/// An environment where only the library's types are known.
pub struct LibraryOnly;

impl TypeEnv for LibraryOnly {
    fn resolve_type(&self, _path: &PathRef, _args: &[TemplateArg]) -> Option<Ty> {
        None
    }
}

/// A lowered declaration: the declared object's type, and the qualifiers and address
/// space of the object itself (`constant float k` is a `float` in `constant`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lowered {
    pub ty: Ty,
    pub cv: Cv,
    pub space: Option<AddressSpace>,
}

impl TypeRef {
    /// The type, names resolved in `env` (then in the library); unknown where neither
    /// knows a name. `auto` lowers to unknown: its initializer decides.
    pub fn lower(&self, env: &dyn TypeEnv) -> Lowered {
        let mut ty = match &self.base {
            TypeBase::Builtin(words) => builtin(words),
            TypeBase::Path(p) => lower_path(p, env),
            TypeBase::Def(id) => env.def_type(*id).unwrap_or_else(Ty::unknown),
            TypeBase::Decltype(text) => env.decltype(text).unwrap_or_else(Ty::unknown),
            TypeBase::Auto | TypeBase::Unknown => Ty::unknown(),
        };
        let (mut cv, mut space) = (self.cv, self.space);
        for op in &self.ops {
            match op {
                TypeRefOp::Pointer { space: s, cv: c } => {
                    ty = Ty::pointer(ty, space, cv);
                    (cv, space) = (*c, *s);
                }
                TypeRefOp::Reference { rvalue } => {
                    ty = Ty::new(TyKind::Reference { target: ty, space, cv, rvalue: *rvalue });
                    (cv, space) = (Cv::NONE, None);
                }
                TypeRefOp::Array(len) => {
                    let len = match len {
                        Some(ArrayLen::Literal(n)) => Some(*n),
                        Some(ArrayLen::Expr(e)) => env.const_value(e).and_then(|v| u64::try_from(v).ok()),
                        None => None,
                    };
                    ty = Ty::array(ty, len);
                }
                TypeRefOp::Function { params, variadic } => {
                    let params = params.iter().map(|p| decay(p.lower(env).ty)).collect();
                    ty = Ty::function(ty, params, *variadic);
                    (cv, space) = (Cv::NONE, None);
                }
                TypeRefOp::MemberPointer => {
                    ty = Ty::unknown();
                    (cv, space) = (Cv::NONE, None);
                }
            }
        }
        Lowered { ty, cv, space }
    }
}

/// A parameter's type as the function sees it: arrays and functions become pointers.
pub(crate) fn decay(t: Ty) -> Ty {
    match t.strip().kind() {
        TyKind::Array { elem, .. } => Ty::pointer(elem.clone(), None, Cv::NONE),
        TyKind::Function(_) => Ty::pointer(t.clone(), None, Cv::NONE),
        _ => t,
    }
}

/// `void`, `unsigned int`, `float`; unknown for types Metal does not have (`double`).
fn builtin(words: &str) -> Ty {
    if words == "void" {
        return Ty::void();
    }
    let normalized: Vec<&str> = words.split(' ').filter(|w| *w != "int" || !words.contains(' ')).collect();
    let key = normalized.join(" ");
    Scalar::from_name(words).or_else(|| Scalar::from_name(&key)).map_or_else(Ty::unknown, Ty::scalar)
}

/// Template arguments as written, lowered: types, and values where the environment
/// can evaluate them.
pub(crate) fn lower_args(args: &[TypeArgRef], env: &dyn TypeEnv) -> Vec<TemplateArg> {
    args.iter()
        .map(|a| match a {
            TypeArgRef::Type(t) => TemplateArg::Type(t.lower(env).ty),
            TypeArgRef::Value(v) => TemplateArg::Value(*v),
            TypeArgRef::Expr(e) => match env.const_value(e) {
                Some(v) => TemplateArg::Value(v),
                None => TemplateArg::Name(e.clone()),
            },
        })
        .collect()
}

/// The library's namespaces: a path qualified by them names a library type.
const LIBRARY_NAMESPACES: [&str; 7] = ["metal", "simd", "raytracing", "mpp", "tensor_ops", "fast", "precise"];

fn lower_path(p: &PathRef, env: &dyn TypeEnv) -> Ty {
    let args = p.segments.last().and_then(|s| s.args.as_deref()).map(|a| lower_args(a, env)).unwrap_or_default();
    if let Some(t) = env.resolve_type(p, &args) {
        return t;
    }
    // the library: unqualified, or qualified by its namespaces only
    let n = p.segments.len();
    let in_library = |segs: &[Segment]| segs.iter().all(|s| s.args.is_none() && LIBRARY_NAMESPACES.contains(&&*s.name));
    // `enable_if<C, T>::type`
    if n >= 2
        && p.name() == "type"
        && in_library(&p.segments[..n - 2])
        && let Some(args) = &p.segments[n - 2].args
    {
        let args = lower_args(args, env);
        return super::traits::transform(&p.segments[n - 2].name, &args).unwrap_or_else(Ty::unknown);
    }
    if !in_library(&p.segments[..n.saturating_sub(1)]) {
        return Ty::unknown();
    }
    if let Some(t) = super::traits::transform(p.name(), &args) {
        return t;
    }
    library_type(p.name(), &args).unwrap_or_else(Ty::unknown)
}

/// A type of the library by name and template arguments: numeric types and their
/// templates (`vec<float, 4>`, `matrix<half, 3, 3>`), and every other type the library
/// defines (textures, samplers, atomics, tensors, ray-tracing types, ...), whose aliases
/// (`atomic_int`) stand for what they are defined as.
pub fn library_type(name: &str, args: &[TemplateArg]) -> Option<Ty> {
    if args.is_empty()
        && let Some(t) = numeric_type(name)
    {
        return Some(t);
    }
    // the names without arguments are asked for often, and an alias costs a parse: kept
    if args.is_empty() {
        type Cache = std::sync::Mutex<rustc_hash::FxHashMap<String, Option<Ty>>>;
        static PLAIN: std::sync::OnceLock<Cache> = std::sync::OnceLock::new();
        let cache = PLAIN.get_or_init(Default::default);
        if let Ok(c) = cache.lock()
            && let Some(t) = c.get(name)
        {
            return t.clone();
        }
        let t = library_type_uncached(name, args);
        if let Ok(mut c) = cache.lock() {
            c.insert(name.to_string(), t.clone());
        }
        return t;
    }
    library_type_uncached(name, args)
}

fn library_type_uncached(name: &str, args: &[TemplateArg]) -> Option<Ty> {
    let scalar_arg = |i: usize| match args.get(i) {
        Some(TemplateArg::Type(t)) => match t.strip().kind() {
            TyKind::Scalar(s) => Some(*s),
            _ => None,
        },
        _ => None,
    };
    let size_arg = |i: usize| match args.get(i) {
        Some(TemplateArg::Value(v)) => u8::try_from(*v).ok().filter(|n| (2..=4).contains(n)),
        _ => None,
    };
    // with concrete arguments, the numeric templates are the numeric types; with
    // dependent ones (`vec<T, N>`) they stay library types
    match name {
        "vec" | "packed_vec" if args.len() == 2 => {
            if let (Some(elem), Some(len)) = (scalar_arg(0), size_arg(1)) {
                return Some(Ty::new(TyKind::Vector { elem, len, packed: name == "packed_vec" }));
            }
        }
        "matrix" if args.len() == 3 => {
            if let (Some(e), Some(c), Some(r)) = (scalar_arg(0), size_arg(1), size_arg(2)) {
                return Some(Ty::matrix(e, c, r));
            }
        }
        _ => {}
    }
    let lib = msl_stdlib::Stdlib::get();
    // the library's enums (`memory_order`, `access`, `coord`) are types of their own
    let entries = lib.lookup(name);
    if let Some(e) = entries.iter().find_map(|e| match e {
        msl_stdlib::Entry::Enum(e) => Some(*e),
        _ => None,
    }) {
        return Some(Ty::library(e.name, Vec::new()));
    }
    let def = lib.type_named(name)?;
    if args.is_empty()
        && let Some(of) = def.alias_of
        && let Some(t) = parse_type_text(of)
    {
        let target = t.lower(&LibraryOnly).ty;
        if !target.is_unknown() {
            return Some(Ty::alias(name, target));
        }
    }
    Some(Ty::library(def.name, args.to_vec()))
}

/// The type a piece of text spells (`vec<float, 4>`, `const device atomic_int *`),
/// parsed as a type-id.
pub fn parse_type_text(text: &str) -> Option<TypeRef> {
    let parse = msl_syntax::parse_text(&format!("using __msl_t = {text};\n"), &msl_syntax::PpConfig::default());
    if parse.errors().next().is_some() {
        return None;
    }
    let alias = parse.syntax().descendants().find(|n| n.kind() == SyntaxKind::ALIAS_DECL)?;
    let ty = alias.children().find_map(ast::Type::cast)?;
    Some(TypeRef::from_type(&ty))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lowered(text: &str) -> String {
        parse_type_text(text).map(|t| t.lower(&LibraryOnly).ty.to_string()).unwrap_or_else(|| "(no parse)".into())
    }

    #[test]
    fn types_written_in_every_way() {
        let cases = [
            ("float", "float"),
            ("unsigned int", "uint"),
            ("unsigned", "uint"),
            ("long int", "long"),
            ("metal::float4", "float4"),
            ("vec<half, 3>", "half3"),
            ("metal::matrix<float, 4, 4>", "float4x4"),
            ("const device float4 *", "const device float4 *"),
            ("thread int &", "thread int &"),
            ("device float * constant *", "device float * constant *"),
            ("const device float * const thread &", "const device float * const thread &"),
            ("float[4][2]", "float[4][2]"),
            ("float (*)(float)", "float (*)(float)"),
            ("device float (*)[4]", "device float (*)[4]"),
            ("texture2d<half, access::read>", "texture2d<half, access::read>"),
            ("atomic_int", "atomic_int"),
            ("Unknown", "{unknown}"),
            ("ns::float4", "{unknown}"),
            ("double", "{unknown}"),
            ("void", "void"),
        ];
        for (text, shown) in cases {
            assert_eq!(lowered(text), shown, "{text}");
        }
        // an alias of the library is transparent
        let atomic = parse_type_text("atomic_int").unwrap().lower(&LibraryOnly).ty;
        assert_eq!(atomic.strip().to_string(), "atomic<int>");
    }

    #[test]
    fn declared_objects_keep_their_own_qualifiers() {
        let t = parse_type_text("constant float").unwrap().lower(&LibraryOnly);
        assert_eq!((t.ty.to_string(), t.space, t.cv), ("float".to_string(), Some(AddressSpace::Constant), Cv::NONE));
        let t = parse_type_text("const device float * const").unwrap().lower(&LibraryOnly);
        assert_eq!(t.ty.to_string(), "const device float *");
        assert_eq!(t.cv, Cv::CONST);
    }

    #[test]
    fn literals() {
        assert_eq!(parse_int("0x1F"), Some(31));
        assert_eq!(parse_int("1'000u"), Some(1000));
        assert_eq!(parse_int("017"), Some(15));
        assert_eq!(parse_int("0b101"), Some(5));
        assert_eq!(parse_int("0"), Some(0));
    }
}
