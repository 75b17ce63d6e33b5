//! From a parse to a layout document.
//!
//! The formatter reads the tokens spelled in the main file, in order, with the tree
//! around each one; tokens that macros produced are left out, and the invocation that
//! produced them is kept as written. Each token is then placed:
//!
//! - **Structure decides line breaks** between statements, members and declarations
//!   (*units*), after the `{` of a block and before its `}`, after line comments, and
//!   around preprocessor directives (always at column 0, kept as written).
//! - **Units are indented by block depth**; the statements after a `case` label one level
//!   more.
//! - **Inside a unit the author's line breaks stay.** A continuation line keeps its
//!   offset from the first line of its unit, or, when it was aligned just after an open
//!   bracket, its alignment with that bracket where the bracket now is.
//! - **Spaces inside a line follow the style** where the tree says what a token is (a
//!   binary operator, a unary one, a pointer declarator, a template argument list, ...);
//!   elsewhere the author's spacing stays.
//! - Up to one empty line is kept where the author left empty lines between units.

use SyntaxKind::*;
use msl_syntax::{Parse, SyntaxKind, SyntaxNode, TextRange, TextSize};

use crate::doc::{Document, Element, Fit, Line};

/// Where braces go, and how pointers are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// The `{` of a function body on a line of its own.
    pub function_brace_next_line: bool,
    /// The `{` of `if`, `for`, `while`, `switch`, `do` bodies on a line of its own.
    pub control_brace_next_line: bool,
    /// `} else` on one line (or `}` and `else` on two).
    pub cuddle_else: bool,
    /// `float *p` (right) or `float* p` (left).
    pub pointer_left: bool,
    /// `case` labels one level inside their `switch` block.
    pub indent_case_labels: bool,
    /// Directives at the indentation of the code around them (or at column 0).
    pub indent_directives: bool,
    /// Which functions whose body fits stay on one line with it.
    pub short_functions: ShortFunctions,
}

/// Which functions are written on one line, body included, when that fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ShortFunctions {
    /// None: the body's braces and statements get lines of their own.
    #[default]
    None,
    /// Functions with an empty body: `void f() {}`.
    Empty,
    /// Functions defined inside a class, and those with an empty body.
    Inline,
    /// Every function whose body holds at most one simple statement.
    All,
}

impl Default for Style {
    fn default() -> Self {
        Style {
            function_brace_next_line: true,
            control_brace_next_line: false,
            cuddle_else: true,
            pointer_left: false,
            indent_case_labels: true,
            indent_directives: false,
            short_functions: ShortFunctions::None,
        }
    }
}

/// A token of the main file to place, with what the formatter needs to know about it.
struct Atom<'a> {
    kind: SyntaxKind,
    /// Its text, in the file.
    text: &'a str,
    /// Where it starts in the tree.
    at: TextSize,
    /// The node it is a child of (see [`Tree`]).
    parent: NodeId,
    /// Line breaks before it in the file since the previous atom.
    newlines: u32,
    /// Whitespace (not line breaks) right before it in the file.
    spaced: bool,
    /// A backslash-newline (a line continuation) before it in the file: kept.
    continued: bool,
    /// The length of the whitespace before it in the file (from the end of the atom
    /// before): see [`Atom::before`].
    before_len: u32,
    /// Kept as written, with the whitespace before it: inside a `// msl-fmt: off` region
    /// or a part of the tree that did not parse.
    verbatim: bool,
    /// Its column in the file (in characters; a tab counts as one).
    column: u32,
}

impl<'a> Atom<'a> {
    /// Where it ends in the tree.
    fn end(&self) -> TextSize {
        self.at + TextSize::of(self.text)
    }

    /// Where its text starts in `source`, the file it was read from.
    fn offset_in(&self, source: &str) -> usize {
        (self.text.as_ptr() as usize).saturating_sub(source.as_ptr() as usize)
    }

    /// The whitespace before it in `source` (the file it was read from), as written.
    fn before(&self, source: &'a str) -> &'a str {
        let start = self.offset_in(source);
        source.get(start.saturating_sub(self.before_len as usize)..start).unwrap_or("")
    }
}

/// [`Node::body`] of a node without a body.
const NO_BODY: u32 = u32::MAX;

/// A node of [`Tree`]: its index there.
type NodeId = u32;

const NO_NODE: NodeId = NodeId::MAX;

/// The nodes around the atoms, as plain data: what the layout asks about a token's
/// ancestors, without a syntax cursor per token. The nodes the walk entered are kept in
/// the order it entered them (subtrees of other files are left out).
struct Tree {
    nodes: Vec<Node>,
}

struct Node {
    kind: SyntaxKind,
    range: TextRange,
    parent: NodeId,
    /// How many child nodes it has.
    children: u32,
    /// The operator of a binary expression: its first punctuation token (not a
    /// parenthesis) after its start.
    operator: Option<SyntaxKind>,
    /// Where its first child that is a function body (or a block) starts ([`NO_BODY`] when
    /// it has none).
    body: u32,
    /// The atoms inside it: the index of the first, and of the one after the last.
    atoms: (u32, u32),
}

impl Tree {
    fn kind(&self, id: NodeId) -> SyntaxKind {
        self.nodes.get(id as usize).map_or(ERROR, |n| n.kind)
    }

    fn range(&self, id: NodeId) -> TextRange {
        self.nodes.get(id as usize).map_or_else(TextRange::default, |n| n.range)
    }

    fn parent(&self, id: NodeId) -> Option<NodeId> {
        self.nodes.get(id as usize).map(|n| n.parent).filter(|&p| p != NO_NODE)
    }

    fn parent_kind(&self, id: NodeId) -> Option<SyntaxKind> {
        self.parent(id).map(|p| self.kind(p))
    }

    /// `id` and the nodes around it, innermost first.
    fn ancestors(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        std::iter::successors(Some(id).filter(|&i| i != NO_NODE), move |&i| self.parent(i))
    }

    /// The indices of the atoms inside a node: from the first to the one after the last.
    fn span(&self, id: NodeId) -> (usize, usize) {
        self.nodes.get(id as usize).map_or((0, 0), |n| (n.atoms.0 as usize, n.atoms.1 as usize))
    }

    fn operator(&self, id: NodeId) -> Option<SyntaxKind> {
        self.nodes.get(id as usize).and_then(|n| n.operator)
    }

    /// The kind of the node a token is a child of.
    fn of(&self, a: &Atom) -> SyntaxKind {
        self.kind(a.parent)
    }
}

/// The tokens spelled in the main file (file 0 of the parse), in order, with the nodes
/// around them.
fn atoms<'a>(parse: &Parse, source: &'a str) -> (Vec<Atom<'a>>, Tree) {
    let mut out: Vec<Atom> = Vec::with_capacity(source.len() / 4);
    let mut newlines = 0u32;
    let mut spaced = false;
    let mut continued = false;
    let mut column = 0u32;
    let mut prev_end = 0usize;
    let mut off = false;
    // the ends of the ERROR nodes around the walk
    let mut errors: Vec<TextSize> = Vec::new();
    let broken = broken_ranges(parse);
    // the broken ranges that start before the token, as the walk goes: the furthest end
    let (mut next_broken, mut broken_end) = (0usize, None::<TextSize>);
    let mut piece_at: Option<usize> = None;
    let pieces = &parse.preprocessed().pieces;
    // per piece index: how many pieces before it are spelled in the main file, so that a
    // node whose pieces all come from other files (an included header) is skipped whole
    let mut main_before = Vec::with_capacity(pieces.len() + 1);
    main_before.push(0u32);
    let mut count = 0u32;
    for p in pieces {
        count += (p.file == 0) as u32;
        main_before.push(count);
    }
    // the piece that holds a tree offset: nodes and tokens come in order, so it only moves
    // forward (the last piece that starts at or before the offset, as `piece_index_at`
    // finds)
    let advance = |at: Option<usize>, offset: TextSize| match at {
        Some(mut i) if parse.piece_start(i).is_some_and(|s| s <= offset) => {
            while parse.piece_start(i + 1).is_some_and(|s| s <= offset) {
                i += 1;
            }
            Some(i)
        }
        _ => parse.piece_index_at(offset),
    };
    let green = parse.green();
    // a node per four or five bytes of the file, in real code
    let mut tree = Tree { nodes: Vec::with_capacity(source.len() / 4) };
    tree.nodes.push(Node {
        kind: SyntaxKind::from(green.kind().0),
        range: TextRange::at(TextSize::from(0), green.text_len()),
        parent: NO_NODE,
        children: 0,
        operator: None,
        body: NO_BODY,
        atoms: (0, 0),
    });
    // the walk over the green tree: per open node, its children still to visit
    let mut stack: Vec<(rowan::Children<'_>, NodeId)> = vec![(green.children(), 0)];
    let mut offset = TextSize::from(0);
    while let Some((children, parent)) = stack.last_mut() {
        let parent = *parent;
        let Some(child) = children.next() else {
            if let Some(n) = tree.nodes.get_mut(parent as usize) {
                n.atoms.1 = out.len() as u32;
            }
            stack.pop();
            continue;
        };
        let (kind, range) = (SyntaxKind::from(child.kind().0), TextRange::at(offset, child.text_len()));
        let tok = match child {
            rowan::NodeOrToken::Node(n) => {
                if let Some(p) = tree.nodes.get_mut(parent as usize) {
                    p.children += 1;
                    if p.body == NO_BODY && matches!(kind, COMPOUND_STMT | FUNCTION_BODY) {
                        p.body = range.start().into();
                    }
                }
                piece_at = advance(piece_at, range.start());
                // only a node that starts outside the main file is looked at further
                if !range.is_empty()
                    && let Some(a) = piece_at
                    && main_before.get(a + 1).zip(main_before.get(a)).is_some_and(|(x, y)| x == y)
                    && let Some(b) = parse.piece_index_at(range.end() - TextSize::from(1))
                    && main_before.get(b + 1).zip(main_before.get(a)).is_some_and(|(x, y)| x == y)
                {
                    offset = range.end();
                    continue;
                }
                if kind == ERROR {
                    errors.push(range.end());
                }
                let id = tree.nodes.len() as NodeId;
                let first = out.len() as u32;
                tree.nodes.push(Node {
                    kind,
                    range,
                    parent,
                    children: 0,
                    operator: None,
                    body: NO_BODY,
                    atoms: (first, first),
                });
                stack.push((n.children(), id));
                continue;
            }
            rowan::NodeOrToken::Token(_) => range,
        };
        offset = range.end();
        if kind == EOF {
            continue;
        }
        if let Some(p) = tree.nodes.get_mut(parent as usize)
            && p.kind == BIN_EXPR
            && p.operator.is_none()
            && tok.start() != p.range.start()
            && !kind.is_trivia()
            && is_punctuation(kind)
            && !matches!(kind, L_PAREN | R_PAREN)
        {
            p.operator = Some(kind);
        }
        piece_at = advance(piece_at, tok.start());
        let Some(i) = piece_at else { continue };
        let Some(piece) = pieces.get(i) else { continue };
        if piece.file != 0 {
            continue;
        }
        // a token a macro produced (the invocation is kept instead), or an argument of it
        if piece.is_expanded() && piece.kind != MACRO_CALL {
            continue;
        }
        // where the token is in the file
        let within = u32::from(tok.start()) - parse.piece_start(i).map_or(0, u32::from);
        let start = (piece.start + within) as usize;
        let end = start + usize::from(tok.len());
        let Some(text) = source.get(start..end) else { continue };
        match kind {
            WHITESPACE => {
                // a backslash-newline continuation counts as a line break
                newlines += text.bytes().filter(|&b| b == b'\n').count() as u32;
                continued |= text.contains('\\');
                spaced = true;
                column = after_last_line(text, column);
            }
            NEWLINE => {
                newlines += text.bytes().filter(|&b| b == b'\n').count() as u32;
                spaced = false;
                column = after_last_line(text, column);
            }
            _ => {
                let switch = (kind == COMMENT).then(|| switch_comment(text)).flatten();
                // the `on` comment is the region's last token; an `off` one is formatted
                let at = tok.start();
                while errors.last().is_some_and(|&e| e <= at) {
                    errors.pop();
                }
                while let Some(r) = broken.get(next_broken).filter(|r| r.start() <= at) {
                    broken_end = broken_end.max(Some(r.end()));
                    next_broken += 1;
                }
                let verbatim = off || !errors.is_empty() || broken_end.is_some_and(|end| at <= end);
                if let Some(s) = switch {
                    off = !s;
                }
                out.push(Atom {
                    kind,
                    text,
                    at,
                    parent,
                    newlines,
                    spaced,
                    continued,
                    before_len: start.saturating_sub(prev_end) as u32,
                    verbatim,
                    column,
                });
                continued = false;
                prev_end = end;
                column = if matches!(kind, COMMENT | MACRO_CALL | PP_DIRECTIVE | PP_INACTIVE) {
                    after_last_line(text, column)
                } else {
                    column + text.len() as u32
                };
                newlines = 0;
                spaced = false;
            }
        }
    }
    (out, tree)
}

/// `Some(false)` for a `msl-fmt: off` comment, `Some(true)` for `msl-fmt: on`.
fn switch_comment(text: &str) -> Option<bool> {
    let inner = text.strip_prefix("//").or_else(|| text.strip_prefix("/*")?.strip_suffix("*/"))?;
    match inner.trim() {
        "msl-fmt: off" => Some(false),
        "msl-fmt: on" => Some(true),
        _ => None,
    }
}

/// The units (statements, declarations, members) of the main file where the parser
/// reported a syntax error, as tree ranges in order of their starts: they are kept as
/// written.
fn broken_ranges(parse: &Parse) -> Vec<TextRange> {
    let mut errors: Vec<msl_syntax::TextSize> = parse
        .diagnostics()
        .iter()
        .filter(|d| d.file == 0 && d.severity == msl_syntax::Severity::Error && matches!(d.code, "E0100" | "E0001"))
        .filter_map(|d| parse.tree_offset(0, d.range.start()))
        .collect();
    if errors.is_empty() {
        return Vec::new();
    }
    errors.sort();
    let root = parse.syntax();
    // each error's token: the one that holds its offset, or ends there (one walk; looking
    // each offset up from the root scans long lists of children again and again)
    let mut out: Vec<msl_syntax::TextRange> = Vec::new();
    let mut next = 0;
    for token in root.descendants_with_tokens().filter_map(|e| e.into_token()) {
        while errors.get(next).is_some_and(|&at| at <= token.text_range().end()) {
            next += 1;
            let unit = token.parent_ancestors().find(|n| is_unit_node(n) && n.kind() != COMPOUND_STMT);
            out.push(unit.map_or_else(|| token.text_range(), |u| u.text_range()));
        }
        if next == errors.len() {
            break;
        }
    }
    out.sort_by_key(|r| r.start());
    out
}

/// The column after `text` written from `column`.
fn after_last_line(text: &str, column: u32) -> u32 {
    match text.rfind('\n') {
        Some(n) => text[n + 1..].chars().count() as u32,
        None => column + text.chars().count() as u32,
    }
}

/// Kinds of nodes whose children are units (statements, members, declarations).
fn holds_units(kind: SyntaxKind) -> bool {
    matches!(kind, SOURCE_FILE | COMPOUND_STMT | MEMBER_LIST | DECL_LIST)
}

/// Whether `node` is a statement, declaration or member that stands on its own lines.
fn is_unit(t: &Tree, node: NodeId) -> bool {
    t.parent_kind(node).is_some_and(|parent| unit_in(t.kind(node), parent))
}

/// [`is_unit`] for a syntax node (where the parse has errors).
fn is_unit_node(node: &SyntaxNode) -> bool {
    node.parent().is_some_and(|p| unit_in(node.kind(), p.kind()))
}

/// Whether a node of kind `kind` inside one of kind `parent` is a unit.
fn unit_in(kind: SyntaxKind, parent: SyntaxKind) -> bool {
    holds_units(parent) || unbraced_body_in(kind, parent)
}

/// The body of a control statement written without braces (not the `if` of `else if`).
fn is_unbraced_body(t: &Tree, node: NodeId) -> bool {
    t.parent_kind(node).is_some_and(|parent| unbraced_body_in(t.kind(node), parent))
}

fn unbraced_body_in(kind: SyntaxKind, parent: SyntaxKind) -> bool {
    matches!(parent, IF_STMT | ELSE_BRANCH | WHILE_STMT | FOR_STMT | RANGE_FOR_STMT | DO_STMT)
        && is_statement(kind)
        && kind != COMPOUND_STMT
        && !(parent == ELSE_BRANCH && kind == IF_STMT)
}

fn is_statement(kind: SyntaxKind) -> bool {
    matches!(
        kind,
        COMPOUND_STMT
            | EXPR_STMT
            | DECL_STMT
            | IF_STMT
            | SWITCH_STMT
            | WHILE_STMT
            | DO_STMT
            | FOR_STMT
            | RANGE_FOR_STMT
            | BREAK_STMT
            | CONTINUE_STMT
            | RETURN_STMT
            | GOTO_STMT
            | LABELED_STMT
            | EMPTY_STMT
            | TRY_STMT
            | ASM_STMT
            | CASE_LABEL
            | DEFAULT_LABEL
    )
}

/// The braces of a block: what follows `{` and precedes `}` goes on lines of its own.
fn is_block_brace(t: &Tree, a: &Atom) -> bool {
    matches!(a.kind, L_CURLY | R_CURLY) && matches!(t.of(a), COMPOUND_STMT | MEMBER_LIST | DECL_LIST)
}

/// The outermost unit node whose first token is `a`, if it starts one.
fn unit_started_by(t: &Tree, a: &Atom) -> Option<NodeId> {
    t.ancestors(a.parent).take_while(|&n| t.range(n).start() == a.at).filter(|&n| is_unit(t, n)).last()
}

/// The document for the main file of `parse`.
pub(crate) fn document<'a>(parse: &Parse, source: &'a str, style: &Style) -> Document<'a> {
    let (atoms, tree) = atoms(parse, source);
    let list_groups = list_groups(&atoms, &tree);
    let soft = soft_plan(&atoms, &tree, &list_groups);
    let short_bodies = short_bodies(&atoms, &tree, style.short_functions);
    let mut b = Builder {
        tree: &tree,
        source,
        doc: Document { elements: Vec::with_capacity(atoms.len() * 9 / 4) },
        style: *style,
        frame: Frame::default(),
        outer: Vec::new(),
        bodies: Vec::new(),
        list_groups,
        groups: Vec::new(),
        soft,
        short_bodies,
        short_close: None,
    };
    b.run(&atoms);
    b.doc.finish();
    b.doc
}

/// An open bracket of the current unit: its kind and column in the file.
struct Open {
    kind: SyntaxKind,
    column: u32,
}

/// What the builder tracks per block: the brackets open in its current unit, the column
/// in the file of that unit's first line, and whether the statements after a `case`
/// label are indented.
#[derive(Default)]
struct Frame {
    open: Vec<Open>,
    unit_column: u32,
    case_indent: bool,
    /// A `case` label being written one level out (labels not indented in their block).
    label_out: bool,
}

struct Builder<'a, 't> {
    tree: &'t Tree,
    /// The main file's text.
    source: &'a str,
    doc: Document<'a>,
    style: Style,
    frame: Frame,
    /// The frames of the enclosing blocks.
    outer: Vec<Frame>,
    /// Where the unbraced bodies being written end (each indented one level).
    bodies: Vec<msl_syntax::TextSize>,
    /// For each atom that opens a parameter or argument list laid out as a group: where
    /// its `)` is, and whether the group must break.
    list_groups: rustc_hash::FxHashMap<usize, ListShape>,
    /// The lists being written as groups, innermost last.
    groups: Vec<ListGroup>,
    /// Where long lines may break inside statements.
    soft: SoftPlan,
    /// The function bodies that may stay on one line: the atom index of each `{`, with
    /// that of its `}`.
    short_bodies: rustc_hash::FxHashMap<usize, usize>,
    /// The `}` of the short body being written, whose line breaks are a group's.
    short_close: Option<usize>,
}

/// A parameter or argument list written on one line: printed on one line when it fits,
/// and otherwise one item per line, aligned after the `(` (and, for parameters, with their
/// attributes in one column).
struct ListGroup {
    /// The list node.
    list: NodeId,
    /// The atom index of its `)`.
    close: usize,
    /// Written one item per line: printed so.
    must_break: bool,
    /// Per item: the element index where it starts, and where its attributes start.
    items: Vec<(usize, Option<usize>)>,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Gap {
    None,
    Space,
    /// A line break that keeps the author's offset inside the unit.
    Continue,
    Hard,
    Empty,
}

fn is_line_comment(a: &Atom) -> bool {
    a.kind == COMMENT && a.text.starts_with("//")
}

fn is_block_open(t: &Tree, a: &Atom) -> bool {
    a.kind == L_CURLY && is_block_brace(t, a)
}

impl<'a> Builder<'a, '_> {
    fn run(&mut self, atoms: &[Atom<'a>]) {
        let mut prev: Option<&Atom<'a>> = None;
        // the gap the previous token asks for before the next one
        let mut after = Gap::None;
        // whether the last token that is no comment or directive ended a unit, a label,
        // or opened or closed a block: comments and directives after it are on lines of
        // the block, not continuation lines
        let mut at_boundary = true;
        let t = self.tree;
        for (i, a) in atoms.iter().enumerate() {
            let directive = matches!(a.kind, PP_DIRECTIVE | PP_INACTIVE);
            let unit = match a.kind {
                COMMENT | PP_DIRECTIVE | PP_INACTIVE => None,
                // an invocation at the start of a line where units stand stands for one
                MACRO_CALL => Some(a.parent).filter(|&p| holds_units(t.kind(p)) && a.newlines > 0),
                _ => unit_started_by(t, a),
            };
            let closing_block = a.kind == R_CURLY && is_block_brace(t, a);
            let opening_block = is_block_open(t, a);
            // unbraced bodies that ended before this token
            let at = a.at;
            while self.bodies.last().is_some_and(|&end| end <= at) {
                self.bodies.pop();
                self.doc.indent_end();
            }
            if closing_block {
                self.close_brackets();
                self.end_label_out();
                self.end_case_indent();
                self.doc.indent_end();
                if let Some(f) = self.outer.pop() {
                    self.frame = f;
                }
                // `{}` stays as it is
                after = if prev.is_some_and(|p| is_block_open(t, p)) { Gap::None } else { after.max(Gap::Hard) };
            }
            // `case 1: {` and trailing comments stay on their line
            let mut stays = false;
            let mut gap = if prev.is_none() {
                Gap::None
            } else if directive {
                Gap::Hard
            } else if let Some(u) = unit {
                self.close_brackets();
                let after_label = prev.is_some_and(|p| p.kind == COLON && in_label(t, p));
                if after_label && t.kind(u) == COMPOUND_STMT && a.newlines == 0 {
                    // `case 1: {` stays on the label's line, the block at the label's level
                    self.end_case_indent();
                    stays = true;
                    Gap::Space
                } else {
                    self.end_label_out();
                    if matches!(t.kind(u), CASE_LABEL | DEFAULT_LABEL) {
                        self.end_case_indent();
                        if !self.style.indent_case_labels {
                            // at the level of the `switch`, the statements after it not
                            self.doc.indent_end();
                            self.frame.label_out = true;
                        }
                    }
                    Gap::Hard
                }
            } else if opening_block {
                self.brace_gap(a)
            } else if a.kind == ELSE_KW {
                match prev {
                    Some(p) if p.kind == R_CURLY && is_block_brace(t, p) && self.style.cuddle_else => Gap::Space,
                    Some(p) if p.kind == R_CURLY => Gap::Hard,
                    _ if a.newlines > 0 => Gap::Hard,
                    _ => Gap::Space,
                }
            } else if a.kind == WHILE_KW && t.of(a) == DO_STMT && prev.is_some_and(|p| p.kind == R_CURLY) {
                Gap::Space
            } else if a.newlines > 0 {
                if a.kind == COMMENT && at_boundary { Gap::Hard } else { Gap::Continue }
            } else if let Some(p) = prev {
                if space_between(t, p, a, &self.style) { Gap::Space } else { Gap::None }
            } else {
                Gap::None
            };
            // what the previous token asked for, when a trailing comment takes its place
            let mut carried = Gap::None;
            if a.kind == COMMENT && a.newlines == 0 && prev.is_some() {
                gap = Gap::Space;
                carried = after;
            } else if !stays {
                gap = gap.max(after);
            }
            if a.continued {
                gap = gap.max(Gap::Continue);
            }
            if let Some(u) = unit.filter(|&u| is_unbraced_body(t, u)) {
                self.doc.indent_start();
                self.bodies.push(t.range(u).end());
            }
            // up to one empty line where the author left some, not after `{` nor before `}`
            if gap == Gap::Hard && a.newlines > 1 && !closing_block && !prev.is_some_and(|p| is_block_open(t, p)) {
                gap = Gap::Empty;
            }
            if gap >= Gap::Hard && !matches!(a.kind, COMMENT | PP_DIRECTIVE | PP_INACTIVE) {
                // a new line of structure: a unit, a brace; brackets left open end here
                self.close_brackets();
            }
            // an item of a list written as a group: after the comma, a line break when the
            // group breaks
            let in_group =
                prev.is_some_and(|p| p.kind == COMMA && self.groups.last().is_some_and(|g| p.parent == g.list));
            if in_group && !a.verbatim && matches!(gap, Gap::Space | Gap::Continue) {
                let must_break = self.groups.last().is_some_and(|g| g.must_break);
                self.doc.line(if must_break { Line::Hard } else { Line::Space });
                gap = Gap::None;
                let at = self.doc.elements.len();
                if let Some(g) = self.groups.last_mut() {
                    g.items.push((at, None));
                }
            }
            // a short function body: one group from its `{` to its `}`, whose line breaks
            // are spaces when it fits
            if opening_block
                && self.short_close.is_none()
                && let Some(&close) = self.short_bodies.get(&i)
            {
                self.doc.group_start();
                self.short_close = Some(close);
                if gap == Gap::Hard {
                    gap = Gap::None;
                    self.doc.line(Line::Space);
                }
            } else if self.short_close.is_some_and(|c| i <= c) && gap == Gap::Hard {
                gap = Gap::None;
                self.doc.line(Line::Space);
            }
            if let Some(&Some((extra, fit))) = self.soft.breaks.get(i)
                && matches!(gap, Gap::None | Gap::Space)
                && !a.verbatim
                && !prev.is_some_and(|p| p.verbatim)
            {
                self.doc.line(Line::Soft { space: gap == Gap::Space, extra, fit });
            } else {
                self.place_gap(a, gap);
            }
            for _ in 0..self.soft.starts.get(i).copied().unwrap_or(0) {
                self.doc.fill_start();
            }
            if let Some(&ListShape { close, must_break, fill }) = self.list_groups.get(&i) {
                let list = a.parent;
                if fill {
                    self.doc.fill_start();
                } else {
                    self.doc.group_start();
                }
                self.groups.push(ListGroup { list, close, must_break, items: Vec::new() });
            }
            // where a parameter's attributes start
            if a.kind == L_BRACK
                && is_first_token(t, a)
                && t.of(a) == ATTRIBUTE_LIST
                && let Some(g) = self.groups.last_mut()
                && t.kind(g.list) == PARAM_LIST
                && t.ancestors(a.parent).find(|&n| t.kind(n) == PARAM_LIST) == Some(g.list)
                && let Some(item) = g.items.last_mut()
                && item.1.is_none()
            {
                item.1 = Some(self.doc.elements.len());
            }
            self.place_text(a, directive);
            if self.list_groups.contains_key(&i) {
                let at = self.doc.elements.len();
                if let Some(g) = self.groups.last_mut() {
                    g.items.push((at, None));
                }
            }
            if gap >= Gap::Hard && !matches!(a.kind, COMMENT | PP_DIRECTIVE | PP_INACTIVE) {
                self.frame.unit_column = a.column;
            }
            // what this token asks of the next one
            after = carried;
            if directive || is_line_comment(a) {
                // a line break, which keeps the offset inside a unit
                after = after.max(if at_boundary { Gap::Hard } else { Gap::Continue });
            }
            if a.kind == SEMI && ends_unit(t, a) {
                after = Gap::Hard;
            }
            if opening_block {
                self.doc.indent_start();
                self.outer.push(std::mem::take(&mut self.frame));
                after = Gap::Hard;
            }
            if closing_block {
                // `};`, `} else`, `}, {`, `})`, `} while` are decided by the next token
                let next = atoms.get(i + 1).map(|n| n.kind);
                after = if matches!(next, Some(SEMI | COMMA | R_PAREN | ELSE_KW | WHILE_KW)) {
                    Gap::None
                } else {
                    Gap::Hard
                };
            }
            if a.kind == COLON && in_label(t, a) {
                after = Gap::Hard;
                self.end_label_out();
                if self.style.indent_case_labels && !self.frame.case_indent {
                    self.doc.indent_start();
                    self.frame.case_indent = true;
                }
            }
            self.track_brackets(a, atoms.get(i + 1));
            if self.groups.last().is_some_and(|g| g.close == i)
                && let Some(g) = self.groups.pop()
            {
                self.doc.group_end();
                self.align_attributes(&g);
            }
            for _ in 0..self.soft.ends.get(i).copied().unwrap_or(0) {
                self.doc.group_end();
            }
            if self.short_close == Some(i) {
                self.short_close = None;
                self.doc.group_end();
            }
            if !matches!(a.kind, COMMENT | PP_DIRECTIVE | PP_INACTIVE) {
                at_boundary = after >= Gap::Hard;
            }
            prev = Some(a);
        }
        while self.bodies.pop().is_some() {
            self.doc.indent_end();
        }
        self.close_brackets();
        self.end_label_out();
        self.end_case_indent();
        while let Some(f) = self.outer.pop() {
            self.doc.indent_end();
            self.frame = f;
            self.close_brackets();
            self.end_label_out();
            self.end_case_indent();
        }
    }

    fn end_label_out(&mut self) {
        if std::mem::take(&mut self.frame.label_out) {
            self.doc.indent_start();
        }
    }

    fn end_case_indent(&mut self) {
        if std::mem::take(&mut self.frame.case_indent) {
            self.doc.indent_end();
        }
    }

    /// The gap before the `{` of a block.
    fn brace_gap(&self, a: &Atom) -> Gap {
        let owner = self.tree.parent_kind(a.parent);
        let next_line = match owner {
            Some(FUNCTION | FUNCTION_BODY) => self.style.function_brace_next_line,
            Some(IF_STMT | ELSE_BRANCH | FOR_STMT | RANGE_FOR_STMT | WHILE_STMT | DO_STMT | SWITCH_STMT) => {
                self.style.control_brace_next_line
            }
            // lambdas, classes, namespaces: as written
            _ => a.newlines > 0,
        };
        if next_line { Gap::Hard } else { Gap::Space }
    }

    /// Pads the declarations of a parameter list's items so that their attributes start in
    /// one column when the group breaks.
    fn align_attributes(&mut self, g: &ListGroup) {
        if self.tree.kind(g.list) != PARAM_LIST || g.items.iter().filter(|i| i.1.is_some()).count() < 2 {
            return;
        }
        let width = |from: usize, to: usize| -> usize {
            let mut w = 0;
            let mut space = false;
            for e in &self.doc.elements[from..to] {
                match e {
                    Element::Text(t) => {
                        w += t.chars().count() + space as usize;
                        space = false;
                    }
                    Element::Space => space = true,
                    Element::Line(l) => space |= l.spaced(),
                    _ => {}
                }
            }
            w
        };
        let widths: Vec<Option<(usize, usize)>> =
            g.items.iter().map(|&(start, attrs)| attrs.map(|a| (a, width(start, a)))).collect();
        let Some(max) = widths.iter().flatten().map(|w| w.1).max() else { return };
        for (at, w) in widths.into_iter().flatten().rev() {
            if w < max {
                // before the space that precedes the attributes
                let at = if matches!(
                    self.doc.elements.get(at.wrapping_sub(1)),
                    Some(Element::Space | Element::Line(Line::Soft { .. }))
                ) {
                    at - 1
                } else {
                    at
                };
                self.doc.elements.insert(at, Element::PadIfBreak(max - w));
            }
        }
    }

    fn place_gap(&mut self, a: &Atom<'a>, gap: Gap) {
        if a.verbatim {
            self.doc.verbatim(a.before(self.source));
            return;
        }
        if a.continued {
            // the line continuation stays, at the end of the line
            self.doc.space();
            self.doc.text("\\");
        }
        match gap {
            Gap::None => {}
            Gap::Space => self.doc.space(),
            Gap::Continue => {
                // aligned just after the innermost open bracket: with that bracket, where
                // it is now (an outer bracket at that column is a coincidence: the author
                // did not write its contents past an inner bracket's)
                if self.frame.open.last().is_some_and(|o| o.column + 1 == a.column) {
                    self.doc.line(Line::Hard);
                } else {
                    // the offset from the unit's first line, as written
                    let offset = a.column.saturating_sub(self.frame.unit_column);
                    self.doc.line(Line::Offset(offset));
                }
            }
            Gap::Hard => self.doc.line(Line::Hard),
            Gap::Empty => self.doc.line(Line::Empty),
        }
    }

    fn place_text(&mut self, a: &Atom<'a>, directive: bool) {
        if a.verbatim {
            self.doc.verbatim(a.text);
        } else if a.kind == PP_INACTIVE {
            // the lines of a skipped branch, as written: from the line after its directive
            // to the indentation of the next one
            let text = a.text.strip_prefix("\r\n").or_else(|| a.text.strip_prefix('\n')).unwrap_or(a.text);
            let text = text.trim_end_matches([' ', '\t']);
            let text = text.strip_suffix('\n').map(|t| t.strip_suffix('\r').unwrap_or(t)).unwrap_or(text);
            if !text.is_empty() {
                self.doc.elements.push(Element::Directive(text, false));
            }
        } else if directive {
            // trailing spaces go, unless a backslash would then continue the line
            let trimmed = a.text.trim_end();
            let text = if trimmed.ends_with('\\') { a.text } else { trimmed };
            self.doc.elements.push(Element::Directive(text, self.style.indent_directives));
        } else if matches!(a.kind, COMMENT | MACRO_CALL) {
            self.doc.verbatim(a.text.trim_end_matches([' ', '\t']));
        } else {
            self.doc.text(a.text);
        }
    }

    fn track_brackets(&mut self, a: &Atom, next: Option<&Atom>) {
        let t = self.tree;
        let template_list = || matches!(t.of(a), TEMPLATE_ARG_LIST | TEMPLATE_PARAM_LIST);
        let opens = match a.kind {
            L_PAREN | L_BRACK => true,
            L_CURLY => !is_block_brace(t, a),
            L_ANGLE => template_list(),
            _ => false,
        };
        let closes = match a.kind {
            R_PAREN | R_BRACK => true,
            R_CURLY => !is_block_brace(t, a),
            R_ANGLE => template_list(),
            _ => false,
        };
        if opens {
            // the contents of a list or parentheses (not template arguments) may start on
            // the next line, when the bracket stands too far right (not where the author
            // broke the line already)
            let list = matches!(t.of(a), ARG_LIST | PARAM_LIST | INIT_LIST | PAREN_EXPR | CXX_CAST_EXPR | INDEX_EXPR)
                && a.kind != L_ANGLE;
            if list
                && !a.verbatim
                && next.is_some_and(|n| {
                    n.newlines == 0
                        && !n.verbatim
                        && !n.continued
                        && !matches!(n.kind, COMMENT | R_PAREN | R_CURLY | R_ANGLE | PP_DIRECTIVE | PP_INACTIVE)
                })
            {
                self.doc.elements.push(Element::BracketBreak);
            }
            // a line aligned after the bracket goes to the column after it
            self.doc.elements.push(Element::AlignStart);
            self.frame.open.push(Open { kind: a.kind, column: a.column });
        } else if closes {
            let want = match a.kind {
                R_PAREN => L_PAREN,
                R_BRACK => L_BRACK,
                R_CURLY => L_CURLY,
                _ => L_ANGLE,
            };
            if let Some(pos) = self.frame.open.iter().rposition(|o| o.kind == want) {
                while self.frame.open.len() > pos {
                    self.frame.open.pop();
                    self.doc.elements.push(Element::AlignEnd);
                }
            }
        }
    }

    fn close_brackets(&mut self) {
        while self.frame.open.pop().is_some() {
            self.doc.elements.push(Element::AlignEnd);
        }
    }
}

/// Where long lines may break inside statements (besides the lists laid out as groups):
/// after an assignment's or initializer's `=`, after the operators of a binary
/// expression, before the `?` and `:` of a conditional one, and after the commas of other
/// lists. Each place belongs to a fill group that spans its expression (or list), so that
/// a line breaks at the outermost places first, and only where what follows does not fit.
struct SoftPlan {
    /// Per atom, whether a break may precede it: whether a break there goes one level
    /// deeper than the alignment in force (inside a list item), and what has to fit for it
    /// not to be taken.
    breaks: Vec<Option<(bool, Fit)>>,
    /// Per atom, how many groups start at it, and end after it.
    starts: Vec<u16>,
    ends: Vec<u16>,
}

/// The precedence of a binary operator (lower binds tighter); assignments and the comma
/// share the loosest levels.
fn precedence(kind: SyntaxKind) -> u8 {
    match kind {
        STAR | SLASH | PERCENT => 5,
        PLUS | MINUS => 6,
        SHL | SHR => 7,
        L_ANGLE | R_ANGLE | LTEQ | GTEQ => 9,
        EQ2 | NEQ => 10,
        AMP => 11,
        CARET => 12,
        PIPE => 13,
        AMP2 => 14,
        PIPE2 => 15,
        COMMA => 17,
        _ => 16,
    }
}

/// The outermost binary expression of a chain of operators of one
/// precedence that `node` (an expression with an operator of `level`) is part of, and
/// whether it is (part of) a list item. Found once per node: a long chain would be walked
/// again from each of its operators.
fn chain_root(
    t: &Tree,
    node: NodeId,
    level: u8,
    roots: &mut rustc_hash::FxHashMap<NodeId, (NodeId, bool)>,
) -> (NodeId, bool) {
    let mut walked = Vec::new();
    let mut at = node;
    let found = loop {
        if let Some(&known) = roots.get(&at) {
            break known;
        }
        walked.push(at);
        match t.parent(at).filter(|&p| t.kind(p) == BIN_EXPR) {
            Some(up) if t.operator(up).is_some_and(|op| precedence(op) == level) => at = up,
            _ => break (at, in_list_item(t, at)),
        }
    };
    for n in walked {
        roots.insert(n, found);
    }
    found
}

fn soft_plan(atoms: &[Atom], t: &Tree, list_groups: &rustc_hash::FxHashMap<usize, ListShape>) -> SoftPlan {
    let mut plan =
        SoftPlan { breaks: vec![None; atoms.len()], starts: vec![0; atoms.len()], ends: vec![0; atoms.len()] };
    // the lists already laid out as groups
    let grouped: rustc_hash::FxHashSet<NodeId> = list_groups.keys().map(|&i| atoms[i].parent).collect();
    let mut groups: rustc_hash::FxHashSet<(usize, usize)> = rustc_hash::FxHashSet::default();
    let mut roots = rustc_hash::FxHashMap::default();
    // a break before atom `at`, in the group of the atoms `first..end`
    let mut add = |plan: &mut SoftPlan, (first, end): (usize, usize), at: usize, extra: bool, fit: Fit| {
        let last = end.saturating_sub(1);
        if at <= first || at > last || atoms[at].kind == COMMENT || atoms[at - 1].kind == COMMENT {
            return;
        }
        plan.breaks[at] = Some((extra, fit));
        if groups.insert((first, last)) {
            plan.starts[first] = plan.starts[first].saturating_add(1);
            plan.ends[last] = plan.ends[last].saturating_add(1);
        }
    };
    for (i, a) in atoms.iter().enumerate() {
        let parent = a.parent;
        match (t.kind(parent), a.kind) {
            (BIN_EXPR, _)
                if is_punctuation(a.kind) && !matches!(a.kind, L_PAREN | R_PAREN) && !is_first_token(t, a) =>
            {
                // the chain of operators of one precedence is one group
                let level = precedence(a.kind);
                let (root, extra) = if level < 16 {
                    chain_root(t, parent, level, &mut roots)
                } else {
                    (parent, in_list_item(t, parent))
                };
                add(&mut plan, t.span(root), i + 1, extra, if level == 16 { Fit::Head } else { Fit::Item });
            }
            (INITIALIZER, EQ) => add(&mut plan, t.span(parent), i + 1, in_list_item(t, parent), Fit::Head),
            (CONDITIONAL_EXPR, QUESTION | COLON) => {
                add(&mut plan, t.span(parent), i, in_list_item(t, parent), Fit::Item)
            }
            // a template's arguments break last: only when what follows the comma up to its
            // next possible break does not fit
            (ARG_LIST | PARAM_LIST | INIT_LIST | TEMPLATE_ARG_LIST | TEMPLATE_PARAM_LIST | VAR_DECL, COMMA)
                if !grouped.contains(&parent) =>
            {
                let last = matches!(t.kind(parent), TEMPLATE_ARG_LIST | TEMPLATE_PARAM_LIST);
                add(&mut plan, t.span(parent), i + 1, false, if last { Fit::Last } else { Fit::Item })
            }
            // a parameter: before its attributes, when they do not fit after it
            (ATTRIBUTE_LIST, L_BRACK)
                if is_first_token(t, a)
                    && let Some(param) = t.ancestors(parent).skip(1).take(2).find(|&p| t.kind(p) == PARAM) =>
            {
                add(&mut plan, t.span(param), i, true, Fit::Head);
            }
            // a function or explicit instantiation: after its attributes, and before its
            // name, when what follows up to its first break does not fit
            (ATTRIBUTE_LIST | NAME, _) if is_first_token(t, a) => {
                let Some(decl) = declaration_of(t, parent) else { continue };
                // the head: up to the body; from `template` in an explicit instantiation
                let range = t.range(decl);
                let end =
                    t.nodes.get(decl as usize).filter(|d| d.body != NO_BODY).map_or(range.end(), |d| d.body.into());
                let start = t
                    .parent(decl)
                    .filter(|&p| t.kind(p) == EXPLICIT_INSTANTIATION)
                    .map_or(range.start(), |p| t.range(p).start());
                let at = if t.kind(parent) == NAME { i } else { t.span(parent).1 };
                if at < atoms.len() && start < end {
                    let first = atoms.partition_point(|a| a.at < start);
                    let end = atoms.partition_point(|a| a.at < end);
                    add(&mut plan, (first, end), at, false, Fit::Head);
                }
            }
            _ => {}
        }
    }
    plan
}

/// For the attributes that lead the declaration of a function or of an explicit
/// instantiation, or the name it declares: that declaration.
fn declaration_of(t: &Tree, node: NodeId) -> Option<NodeId> {
    let decl = match t.kind(node) {
        ATTRIBUTE_LIST => t.parent(node)?,
        NAME => {
            let declarator = t.parent(node).filter(|&d| t.kind(d) == DECLARATOR)?;
            let up = t.parent(declarator)?;
            match t.kind(up) {
                FUNCTION => up,
                INIT_DECLARATOR => t.parent(up)?,
                _ => return None,
            }
        }
        _ => return None,
    };
    let instantiation = t.parent_kind(decl) == Some(EXPLICIT_INSTANTIATION);
    let kind = t.kind(decl);
    let standing = kind == FUNCTION && (is_unit(t, decl) || instantiation) || kind == VAR_DECL && instantiation;
    standing.then_some(decl)
}

/// Whether an expression is (part of) an item of a bracketed list, rather than directly
/// inside parentheses or a statement: its continuation lines then go one level deeper
/// than the item.
fn in_list_item(t: &Tree, node: NodeId) -> bool {
    for n in t.ancestors(node).skip(1) {
        match t.kind(n) {
            ARG_LIST | PARAM_LIST | INIT_LIST | TEMPLATE_ARG_LIST | TEMPLATE_PARAM_LIST | INDEX_EXPR
            | CXX_CAST_EXPR => return true,
            PAREN_EXPR | IF_STMT | WHILE_STMT | SWITCH_STMT | FOR_STMT | DO_STMT => return false,
            _ if is_unit(t, n) => return false,
            _ => {}
        }
    }
    false
}

/// The function bodies that may be written on the function's line, per the style: the
/// atom index of each one's `{`, with that of its `}`. A body qualifies when it holds at
/// most one statement, no block, and nothing kept as written (comments, directives, macro
/// invocations, line continuations).
fn short_bodies(atoms: &[Atom], t: &Tree, which: ShortFunctions) -> rustc_hash::FxHashMap<usize, usize> {
    let mut out = rustc_hash::FxHashMap::default();
    if which == ShortFunctions::None {
        return out;
    }
    let mut i = 0;
    while i < atoms.len() {
        let a = &atoms[i];
        let body = Some(a.parent).filter(|&b| t.kind(b) == COMPOUND_STMT);
        let function = body.and_then(|b| t.parent(b)).and_then(|p| match t.kind(p) {
            FUNCTION => Some(p),
            FUNCTION_BODY => t.parent(p),
            _ => None,
        });
        let (Some(body), Some(function)) = (body.filter(|_| is_block_open(t, a)), function) else {
            i += 1;
            continue;
        };
        let statements = t.nodes.get(body as usize).map_or(0, |b| b.children);
        let in_class = t.parent_kind(function) == Some(MEMBER_LIST);
        let wanted = match which {
            ShortFunctions::None => false,
            ShortFunctions::Empty => statements == 0,
            ShortFunctions::Inline => statements == 0 || in_class,
            ShortFunctions::All => true,
        };
        let end = t.range(body).end();
        // the `}`: the last atom of the body
        let mut j = i + 1;
        let mut plain = true;
        while j < atoms.len() && atoms[j].end() < end {
            let b = &atoms[j];
            // the statement on one line as written (a line break inside it is the author's)
            plain &= j == i + 1 || b.newlines == 0;
            let kept = b.verbatim || b.continued || matches!(b.kind, COMMENT | PP_DIRECTIVE | PP_INACTIVE | MACRO_CALL);
            let block = is_block_brace(t, b);
            plain &= !kept && !block;
            j += 1;
        }
        let closes = atoms.get(j).is_some_and(|c| c.kind == R_CURLY && c.end() == end);
        if wanted && plain && closes && statements <= 1 && !a.verbatim {
            out.insert(i, j);
        }
        i = j.max(i + 1);
    }
    out
}

/// How a list is laid out (see [`list_groups`]).
#[derive(Clone, Copy)]
struct ListShape {
    /// The atom index of its closing bracket.
    close: usize,
    /// Written one item per line: printed so.
    must_break: bool,
    /// Packed: as many items on a line as fit, when it does not fit on one.
    fill: bool,
}

/// The parameter, argument and initializer lists with more than one item that are laid
/// out as groups:
/// the atom index of each one's `(`, with that of its `)` and whether the group must
/// break. A list written on one line is a group that breaks when it does not fit; one
/// written an item per line (the first after the `(`) is a group that breaks. Other lists,
/// and lists with comments, directives, line continuations or macro invocations inside,
/// keep their lines.
fn list_groups(atoms: &[Atom], t: &Tree) -> rustc_hash::FxHashMap<usize, ListShape> {
    struct Scan {
        open: usize,
        /// `{` of an initializer list, or `(`.
        braced: bool,
        list: bool,
        /// Every atom inside is on the `(`'s line.
        one_line: bool,
        /// Every line break inside is right after a comma of the list, and every comma of
        /// the list is followed by one.
        per_line: bool,
        commas: usize,
    }
    let mut out = rustc_hash::FxHashMap::default();
    let mut stack: Vec<Scan> = Vec::new();
    for (i, a) in atoms.iter().enumerate() {
        let odd = a.continued || a.verbatim || matches!(a.kind, COMMENT | PP_DIRECTIVE | PP_INACTIVE | MACRO_CALL);
        let after_list_comma = i > 0
            && atoms[i - 1].kind == COMMA
            && stack.last().is_some_and(|s| atoms[i - 1].parent == atoms[s.open].parent);
        let depth = stack.len();
        for (k, s) in stack.iter_mut().enumerate() {
            if odd {
                s.one_line = false;
                s.per_line = false;
            }
            if a.newlines > 0 {
                s.one_line = false;
                // a line break inside an item of an enclosing list
                if k + 1 < depth {
                    s.per_line = false;
                }
            }
        }
        if let Some(top) = stack.last_mut()
            && after_list_comma != (a.newlines > 0)
        {
            top.per_line = false;
        }
        match a.kind {
            L_PAREN => {
                let list = matches!(t.of(a), PARAM_LIST | ARG_LIST);
                stack.push(Scan { open: i, braced: false, list, one_line: true, per_line: true, commas: 0 });
            }
            L_CURLY if t.of(a) == INIT_LIST => {
                stack.push(Scan { open: i, braced: true, list: true, one_line: true, per_line: true, commas: 0 });
            }
            COMMA => {
                if let Some(top) = stack.last_mut()
                    && a.parent == atoms[top.open].parent
                {
                    top.commas += 1;
                }
            }
            R_PAREN | R_CURLY => {
                // only the bracket that closes the innermost one scanned
                let braced = a.kind == R_CURLY;
                if braced && t.of(a) != INIT_LIST {
                    continue;
                }
                if stack.last().is_none_or(|s| s.braced != braced) {
                    continue;
                }
                if let Some(s) = stack.pop()
                    && s.list
                    && s.commas > 0
                    && (s.one_line || s.per_line)
                    && atoms[s.open].parent == a.parent
                {
                    // a one-line initializer list is packed: as many items per line as fit
                    out.insert(s.open, ListShape { close: i, must_break: !s.one_line, fill: braced && s.one_line });
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether a `:` ends a `case` or `default` label (or a `public:` access specifier, or
/// a `label:`).
fn in_label(t: &Tree, a: &Atom) -> bool {
    matches!(t.of(a), CASE_LABEL | DEFAULT_LABEL)
}

/// Whether a `;` ends a unit (not one inside a `for` header).
fn ends_unit(t: &Tree, a: &Atom) -> bool {
    !matches!(t.of(a), FOR_STMT | FOR_INIT | FOR_INCREMENT | CONDITION)
}

/// Whether one space separates `a` and `b` on a line. Never none where the two would
/// then read as other tokens.
fn space_between(t: &Tree, a: &Atom, b: &Atom, style: &Style) -> bool {
    space_rule(t, a, b, style) || b.spaced && fused(a, b)
}

fn space_rule(t: &Tree, a: &Atom, b: &Atom, style: &Style) -> bool {
    let written = b.spaced;
    // a macro invocation, a comment: as written
    if matches!(a.kind, MACRO_CALL | COMMENT) || matches!(b.kind, MACRO_CALL | COMMENT) {
        return written;
    }
    let ap = Some(t.of(a));
    let bp = Some(t.of(b));
    if matches!(b.kind, COMMA | SEMI) {
        return false;
    }
    if a.kind == COMMA {
        return true;
    }
    // `for (a; b; c)`
    if a.kind == SEMI {
        return b.kind != R_PAREN;
    }
    // an attribute after a name or a parameter list: `float4 p [[position]]`
    if b.kind == L_BRACK
        && bp == Some(ATTRIBUTE_LIST)
        && is_first_token(t, b)
        && matches!(a.kind, IDENT | R_PAREN | R_BRACK)
    {
        return true;
    }
    if matches!(a.kind, DOT | ARROW) || matches!(b.kind, DOT | ARROW) {
        return false;
    }
    // `[[attr]]`: no space inside the double brackets, none between them
    if a.kind == L_BRACK && b.kind == L_BRACK || a.kind == R_BRACK && b.kind == R_BRACK {
        return false;
    }
    if a.kind == L_BRACK && ap == Some(ATTRIBUTE_LIST) || b.kind == R_BRACK && bp == Some(ATTRIBUTE_LIST) {
        return false;
    }
    if matches!(a.kind, L_PAREN | L_BRACK) || matches!(b.kind, R_PAREN | R_BRACK) {
        return false;
    }
    // binary operators, assignments and the conditional operator: spaced
    if is_operator_of(t, a, ap) || is_operator_of(t, b, bp) {
        return true;
    }
    // unary operators: nothing between them and their operand
    if ap == Some(PREFIX_EXPR) && is_first_token(t, a) && is_punctuation(a.kind) {
        return false;
    }
    if bp == Some(POSTFIX_EXPR) && matches!(b.kind, PLUS2 | MINUS2) {
        return false;
    }
    // pointer and reference declarators
    if ap == Some(PTR_OPERATOR) && matches!(a.kind, STAR | AMP | AMP2) && b.kind == IDENT {
        return style.pointer_left;
    }
    if bp == Some(PTR_OPERATOR)
        && matches!(b.kind, STAR | AMP | AMP2)
        && (a.kind == IDENT || a.kind == R_ANGLE || a.kind.is_keyword())
    {
        return !style.pointer_left;
    }
    // template argument and parameter lists
    if a.kind == L_ANGLE && matches!(ap, Some(TEMPLATE_ARG_LIST | TEMPLATE_PARAM_LIST)) {
        return false;
    }
    if b.kind == R_ANGLE && matches!(bp, Some(TEMPLATE_ARG_LIST | TEMPLATE_PARAM_LIST)) {
        return false;
    }
    if b.kind == L_ANGLE && bp == Some(TEMPLATE_ARG_LIST) && a.kind == IDENT {
        return false;
    }
    if a.kind == TEMPLATE_KW && b.kind == L_ANGLE && bp == Some(TEMPLATE_PARAM_LIST) {
        return true;
    }
    // `if (`, `for (`, `while (`, `switch (`
    if b.kind == L_PAREN && matches!(a.kind, IF_KW | FOR_KW | WHILE_KW | SWITCH_KW | CATCH_KW) {
        return true;
    }
    // a call, or a function declarator
    if b.kind == L_PAREN && a.kind == IDENT && matches!(bp, Some(ARG_LIST | PARAM_LIST)) {
        return false;
    }
    // `::`
    if b.kind == COLON2 && matches!(a.kind, IDENT | R_ANGLE) || a.kind == COLON2 {
        return false;
    }
    // `case 1:`
    if b.kind == COLON && matches!(bp, Some(CASE_LABEL | DEFAULT_LABEL)) {
        return false;
    }
    written
}

/// Whether `op` is the operator of a binary, assignment or conditional expression (and
/// `other` one of its operands).
fn is_operator_of(t: &Tree, op: &Atom, parent: Option<SyntaxKind>) -> bool {
    match parent {
        Some(BIN_EXPR) => !is_first_token(t, op) && op.kind != L_PAREN && op.kind != R_PAREN,
        Some(CONDITIONAL_EXPR) => matches!(op.kind, QUESTION | COLON),
        Some(INITIALIZER) => op.kind == EQ,
        Some(TYPE_PARAM | NON_TYPE_PARAM | ALIAS_DECL | ENUMERATOR) => op.kind == EQ,
        _ => false,
    }
}

/// Whether a token kind is punctuation (not a name, keyword or literal).
fn is_punctuation(kind: SyntaxKind) -> bool {
    !(kind.is_keyword() || matches!(kind, IDENT | INT_NUMBER | FLOAT_NUMBER | CHAR_LIT | STRING_LIT | MACRO_CALL))
}

/// Whether `a` and `b` written together would read as other tokens (`- -x` as `--x`).
fn fused(a: &Atom, b: &Atom) -> bool {
    let joined = format!("{}{}", a.text, b.text);
    let (tokens, _) = msl_syntax::lexer::lex(&joined);
    tokens.len() < 2
}

fn is_first_token(t: &Tree, a: &Atom) -> bool {
    // trivia before a node belong to the node around it: its first token starts it
    t.range(a.parent).start() == a.at
}

/// The lines of a text longer than a line width, and how many of them the formatter could
/// not have shortened.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LongLines {
    /// Lines longer than the width.
    pub total: usize,
    /// Of those, the lines that text kept as written makes long (a comment, a directive, a
    /// macro invocation, a `msl-fmt: off` region or a part that did not parse, running past
    /// the width or over several lines), or that one token makes long on its own (the
    /// token does not fit after the line's indentation).
    pub forced: usize,
    /// The others (0-based line numbers).
    pub others: Vec<usize>,
}

/// Counts and classifies the lines of `source` (the main file of `parse`) longer than
/// the line width. A token is too long on its own when it does not fit after the
/// indentation of its line, or of its statement's first line and one level more,
/// whichever is less (a deep alignment forces nothing).
pub(crate) fn long_lines(parse: &Parse, source: &str, options: &crate::PrintOptions) -> LongLines {
    let width = options.line_width;
    let lines: Vec<&str> = source.split('\n').collect();
    let long: Vec<bool> = lines.iter().map(|l| l.trim_end_matches('\r').chars().count() > width).collect();
    let total = long.iter().filter(|&&l| l).count();
    if total == 0 {
        return LongLines::default();
    }
    let mut line_starts = Vec::with_capacity(lines.len());
    let mut at = 0usize;
    for l in &lines {
        line_starts.push(at);
        at += l.len() + 1;
    }
    let line_of = |offset: usize| line_starts.partition_point(|&s| s <= offset).saturating_sub(1);
    let indent = |line: usize| {
        lines[line]
            .chars()
            .take_while(|c| matches!(c, ' ' | '\t'))
            .map(|c| if c == '\t' { options.indent_width } else { 1 })
            .sum::<usize>()
    };
    let mut forced = vec![false; lines.len()];
    let mut unit_indent = 0usize;
    let (atoms, tree) = atoms(parse, source);
    for a in atoms {
        let start = a.offset_in(source);
        let end = start + a.text.len();
        let (first, last) = (line_of(start), line_of(end.saturating_sub(1).max(start)));
        let kept = a.verbatim
            || a.continued
            || matches!(a.kind, COMMENT | MACRO_CALL | PP_DIRECTIVE | PP_INACTIVE)
            || (a.kind == STRING_LIT && first != last);
        let end_column = after_last_line(a.text, a.column) as usize;
        if kept && (first != last || end_column > width) {
            forced[first..=last].iter_mut().for_each(|f| *f = true);
        }
        if a.verbatim {
            // the whitespace before it is kept too
            let from = line_of(start - a.before_len as usize);
            forced[from..=first].iter_mut().for_each(|f| *f = true);
        }
        if unit_started_by(&tree, &a).is_some() {
            unit_indent = indent(first);
        }
        let least = indent(first).min(unit_indent + options.indent_width);
        if first == last && least + a.text.chars().count() > width {
            forced[first] = true;
        }
    }
    let others: Vec<usize> = (0..lines.len()).filter(|&l| long[l] && !forced[l]).collect();
    LongLines { total, forced: total - others.len(), others }
}
