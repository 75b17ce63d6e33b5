//! Inlay hints: the types deduced for `auto` variables and the names of parameters at
//! call sites.

use msl_stdlib::Entry;
use msl_syntax::ast::{self, AstNode};
use msl_syntax::{SyntaxKind, SyntaxNode, TextRange, TextSize};

use crate::locate::FileCtx;
use crate::resolve::{Def, resolve};
use crate::signature::{param_labels, param_name};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InlayKind {
    Type,
    Parameter,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlayHint {
    /// Where the hint is shown (before an argument; after a variable's name).
    pub offset: TextSize,
    pub label: String,
    pub kind: InlayKind,
}

pub(crate) fn inlay_hints(cx: &FileCtx, range: TextRange) -> Vec<InlayHint> {
    let mut out = Vec::new();
    let Some(tree_range) = cx.tree_range(range).or_else(|| Some(TextRange::up_to(cx.root.text_range().end()))) else {
        return out;
    };
    // types of `auto` variables, from the semantic model
    for local in cx.sema().locals_in(tree_range) {
        if local.is_param || !local.deduced || local.ty.is_unknown() {
            continue;
        }
        if let Some(fr) = cx.file_range(local.name_range)
            && range.contains_range(fr)
        {
            out.push(InlayHint { offset: fr.end(), label: format!(": {}", local.ty), kind: InlayKind::Type });
        }
    }
    // parameter names at calls
    let covering = match cx.root.covering_element(tree_range) {
        rowan::NodeOrToken::Node(n) => n,
        rowan::NodeOrToken::Token(t) => t.parent().unwrap_or_else(|| cx.root.clone()),
    };
    for call in covering.descendants().filter(|n| n.kind() == SyntaxKind::CALL_EXPR) {
        if !tree_range.contains_range(call.text_range()) && call.text_range().intersect(tree_range).is_none() {
            continue;
        }
        call_hints(cx, &call, range, &mut out);
    }
    out.sort_by_key(|h| h.offset);
    out
}

fn call_hints(cx: &FileCtx, call: &SyntaxNode, range: TextRange, out: &mut Vec<InlayHint>) {
    let Some(callee) = call.children().next() else { return };
    let Some(args) = call.children().find(|c| c.kind() == SyntaxKind::ARG_LIST) else { return };
    let args: Vec<SyntaxNode> = args.children().collect();
    if args.is_empty() {
        return;
    }
    let name_tok =
        callee.children_with_tokens().filter_map(|e| e.into_token()).filter(|t| t.kind() == SyntaxKind::IDENT).last();
    let Some(name_tok) = name_tok else { return };
    let names: Vec<String> = match resolve(cx, &name_tok, false) {
        Some(Def::Item(sym)) if sym.kind.is_callable() => {
            let Some(f) = ast::Function::cast(sym.node.clone()) else { return };
            let Some(list) = f.param_list() else { return };
            let params: Vec<ast::Param> = list.params().collect();
            if params.len() != args.len() {
                return;
            }
            params.iter().map(|p| p.name().map(|n| n.text()).unwrap_or_default()).collect()
        }
        Some(Def::Builtin(entries)) => {
            let overloads = entries.iter().find_map(|e| match e {
                Entry::Function(f) => Some(f.overloads),
                Entry::Method(m) => Some(m.overloads),
                _ => None,
            });
            let Some(overloads) = overloads else { return };
            // the parameter names must agree between all overloads with this many arguments
            let mut names: Option<Vec<String>> = None;
            for o in overloads {
                let labels = param_labels(o.sig);
                if labels.len() != args.len() {
                    continue;
                }
                let these: Vec<String> = labels.iter().map(|l| param_name(l).unwrap_or("").to_string()).collect();
                match &names {
                    None => names = Some(these),
                    Some(n) if *n != these => return,
                    _ => {}
                }
            }
            match names {
                Some(n) => n,
                None => return,
            }
        }
        _ => return,
    };
    // one-argument calls read well without names
    if args.len() < 2 {
        return;
    }
    for (arg, name) in args.iter().zip(names) {
        if name.is_empty() || name.len() == 1 && args.len() <= 2 {
            continue;
        }
        let text = arg.text().to_string();
        let last_word = text.rsplit(|c: char| !(c.is_alphanumeric() || c == '_')).find(|w| !w.is_empty()).unwrap_or("");
        if last_word.eq_ignore_ascii_case(&name) || last_word.ends_with(&name) {
            continue;
        }
        let Some(fr) = cx.file_range(arg.text_range()) else { continue };
        if !range.contains_range(fr) {
            continue;
        }
        out.push(InlayHint { offset: fr.start(), label: format!("{name}:"), kind: InlayKind::Parameter });
    }
}
