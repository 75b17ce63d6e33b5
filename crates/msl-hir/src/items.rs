//! The item tree: what a unit declares outside function bodies. Editing inside a body
//! leaves it equal, so queries that depend on it (the checks of other functions) are not
//! re-run.

use msl_syntax::ast::{self, AstNode};
use msl_syntax::{SyntaxKind, SyntaxNode};
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
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionItem {
    pub name: String,
    pub signature: String,
}

impl ItemTree {
    pub fn build(root: &SyntaxNode) -> ItemTree {
        let mut t = ItemTree::default();
        for f in crate::db::function_nodes(root) {
            let func = ast::Function::cast(f.clone());
            let name = func.as_ref().and_then(|f| f.name()).map(|n| n.text()).unwrap_or_default();
            let mut signature = String::new();
            for e in f.descendants_with_tokens() {
                if e.ancestors().any(|a| a.kind() == SyntaxKind::COMPOUND_STMT) {
                    continue;
                }
                if let Some(tok) = e.into_token()
                    && !tok.kind().is_trivia()
                {
                    signature.push_str(tok.text());
                    signature.push(' ');
                }
            }
            t.functions.push(FunctionItem { name, signature });
        }
        t.function_count = t.functions.len() as u32;
        let mut stack = vec![root.clone()];
        while let Some(node) = stack.pop() {
            match node.kind() {
                // bodies do not declare items
                SyntaxKind::COMPOUND_STMT => continue,
                SyntaxKind::NAME => {
                    if let Some(n) = ast::Name::cast(node.clone()).and_then(|n| n.ident()) {
                        t.declared.insert(n.text().to_string());
                    }
                }
                SyntaxKind::STRUCT | SyntaxKind::ENUM => {
                    if let Some(n) = node.children().find_map(ast::Name::cast).and_then(|n| n.ident()) {
                        t.types.insert(n.text().to_string());
                    }
                }
                SyntaxKind::TYPEDEF_DECL => {
                    if let Some(td) = ast::TypedefDecl::cast(node.clone()) {
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
                SyntaxKind::ALIAS_DECL => {
                    if let Some(a) = ast::AliasDecl::cast(node.clone())
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
            stack.extend(node.children());
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

/// The tokens of a node joined without trivia, single-spaced where needed.
pub(crate) fn compact(node: &SyntaxNode) -> String {
    let mut s = String::new();
    for t in node.descendants_with_tokens().filter_map(|e| e.into_token()).filter(|t| !t.kind().is_trivia()) {
        let text = t.text();
        let word = |c: char| c.is_alphanumeric() || c == '_';
        if s.chars().last().is_some_and(word) && text.chars().next().is_some_and(word) {
            s.push(' ');
        }
        s.push_str(text);
    }
    s
}
