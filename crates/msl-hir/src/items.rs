//! The item tree: what a unit declares outside function bodies. Editing inside a body
//! leaves it equal, so queries that depend on it (the checks of other functions) are not
//! re-run.

use msl_syntax::ast::{self, AstNode};
use msl_syntax::{SyntaxKind, SyntaxNode};
use std::sync::{Arc, Mutex};

use rowan::{GreenNode, GreenNodeData};
use rustc_hash::{FxHashMap, FxHashSet};

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ItemTree {
    /// Number of functions (outside other functions), in file order.
    pub function_count: u32,
    /// Each function's name and its declaration text without the body.
    pub functions: Vec<FunctionItem>,
    /// `typedef T Name;` and `using Name = T;`: name to the aliased type as written.
    pub typedefs: FxHashMap<String, String>,
    /// Every name declared outside function bodies: types, functions, variables,
    /// enumerators, namespaces, members, template parameters.
    pub declared: FxHashSet<String>,
    /// Names of structs, classes, unions and enums.
    pub types: FxHashSet<String>,
    /// Program-scope variables in the `constant` address space (not pointers).
    pub constants: FxHashSet<String>,
    /// Program-scope integer constants with a literal value (array sizes).
    pub int_constants: FxHashMap<String, u64>,
    /// Names declared as something other than a function: variables, fields, template
    /// parameters, enumerators.
    pub value_names: FxHashSet<String>,
    /// The fields of each struct or class defined once in the unit, outside templates,
    /// whose bases (if any) are plain names: its own field names to their types as
    /// written; methods as `name()` with the return type every overload shares (unknown
    /// when they differ). See [`ItemTree::field_type`] for lookup through bases.
    pub fields: FxHashMap<String, FxHashMap<String, TypeRef>>,
    /// The base classes of the structs in `fields` that have any (plain names).
    pub bases: FxHashMap<String, Vec<String>>,
    /// For the structs in `fields`: the identifiers of their other members (static ones,
    /// nested types, enumerators, using-declarations), which may hide a base's member.
    pub other_members: FxHashMap<String, FxHashSet<String>>,
    /// Struct names defined more than once (in different namespaces, say), or in a
    /// template, or with bases other than plain names: their fields are not known for sure.
    pub unsure_structs: FxHashSet<String>,
    /// For each function name: the return type all functions of that name share (unknown
    /// when they differ).
    pub returns: FxHashMap<String, TypeRef>,
    /// For each function name: its distinct signatures, or `None` when some function of
    /// that name has parameters the checker does not read (a template, a class member, a
    /// variadic or `(void)` list; see [`FunctionItem::params`]).
    pub overloads: FxHashMap<String, Option<Vec<Overload>>>,
    /// Names of enums (scoped or not).
    pub enums: FxHashSet<String>,
    /// Named namespaces and enums by qualified path (`a`, `a::b`, `a::Mode`): the names
    /// declared directly in them.
    pub scopes: FxHashMap<String, Scope>,
    /// Unqualified lookup: names declared at namespace scope (variables, functions, types,
    /// aliases, unscoped enumerators, namespaces, using-declarations) with the namespaces
    /// declaring them (`""` for the global one; an unnamed or inline namespace's names
    /// count in the enclosing one).
    pub homes: FxHashMap<String, FxHashSet<String>>,
    /// Names declared anywhere else too (members, parameters, template parameters, scoped
    /// enumerators, declarations not read): where they are visible is not judged.
    pub elsewhere: FxHashSet<String>,
    /// The using-directives written in each namespace (`""` for the global one), with the
    /// namespace named as written.
    pub usings: FxHashMap<String, Vec<String>>,
    /// The names of namespace aliases (`namespace fx = a::b;`), wherever declared.
    pub namespace_aliases: FxHashSet<String>,
}

/// One signature among the functions of a name: a function and its declarations share it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overload {
    pub params: Vec<TypeRef>,
    /// How many arguments it needs (the rest have defaults).
    pub required: usize,
    pub returns: TypeRef,
    /// The first declaration's text without a body (for messages).
    pub signature: String,
    /// The namespace of the declarations (see [`FunctionItem::namespace`]).
    pub namespace: Option<String>,
}

/// The names a namespace or enum declares directly.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Scope {
    pub members: FxHashSet<String>,
    /// Qualified lookup may find more than `members`: the namespace has a using-directive,
    /// a using-declaration, an inline namespace, or a declaration not read here.
    pub open: bool,
}

/// Collects the namespaces and enums under `node` (inside the scope `path`, `""` for the
/// global one) into `out`.
fn collect_scopes(node: &GreenNodeData, path: &str, out: &mut FxHashMap<String, Scope>) {
    let kind = SyntaxKind::from(node.kind().0);
    let add = |out: &mut FxHashMap<String, Scope>, name: &str| {
        if !path.is_empty() {
            out.entry(path.to_string()).or_default().members.insert(name.to_string());
        }
    };
    let open = |out: &mut FxHashMap<String, Scope>| {
        if !path.is_empty() {
            out.entry(path.to_string()).or_default().open = true;
        }
    };
    match kind {
        SyntaxKind::SOURCE_FILE => {
            for c in node.children().filter_map(|c| c.into_node()) {
                collect_scopes(c, path, out);
            }
        }
        SyntaxKind::NAMESPACE => {
            let inner = match namespace_name(node) {
                Some(name) => {
                    // `namespace a::b {` declares `a` here and `b` in `a`
                    let mut inner = path.to_string();
                    for segment in name.split("::") {
                        if !inner.is_empty() {
                            out.entry(inner.clone()).or_default().members.insert(segment.to_string());
                        }
                        inner = join(&inner, segment);
                        out.entry(inner.clone()).or_default();
                    }
                    inner
                }
                // an unnamed namespace's names are found in the enclosing one
                None => path.to_string(),
            };
            if is_inline(node) {
                open(out);
            }
            for list in node.children().filter_map(|c| c.into_node()).filter(|c| is(c, SyntaxKind::DECL_LIST)) {
                for c in list.children().filter_map(|c| c.into_node()) {
                    collect_scopes(c, &inner, out);
                }
            }
        }
        SyntaxKind::ENUM => {
            let Some(name) = child_name(node) else {
                open(out);
                return;
            };
            add(out, name);
            let scoped = is_scoped_enum(node);
            let mut enumerators = Vec::new();
            for list in node.children().filter_map(|c| c.into_node()).filter(|c| is(c, SyntaxKind::ENUMERATOR_LIST)) {
                for e in list.children().filter_map(|c| c.into_node()).filter(|c| is(c, SyntaxKind::ENUMERATOR)) {
                    if let Some(n) = child_name(e) {
                        enumerators.push(n.to_string());
                    }
                }
            }
            if !scoped {
                for e in &enumerators {
                    add(out, e);
                }
            }
            out.entry(join(path, name)).or_default().members.extend(enumerators);
        }
        SyntaxKind::STRUCT
        | SyntaxKind::TYPEDEF_DECL
        | SyntaxKind::ALIAS_DECL
        | SyntaxKind::VAR_DECL
        | SyntaxKind::FUNCTION => {
            let syntax = SyntaxNode::new_root(node.to_owned());
            let mut names: Vec<String> = Vec::new();
            match kind {
                SyntaxKind::STRUCT => names.extend(child_name(node).map(str::to_string)),
                SyntaxKind::ALIAS_DECL => {
                    names.extend(ast::AliasDecl::cast(syntax).and_then(|a| a.name()).map(|n| n.text()))
                }
                SyntaxKind::TYPEDEF_DECL => {
                    if let Some(t) = ast::TypedefDecl::cast(syntax) {
                        names.extend(t.declarators().filter_map(|d| d.name()).map(|n| n.text()));
                    }
                }
                SyntaxKind::VAR_DECL => {
                    if let Some(v) = ast::VarDecl::cast(syntax) {
                        names.extend(v.declarators().filter_map(|d| d.name()).map(|n| n.text()));
                        // `struct S { ... } s;`, `enum E { ... } e;`
                        let specs = node
                            .children()
                            .filter_map(|c| c.into_node())
                            .filter(|c| is(c, SyntaxKind::DECL_SPECIFIERS));
                        for c in specs.flat_map(|s| s.children().filter_map(|c| c.into_node())) {
                            if matches!(SyntaxKind::from(c.kind().0), SyntaxKind::STRUCT | SyntaxKind::ENUM) {
                                collect_scopes(c, path, out);
                            }
                        }
                    }
                }
                _ => names.extend(ast::Function::cast(syntax).and_then(|f| f.name()).map(|n| n.text())),
            }
            for n in names {
                // `a::f` defines a member declared elsewhere; `operator+` is found by other means
                if n.contains("::") || n.contains(' ') || n.is_empty() {
                    continue;
                }
                add(out, &n);
            }
        }
        SyntaxKind::TEMPLATE_DECL => {
            for c in node.children().filter_map(|c| c.into_node()) {
                collect_scopes(c, path, out);
            }
        }
        SyntaxKind::USING_DIRECTIVE | SyntaxKind::USING_DECL | SyntaxKind::NAMESPACE_ALIAS => {
            // an alias names a namespace only through the one it stands for
            if kind == SyntaxKind::NAMESPACE_ALIAS
                && let Some(name) = child_name(node)
            {
                add(out, name);
            }
            open(out);
        }
        // parameters of a template, declarations that declare nothing by name
        SyntaxKind::TEMPLATE_PARAM_LIST
        | SyntaxKind::STATIC_ASSERT
        | SyntaxKind::EXPLICIT_INSTANTIATION
        | SyntaxKind::EMPTY_DECL => {}
        _ => open(out),
    }
}

/// Fills [`ItemTree::homes`], [`ItemTree::elsewhere`] and [`ItemTree::usings`] from the
/// declarations under `node`, which sits in namespace `path`.
fn collect_names(node: &GreenNodeData, path: &str, t: &mut ItemTree) {
    let kind = SyntaxKind::from(node.kind().0);
    let nodes = || node.children().filter_map(|c| c.into_node());
    let home = |t: &mut ItemTree, name: &str| {
        t.homes.entry(name.to_string()).or_default().insert(path.to_string());
    };
    match kind {
        SyntaxKind::SOURCE_FILE | SyntaxKind::DECL_LIST | SyntaxKind::LINKAGE_SPEC => {
            for c in nodes() {
                collect_names(c, path, t);
            }
        }
        SyntaxKind::NAMESPACE => {
            let inner = match namespace_name(node) {
                Some(n) => {
                    let first = n.split("::").next().unwrap_or_default();
                    home(t, first);
                    // an inline namespace's names are found in the enclosing one as well
                    if is_inline(node) {
                        t.usings.entry(path.to_string()).or_default().push(n.clone());
                    }
                    join(path, &n)
                }
                None => path.to_string(),
            };
            for c in nodes().filter(|c| is(c, SyntaxKind::DECL_LIST)) {
                collect_names(c, &inner, t);
            }
        }
        SyntaxKind::TEMPLATE_DECL => {
            for c in nodes() {
                if is(c, SyntaxKind::TEMPLATE_PARAM_LIST) {
                    all_names(c, &mut t.elsewhere);
                } else {
                    collect_names(c, path, t);
                }
            }
        }
        SyntaxKind::FUNCTION | SyntaxKind::VAR_DECL | SyntaxKind::TYPEDEF_DECL => {
            for c in nodes() {
                match SyntaxKind::from(c.kind().0) {
                    SyntaxKind::DECL_SPECIFIERS => collect_names(c, path, t),
                    SyntaxKind::INIT_DECLARATOR | SyntaxKind::DECLARATOR => {
                        // the declared name, when plain (not `S::f`, not `operator+`);
                        // the names inside (a function's parameters) are elsewhere
                        let declarator = if is(c, SyntaxKind::DECLARATOR) {
                            Some(c)
                        } else {
                            c.children().filter_map(|d| d.into_node()).find(|d| is(d, SyntaxKind::DECLARATOR))
                        };
                        if let Some(name) = declarator.and_then(name_node) {
                            match name_ident(name) {
                                Some(n) if is_plain_name(name) => home(t, n),
                                _ => all_names(name, &mut t.elsewhere),
                            }
                        }
                        all_names_but_declared(c, &mut t.elsewhere);
                    }
                    _ => all_names(c, &mut t.elsewhere),
                }
            }
        }
        SyntaxKind::DECL_SPECIFIERS => {
            // a struct or enum defined in place
            for c in nodes() {
                if matches!(SyntaxKind::from(c.kind().0), SyntaxKind::STRUCT | SyntaxKind::ENUM) {
                    collect_names(c, path, t);
                }
            }
        }
        SyntaxKind::ALIAS_DECL => {
            for c in nodes() {
                match (is(c, SyntaxKind::NAME), name_ident(c)) {
                    (true, Some(n)) => home(t, n),
                    _ => all_names(c, &mut t.elsewhere),
                }
            }
        }
        SyntaxKind::STRUCT => {
            for c in nodes() {
                match (is(c, SyntaxKind::NAME) && is_plain_name(c), name_ident(c)) {
                    (true, Some(n)) => home(t, n),
                    _ => all_names(c, &mut t.elsewhere),
                }
            }
        }
        SyntaxKind::ENUM => {
            let scoped = is_scoped_enum(node);
            for c in nodes() {
                match SyntaxKind::from(c.kind().0) {
                    SyntaxKind::NAME => match name_ident(c) {
                        Some(n) => home(t, n),
                        None => all_names(c, &mut t.elsewhere),
                    },
                    SyntaxKind::ENUMERATOR_LIST if !scoped => {
                        for e in c.children().filter_map(|e| e.into_node()) {
                            match child_name(e) {
                                Some(n) if is(e, SyntaxKind::ENUMERATOR) => home(t, n),
                                _ => all_names(e, &mut t.elsewhere),
                            }
                        }
                    }
                    _ => all_names(c, &mut t.elsewhere),
                }
            }
        }
        SyntaxKind::USING_DIRECTIVE => {
            if let Some(target) = nodes().find(|c| is(c, SyntaxKind::PATH)) {
                t.usings.entry(path.to_string()).or_default().push(compact(&SyntaxNode::new_root(target.to_owned())));
            }
        }
        SyntaxKind::USING_DECL => {
            // `using a::x;` makes `x` a name of this namespace
            let last = nodes()
                .find(|c| is(c, SyntaxKind::PATH))
                .and_then(|p| p.children().filter_map(|e| e.into_token()).next_back())
                .filter(|tok| SyntaxKind::from(tok.kind().0) == SyntaxKind::IDENT);
            match last {
                Some(tok) => home(t, tok.text()),
                None => all_names(node, &mut t.elsewhere),
            }
        }
        SyntaxKind::NAMESPACE_ALIAS => {
            if let Some(n) = child_name(node) {
                home(t, n);
                t.namespace_aliases.insert(n.to_string());
            }
        }
        _ => all_names(node, &mut t.elsewhere),
    }
}

/// Every name a `NAME` node declares under `node`, outside bodies and expressions.
fn all_names(node: &GreenNodeData, out: &mut FxHashSet<String>) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match SyntaxKind::from(n.kind().0) {
            SyntaxKind::COMPOUND_STMT | SyntaxKind::TEMPLATE_ARG_LIST | SyntaxKind::ATTRIBUTE_LIST => {}
            k if k.is_expr_node() => {}
            SyntaxKind::NAME => {
                if let Some(i) = name_ident(n) {
                    out.insert(i.to_string());
                }
            }
            _ => stack.extend(n.children().filter_map(|c| c.into_node())),
        }
    }
}

/// [`all_names`] under a declarator, but not the name it declares.
fn all_names_but_declared(node: &GreenNodeData, out: &mut FxHashSet<String>) {
    for c in node.children().filter_map(|c| c.into_node()) {
        match SyntaxKind::from(c.kind().0) {
            SyntaxKind::NAME => {}
            SyntaxKind::DECLARATOR => all_names_but_declared(c, out),
            _ => all_names(c, out),
        }
    }
}

/// A type as a declaration writes it: the type specifier, the qualifiers next to it and
/// the declarator's operators. The checker resolves it to a type; nothing here is
/// interpreted yet, so it can live in the item tree.
#[derive(Debug, Clone, PartialEq, Eq, Default, Hash)]
pub struct TypeRef {
    /// The type specifier without trivia (`float4`, `metal::texture2d<half,access::read>`,
    /// `Particle`); empty when the declaration is not one the checker reads (a function
    /// declarator, a parenthesized declarator, a class defined in place).
    pub base: String,
    /// The address space keyword among the specifiers (`device`).
    pub space: Option<String>,
    /// `const` or `constexpr` among the specifiers.
    pub is_const: bool,
    /// The declarator's operators in the order they apply to the base: pointers and
    /// references left to right, then array bounds right to left.
    pub ops: Vec<TypeOp>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TypeOp {
    /// `*`, with the address space and `const` written after it.
    Pointer { space: Option<String>, is_const: bool },
    /// `&` or `&&`.
    Reference,
    /// `[N]` (the bound when it is an integer literal).
    Array(Option<u64>),
}

impl TypeOp {
    /// The operator a `*`, `&` or `&&` writes (`None` for pointers to members and the like).
    fn of(op: &ast::PtrOperator) -> Option<TypeOp> {
        Some(match op.kind_token()?.kind() {
            SyntaxKind::STAR => {
                TypeOp::Pointer { space: op.address_space().map(|t| t.text().to_string()), is_const: op.is_const() }
            }
            SyntaxKind::AMP | SyntaxKind::AMP2 => TypeOp::Reference,
            _ => return None,
        })
    }
}

impl TypeRef {
    /// What a declaration's specifiers and declarator write; unknown (an empty base) for
    /// declarators the checker does not read.
    pub fn from_syntax(spec: Option<&ast::DeclSpecifiers>, decl: Option<&ast::Declarator>) -> TypeRef {
        let Some(spec) = spec else { return TypeRef::default() };
        let Some(ts) = spec.type_spec() else { return TypeRef::default() };
        let mut out = TypeRef {
            base: compact(ts.syntax()),
            space: spec.address_space().map(|t| t.text().to_string()),
            is_const: spec.has(SyntaxKind::CONST_KW) || spec.has(SyntaxKind::CONSTEXPR_KW),
            ops: Vec::new(),
        };
        let Some(decl) = decl else { return out };
        // `(*p)[4]`, `f(int)`: nested or function declarators
        if decl.param_list().is_some() || decl.syntax().children().any(|c| c.kind() == SyntaxKind::DECLARATOR) {
            return TypeRef::default();
        }
        for op in decl.ptr_operators() {
            let Some(op) = TypeOp::of(&op) else { return TypeRef::default() };
            out.ops.push(op);
        }
        let bounds: Vec<TypeOp> =
            decl.array_suffixes().map(|a| TypeOp::Array(a.size().and_then(|e| crate::checks::const_int(&e)))).collect();
        out.ops.extend(bounds.into_iter().rev());
        out
    }

    /// Whether the declaration is read at all.
    pub fn is_known(&self) -> bool {
        !self.base.is_empty()
    }
}

/// The item-tree parts of the top-level nodes of each unit's latest parse, by node.
#[derive(Default)]
pub struct ItemCache {
    parts: Mutex<FxHashMap<crate::Unit, UnitItems>>,
    /// Each unit's latest definitions, with the tree they were collected from.
    pub(crate) defs: Mutex<FxHashMap<crate::Unit, crate::defs::CachedDefs>>,
    /// Each unit's latest program-wide findings, with the tree they were made from.
    pub(crate) program: Mutex<FxHashMap<crate::Unit, CachedProgram>>,
    /// The same for the checks of the declarations outside functions.
    pub(crate) declarations: Mutex<FxHashMap<crate::Unit, CachedFindings>>,
}

/// Findings with the tree they were made from.
pub(crate) type CachedFindings = (rowan::GreenNode, Arc<Vec<crate::checks::HirDiagnostic>>);

/// The program rules' findings with the tree, and the unit's explicit specializations.
pub(crate) type CachedProgram =
    (rowan::GreenNode, (Arc<Vec<crate::checks::HirDiagnostic>>, Arc<Vec<crate::checks::Specialization>>));

/// What is kept of a unit's latest item tree.
#[derive(Default)]
struct UnitItems {
    parts: Parts,
    /// The parts in order, and the tree merged from them.
    merged: Option<(Vec<Arc<ItemTree>>, Arc<ItemTree>)>,
}

/// Parts by the address of their node (kept alive in the map).
type Parts = FxHashMap<usize, (GreenNode, Arc<ItemTree>)>;

impl ItemCache {
    /// Drops what is kept for `unit` (when it is closed).
    pub fn forget(&self, unit: crate::Unit) {
        if let Ok(mut units) = self.parts.lock() {
            units.remove(&unit);
        }
        if let Ok(mut defs) = self.defs.lock() {
            defs.remove(&unit);
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionItem {
    pub name: String,
    pub signature: String,
    pub context: crate::db::FunctionContext,
    /// The least and greatest number of arguments it takes (`usize::MAX`: variadic).
    pub arity: (usize, usize),
    /// The return type as written (unknown for a trailing return type, a template's or a
    /// class member's function).
    pub returns: TypeRef,
    /// Each parameter's type as written; `None` for templates, class members and variadic
    /// or `(void)` lists.
    pub params: Option<Vec<TypeRef>>,
    /// The namespace it is defined in (`a::b`; `""` for the global one), when known.
    pub namespace: Option<String>,
}

impl ItemTree {
    pub fn build(green: &GreenNodeData) -> ItemTree {
        let mut t = ItemTree::part(green);
        t.function_count = t.functions.len() as u32;
        t.index_returns();
        t
    }

    /// Fills [`ItemTree::returns`] and [`ItemTree::overloads`] from the functions.
    fn index_returns(&mut self) {
        let mut returns: FxHashMap<String, TypeRef> = FxHashMap::default();
        let mut overloads: FxHashMap<String, Option<Vec<Overload>>> = FxHashMap::default();
        for f in &self.functions {
            match returns.get_mut(&f.name) {
                Some(r) if *r != f.returns => *r = TypeRef::default(),
                Some(_) => {}
                None => {
                    returns.insert(f.name.clone(), f.returns.clone());
                }
            }
            let entry = overloads.entry(f.name.clone()).or_insert_with(|| Some(Vec::new()));
            match (entry.as_mut(), &f.params) {
                // a declaration may give the defaults its definition leaves out
                (Some(list), Some(params)) => {
                    match list.iter_mut().find(|o| o.params == *params && o.namespace == f.namespace) {
                        Some(o) => o.required = o.required.min(f.arity.0),
                        None => list.push(Overload {
                            params: params.clone(),
                            required: f.arity.0,
                            returns: f.returns.clone(),
                            signature: f.signature.trim().to_string(),
                            namespace: f.namespace.clone(),
                        }),
                    }
                }
                _ => *entry = None,
            }
        }
        self.returns = returns;
        self.overloads = overloads;
    }

    /// Takes the namespaces and enums of `part`, merging those declared in both.
    fn add_scopes(&mut self, part: &ItemTree) {
        for (path, scope) in &part.scopes {
            let s = self.scopes.entry(path.clone()).or_default();
            s.members.extend(scope.members.iter().cloned());
            s.open |= scope.open;
        }
    }

    /// Takes the struct fields of `part`; a name defined in both becomes unsure.
    fn add_structs(&mut self, part: &ItemTree) {
        self.unsure_structs.extend(part.unsure_structs.iter().cloned());
        for (name, fields) in &part.fields {
            if self.fields.contains_key(name) {
                self.unsure_structs.insert(name.clone());
            } else {
                self.fields.insert(name.clone(), fields.clone());
                if let Some(b) = part.bases.get(name) {
                    self.bases.insert(name.clone(), b.clone());
                }
                if let Some(o) = part.other_members.get(name) {
                    self.other_members.insert(name.clone(), o.clone());
                }
            }
        }
        let unsure = &self.unsure_structs;
        self.fields.retain(|name, _| !unsure.contains(name));
        self.bases.retain(|name, _| !unsure.contains(name));
        self.other_members.retain(|name, _| !unsure.contains(name));
    }

    /// The type of field `field` of struct `name` (or of a base class it inherits it from),
    /// as written, when the struct and its bases are known for sure, the name is not
    /// ambiguous among the bases and the field's declaration is one the checker reads.
    pub fn field_type(&self, name: &str, field: &str) -> Option<&TypeRef> {
        match self.find_member(name, field, &mut FxHashSet::default()) {
            Found::Yes(t) if t.is_known() => Some(t),
            _ => None,
        }
    }

    /// Member lookup in a struct and then its bases (a member hides those of its bases).
    /// A base met twice (a diamond, shared or not) makes the answer unsure.
    fn find_member(&self, name: &str, member: &str, seen: &mut FxHashSet<String>) -> Found<'_> {
        let name = self.resolve_alias(name);
        if !seen.insert(name.to_string()) || seen.len() > 64 {
            return Found::Unsure;
        }
        let Some(fields) = self.fields.get(name) else { return Found::Unsure };
        if let Some(t) = fields.get(member) {
            return Found::Yes(t);
        }
        let Some(bases) = self.bases.get(name) else { return Found::No };
        // a method hides a base's field of its name and the other way round; so do the
        // struct's other members
        let stem = member.trim_end_matches("()");
        if fields.contains_key(stem)
            || fields.contains_key(&format!("{stem}()"))
            || self.other_members.get(name).is_some_and(|o| o.contains(stem))
        {
            return Found::Unsure;
        }
        let mut found = Found::No;
        for base in bases {
            match (self.find_member(base, member, seen), &found) {
                (Found::No, _) => {}
                (Found::Yes(t), Found::No) => found = Found::Yes(t),
                // in two bases (or a base not known): ambiguous or not sure
                _ => return Found::Unsure,
            }
        }
        found
    }

    /// The bases of struct `name`, directly or not, each once; the flag is false when one
    /// of them (or `name`) is not a struct known here.
    fn all_bases(&self, name: &str) -> (Vec<&str>, bool) {
        let mut out: Vec<&str> = Vec::new();
        let mut queue = vec![self.resolve_alias(name)];
        let mut complete = self.fields.contains_key(queue[0]);
        while let Some(n) = queue.pop() {
            for b in self.bases.get(n).into_iter().flatten() {
                let b = self.resolve_alias(b);
                if out.contains(&b) {
                    continue;
                }
                if out.len() > 64 {
                    return (out, false);
                }
                complete &= self.fields.contains_key(b);
                out.push(b);
                queue.push(b);
            }
        }
        (out, complete)
    }

    /// Whether struct `name` inherits, directly or not, from struct `base`; `true` when a
    /// base on the way is not known.
    pub fn may_derive_from(&self, name: &str, base: &str) -> bool {
        let (bases, complete) = self.all_bases(name);
        !complete || bases.contains(&self.resolve_alias(base))
    }

    /// Whether struct `name` or one of its bases declares an operator (`true` when one of
    /// them is not known).
    pub fn declares_operators(&self, name: &str) -> bool {
        let (bases, complete) = self.all_bases(name);
        !complete
            || std::iter::once(self.resolve_alias(name))
                .chain(bases)
                .any(|n| self.fields.get(n).is_none_or(|f| f.keys().any(|k| k.starts_with("operator"))))
    }

    /// The item tree of a unit from the parts of its top-level nodes, reusing the parts
    /// of nodes seen before (after a reparse, all but one are the same nodes).
    /// When every part equals the previous one (an edit inside a body), the previous tree
    /// itself is returned.
    pub fn build_cached(green: &GreenNodeData, cache: &ItemCache, unit: crate::Unit) -> Arc<ItemTree> {
        let Ok(mut units) = cache.parts.lock() else { return Arc::new(ItemTree::build(green)) };
        let items = units.entry(unit).or_default();
        let mut seen: Parts = FxHashMap::default();
        let mut order = Vec::new();
        for child in green.children().filter_map(|c| c.into_node()) {
            let key = child as *const GreenNodeData as usize;
            let part = match items.parts.get(&key) {
                Some((_, p)) => p.clone(),
                None => Arc::new(ItemTree::part(child)),
            };
            order.push(part.clone());
            seen.insert(key, (child.to_owned(), part));
        }
        // keep only the current nodes (the map holds them, so their addresses stay theirs)
        items.parts = seen;
        let tree = match &items.merged {
            Some((previous, tree))
                if previous.len() == order.len()
                    && previous.iter().zip(&order).all(|(a, b)| Arc::ptr_eq(a, b) || a == b) =>
            {
                tree.clone()
            }
            _ => Arc::new(ItemTree::merge(&order)),
        };
        items.merged = Some((order, tree.clone()));
        tree
    }

    /// The item tree made of `parts`, in order.
    fn merge(parts: &[Arc<ItemTree>]) -> ItemTree {
        let mut t = ItemTree::default();
        for part in parts {
            t.functions.extend(part.functions.iter().cloned());
            for (k, v) in &part.typedefs {
                t.typedefs.insert(k.clone(), v.clone());
            }
            t.declared.extend(part.declared.iter().cloned());
            t.types.extend(part.types.iter().cloned());
            t.constants.extend(part.constants.iter().cloned());
            t.value_names.extend(part.value_names.iter().cloned());
            for (k, v) in &part.int_constants {
                t.int_constants.insert(k.clone(), *v);
            }
            t.add_structs(part);
            t.add_scopes(part);
            for (name, homes) in &part.homes {
                t.homes.entry(name.clone()).or_default().extend(homes.iter().cloned());
            }
            t.elsewhere.extend(part.elsewhere.iter().cloned());
            t.namespace_aliases.extend(part.namespace_aliases.iter().cloned());
            for (ns, usings) in &part.usings {
                t.usings.entry(ns.clone()).or_default().extend(usings.iter().cloned());
            }
        }
        t.function_count = t.functions.len() as u32;
        t.index_returns();
        t
    }

    /// What one node (and everything under it) contributes.
    fn part(green: &GreenNodeData) -> ItemTree {
        let mut t = ItemTree::default();
        collect_scopes(green, "", &mut t.scopes);
        collect_names(green, "", &mut t);
        for (_, f, context, namespace) in crate::db::green_functions_in_context(green) {
            let func = ast::Function::cast(SyntaxNode::new_root(f.to_owned()));
            let name = func.as_ref().and_then(|f| f.name()).map(|n| n.text()).unwrap_or_default();
            let arity = func.as_ref().and_then(|f| f.param_list()).map(|l| params_arity(&l)).unwrap_or((0, usize::MAX));
            let returns =
                func.as_ref().filter(|_| !context.template && !context.member).map(return_type).unwrap_or_default();
            let params = func
                .as_ref()
                .filter(|_| !context.template && !context.member && arity.1 != usize::MAX)
                .and_then(|f| f.param_list())
                .map(|l| {
                    l.params()
                        .map(|p| TypeRef::from_syntax(p.decl_specifiers().as_ref(), p.declarator().as_ref()))
                        .collect::<Vec<TypeRef>>()
                })
                .filter(|p| p.len() == arity.1);
            t.functions.push(FunctionItem {
                name,
                signature: signature(f),
                context,
                arity,
                returns,
                params,
                namespace,
            });
        }
        // each node with whether it sits in a template
        let mut stack = vec![(green, false)];
        while let Some((node, in_template)) = stack.pop() {
            match SyntaxKind::from(node.kind().0) {
                // bodies, expressions, template arguments, attributes and explicit
                // instantiations do not declare items
                SyntaxKind::COMPOUND_STMT
                | SyntaxKind::TEMPLATE_ARG_LIST
                | SyntaxKind::ATTRIBUTE_LIST
                | SyntaxKind::EXPLICIT_INSTANTIATION => continue,
                k if k.is_expr_node() => continue,
                SyntaxKind::NAME => {
                    if let Some(ident) = name_ident(node) {
                        t.declared.insert(ident.to_string());
                    }
                }
                SyntaxKind::STRUCT | SyntaxKind::ENUM => {
                    if let Some(ident) = child_name(node) {
                        t.types.insert(ident.to_string());
                        if SyntaxKind::from(node.kind().0) == SyntaxKind::ENUM {
                            t.enums.insert(ident.to_string());
                        }
                        if SyntaxKind::from(node.kind().0) == SyntaxKind::STRUCT {
                            let fields = ast::Struct::cast(SyntaxNode::new_root(node.to_owned()))
                                .filter(|_| !in_template)
                                .and_then(|s| Some((struct_fields(&s)?, plain_bases(&s)?)));
                            match fields {
                                Some(((f, others), bases))
                                    if !t.fields.contains_key(ident) && !t.unsure_structs.contains(ident) =>
                                {
                                    t.fields.insert(ident.to_string(), f);
                                    if !bases.is_empty() {
                                        t.bases.insert(ident.to_string(), bases);
                                    }
                                    if !others.is_empty() {
                                        t.other_members.insert(ident.to_string(), others);
                                    }
                                }
                                _ => {
                                    t.fields.remove(ident);
                                    t.bases.remove(ident);
                                    t.other_members.remove(ident);
                                    t.unsure_structs.insert(ident.to_string());
                                }
                            }
                        }
                    }
                }
                SyntaxKind::TYPEDEF_DECL => {
                    if let Some(td) = ast::TypedefDecl::cast(SyntaxNode::new_root(node.to_owned())) {
                        let target = td
                            .decl_specifiers()
                            .and_then(|d| d.type_spec())
                            .map(|ts| compact(ts.syntax()))
                            .unwrap_or_default();
                        for d in td.declarators() {
                            let plain = d.declarator().is_some_and(|d| {
                                d.ptr_operators().next().is_none() && d.array_suffixes().next().is_none()
                            });
                            if let Some(n) = d.name() {
                                t.typedefs.insert(n.text(), if plain { target.clone() } else { String::new() });
                            }
                        }
                    }
                }
                SyntaxKind::INIT_DECLARATOR
                | SyntaxKind::TYPE_PARAM
                | SyntaxKind::NON_TYPE_PARAM
                | SyntaxKind::TEMPLATE_TEMPLATE_PARAM
                | SyntaxKind::ENUMERATOR => {
                    let name = node.children().filter_map(|c| c.into_node()).find_map(|c| {
                        match SyntaxKind::from(c.kind().0) {
                            SyntaxKind::NAME => Some(c),
                            SyntaxKind::DECLARATOR => name_node(c),
                            _ => None,
                        }
                    });
                    if let Some(ident) = name.and_then(name_ident) {
                        t.value_names.insert(ident.to_string());
                    }
                }
                SyntaxKind::VAR_DECL => {
                    if let Some(v) = ast::VarDecl::cast(SyntaxNode::new_root(node.to_owned())) {
                        let spec = v.decl_specifiers();
                        let in_constant = spec.as_ref().is_some_and(|d| d.has(SyntaxKind::CONSTANT_KW));
                        let is_const = spec.as_ref().is_some_and(|d| {
                            d.has(SyntaxKind::CONSTANT_KW)
                                || d.has(SyntaxKind::CONST_KW)
                                || d.has(SyntaxKind::CONSTEXPR_KW)
                        });
                        for d in v.declarators() {
                            let Some(name) = d.name().map(|n| n.text()) else { continue };
                            let plain = d.declarator().is_some_and(|d| d.ptr_operators().next().is_none());
                            if in_constant && plain {
                                t.constants.insert(name.clone());
                            }
                            let scalar = plain && d.declarator().is_some_and(|d| d.array_suffixes().next().is_none());
                            if is_const
                                && scalar
                                && let Some(value) =
                                    d.initializer().and_then(|i| i.expr()).and_then(|e| crate::checks::const_int(&e))
                            {
                                t.int_constants.insert(name, value);
                            }
                        }
                    }
                }
                SyntaxKind::ALIAS_DECL => {
                    if let Some(a) = ast::AliasDecl::cast(SyntaxNode::new_root(node.to_owned()))
                        && let Some(n) = a.name()
                    {
                        let target = a
                            .ty()
                            .filter(|ty| ty.declarator().is_none())
                            .and_then(|ty| ty.type_spec())
                            .map(|ts| compact(ts.syntax()))
                            .unwrap_or_default();
                        t.typedefs.insert(n.text(), target);
                    }
                }
                _ => {}
            }
            let in_template = in_template || SyntaxKind::from(node.kind().0) == SyntaxKind::TEMPLATE_DECL;
            stack.extend(node.children().filter_map(|c| c.into_node()).map(|c| (c, in_template)));
        }
        t
    }

    /// Follows user typedefs from `name` to the type they stand for, as written (`""` when
    /// the chain ends in something that is not a plain named type).
    pub fn resolve_alias<'a>(&'a self, mut name: &'a str) -> &'a str {
        for _ in 0..16 {
            match self.typedefs.get(name) {
                Some(target) => name = target,
                None => return name,
            }
        }
        ""
    }
}

/// The result of looking a member up in a struct and its bases.
enum Found<'a> {
    Yes(&'a TypeRef),
    No,
    /// Ambiguous, or a struct on the way is not known.
    Unsure,
}

/// The names of a struct's base classes (empty without a base clause); `None` when one
/// is not a plain name (a template, a qualified name, `decltype`, a pack).
fn plain_bases(s: &ast::Struct) -> Option<Vec<String>> {
    let Some(clause) = s.base_clause() else { return Some(Vec::new()) };
    clause
        .bases()
        .map(|b| {
            // the access and `virtual` keywords aside, one identifier
            let mut rest = b.syntax().children_with_tokens().filter(|e| {
                !e.kind().is_trivia()
                    && !matches!(
                        e.kind(),
                        SyntaxKind::PUBLIC_KW
                            | SyntaxKind::PRIVATE_KW
                            | SyntaxKind::PROTECTED_KW
                            | SyntaxKind::VIRTUAL_KW
                    )
            });
            match (rest.next(), rest.next()) {
                (Some(rowan::NodeOrToken::Token(t)), None) if t.kind() == SyntaxKind::IDENT => {
                    Some(t.text().to_string())
                }
                _ => None,
            }
        })
        .collect()
}

/// The fields of a struct (`None` for a union, whose fields share storage, or a struct
/// with anonymous members, whose fields are reached without a name).
fn struct_fields(s: &ast::Struct) -> Option<(FxHashMap<String, TypeRef>, FxHashSet<String>)> {
    if s.keyword().is_some_and(|k| k.kind() == SyntaxKind::UNION_KW) {
        return None;
    }
    let mut fields = FxHashMap::default();
    // every identifier of other members: they may hide a base's member of the same name
    let mut others = FxHashSet::default();
    let mut other = |node: &SyntaxNode| {
        for t in node.descendants_with_tokens().filter_map(|e| e.into_token()) {
            if t.kind() == SyntaxKind::IDENT {
                others.insert(t.text().to_string());
            }
        }
    };
    for member in s.members() {
        match member {
            ast::Item::VarDecl(v) => {
                let spec = v.decl_specifiers();
                let declarators: Vec<_> = v.declarators().collect();
                if declarators.is_empty() {
                    // `struct { ... };` or `union { ... };` inside: anonymous members
                    return None;
                }
                // `static` members are not part of the object
                if spec.as_ref().is_some_and(|s| s.has(SyntaxKind::STATIC_KW)) {
                    other(v.syntax());
                    continue;
                }
                for d in declarators {
                    let Some(name) = d.name().map(|n| n.text()) else { continue };
                    let ty = if d.syntax().children().any(|n| n.kind() == SyntaxKind::BIT_FIELD) {
                        TypeRef::default()
                    } else {
                        TypeRef::from_syntax(spec.as_ref(), d.declarator().as_ref())
                    };
                    fields.insert(name, ty);
                }
            }
            ast::Item::Struct(inner) if inner.name().is_none() => return None,
            // methods, as `name()`: the return type when every overload shares a plain one
            ast::Item::Function(f) => {
                let Some(name) = f.name().map(|n| n.text()) else { continue };
                let returns = return_type(&f);
                let key = format!("{name}()");
                match fields.get(&key) {
                    Some(r) if *r != returns => {
                        fields.insert(key, TypeRef::default());
                    }
                    Some(_) => {}
                    None => {
                        fields.insert(key, returns);
                    }
                }
            }
            // a member template may overload a method: its return type is not known
            ast::Item::TemplateDecl(t) => {
                if let Some(f) = t.syntax().descendants().find_map(ast::Function::cast)
                    && let Some(name) = f.name()
                {
                    fields.insert(format!("{}()", name.text()), TypeRef::default());
                }
            }
            // nested types, enumerators, using-declarations, ...
            item => other(item.syntax()),
        }
    }
    Some((fields, others))
}

/// A function's return type as written (unknown with a trailing return type).
fn return_type(f: &ast::Function) -> TypeRef {
    if f.syntax().children().any(|c| c.kind() == SyntaxKind::TRAILING_RETURN) {
        return TypeRef::default();
    }
    let Some(decl) = f.declarator() else { return TypeRef::default() };
    let mut t = TypeRef::from_syntax(f.decl_specifiers().as_ref(), None);
    for op in decl.ptr_operators() {
        let Some(op) = TypeOp::of(&op) else { return TypeRef::default() };
        t.ops.push(op);
    }
    t
}

/// The least and greatest number of arguments a parameter list accepts.
fn params_arity(list: &ast::ParamList) -> (usize, usize) {
    let params: Vec<ast::Param> = list.params().collect();
    // `(void)`
    if let [only] = params.as_slice()
        && only.declarator().is_none()
        && only.decl_specifiers().is_some_and(|d| d.has(SyntaxKind::VOID_KW))
    {
        return (0, 0);
    }
    let pack = params.iter().any(|p| p.syntax().descendants_with_tokens().any(|e| e.kind() == SyntaxKind::DOT3));
    if pack || list.is_variadic() {
        return (params.iter().filter(|p| p.default_value().is_none()).count().saturating_sub(1), usize::MAX);
    }
    let defaults = params.iter().filter(|p| p.default_value().is_some()).count();
    (params.len() - defaults, params.len())
}

fn is(node: &GreenNodeData, kind: SyntaxKind) -> bool {
    SyntaxKind::from(node.kind().0) == kind
}

/// `name` inside the namespace `path` (`""`: the global one).
pub(crate) fn join(path: &str, name: &str) -> String {
    if path.is_empty() { name.to_string() } else { format!("{path}::{name}") }
}

/// `inline namespace`.
fn is_inline(namespace: &GreenNodeData) -> bool {
    namespace.children().any(|c| c.as_token().is_some_and(|t| t.kind() == SyntaxKind::INLINE_KW.into()))
}

/// `enum class` or `enum struct`.
fn is_scoped_enum(node: &GreenNodeData) -> bool {
    node.children().any(|c| {
        c.as_token()
            .is_some_and(|t| matches!(SyntaxKind::from(t.kind().0), SyntaxKind::CLASS_KW | SyntaxKind::STRUCT_KW))
    })
}

/// A `NAME` node that is one identifier (not `S::f`, `operator+` or `S<T>`).
fn is_plain_name(name: &GreenNodeData) -> bool {
    name.children().filter(|e| !SyntaxKind::from(e.kind().0).is_trivia()).count() == 1
}

/// A class defined with a qualified name (`struct a::S { ... }`).
pub(crate) fn is_qualified_definition(node: &GreenNodeData) -> bool {
    name_node(node).is_some_and(|n| !is_plain_name(n))
}

/// The name of a namespace definition, with every segment of a nested one
/// (`namespace a::b {`): `a::b`.
pub(crate) fn namespace_name(node: &GreenNodeData) -> Option<String> {
    let name = name_node(node)?;
    let idents: Vec<&str> = name
        .children()
        .filter_map(|c| c.into_token())
        .filter(|t| SyntaxKind::from(t.kind().0) == SyntaxKind::IDENT)
        .map(|t| t.text())
        .collect();
    (!idents.is_empty()).then(|| idents.join("::"))
}

/// The `NAME` child of a node.
fn name_node(node: &GreenNodeData) -> Option<&GreenNodeData> {
    node.children().filter_map(|c| c.into_node()).find(|c| is(c, SyntaxKind::NAME))
}

/// The identifier a node's `NAME` child ends with.
fn child_name(node: &GreenNodeData) -> Option<&str> {
    name_node(node).and_then(name_ident)
}

/// The last identifier directly in a `NAME` node (for `S::f`, the `f`).
fn name_ident(name: &GreenNodeData) -> Option<&str> {
    name.children()
        .filter_map(|c| c.into_token())
        .rfind(|t| SyntaxKind::from(t.kind().0) == SyntaxKind::IDENT)
        .map(|t| t.text())
}

/// A function's tokens outside its body, without trivia, separated by spaces.
fn signature(function: &GreenNodeData) -> String {
    let mut out = String::new();
    let mut stack: Vec<rowan::NodeOrToken<&GreenNodeData, &rowan::GreenTokenData>> =
        vec![rowan::NodeOrToken::Node(function)];
    let mut space = false;
    while let Some(e) = stack.pop() {
        match e {
            rowan::NodeOrToken::Node(n) => {
                if SyntaxKind::from(n.kind().0) != SyntaxKind::COMPOUND_STMT {
                    let start = stack.len();
                    stack.extend(n.children());
                    stack[start..].reverse();
                }
            }
            // spaced as written, with any run of spaces, line breaks and comments as one space
            rowan::NodeOrToken::Token(tok) if SyntaxKind::from(tok.kind().0).is_trivia() => space = !out.is_empty(),
            rowan::NodeOrToken::Token(tok) => {
                if std::mem::take(&mut space) {
                    out.push(' ');
                }
                out.push_str(tok.text());
            }
        }
    }
    out
}

/// The tokens of a node joined without trivia, single-spaced where needed.
pub(crate) fn compact(node: &SyntaxNode) -> String {
    // a class or enum defined in place is not a plain named type
    if matches!(node.kind(), SyntaxKind::STRUCT | SyntaxKind::ENUM) {
        return String::new();
    }
    let mut s = String::new();
    let whole = ast::each_token(node, &mut |_, text| {
        let word = |c: char| c.is_alphanumeric() || c == '_';
        if s.chars().last().is_some_and(word) && text.chars().next().is_some_and(word) {
            s.push(' ');
        }
        s.push_str(text);
        // far longer than any type the checks look through
        s.len() <= 256
    });
    if whole { s } else { String::new() }
}
