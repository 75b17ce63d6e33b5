//! The parser: a recursive-descent parser over the preprocessed token stream that emits
//! events (start node, token, finish node, error); the tree builder turns them into a
//! rowan tree. It never fails and never recurses without bound.

mod attrs;
mod decls;
mod exprs;
mod names;
mod stmts;
mod symbols;
mod types;

use crate::SyntaxKind::{self, *};
use crate::pp::Preprocessed;
use std::cell::Cell;
use std::num::NonZeroU32;
pub(crate) use symbols::{OwnedScopeOp, ScopeLog};

pub(crate) fn is_library_type_name(name: &str) -> bool {
    matches!(symbols::builtin(name), Some(symbols::Sym::Type | symbols::Sym::Template))
}

/// Whether the parser takes `name` for a class or alias template of the library (`<` after
/// it opens template arguments, and the result is a type).
pub(crate) fn is_library_template_name(name: &str) -> bool {
    symbols::builtin(name) == Some(symbols::Sym::Template)
}

/// Whether the library declares `name` as a type, a template or a namespace.
pub(crate) fn is_library_name(name: &str) -> bool {
    symbols::builtin(name).is_some()
}
use symbols::Scopes;

/// Nesting deeper than this (parentheses, braces, declarators, templates, unary chains)
/// is reported and skipped rather than recursed into.
pub const MAX_DEPTH: u32 = 256;
/// Longest chain of binary operators kept as a tree; longer chains are reported.
pub const MAX_CHAIN: u32 = 4096;
/// Look-aheads at one token after which the parser gives up (see [`Parser::nth`]).
const STUCK_STEPS: i32 = 2_000_000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Event {
    Start {
        kind: SyntaxKind,
        /// How many events later the start of the node that wraps this one is.
        forward_parent: Option<NonZeroU32>,
    },
    Finish,
    /// The current token, with this kind (it may differ from the lexed kind, e.g. a
    /// contextual keyword).
    Token {
        kind: SyntaxKind,
    },
    /// The first `len` bytes of the current token (splitting `>>` into `>` `>`).
    SplitToken {
        kind: SyntaxKind,
        len: u32,
    },
    /// Index into the parser's error list.
    Error(u32),
    Tombstone,
}

// events are written and read once per token and node: keep them at two words
const _: () = assert!(std::mem::size_of::<Event>() == 8);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ErrorAt {
    /// The token at this index.
    Token(u32),
    /// Just after the token at this index (for "expected ..." messages).
    After(u32),
}

/// Per-token facts from the layout of the source.
pub(crate) const FIRST_ON_LINE: u8 = 1;
pub(crate) const AT_COLUMN_0: u8 = 2;

/// The parser's view of the pieces: the non-trivia ones, with their kind. The
/// preprocessor fills it as it emits pieces (see [`TokenLayout::push`]), so that the
/// parser need not go over the pieces again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TokenLayout {
    kinds: Vec<SyntaxKind>,
    /// The piece of each token.
    pieces: Vec<u32>,
}

impl TokenLayout {
    pub(crate) fn new(capacity: usize) -> TokenLayout {
        TokenLayout { kinds: Vec::with_capacity(capacity), pieces: Vec::with_capacity(capacity) }
    }

    /// The layout of `pp`'s pieces.
    pub(crate) fn of_pieces(pp: &Preprocessed) -> TokenLayout {
        let mut layout = TokenLayout::new(pp.pieces.len() / 2);
        for (i, p) in pp.pieces.iter().enumerate() {
            layout.push(i as u32, p.kind);
        }
        layout
    }

    /// Notes piece `index` of kind `kind`.
    #[inline]
    pub(crate) fn push(&mut self, index: u32, kind: SyntaxKind) {
        if !kind.is_trivia() {
            self.kinds.push(kind);
            self.pieces.push(index);
        }
    }
}

/// Whether the token at piece `i` of `pp` starts a line, and whether nothing but a line
/// break (and macro invocations) precedes it there, found by looking back over the trivia
/// before it. `start` is the answer for the text before `pp`'s first piece (for a token
/// with only trivia before it). The parser asks this at the few places where a line
/// start decides something (recovery), so it is not worked out for every token.
pub(crate) fn line_start_before(pp: &Preprocessed, i: usize, start: (bool, bool)) -> (bool, bool) {
    let mut other = false;
    for p in pp.pieces[..i.min(pp.pieces.len())].iter().rev() {
        match p.kind {
            NEWLINE => return (true, !other && ends_line(pp.bytes(p))),
            MACRO_CALL => {}
            k if k.is_trivia() => other = true,
            _ => return (false, false),
        }
    }
    (start.0, start.1 && !other)
}

/// Whether a line-break token ends with its line break, rather than with the next line's
/// indentation.
fn ends_line(text: &[u8]) -> bool {
    matches!(text.last(), Some(b'\n' | b'\r'))
}

pub(crate) struct Parser<'a> {
    pp: &'a Preprocessed,
    kinds: Vec<SyntaxKind>,
    /// Index of the piece each token comes from.
    pieces: Vec<u32>,
    /// The line-start flags of the text before the first piece (see [`line_start_before`]).
    start_layout: (bool, bool),
    /// The number the scopes gave each identifier token's name, plus one (0: not asked
    /// yet); see [`Parser::name_at`].
    name_ids: Vec<Cell<u32>>,
    /// Bytes already split off the front of a token (by `>>` splitting), in token order.
    split: Vec<(u32, u32)>,
    pos: usize,
    /// Look-aheads left before the parser counts as stuck, set back to [`STUCK_STEPS`]
    /// when a token is consumed: a guard against a parser that stops making progress
    /// (which would be a bug); see [`Parser::nth`]. Counted down, so that a look costs
    /// one subtraction and a jump on its sign.
    steps_left: i32,
    stuck: bool,
    pub(crate) events: Vec<Event>,
    pub(crate) errors: Vec<(String, ErrorAt)>,
    depth: u32,
    last_error: Option<usize>,
    pub(crate) scopes: Scopes<'a>,
    /// Names of the classes being defined (for constructors).
    class_names: Vec<&'a str>,
    /// Set by `template <...>` for the declaration that follows: a class defined there is
    /// a template inside its own body.
    pending_template: bool,
    /// The class named by the last class specifier (for `template <...> struct X;`).
    last_class_name: Option<&'a str>,
    /// The names of the structured binding just parsed, to declare once its declarator's
    /// scope is closed.
    binding_names: Vec<&'a str>,
    /// A header of the unit was not found or is not modelled: unknown names may be its
    /// macros, and a lone unknown invocation is taken as one without an error (see
    /// `decls::at_unknown_invocation`).
    pub(crate) incomplete: bool,
    /// Where each function body starts, with what parsing it depends on besides the
    /// scopes (for reparsing a body alone).
    pub(crate) bodies: Vec<BodyStart>,
    /// A look-ahead went past the last token.
    pub(crate) peeked_past_end: std::cell::Cell<bool>,
    /// The step limit stopped the parse.
    pub(crate) was_stuck: bool,
    /// Where finished top-level declarations' events go while the parse goes on (see
    /// [`parse_events_streaming`]); `None` keeps every event in `events`.
    sink: Option<Box<dyn FnMut(Chunk)>>,
    /// Where the events not yet handed off start: a piece, and the bytes of it that
    /// earlier events took (after a split `>>`).
    chunk_start: (u32, u32),
    /// Events handed off at a time while streaming (at least).
    chunk_events: usize,
}

/// Identifiers that are keywords in some positions (GNU and Metal extensions, `final`,
/// `override`, `mutable`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Word {
    /// Not an identifier.
    None,
    /// Any other identifier.
    Plain,
    /// `coherent`
    Coherent,
    /// `restrict`, `__restrict`, `__restrict__`
    Restrict,
    /// `__extension__`
    Extension,
    /// `__attribute__`, `__attribute`
    Attribute,
    /// `__declspec`
    Declspec,
    /// `__alignof__`, `__alignof`
    Alignof,
    Final,
    Override,
    Mutable,
}

impl Word {
    fn of(text: &str) -> Word {
        match text {
            "coherent" => Word::Coherent,
            "restrict" | "__restrict" | "__restrict__" => Word::Restrict,
            "__extension__" => Word::Extension,
            "__attribute__" | "__attribute" => Word::Attribute,
            "__declspec" => Word::Declspec,
            "__alignof__" | "__alignof" => Word::Alignof,
            "final" => Word::Final,
            "override" => Word::Override,
            "mutable" => Word::Mutable,
            _ => Word::Plain,
        }
    }
}

/// A run of whole top-level declarations' events, and the place in the pieces where its
/// first event starts (see [`Parser::boundary`]).
pub(crate) struct Chunk {
    pub(crate) events: Vec<Event>,
    pub(crate) piece: u32,
    pub(crate) split_off: u32,
}

/// Whether preprocessing `pp` met an include it could not find or a system header it
/// does not model: the unit then lacks declarations and macros.
pub(crate) fn unit_is_incomplete(pp: &Preprocessed) -> bool {
    pp.diagnostics.iter().any(|d| matches!(d.code, "E0033" | "W0030"))
}

/// The parser's state at the `{` of a function body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BodyStart {
    /// The piece of the `{`.
    pub(crate) piece: u32,
    pub(crate) depth: u32,
    pub(crate) class_names: Box<[Box<str>]>,
    /// Inside another function's body (a local function definition, as error recovery
    /// may produce): its scopes are not kept, so it is never reparsed on its own.
    pub(crate) nested: bool,
    /// The unit was incomplete (see [`Parser::incomplete`]).
    pub(crate) incomplete: bool,
}

pub(crate) struct Marker {
    pos: u32,
}

#[derive(Clone, Copy)]
pub(crate) struct CompletedMarker {
    pos: u32,
}

impl Marker {
    pub(crate) fn complete(self, p: &mut Parser<'_>, kind: SyntaxKind) -> CompletedMarker {
        match &mut p.events[self.pos as usize] {
            Event::Start { kind: k, .. } => *k = kind,
            _ => unreachable!("marker points at a start event"),
        }
        p.events.push(Event::Finish);
        CompletedMarker { pos: self.pos }
    }

    pub(crate) fn abandon(self, p: &mut Parser<'_>) {
        let idx = self.pos as usize;
        if idx == p.events.len() - 1 {
            p.events.pop();
        } else {
            p.events[idx] = Event::Tombstone;
        }
    }
}

impl CompletedMarker {
    /// Starts a node that will contain this one (for left-recursive constructs).
    pub(crate) fn precede(self, p: &mut Parser<'_>) -> Marker {
        let new_pos = p.events.len() as u32;
        p.events.push(Event::Start { kind: ERROR, forward_parent: None });
        if let Event::Start { forward_parent, .. } = &mut p.events[self.pos as usize] {
            *forward_parent = NonZeroU32::new(new_pos - self.pos);
        }
        Marker { pos: new_pos }
    }
}

impl<'a> Parser<'a> {
    /// A parser over a whole unit: over `layout` when the preprocessor built it, else over
    /// one built from the pieces; with room for `events` events.
    fn for_unit(pp: &'a Preprocessed, layout: Option<TokenLayout>, events: usize) -> Parser<'a> {
        let layout = layout.unwrap_or_else(|| TokenLayout::of_pieces(pp));
        Parser::from_layout(pp, layout, events)
    }

    /// A parser whose first token's layout flags continue from text before it: whether a
    /// line break precedes it, and whether nothing else does on its line.
    pub(crate) fn with_layout(pp: &'a Preprocessed, first_on_line: bool, col0: bool) -> Parser<'a> {
        // about three events per token: start, token, finish
        let mut p = Parser::from_layout(pp, TokenLayout::of_pieces(pp), pp.pieces.len() * 3);
        p.start_layout = (first_on_line, col0);
        p
    }

    /// A parser over the tokens of `layout`, which lists the non-trivia pieces of `pp`,
    /// with room for `events` events.
    fn from_layout(pp: &'a Preprocessed, layout: TokenLayout, events: usize) -> Parser<'a> {
        let TokenLayout { kinds, pieces } = layout;
        let mut scopes = Scopes::with_capacity(kinds.len());
        scopes.at = pieces.first().copied().unwrap_or(u32::MAX);
        let name_ids = vec![Cell::new(0); kinds.len()];
        Parser {
            pp,
            kinds,
            pieces,
            start_layout: (true, true),
            name_ids,
            split: Vec::new(),
            pos: 0,
            steps_left: STUCK_STEPS,
            stuck: false,
            events: Vec::with_capacity(events),
            errors: Vec::new(),
            depth: 0,
            last_error: None,
            scopes,
            class_names: Vec::new(),
            pending_template: false,
            last_class_name: None,
            binding_names: Vec::new(),
            incomplete: unit_is_incomplete(pp),
            bodies: Vec::new(),
            peeked_past_end: std::cell::Cell::new(false),
            was_stuck: false,
            sink: None,
            chunk_start: (0, 0),
            chunk_events: HAND_OFF_EVENTS,
        }
    }

    /// Where the pieces that the events so far leave to the tree builder start, between
    /// two declarations:
    /// - inside the current token's piece when the previous declaration took the first
    ///   `>` of it;
    /// - at the current token's piece when a node starts after the previous token: the
    ///   builder puts the trivia before a node's start into the enclosing node;
    /// - else just after the previous token's piece.
    pub(crate) fn boundary(&self) -> (u32, u32) {
        if let (Some(&(t, n)), Some(&piece)) = (self.split.last(), self.pieces.get(self.pos))
            && t as usize == self.pos
        {
            return (piece, n);
        }
        if starts_after_last_token(&self.events) {
            let end = self.pp.pieces.len() as u32;
            return (self.pieces.get(self.pos).copied().unwrap_or(end), 0);
        }
        match self.pos.checked_sub(1).and_then(|t| self.pieces.get(t)) {
            Some(&piece) => (piece + 1, 0),
            None => (0, 0),
        }
    }

    /// Whether events are handed off as declarations finish: the parse then has no
    /// `SOURCE_FILE` node of its own (the tree builder opens and closes it).
    pub(crate) fn streaming(&self) -> bool {
        self.sink.is_some()
    }

    /// Between two top-level declarations, where no node is open: hands the events so far
    /// to the sink once there are enough of them to be worth a message.
    pub(crate) fn hand_off_events(&mut self, last: bool) {
        let at_least = if last { 1 } else { self.chunk_events.max(1) };
        if self.sink.is_none() || self.events.len() < at_least {
            return;
        }
        let next = self.boundary();
        if let Some(sink) = &mut self.sink {
            let events = std::mem::replace(&mut self.events, Vec::with_capacity(self.chunk_events + 1024));
            let (piece, split_off) = std::mem::replace(&mut self.chunk_start, next);
            sink(Chunk { events, piece, split_off });
        }
    }

    /// The piece of each token, in token order (the parser is done with them).
    pub(crate) fn take_token_pieces(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.pieces)
    }

    // ---- looking at tokens ---------------------------------------------------------------

    pub(crate) fn current(&mut self) -> SyntaxKind {
        self.nth(0)
    }

    pub(crate) fn nth(&mut self, n: usize) -> SyntaxKind {
        self.steps_left = self.steps_left.wrapping_sub(1);
        // `steps_left` only goes back up when a token is consumed, which a stuck parser
        // never does: once stuck, every later look ends here
        if self.steps_left < 0 {
            // Looking at the same token this often means a loop that never consumes it.
            // Pretend the input ended: every loop stops at EOF, and the tokens left are
            // still put in the tree by the builder.
            self.stuck = true;
            return EOF;
        }
        match self.kinds.get(self.pos + n) {
            Some(&kind) => kind,
            None => {
                self.peeked_past_end.set(true);
                EOF
            }
        }
    }

    pub(crate) fn at(&mut self, kind: SyntaxKind) -> bool {
        self.current() == kind
    }

    pub(crate) fn nth_at(&mut self, n: usize, kind: SyntaxKind) -> bool {
        self.nth(n) == kind
    }

    pub(crate) fn at_eof(&self) -> bool {
        self.pos >= self.kinds.len() || self.stuck
    }

    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// Text of the token `n` ahead (empty past the end).
    pub(crate) fn nth_text(&self, n: usize) -> &'a str {
        self.text_at(self.pos + n)
    }

    pub(crate) fn text_at(&self, i: usize) -> &'a str {
        match self.pieces.get(i) {
            Some(&p) => {
                let text = self.pp.text(&self.pp.pieces[p as usize]);
                // `split` is in token order (the parser never goes back)
                match self.split.last() {
                    Some(&(last, _)) if last as usize >= i => {
                        match self.split.binary_search_by_key(&(i as u32), |&(t, _)| t) {
                            Ok(k) => &text[self.split[k].1 as usize..],
                            Err(_) => text,
                        }
                    }
                    _ => text,
                }
            }
            None => {
                self.peeked_past_end.set(true);
                ""
            }
        }
    }

    pub(crate) fn current_text(&self) -> &'a str {
        self.nth_text(0)
    }

    /// The number the scopes know the name of token `i` by (see [`Scopes::intern`]). A
    /// name is often looked up twice, by a look-ahead and by the parse that follows it, so
    /// each token keeps its number and its text is looked up once.
    #[inline]
    pub(crate) fn name_at(&self, i: usize) -> u32 {
        match self.name_ids.get(i).map(Cell::get) {
            Some(id) if id != 0 => id - 1,
            _ => self.first_name_at(i),
        }
    }

    /// [`Parser::name_at`] the first time token `i` is looked at.
    #[inline(never)]
    fn first_name_at(&self, i: usize) -> u32 {
        let id = self.scopes.intern(self.text_at(i));
        if let Some(known) = self.name_ids.get(i) {
            known.set(id + 1);
        }
        id
    }

    /// What token `i` means as a contextual keyword ([`Word::None`] for tokens other than
    /// identifiers). Identifiers are looked at in several places where a contextual
    /// keyword could stand (a declaration's specifiers check for four of them): the answer
    /// comes with the name's number (see [`Parser::name_at`]), so each token's text is
    /// read once.
    pub(crate) fn word_at(&self, i: usize) -> Word {
        match self.kinds.get(i) {
            Some(&IDENT) => self.scopes.word(self.name_at(i)),
            _ => Word::None,
        }
    }

    /// [`Parser::word_at`] the current token. Looks at it as [`Parser::current`] does: a
    /// stuck parser sees the end of the input, so no loop that consumes a contextual
    /// keyword can go on.
    pub(crate) fn current_word(&mut self) -> Word {
        if self.current() != IDENT {
            return Word::None;
        }
        self.word_at(self.pos)
    }

    /// The line-start flags ([`FIRST_ON_LINE`], [`AT_COLUMN_0`]) of the token `n` ahead.
    pub(crate) fn nth_flags(&self, n: usize) -> u8 {
        let Some(&piece) = self.pieces.get(self.pos + n) else {
            self.peeked_past_end.set(true);
            return FIRST_ON_LINE | AT_COLUMN_0;
        };
        match line_start_before(self.pp, piece as usize, self.start_layout) {
            (true, true) => FIRST_ON_LINE | AT_COLUMN_0,
            (true, false) => FIRST_ON_LINE,
            (false, _) => 0,
        }
    }

    /// Whether token `i` is the first on its line.
    pub(crate) fn starts_line(&self, i: usize) -> bool {
        match self.pieces.get(i) {
            Some(&piece) => line_start_before(self.pp, piece as usize, self.start_layout).0,
            None => true,
        }
    }

    /// `[[` (two `[` tokens).
    pub(crate) fn at_attr_start(&mut self) -> bool {
        self.at(L_BRACK) && self.nth_at(1, L_BRACK)
    }

    // ---- consuming tokens ----------------------------------------------------------------

    pub(crate) fn bump_any(&mut self) {
        if self.stuck {
            return;
        }
        let Some(&kind) = self.kinds.get(self.pos) else { return };
        self.events.push(Event::Token { kind });
        self.advance();
    }

    fn advance(&mut self) {
        self.pos += 1;
        self.steps_left = STUCK_STEPS;
        self.scopes.at = self.pieces.get(self.pos).copied().unwrap_or(u32::MAX);
    }

    /// Records the parser's state at the `{` of a function body.
    pub(crate) fn note_body_start(&mut self) {
        let piece = self.pieces.get(self.pos).copied().unwrap_or(u32::MAX);
        let class_names = self.class_names.iter().map(|n| Box::<str>::from(*n)).collect();
        let nested = self.scopes.in_local_scope();
        self.bodies.push(BodyStart { piece, depth: self.depth, class_names, nested, incomplete: self.incomplete });
    }

    /// Consumes the current token as `kind`.
    pub(crate) fn bump_remap(&mut self, kind: SyntaxKind) {
        if self.at_eof() {
            return;
        }
        self.events.push(Event::Token { kind });
        self.advance();
    }

    pub(crate) fn bump(&mut self, kind: SyntaxKind) {
        debug_assert!(self.at(kind), "bump {kind:?} at {:?}", self.current());
        self.bump_any();
    }

    pub(crate) fn eat(&mut self, kind: SyntaxKind) -> bool {
        if self.at(kind) {
            self.bump_any();
            true
        } else {
            false
        }
    }

    /// Consumes a `>` that closes a template list, splitting `>>`, `>=` or `>>=`.
    pub(crate) fn eat_closing_angle(&mut self) -> bool {
        let (rest, _) = match self.current() {
            R_ANGLE => {
                self.bump_any();
                return true;
            }
            SHR => (R_ANGLE, 1),
            GTEQ => (EQ, 1),
            SHREQ => (GTEQ, 1),
            _ => return false,
        };
        self.events.push(Event::SplitToken { kind: R_ANGLE, len: 1 });
        self.kinds[self.pos] = rest;
        match self.split.last_mut() {
            Some((t, n)) if *t as usize == self.pos => *n += 1,
            _ => self.split.push((self.pos as u32, 1)),
        }
        true
    }

    pub(crate) fn at_closing_angle(&mut self) -> bool {
        matches!(self.current(), R_ANGLE | SHR | GTEQ | SHREQ)
    }

    pub(crate) fn start(&mut self) -> Marker {
        let pos = self.events.len() as u32;
        self.events.push(Event::Start { kind: ERROR, forward_parent: None });
        Marker { pos }
    }

    // ---- errors --------------------------------------------------------------------------

    fn push_error(&mut self, msg: String, at: ErrorAt) {
        // one error per position: the first explains it best, the rest would be noise
        if self.last_error == Some(self.pos) {
            return;
        }
        // the lexer has already reported a character it could not read
        if self.kinds.get(self.pos) == Some(&ERROR_TOKEN) {
            return;
        }
        self.last_error = Some(self.pos);
        self.events.push(Event::Error(self.errors.len() as u32));
        self.errors.push((msg, at));
    }

    /// An error about the current token.
    pub(crate) fn error(&mut self, msg: impl Into<String>) {
        let at = if self.at_eof() {
            ErrorAt::After(self.pos.saturating_sub(1) as u32)
        } else {
            ErrorAt::Token(self.pos as u32)
        };
        self.push_error(msg.into(), at);
    }

    /// "expected X": reported just after the previous token.
    pub(crate) fn error_expected(&mut self, what: &str) {
        let found = if self.at_eof() { "end of file".to_string() } else { self.describe_current() };
        let at = if self.pos == 0 { ErrorAt::Token(0) } else { ErrorAt::After(self.pos as u32 - 1) };
        self.push_error(format!("expected {what}, found {found}"), at);
    }

    pub(crate) fn error_at(&mut self, msg: impl Into<String>, at: ErrorAt) {
        self.push_error(msg.into(), at);
    }

    pub(crate) fn describe_current(&mut self) -> String {
        match self.current() {
            IDENT => format!("`{}`", self.current_text()),
            EOF => "end of file".into(),
            k if k.is_literal() => format!("`{}`", self.current_text()),
            k => k.describe(),
        }
    }

    pub(crate) fn expect(&mut self, kind: SyntaxKind) -> bool {
        if self.eat(kind) {
            return true;
        }
        self.error_expected(&kind.describe());
        false
    }

    /// Wraps the current token in an error node (unless at a token that should end the
    /// enclosing construct).
    pub(crate) fn err_and_bump(&mut self, msg: impl Into<String>) {
        self.error(msg);
        let m = self.start();
        if matches!(self.current(), L_PAREN | L_BRACK | L_CURLY) {
            self.skip_balanced();
        } else {
            self.bump_any();
        }
        m.complete(self, ERROR);
    }

    /// Consumes a balanced group starting at the current opener, iteratively.
    pub(crate) fn skip_balanced(&mut self) {
        let mut stack: Vec<SyntaxKind> = Vec::new();
        loop {
            match self.current() {
                EOF => return,
                L_PAREN => stack.push(R_PAREN),
                L_BRACK => stack.push(R_BRACK),
                L_CURLY => stack.push(R_CURLY),
                k @ (R_PAREN | R_BRACK | R_CURLY) => {
                    if !stack.is_empty() && !stack.contains(&k) {
                        // a `}` that no group here opened closes an enclosing block: the
                        // skip ends before it (so a stray `(` in one body never reaches
                        // into the next); a stray `)` or `]` is skipped (the opener was
                        // consumed, so this always makes progress)
                        if k == R_CURLY {
                            return;
                        }
                        self.bump_any();
                        continue;
                    }
                    // a closer of an outer group ends the inner ones too
                    while let Some(top) = stack.pop() {
                        if top == k {
                            break;
                        }
                    }
                    self.bump_any();
                    if stack.is_empty() {
                        return;
                    }
                    continue;
                }
                _ => {}
            }
            self.bump_any();
            if stack.is_empty() {
                return;
            }
        }
    }

    // ---- depth ---------------------------------------------------------------------------

    /// Enters one level of nesting; false (with an error, and the nested group skipped)
    /// when too deep.
    #[inline]
    pub(crate) fn enter(&mut self) -> bool {
        if self.depth >= MAX_DEPTH {
            return self.too_deep();
        }
        self.depth += 1;
        true
    }

    /// [`Parser::enter`] at the depth limit: reports it and skips the construct.
    #[cold]
    #[inline(never)]
    fn too_deep(&mut self) -> bool {
        self.error(format!(
            "nesting is too deep (more than {MAX_DEPTH} levels); the rest of this construct is skipped"
        ));
        let m = self.start();
        // skip the rest of the enclosing construct: up to the end of the statement
        let mut depth = 0i64;
        while !self.at_eof() {
            match self.current() {
                L_PAREN | L_BRACK | L_CURLY => depth += 1,
                R_PAREN | R_BRACK | R_CURLY => {
                    depth -= 1;
                    if depth < 0 {
                        break;
                    }
                }
                SEMI if depth <= 0 => break,
                _ => {}
            }
            self.bump_any();
        }
        m.complete(self, ERROR);
        false
    }

    #[inline]
    pub(crate) fn leave(&mut self) {
        self.depth -= 1;
    }
}

/// From an opening bracket at `start` (`open`), the index just after its matching
/// `close`, scanning token kinds only. `None` if the group is not closed or a `;`, `{` or
/// `}` interrupts it (when those are not the brackets being matched).
pub(crate) fn skip_group(kinds: &[SyntaxKind], start: usize, open: SyntaxKind, close: SyntaxKind) -> Option<usize> {
    let mut depth = 0u32;
    for (i, &k) in kinds.iter().enumerate().skip(start) {
        if k == open {
            depth += 1;
        } else if k == close {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return Some(i + 1);
            }
        } else if matches!(k, SEMI | L_CURLY | R_CURLY) {
            return None;
        }
    }
    None
}

/// Parses a function body alone. `pp` holds its pieces, from `{` to `}` (the first
/// `body_pieces`), followed by some of the pieces after it, which look-aheads may read as
/// they would in the whole unit (`tail_complete`: they run to the end of the unit). The
/// parser starts in the state the whole-unit parse had at the `{`. Returns the events, the
/// piece of each token of the body, the errors and the function bodies inside it; `None` when the result could differ
/// from parsing the whole unit: the body does not end at its `}`, the parser looked past
/// the pieces it has, or the body declared something that outlives it.
#[allow(clippy::type_complexity)]
pub(crate) fn parse_body_events(
    pp: &Preprocessed,
    body_pieces: usize,
    tail_complete: bool,
    layout: (bool, bool),
    start: &BodyStart,
    scope_log: &symbols::ScopeLog,
    replay: usize,
) -> Option<(Vec<Event>, Vec<u32>, Vec<(String, ErrorAt)>, Vec<BodyStart>)> {
    let mut p = Parser::with_layout(pp, layout.0, layout.1);
    if p.current() != L_CURLY {
        return None;
    }
    p.scopes.replay(scope_log, replay);
    let replayed = p.scopes.log.len();
    p.scopes.at = p.pieces.first().copied().unwrap_or(u32::MAX);
    p.depth = start.depth;
    p.class_names = start.class_names.iter().map(|n| &**n).collect();
    // a body that now includes a missing header would change how the whole unit parses
    if p.incomplete && !start.incomplete {
        return None;
    }
    p.incomplete = start.incomplete;
    stmts::compound_stmt(&mut p);
    let body_tokens = p.pieces.partition_point(|&piece| (piece as usize) < body_pieces);
    if p.stuck || p.pos != body_tokens || (p.peeked_past_end.get() && !tail_complete) || p.scopes.log.len() != replayed
    {
        return None;
    }
    let events = std::mem::take(&mut p.events);
    let errors = std::mem::take(&mut p.errors);
    let mut pieces = std::mem::take(&mut p.pieces);
    pieces.truncate(body_tokens);
    Some((events, pieces, errors, std::mem::take(&mut p.bodies)))
}

/// Parses the whole token stream into events.
pub(crate) fn parse_events(pp: &Preprocessed, layout: Option<TokenLayout>) -> (Vec<Event>, Parser<'_>) {
    let mut p = Parser::for_unit(pp, layout, pp.pieces.len() * 3);
    parse_unit(&mut p);
    let events = std::mem::take(&mut p.events);
    (events, p)
}

/// Whether the tree builder starts a node after the last token of `events`. A start that
/// is an earlier start's forward parent is built together with that start, so only the
/// others count.
fn starts_after_last_token(events: &[Event]) -> bool {
    let from = events
        .iter()
        .rposition(|e| matches!(e, Event::Token { .. } | Event::SplitToken { .. }))
        .map_or(0, |last| last + 1);
    // most often no node starts after the last token: no need to look for forward parents
    // through the whole run
    if !events[from..].iter().any(|e| matches!(e, Event::Start { .. })) {
        return false;
    }
    let parents: Vec<usize> = events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match e {
            Event::Start { forward_parent: Some(d), .. } => Some(i + d.get() as usize),
            _ => None,
        })
        .filter(|&p| p >= from)
        .collect();
    events.iter().enumerate().skip(from).any(|(j, e)| matches!(e, Event::Start { .. }) && !parents.contains(&j))
}

/// Events handed to the sink at a time (at least) while streaming.
pub(crate) const HAND_OFF_EVENTS: usize = 16 * 1024;

/// Parses the unit and hands its events to `sink` in order, a run of whole top-level
/// declarations at a time, so that trees can be built from them while the parse goes on.
/// There is no `SOURCE_FILE` start or finish event. Returns the parser and where the
/// pieces after the last run start (the root's trailing trivia).
pub(crate) fn parse_events_streaming(
    pp: &Preprocessed,
    layout: Option<TokenLayout>,
    chunk_events: usize,
    sink: Box<dyn FnMut(Chunk)>,
) -> (Parser<'_>, (u32, u32)) {
    // room for the events of a run at a time, not of the whole unit
    let mut p = Parser::for_unit(pp, layout, chunk_events + 1024);
    p.sink = Some(sink);
    p.chunk_events = chunk_events;
    parse_unit(&mut p);
    p.hand_off_events(true);
    p.sink = None;
    let rest = p.chunk_start;
    (p, rest)
}

fn parse_unit(p: &mut Parser<'_>) {
    decls::source_file(p);
    if p.stuck {
        p.was_stuck = true;
        p.stuck = false;
        p.last_error = None;
        p.error("the parser stopped here: this input triggered an internal limit; the rest of the file is not parsed");
    }
}

#[cfg(test)]
mod tests {
    use super::{Parser, Word, line_start_before};
    use crate::{PpConfig, SyntaxKind, Vfs, pp};

    /// The line-start flags found by looking back from a token are the ones a walk
    /// forward over every piece gives (a line break sets both, trivia other than macro
    /// invocations clear "nothing before it", a token clears both), for every token of the
    /// fixtures and of a text with macros, comments, tabs, CRLF and continued lines, from
    /// each state the text before the first piece can leave.
    #[test]
    fn line_starts_looked_up_backward_match_a_walk_forward() {
        let mut texts: Vec<String> = crate::fixture_files(&["syntax/ok", "syntax/err", "check", "reparse"])
            .iter()
            .map(|p| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
            .collect();
        assert!(texts.len() > 20, "fixtures not found");
        texts.push(
            "/* a */ M(x)\n#define M(x) x\n  M(a) b;\nM(c)\nd /* c */ e;\n\t f\n/* x */g\r\nh\\\n i\n\n  \n j".into(),
        );
        let mut tokens = 0;
        for text in &texts {
            let vfs = Vfs::new();
            let id = vfs.add_file(std::path::Path::new("input.metal"), text.as_str());
            let pp = pp::preprocess(id, &vfs, &PpConfig::default());
            for start in [(true, true), (true, false), (false, false), (false, true)] {
                let (mut first, mut col0) = start;
                for (i, piece) in pp.pieces.iter().enumerate() {
                    match piece.kind {
                        SyntaxKind::NEWLINE => {
                            first = true;
                            col0 = pp.text(piece).ends_with(['\n', '\r']);
                        }
                        SyntaxKind::MACRO_CALL => {}
                        k if k.is_trivia() => col0 = false,
                        _ => {
                            let (f, c) = line_start_before(&pp, i, start);
                            assert_eq!((f, f && c), (first, first && col0), "piece {i} of {text:?}, from {start:?}");
                            first = false;
                            col0 = false;
                            tokens += 1;
                        }
                    }
                }
            }
        }
        assert!(tokens > 10_000, "{tokens}");
    }

    #[test]
    fn contextual_keywords_come_with_the_name_and_not_when_stuck() {
        let vfs = Vfs::new();
        let id = vfs.add_file(std::path::Path::new("input.metal"), "float * restrict p; final coherent x; p restrict");
        let pp = pp::preprocess(id, &vfs, &PpConfig::default());
        let mut p = Parser::for_unit(&pp, None, 64);
        let words: Vec<Word> = (0..11).map(|i| p.word_at(i)).collect();
        let (none, plain) = (Word::None, Word::Plain);
        let restrict = Word::Restrict;
        assert_eq!(
            words,
            [none, none, restrict, plain, none, Word::Final, Word::Coherent, plain, none, plain, restrict]
        );
        // every identifier keeps its name's number, and only identifiers have one
        let kept: Vec<bool> = p.name_ids.iter().map(|n| n.get() != 0).collect();
        let idents: Vec<bool> = p.kinds.iter().map(|&k| k == crate::SyntaxKind::IDENT).collect();
        assert_eq!(kept, idents);
        // one number per name: `p` and `restrict` twice, each time the same
        assert_eq!((p.name_at(3), p.name_at(2)), (p.name_at(9), p.name_at(10)));
        assert_ne!(p.name_at(3), p.name_at(7));
        assert_eq!((p.scopes.text(p.name_at(9)), p.word_at(10)), ("p", Word::Restrict));
        p.pos = 2;
        assert_eq!(p.current_word(), Word::Restrict);
        // a stuck parser (past the step limit, see `Parser::nth`) sees the end of the
        // input: no loop can keep consuming `restrict`
        p.steps_left = 0;
        assert_eq!(p.current_word(), Word::None);
    }
}
