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
    /// The fields of each struct or class defined once in the unit, outside templates and
    /// without base classes: field name to its type as written (`""` when it is not a
    /// plain named type: a pointer, an array, a bit-field).
    pub fields: FxHashMap<String, FxHashMap<String, String>>,
    /// Struct names defined more than once (in different namespaces, say), or in a
    /// template, or with bases: their fields are not known for sure.
    pub unsure_structs: FxHashSet<String>,
    /// For each function name: the return type all functions of that name share (`""`
    /// when they differ or one of them is not a plain named type).
    pub returns: FxHashMap<String, String>,
    /// For each function name whose functions all take the same parameter types (one
    /// function and its declarations): those types (see [`FunctionItem::params`]).
    pub params: FxHashMap<String, Vec<String>>,
}

/// The item-tree parts of the top-level nodes of each unit's latest parse, by node.
#[derive(Default)]
pub struct ItemCache {
    parts: Mutex<FxHashMap<crate::Unit, Parts>>,
}

/// Parts by the address of their node (kept alive in the map).
type Parts = FxHashMap<usize, (GreenNode, Arc<ItemTree>)>;

impl ItemCache {
    /// Drops what is kept for `unit` (when it is closed).
    pub fn forget(&self, unit: crate::Unit) {
        if let Ok(mut units) = self.parts.lock() {
            units.remove(&unit);
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
    /// The return type as written when it is a plain named type (`""` for a pointer, a
    /// reference, a trailing return type, a template's or a class member's function).
    pub returns: String,
    /// Each parameter's type as written when it is a plain named type, `*space` for a
    /// pointer declared with an address space (`*device`), `""` otherwise; `None` for
    /// templates, class members and variadic or `(void)` lists.
    pub params: Option<Vec<String>>,
}

impl ItemTree {
    pub fn build(green: &GreenNodeData) -> ItemTree {
        let mut t = ItemTree::part(green);
        t.function_count = t.functions.len() as u32;
        t.index_returns();
        t
    }

    /// Fills [`ItemTree::returns`] and [`ItemTree::params`] from the functions.
    fn index_returns(&mut self) {
        let mut returns: FxHashMap<String, String> = FxHashMap::default();
        let mut params: FxHashMap<String, Option<Vec<String>>> = FxHashMap::default();
        for f in &self.functions {
            match returns.get_mut(&f.name) {
                Some(r) if *r != f.returns => r.clear(),
                Some(_) => {}
                None => {
                    returns.insert(f.name.clone(), f.returns.clone());
                }
            }
            match params.get_mut(&f.name) {
                Some(p) if *p != f.params => *p = None,
                Some(_) => {}
                None => {
                    params.insert(f.name.clone(), f.params.clone());
                }
            }
        }
        self.returns = returns;
        self.params = params.into_iter().filter_map(|(n, p)| Some((n, p?))).collect();
    }

    /// Takes the struct fields of `part`; a name defined in both becomes unsure.
    fn add_structs(&mut self, part: &ItemTree) {
        self.unsure_structs.extend(part.unsure_structs.iter().cloned());
        for (name, fields) in &part.fields {
            if self.fields.contains_key(name) {
                self.unsure_structs.insert(name.clone());
            } else {
                self.fields.insert(name.clone(), fields.clone());
            }
        }
        let unsure = &self.unsure_structs;
        self.fields.retain(|name, _| !unsure.contains(name));
    }

    /// The type of field `field` of struct `name`, as written, when the struct is known for
    /// sure and the field is a plain named type.
    pub fn field_type(&self, name: &str, field: &str) -> Option<&str> {
        let t = self.fields.get(name)?.get(field)?;
        (!t.is_empty()).then_some(t.as_str())
    }

    /// The item tree of a unit from the parts of its top-level nodes, reusing the parts
    /// of nodes seen before (after a reparse, all but one are the same nodes).
    pub fn build_cached(green: &GreenNodeData, cache: &ItemCache, unit: crate::Unit) -> ItemTree {
        let Ok(mut units) = cache.parts.lock() else { return ItemTree::build(green) };
        let parts = units.entry(unit).or_default();
        let mut t = ItemTree::default();
        let mut seen: Parts = FxHashMap::default();
        for child in green.children().filter_map(|c| c.into_node()) {
            let key = child as *const GreenNodeData as usize;
            let part = match parts.get(&key) {
                Some((_, p)) => p.clone(),
                None => Arc::new(ItemTree::part(child)),
            };
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
            t.add_structs(&part);
            seen.insert(key, (child.to_owned(), part));
        }
        // keep only the current nodes (the map holds them, so their addresses stay theirs)
        *parts = seen;
        t.function_count = t.functions.len() as u32;
        t.index_returns();
        t
    }

    /// What one node (and everything under it) contributes.
    fn part(green: &GreenNodeData) -> ItemTree {
        let mut t = ItemTree::default();
        for (_, f, context) in crate::db::green_functions_in_context(green) {
            let func = ast::Function::cast(SyntaxNode::new_root(f.to_owned()));
            let name = func.as_ref().and_then(|f| f.name()).map(|n| n.text()).unwrap_or_default();
            let arity = func.as_ref().and_then(|f| f.param_list()).map(|l| params_arity(&l)).unwrap_or((0, usize::MAX));
            let returns = func
                .as_ref()
                .filter(|_| !context.template && !context.member)
                .filter(|f| {
                    f.declarator().is_some_and(|d| d.ptr_operators().next().is_none())
                        && !f.syntax().children().any(|c| c.kind() == SyntaxKind::TRAILING_RETURN)
                })
                .and_then(|f| f.decl_specifiers())
                .and_then(|d| d.type_spec())
                .filter(|ts| !ts.syntax().descendants().any(|n| n.kind() == SyntaxKind::TEMPLATE_ARG_LIST))
                .map(|ts| compact(ts.syntax()))
                .unwrap_or_default();
            let params = func
                .as_ref()
                .filter(|_| !context.template && !context.member && arity.1 != usize::MAX)
                .and_then(|f| f.param_list())
                .map(|l| l.params().map(|p| plain_param_type(&p)).collect::<Vec<String>>())
                .filter(|p| p.len() == arity.1);
            t.functions.push(FunctionItem { name, signature: signature(f), context, arity, returns, params });
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
                    let name = node.children().find_map(|c| c.into_node().filter(|n| is(n, SyntaxKind::NAME)));
                    if let Some(ident) = name.and_then(name_ident) {
                        t.types.insert(ident.to_string());
                        if SyntaxKind::from(node.kind().0) == SyntaxKind::STRUCT {
                            let fields = ast::Struct::cast(SyntaxNode::new_root(node.to_owned()))
                                .filter(|s| !in_template && s.base_clause().is_none())
                                .and_then(|s| struct_fields(&s));
                            match fields {
                                Some(f) if !t.fields.contains_key(ident) && !t.unsure_structs.contains(ident) => {
                                    t.fields.insert(ident.to_string(), f);
                                }
                                _ => {
                                    t.fields.remove(ident);
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
                            SyntaxKind::DECLARATOR => {
                                c.children().filter_map(|d| d.into_node()).find(|d| is(d, SyntaxKind::NAME))
                            }
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

/// The fields of a struct (`None` for a union, whose fields share storage, or a struct
/// with anonymous members, whose fields are reached without a name).
fn struct_fields(s: &ast::Struct) -> Option<FxHashMap<String, String>> {
    if s.keyword().is_some_and(|k| k.kind() == SyntaxKind::UNION_KW) {
        return None;
    }
    let mut fields = FxHashMap::default();
    for member in s.members() {
        match member {
            ast::Item::VarDecl(v) => {
                let ty = v.decl_specifiers().and_then(|d| d.type_spec()).map(|ts| compact(ts.syntax()));
                let declarators: Vec<_> = v.declarators().collect();
                if declarators.is_empty() {
                    // `struct { ... };` or `union { ... };` inside: anonymous members
                    return None;
                }
                for d in declarators {
                    let Some(name) = d.name().map(|n| n.text()) else { continue };
                    let plain = d
                        .declarator()
                        .is_some_and(|d| d.ptr_operators().next().is_none() && d.array_suffixes().next().is_none())
                        && !d.syntax().children().any(|n| n.kind() == SyntaxKind::BIT_FIELD);
                    fields.insert(name, if plain { ty.clone().unwrap_or_default() } else { String::new() });
                }
            }
            ast::Item::Struct(inner) if inner.name().is_none() => return None,
            // methods, as `name()`: the return type when every overload shares a plain one
            ast::Item::Function(f) => {
                let Some(name) = f.name().map(|n| n.text()) else { continue };
                let returns = f
                    .declarator()
                    .filter(|d| d.ptr_operators().next().is_none())
                    .filter(|_| !f.syntax().children().any(|c| c.kind() == SyntaxKind::TRAILING_RETURN))
                    .and_then(|_| f.decl_specifiers())
                    .and_then(|d| d.type_spec())
                    .filter(|ts| !ts.syntax().descendants().any(|n| n.kind() == SyntaxKind::TEMPLATE_ARG_LIST))
                    .map(|ts| compact(ts.syntax()))
                    .unwrap_or_default();
                let key = format!("{name}()");
                match fields.get(&key) {
                    Some(r) if *r != returns => {
                        fields.insert(key, String::new());
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
                    fields.insert(format!("{}()", name.text()), String::new());
                }
            }
            _ => {}
        }
    }
    Some(fields)
}

/// A parameter's type as written when it is a plain named type (no pointer, reference or
/// array), else `""`.
fn plain_param_type(p: &ast::Param) -> String {
    let plain =
        p.declarator().is_none_or(|d| d.ptr_operators().next().is_none() && d.array_suffixes().next().is_none());
    let ty = p.decl_specifiers().and_then(|d| d.type_spec()).map(|ts| compact(ts.syntax()));
    match ty {
        Some(t) if plain => t,
        // a pointer with an address space: `*` and the space (`*device`)
        _ => pointer_param_space(p).map(|s| format!("*{s}")).unwrap_or_default(),
    }
}

/// The address space of a parameter declared as a pointer (one `*`) with one.
fn pointer_param_space(p: &ast::Param) -> Option<String> {
    let d = p.declarator()?;
    let ops: Vec<ast::PtrOperator> = d.ptr_operators().collect();
    let [op] = ops.as_slice() else { return None };
    if op.kind_token()?.kind() != SyntaxKind::STAR || d.array_suffixes().next().is_some() {
        return None;
    }
    let space = op.address_space().or_else(|| p.decl_specifiers()?.address_space())?;
    Some(space.text().to_string())
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
    while let Some(e) = stack.pop() {
        match e {
            rowan::NodeOrToken::Node(n) => {
                if SyntaxKind::from(n.kind().0) != SyntaxKind::COMPOUND_STMT {
                    let start = stack.len();
                    stack.extend(n.children());
                    stack[start..].reverse();
                }
            }
            rowan::NodeOrToken::Token(tok) => {
                if !SyntaxKind::from(tok.kind().0).is_trivia() {
                    out.push_str(tok.text());
                    out.push(' ');
                }
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
    for t in node.descendants_with_tokens().filter_map(|e| e.into_token()).filter(|t| !t.kind().is_trivia()) {
        let text = t.text();
        let word = |c: char| c.is_alphanumeric() || c == '_';
        if s.chars().last().is_some_and(word) && text.chars().next().is_some_and(word) {
            s.push(' ');
        }
        s.push_str(text);
        if s.len() > 256 {
            // far longer than any type the checks look through
            return String::new();
        }
    }
    s
}
