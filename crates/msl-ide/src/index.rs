//! The declarations of a unit outside function bodies, with where they are in the tree:
//! what name resolution, symbols, completion and semantic tokens start from.

use msl_syntax::ast::{self, AstNode};
use msl_syntax::{SyntaxKind, SyntaxNode, TextRange};
use rustc_hash::FxHashMap;

use crate::locate::name_idents;
use crate::symbols::SymbolKind;

/// One declared name.
#[derive(Debug, Clone)]
pub(crate) struct ItemSym {
    pub name: String,
    pub kind: SymbolKind,
    /// The declaring node: a function, struct, enum, enumerator, variable declarator,
    /// typedef, alias, namespace or template parameter.
    pub node: SyntaxNode,
    /// The range of the name in the tree.
    pub name_range: TextRange,
    /// The enclosing struct, enum or namespace, by name (`""` at file scope).
    pub container: String,
    /// For functions: whether this declaration has a body.
    pub has_body: bool,
}

#[derive(Debug, Default)]
pub(crate) struct ItemIndex {
    pub syms: Vec<ItemSym>,
    by_name: FxHashMap<String, Vec<u32>>,
}

impl ItemIndex {
    pub fn build(root: &SyntaxNode) -> ItemIndex {
        let mut index = ItemIndex::default();
        let mut stack: Vec<(SyntaxNode, String)> = vec![(root.clone(), String::new())];
        while let Some((node, container)) = stack.pop() {
            for child in node.children() {
                index.visit(child, &container, &mut stack);
            }
        }
        index.syms.sort_by_key(|s| s.name_range.start());
        for (i, s) in index.syms.iter().enumerate() {
            index.by_name.entry(s.name.clone()).or_default().push(i as u32);
        }
        index
    }

    fn push(&mut self, name: &ast::Name, kind: SymbolKind, node: &SyntaxNode, container: &str) {
        // `A::f` declares `f`
        let Some(tok) = name_idents(name.syntax()).last() else { return };
        self.syms.push(ItemSym {
            name: tok.text().to_string(),
            kind,
            node: node.clone(),
            name_range: tok.text_range(),
            container: container.to_string(),
            has_body: false,
        });
    }

    fn visit(&mut self, node: SyntaxNode, container: &str, stack: &mut Vec<(SyntaxNode, String)>) {
        use SyntaxKind::*;
        match node.kind() {
            FUNCTION => {
                let Some(f) = ast::Function::cast(node.clone()) else { return };
                if let Some(name) = f.name() {
                    let member = node.parent().is_some_and(|p| p.kind() == MEMBER_LIST)
                        || name.syntax().children_with_tokens().any(|e| e.kind() == COLON2);
                    let kind = if member { SymbolKind::Method } else { SymbolKind::Function };
                    let qualifier = qualifier_of(&name);
                    let container = if qualifier.is_empty() { container.to_string() } else { qualifier };
                    self.push(&name, kind, &node, &container);
                    if let Some(last) = self.syms.last_mut() {
                        last.has_body = f.body().is_some();
                    }
                }
            }
            STRUCT => {
                let Some(s) = ast::Struct::cast(node.clone()) else { return };
                let kind = match s.keyword().map(|k| k.kind()) {
                    Some(CLASS_KW) => SymbolKind::Class,
                    Some(UNION_KW) => SymbolKind::Union,
                    _ => SymbolKind::Struct,
                };
                let name = s.name();
                if let Some(n) = &name {
                    self.push(n, kind, &node, container);
                }
                let inner = name.map(|n| n.text()).unwrap_or_default();
                if let Some(members) = s.member_list() {
                    stack.push((members.syntax().clone(), inner));
                }
                // `struct S { ... } s;`
                for d in s.declarators() {
                    if let Some(n) = d.name() {
                        self.push(&n, variable_kind(&node, container), d.syntax(), container);
                    }
                }
            }
            ENUM => {
                let Some(e) = ast::Enum::cast(node.clone()) else { return };
                let name = e.name();
                if let Some(n) = &name {
                    self.push(n, SymbolKind::Enum, &node, container);
                }
                let inner = name.map(|n| n.text()).unwrap_or_default();
                for en in e.enumerators() {
                    if let Some(n) = en.name() {
                        self.push(&n, SymbolKind::EnumMember, en.syntax(), &inner);
                    }
                }
            }
            VAR_DECL => {
                let Some(v) = ast::VarDecl::cast(node.clone()) else { return };
                let kind = variable_kind(&node, container);
                for d in v.declarators() {
                    if let Some(n) = d.name() {
                        self.push(&n, kind, d.syntax(), container);
                    }
                }
                // a struct or enum defined in the declaration
                if let Some(spec) = v.decl_specifiers() {
                    for c in spec.syntax().children() {
                        if matches!(c.kind(), STRUCT | ENUM) {
                            self.visit(c, container, stack);
                        }
                    }
                }
            }
            TYPEDEF_DECL => {
                for d in node.descendants().filter(|d| d.kind() == DECLARATOR) {
                    if let Some(n) = ast::Declarator::cast(d.clone()).and_then(|d| d.name()) {
                        self.push(&n, SymbolKind::Typedef, &node, container);
                    }
                }
                for c in node.descendants().filter(|c| matches!(c.kind(), STRUCT | ENUM)) {
                    if c.parent().is_some_and(|p| p.kind() == DECL_SPECIFIERS) {
                        self.visit(c, container, stack);
                    }
                }
            }
            ALIAS_DECL => {
                if let Some(n) = ast::AliasDecl::cast(node.clone()).and_then(|a| a.name()) {
                    self.push(&n, SymbolKind::Typedef, &node, container);
                }
            }
            NAMESPACE => {
                let Some(ns) = ast::Namespace::cast(node.clone()) else { return };
                let name = ns.name();
                if let Some(n) = &name {
                    self.push(n, SymbolKind::Namespace, &node, container);
                }
                let inner = match name {
                    Some(n) if container.is_empty() => n.text(),
                    Some(n) => format!("{container}::{}", n.text()),
                    None => container.to_string(),
                };
                for c in node.children().filter(|c| c.kind() == DECL_LIST) {
                    stack.push((c, inner.clone()));
                }
            }
            TEMPLATE_DECL | EXPLICIT_INSTANTIATION | LINKAGE_SPEC | DECL_LIST | ERROR | FRIEND_DECL => {
                stack.push((node, container.to_string()));
            }
            _ => {}
        }
    }

    /// The declarations named `name`, in file order.
    pub fn named<'s>(&'s self, name: &str) -> impl Iterator<Item = &'s ItemSym> + 's {
        self.by_name.get(name).into_iter().flatten().map(|&i| &self.syms[i as usize])
    }
}

fn variable_kind(node: &SyntaxNode, container: &str) -> SymbolKind {
    let in_struct = node.parent().is_some_and(|p| p.kind() == SyntaxKind::MEMBER_LIST)
        || (node.parent().is_some_and(|p| p.kind() == SyntaxKind::TEMPLATE_DECL)
            && node.ancestors().nth(2).is_some_and(|p| p.kind() == SyntaxKind::MEMBER_LIST));
    if in_struct && !container.is_empty() {
        return SymbolKind::Field;
    }
    let constant = node.children().find(|c| c.kind() == SyntaxKind::DECL_SPECIFIERS).is_some_and(|s| {
        s.children_with_tokens()
            .any(|e| matches!(e.kind(), SyntaxKind::CONSTANT_KW | SyntaxKind::CONSTEXPR_KW | SyntaxKind::CONST_KW))
    });
    if constant { SymbolKind::Constant } else { SymbolKind::Variable }
}

/// `A::B` of a qualified name `A::B::f`.
pub(crate) fn qualifier_of(name: &ast::Name) -> String {
    let idents: Vec<String> = name_idents(name.syntax()).map(|t| t.text().to_string()).collect();
    if idents.len() < 2 { String::new() } else { idents[..idents.len() - 1].join("::") }
}
