//! Signature help: the overloads of the function being called and the argument the cursor
//! is in. Works from the tokens before the cursor, so unfinished calls are understood.

use msl_stdlib::{Entry, Stdlib};
use msl_syntax::ast::{self, AstNode};
use msl_syntax::{SyntaxKind, SyntaxToken, TextRange, TextSize};

use crate::locate::{FileCtx, compact};
use crate::resolve::{Def, resolve};
use crate::symbols::strip_attributes;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureHelp {
    pub signatures: Vec<SignatureInfo>,
    pub active_signature: u32,
    pub active_parameter: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureInfo {
    pub label: String,
    /// Byte ranges of the parameters within `label`.
    pub params: Vec<TextRange>,
    pub doc: Option<String>,
}

/// The call around the cursor: its callee token and the index of the argument.
pub(crate) struct CallSite {
    pub callee: SyntaxToken,
    pub arg: usize,
    /// The argument count written so far (at least `arg + 1`).
    pub written: usize,
}

/// Finds the innermost unclosed `(` before `offset` that follows a name.
pub(crate) fn call_site(cx: &FileCtx, offset: TextSize) -> Option<CallSite> {
    let tree_offset = cx
        .tree_offset(offset)
        .or_else(|| cx.tree_offset(offset.checked_sub(1.into())?).map(|o| o + TextSize::from(1)))?;
    let mut tok = cx.root.token_at_offset(tree_offset).left_biased()?;
    // a cursor right after `(` is inside the call
    let mut depth = 0i32;
    let mut commas = 0usize;
    let mut steps = 0;
    loop {
        steps += 1;
        if steps > 20_000 {
            return None;
        }
        let started_here = tok.text_range().start() >= tree_offset;
        if !started_here {
            match tok.kind() {
                SyntaxKind::R_PAREN | SyntaxKind::R_BRACK | SyntaxKind::R_CURLY => depth += 1,
                SyntaxKind::L_BRACK | SyntaxKind::L_CURLY if depth > 0 => depth -= 1,
                SyntaxKind::L_CURLY => return None,
                SyntaxKind::SEMI if depth == 0 => return None,
                SyntaxKind::COMMA if depth == 0 => commas += 1,
                SyntaxKind::L_PAREN => {
                    if depth == 0 {
                        let callee = prev_significant(&tok)?;
                        // `f<T>(`: skip the template arguments
                        let callee = if callee.kind() == SyntaxKind::R_ANGLE { skip_angles(&callee)? } else { callee };
                        // a name, or a type keyword written as a function (`float(x)`)
                        if callee.kind() != SyntaxKind::IDENT && !callee.kind().is_builtin_type_keyword() {
                            return None;
                        }
                        let written = count_args(&tok, commas);
                        return Some(CallSite { callee, arg: commas, written });
                    }
                    depth -= 1;
                }
                _ => {}
            }
        }
        tok = prev_significant(&tok)?;
    }
}

fn count_args(open: &SyntaxToken, before: usize) -> usize {
    let mut depth = 0i32;
    let mut commas = 0;
    let mut t = open.next_token();
    while let Some(tok) = t {
        match tok.kind() {
            SyntaxKind::L_PAREN | SyntaxKind::L_BRACK | SyntaxKind::L_CURLY => depth += 1,
            SyntaxKind::R_PAREN | SyntaxKind::R_BRACK | SyntaxKind::R_CURLY => {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            }
            SyntaxKind::COMMA if depth == 0 => commas += 1,
            SyntaxKind::SEMI => break,
            _ => {}
        }
        t = tok.next_token();
    }
    (commas + 1).max(before + 1)
}

fn prev_significant(tok: &SyntaxToken) -> Option<SyntaxToken> {
    let mut t = tok.prev_token();
    while let Some(x) = t {
        if !x.kind().is_trivia() {
            return Some(x);
        }
        t = x.prev_token();
    }
    None
}

fn skip_angles(close: &SyntaxToken) -> Option<SyntaxToken> {
    let mut depth = 0;
    let mut t = Some(close.clone());
    while let Some(x) = t {
        match x.kind() {
            SyntaxKind::R_ANGLE => depth += 1,
            SyntaxKind::SHR => depth += 2,
            SyntaxKind::L_ANGLE => {
                depth -= 1;
                if depth == 0 {
                    return prev_significant(&x);
                }
            }
            SyntaxKind::SEMI | SyntaxKind::L_CURLY | SyntaxKind::R_CURLY => return None,
            _ => {}
        }
        t = x.prev_token();
    }
    None
}

pub(crate) fn signature_help(cx: &FileCtx, offset: TextSize) -> Option<SignatureHelp> {
    let site = call_site(cx, offset)?;
    let signatures = signatures_for(cx, &site.callee);
    if signatures.is_empty() {
        return None;
    }
    // the first overload with enough parameters for what is written
    let active = signatures.iter().position(|s| s.params.len() >= site.written.max(site.arg + 1)).unwrap_or(0);
    Some(SignatureHelp { signatures, active_signature: active as u32, active_parameter: site.arg as u32 })
}

/// Every signature the callee may have.
pub(crate) fn signatures_for(cx: &FileCtx, callee: &SyntaxToken) -> Vec<SignatureInfo> {
    // `float(x)`, `half(...)`: a keyword type written as a function
    if callee.kind().is_builtin_type_keyword() {
        return library_constructors(callee.text()).into_iter().map(|l| info_from_label(l, None)).collect();
    }
    let Some(def) = resolve(cx, callee, false) else { return Vec::new() };
    match def {
        Def::Builtin(entries) => {
            let mut out = Vec::new();
            for e in entries {
                let (overloads, summary) = match e {
                    Entry::Function(f) => (f.overloads, f.summary),
                    Entry::Method(m) => (m.overloads, m.summary),
                    // a type written as a function: its constructors (`float4(...)`) or
                    // the conversion it is (`float(x)`)
                    Entry::Type(t) => {
                        out.extend(library_constructors(t.name).into_iter().map(|l| info_from_label(l, None)));
                        continue;
                    }
                    _ => continue,
                };
                for o in overloads {
                    out.push(info_from_label(o.sig.to_string(), Some(summary.to_string())));
                }
            }
            out
        }
        Def::Item(sym) if sym.kind.is_type() => {
            // the class's constructors, as declared in it
            let index = cx.index();
            let mut out = Vec::new();
            for s in index.named(&sym.name).filter(|s| s.kind.is_callable() && s.container == sym.name) {
                let Some(f) = ast::Function::cast(s.node.clone()) else { continue };
                let label = declaration_label(&f);
                if !out.iter().any(|i: &SignatureInfo| i.label == label) {
                    out.push(info_from_label(label, crate::locate::doc_comment(&s.node)));
                }
            }
            out
        }
        Def::Item(sym) if sym.kind.is_callable() => {
            let index = cx.index();
            let mut out = Vec::new();
            let mut seen = Vec::new();
            for s in index.named(&sym.name).filter(|s| s.kind.is_callable() && s.container == sym.container) {
                let Some(f) = ast::Function::cast(s.node.clone()) else { continue };
                let label = declaration_label(&f);
                if seen.contains(&label) {
                    continue;
                }
                seen.push(label.clone());
                out.push(info_from_label(label, crate::locate::doc_comment(&s.node)));
            }
            out
        }
        _ => Vec::new(),
    }
}

/// The ways to build a value of library type `name` from arguments: a vector from
/// scalars and smaller vectors whose components add up (`float4(float2 xy, float z, float
/// w)`), from one scalar for every component, or from another vector; a matrix from its
/// columns, from every element, or from one value for its diagonal; a scalar from any
/// value.
fn library_constructors(name: &str) -> Vec<String> {
    let t = msl_hir::ty::parse_type_text(name).map(|r| r.lower(&msl_hir::ty::LibraryOnly).ty);
    let Some(t) = t else { return Vec::new() };
    let comps = ["x", "y", "z", "w"];
    match t.kind() {
        msl_hir::ty::TyKind::Vector { elem, len, .. } => {
            let e = elem.name();
            let n = *len as usize;
            let part = |k: usize| if k == 1 { e.to_string() } else { format!("{e}{k}") };
            let mut out = vec![format!("{name}({e} all)"), format!("{name}({name} v)")];
            let mut compositions: Vec<Vec<String>> = Vec::new();
            // every composition of the components into consecutive parts
            for mask in 0..(1u32 << (n - 1)) {
                let mut params = Vec::new();
                let mut start = 0;
                for i in 1..=n {
                    if i == n || mask & (1 << (i - 1)) != 0 {
                        params.push(format!("{} {}", part(i - start), comps[start..i].concat()));
                        start = i;
                    }
                }
                if params.len() > 1 {
                    compositions.push(params);
                }
            }
            // every component on its own first, then fewer and larger parts
            compositions.sort_by_key(|p| std::cmp::Reverse(p.len()));
            out.extend(compositions.into_iter().map(|p| format!("{name}({})", p.join(", "))));
            out
        }
        msl_hir::ty::TyKind::Matrix { elem, cols, rows } => {
            let e = elem.name();
            let column = format!("{e}{rows}");
            let columns: Vec<String> = (0..*cols).map(|c| format!("{column} c{c}")).collect();
            let elements: Vec<String> =
                (0..*cols).flat_map(|c| (0..*rows).map(move |r| format!("{e} m{c}{r}"))).collect();
            vec![
                format!("{name}({e} diagonal)"),
                format!("{name}({})", columns.join(", ")),
                format!("{name}({})", elements.join(", ")),
                format!("{name}({name} m)"),
            ]
        }
        msl_hir::ty::TyKind::Scalar(_) => vec![format!("{name}(value)")],
        _ => Vec::new(),
    }
}

fn declaration_label(f: &ast::Function) -> String {
    let ret = f.decl_specifiers().and_then(|s| s.type_spec()).map(|t| compact(t.syntax())).unwrap_or_default();
    let name = f.name().map(|n| n.text()).unwrap_or_default();
    let params = f.param_list().map(|p| strip_attributes(&compact(p.syntax()))).unwrap_or_else(|| "()".into());
    format!("{ret} {name}{params}").trim().to_string()
}

fn info_from_label(label: String, doc: Option<String>) -> SignatureInfo {
    let params = param_ranges(&label);
    SignatureInfo { label, params, doc }
}

/// The parameter texts of a signature such as `T clamp(T x, T minval, T maxval)`.
pub(crate) fn param_labels(sig: &str) -> Vec<String> {
    let label = sig.to_string();
    param_ranges(&label).into_iter().map(|r| label[r].to_string()).collect()
}

/// Byte ranges of the parameters of a signature, between its outermost parentheses.
fn param_ranges(sig: &str) -> Vec<TextRange> {
    // the parameter list is the last top-level parenthesised group
    let bytes = sig.as_bytes();
    let mut depth = 0i32;
    let mut open = None;
    let mut close = None;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' => {
                if depth == 0 {
                    open = Some(i);
                }
                depth += 1;
            }
            b')' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(i);
                }
            }
            _ => {}
        }
    }
    let (Some(open), Some(close)) = (open, close) else { return Vec::new() };
    if close <= open + 1 || sig[open + 1..close].trim().is_empty() || sig[open + 1..close].trim() == "void" {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = open + 1;
    for (i, &b) in bytes.iter().enumerate().take(close).skip(open + 1) {
        match b {
            b'(' | b'<' | b'[' | b'{' => depth += 1,
            b')' | b'>' | b']' | b'}' => depth -= 1,
            b',' if depth == 0 => {
                out.push(trimmed(sig, start, i));
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(trimmed(sig, start, close));
    out
}

fn trimmed(s: &str, mut a: usize, mut b: usize) -> TextRange {
    while a < b && s.as_bytes()[a].is_ascii_whitespace() {
        a += 1;
    }
    while b > a && s.as_bytes()[b - 1].is_ascii_whitespace() {
        b -= 1;
    }
    TextRange::new((a as u32).into(), (b as u32).into())
}

/// The name of a parameter in a declaration text (`const device T &x` → `x`).
pub(crate) fn param_name(param: &str) -> Option<&str> {
    let p = param.split('=').next()?.trim();
    let p = p.split("[[").next()?.trim();
    let p = p.trim_end_matches(|c: char| c == ']' || c.is_ascii_digit() || c == '[');
    let start = p.rfind(|c: char| !(c.is_alphanumeric() || c == '_')).map(|i| i + 1).unwrap_or(0);
    let name = &p[start..];
    let is_type_word = start == 0
        || matches!(name, "const" | "T" | "int" | "uint" | "float" | "half" | "bool" | "void")
        || Stdlib::get().type_named(name).is_some();
    (!name.is_empty() && !is_type_word && name.chars().next().is_some_and(|c| !c.is_ascii_digit())).then_some(name)
}
