//! Finding what is at a position of a file: a token of the tree, a macro invocation, a
//! directive; and converting between tree ranges and file ranges.

use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

use msl_hir::{RootDatabase, Unit};
use msl_syntax::{Parse, SyntaxKind, SyntaxNode, SyntaxToken, TextRange, TextSize};

use crate::FileSettings;
use crate::index::ItemIndex;

/// One open file's unit and its latest parse. The file is the unit's main file, or (in the
/// context of a unit that includes it) one of its headers: `focus` is its number among the
/// parse's files.
pub(crate) struct FileCtx<'a> {
    pub db: &'a RootDatabase,
    pub unit: Unit,
    pub settings: &'a FileSettings,
    pub parse: Arc<Parse>,
    pub root: SyntaxNode,
    pub focus: u32,
    index: std::cell::OnceCell<Rc<ItemIndex>>,
    sema: std::cell::OnceCell<msl_hir::Semantics<'a>>,
}

/// What is at a position of the main file.
#[derive(Debug, Clone)]
pub(crate) enum At {
    /// A token of the tree, spelled at the position.
    Token(SyntaxToken),
    /// A macro invocation (index into the calls), spelled around the position.
    MacroCall { call: u32 },
    /// A preprocessor directive line.
    Directive { piece: usize },
}

impl<'a> FileCtx<'a> {
    pub fn new(db: &'a RootDatabase, unit: Unit, settings: &'a FileSettings) -> FileCtx<'a> {
        let parse = msl_hir::parse_unit(db, unit).clone();
        let root = parse.syntax();
        FileCtx {
            db,
            unit,
            settings,
            parse,
            root,
            focus: 0,
            index: std::cell::OnceCell::new(),
            sema: std::cell::OnceCell::new(),
        }
    }

    /// The file `path` inside the unit `unit` (which includes it); `None` when the unit
    /// does not read it.
    pub fn in_context(
        db: &'a RootDatabase,
        unit: Unit,
        settings: &'a FileSettings,
        path: &std::path::Path,
    ) -> Option<FileCtx<'a>> {
        let mut cx = FileCtx::new(db, unit, settings);
        cx.focus = cx.parse.files().iter().position(|f| !f.is_virtual && f.path == path)? as u32;
        Some(cx)
    }

    /// The unit's semantic model (made on first use by a request).
    pub fn sema(&self) -> &msl_hir::Semantics<'a> {
        self.sema.get_or_init(|| msl_hir::Semantics::new(self.db, self.unit))
    }

    /// The text of the file.
    pub fn text(&self) -> &str {
        self.parse.files().get(self.focus as usize).map(|f| &*f.text).unwrap_or("")
    }

    pub fn path_of(&self, file: u32) -> PathBuf {
        self.parse.files().get(file as usize).map(|f| f.path.clone()).unwrap_or_default()
    }

    pub fn text_of(&self, file: u32) -> Arc<str> {
        self.parse.files().get(file as usize).map(|f| f.text.clone()).unwrap_or_else(|| Arc::from(""))
    }

    /// The declarations of the unit (built on first use by a request).
    pub fn index(&self) -> Rc<ItemIndex> {
        self.index.get_or_init(|| Rc::new(ItemIndex::build(&self.root))).clone()
    }

    /// What is at `offset` of the main file. At the boundary between two tokens the one
    /// that names something wins (`foo|(` is on `foo`).
    pub fn at(&self, offset: TextSize) -> Option<At> {
        let here = self.at_exact(offset);
        let before = offset.checked_sub(1.into()).and_then(|o| self.at_exact(o));
        let names = |a: &Option<At>| match a {
            Some(At::Token(t)) => is_name_like(t.kind()),
            Some(_) => true,
            None => false,
        };
        if names(&here) {
            return here;
        }
        if names(&before) {
            return before;
        }
        here.or(before)
    }

    fn at_exact(&self, offset: TextSize) -> Option<At> {
        let (piece, tree_offset) = self.parse.piece_at(self.focus, offset)?;
        let p = self.parse.piece(piece)?;
        if let Some(call) = p.macro_call {
            return Some(At::MacroCall { call });
        }
        if matches!(p.kind, SyntaxKind::PP_DIRECTIVE | SyntaxKind::PP_INACTIVE) {
            return Some(At::Directive { piece });
        }
        let tok = self.root.token_at_offset(tree_offset).right_biased()?;
        Some(At::Token(tok))
    }

    /// The range in the main file of a tree range, when it is spelled there.
    pub fn file_range(&self, range: TextRange) -> Option<TextRange> {
        let (file, r) = self.parse.map_range(range);
        (file == self.focus && self.is_spelled(range)).then_some(r)
    }

    /// The file and range of a tree range: exact where it is spelled, the invocation
    /// where it comes from a macro.
    pub fn any_file_range(&self, range: TextRange) -> (u32, TextRange) {
        self.parse.map_range(range)
    }

    /// Whether the start of a tree range is spelled in a file (not produced by a macro).
    pub fn is_spelled(&self, range: TextRange) -> bool {
        self.parse.is_spelled(range)
    }

    /// The tree offset of an offset of the main file.
    pub fn tree_offset(&self, offset: TextSize) -> Option<TextSize> {
        self.parse.tree_offset(self.focus, offset)
    }

    /// The tree range that covers the main-file range `range` (both ends spelled there).
    pub fn tree_range(&self, range: TextRange) -> Option<TextRange> {
        let start = self.tree_offset(range.start())?;
        if range.is_empty() {
            return Some(TextRange::empty(start));
        }
        let end = self.tree_offset(range.end() - TextSize::from(1))? + TextSize::from(1);
        (end >= start).then(|| TextRange::new(start, end))
    }
}

/// The identifiers of a (possibly qualified) name, in order: `A`, `B`, `f` of `A::B::f`.
pub(crate) fn name_idents(node: &SyntaxNode) -> impl Iterator<Item = SyntaxToken> + use<> {
    node.descendants_with_tokens().filter_map(|e| e.into_token()).filter(|t| t.kind() == SyntaxKind::IDENT)
}

/// The byte range of the identifier around `at` in `text` (a directive line).
pub(crate) fn word_at(text: &str, at: usize) -> Option<std::ops::Range<usize>> {
    let bytes = text.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let (mut s, mut e) = (at.min(bytes.len()), at.min(bytes.len()));
    while s > 0 && is_ident(bytes[s - 1]) {
        s -= 1;
    }
    while e < bytes.len() && is_ident(bytes[e]) {
        e += 1;
    }
    (s < e).then_some(s..e)
}

/// Token kinds that name something a feature can say more about.
pub(crate) fn is_name_like(kind: SyntaxKind) -> bool {
    kind == SyntaxKind::IDENT || kind.is_keyword()
}

/// The text of a node with runs of whitespace (and comments) collapsed to one space.
pub(crate) fn compact(node: &SyntaxNode) -> String {
    let mut out = String::new();
    let mut space = false;
    for t in node.descendants_with_tokens().filter_map(|e| e.into_token()) {
        if t.kind().is_trivia() && t.kind() != SyntaxKind::MACRO_CALL {
            space = !out.is_empty();
            continue;
        }
        if t.kind() == SyntaxKind::MACRO_CALL {
            continue;
        }
        if space && needs_space(&out, t.text()) {
            out.push(' ');
        }
        space = false;
        out.push_str(t.text());
    }
    out
}

/// Joins tokens the way a person writes them: a space between words, none around
/// brackets and before commas or semicolons.
pub(crate) fn join_tokens<'t>(tokens: impl Iterator<Item = &'t str>) -> String {
    let mut out = String::new();
    for t in tokens {
        if !out.is_empty() && needs_space(&out, t) {
            out.push(' ');
        }
        out.push_str(t);
    }
    out
}

fn needs_space(before: &str, next: &str) -> bool {
    let last = before.chars().last().unwrap_or(' ');
    let first = next.chars().next().unwrap_or(' ');
    if matches!(first, ',' | ';' | ')' | ']' | '.') || matches!(last, '(' | '[' | '.' | '~' | '!') {
        return false;
    }
    if first == '(' || first == '[' {
        return !(last.is_alphanumeric() || last == '_' || last == ')' || last == ']' || last == '>');
    }
    if next == "::" || before.ends_with("::") || next == "->" || before.ends_with("->") {
        return false;
    }
    true
}

/// The comment written just before a declaration (no blank line between), without its
/// comment markers.
pub(crate) fn doc_comment(node: &SyntaxNode) -> Option<String> {
    // the declaration may be wrapped (a template), its comment is before the wrapper
    let mut anchor = node.clone();
    while let Some(parent) = anchor.parent() {
        if matches!(parent.kind(), SyntaxKind::TEMPLATE_DECL | SyntaxKind::DECL_STMT)
            && parent.text_range().start() == anchor.text_range().start()
        {
            anchor = parent;
        } else {
            break;
        }
    }
    let mut lines: Vec<String> = Vec::new();
    let mut newlines = 0;
    let mut el = anchor.prev_sibling_or_token();
    while let Some(e) = el {
        match e.kind() {
            SyntaxKind::WHITESPACE => {}
            SyntaxKind::NEWLINE => {
                newlines += e.as_token().map(|t| t.text().matches('\n').count()).unwrap_or(1);
                if newlines > 1 {
                    break;
                }
            }
            SyntaxKind::COMMENT => {
                let Some(t) = e.as_token() else { break };
                newlines = 0;
                lines.push(strip_comment(t.text()));
            }
            _ => break,
        }
        el = e.prev_sibling_or_token();
    }
    if lines.is_empty() {
        return None;
    }
    lines.reverse();
    let text = lines.join("\n").trim().to_string();
    (!text.is_empty()).then_some(text)
}

fn strip_comment(text: &str) -> String {
    if let Some(body) = text.strip_prefix("/*") {
        let body = body.trim_end_matches("*/").trim_start_matches(['*', '!']);
        return body
            .lines()
            .map(|l| {
                let l = l.trim();
                l.strip_prefix("* ").or_else(|| l.strip_prefix('*')).unwrap_or(l)
            })
            .collect::<Vec<_>>()
            .join("\n")
            .trim()
            .to_string();
    }
    let body = text.trim_start_matches('/').trim_start_matches('!');
    body.strip_prefix(' ').unwrap_or(body).trim_end().to_string()
}
