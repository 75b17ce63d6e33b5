//! The C preprocessor.
//!
//! It turns a main file (and everything it includes) into one ordered sequence of
//! [`Piece`]s: the tokens the parser reads, and the trivia around them (whitespace,
//! comments, directive lines, inactive `#if` regions, the text of macro invocations).
//! Every piece knows where its text came from: spelled in a file at a range, or produced
//! by a macro invocation (and then, where possible, also where its text was spelled:
//! in the macro's definition or in the invocation's arguments).

mod builtin;
pub(crate) mod expr;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use rustc_hash::{FxHashMap, FxHashSet};

use crate::config::{MetalVersion, Platform, PpConfig};
use crate::lexer::{self, LexError, Lexed, Token};
use crate::vfs::{FileId, FileResolver};
use crate::{Severity, SyntaxKind, SyntaxKind::*, TextRange, TextSize};

pub use builtin::{METAL_HEADERS, SystemHeader, classify as classify_system_header};

/// Marks a piece or token whose text lives in the preprocessor's arena (pasted tokens,
/// stringized arguments, `__LINE__`, ...), not in a file.
pub const ARENA: u32 = u32::MAX;
/// Marks a piece that does not come from a macro expansion.
pub const NO_CALL: u32 = u32::MAX;

/// Limits that keep hostile input from exhausting time, memory or the stack.
pub const MAX_INCLUDE_DEPTH: usize = 200;
pub const MAX_EXPANSION_DEPTH: u32 = 200;
/// Tokens produced by macro expansion in one unit, at most.
pub const MAX_EXPANDED_TOKENS: usize = 20_000_000;
/// Tokens produced by one top-level macro invocation, at most (real code stays far
/// below: the largest invocation in the test corpus counts about 190,000).
pub const MAX_INVOCATION_TOKENS: usize = 1_000_000;

/// One element of the preprocessed sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    pub kind: SyntaxKind,
    /// Index into [`Preprocessed::files`], or [`ARENA`].
    pub file: u32,
    pub start: u32,
    pub len: u32,
    /// Index into [`Preprocessed::calls`] for tokens produced by a macro, else [`NO_CALL`].
    pub call: u32,
}

impl Piece {
    pub fn range(&self) -> TextRange {
        TextRange::at(self.start.into(), self.len.into())
    }
    pub fn is_expanded(&self) -> bool {
        self.call != NO_CALL
    }
}

/// A file the preprocessor read (the main file, headers, and virtual files such as the
/// predefined macros and the modelled system headers).
#[derive(Debug, Clone)]
pub struct PpFile {
    /// The resolver's id; `None` for virtual files.
    pub id: Option<FileId>,
    pub path: PathBuf,
    pub text: Arc<str>,
    /// Predefines and modelled system headers: not part of the tree.
    pub is_virtual: bool,
}

/// A top-level macro invocation: the text `FOO(a, b)` as spelled in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MacroCall {
    pub file: u32,
    pub range: TextRange,
    /// Index into [`Preprocessed::macros`].
    pub def: u32,
}

/// A macro definition (kept after `#undef`, for navigation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MacroInfo {
    pub name: Arc<str>,
    pub file: u32,
    /// Range of the name in the `#define`.
    pub name_range: TextRange,
    /// `None` for object-like macros.
    pub params: Option<Vec<String>>,
    pub variadic: bool,
    /// The replacement list as written (tokens joined by single spaces).
    pub body: Arc<str>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Include {
    /// File containing the directive.
    pub file: u32,
    /// Range of the whole directive.
    pub range: TextRange,
    pub name: String,
    pub angled: bool,
    /// The included file, if found.
    pub target: Option<u32>,
}

/// A message from the preprocessor (or lexer) at a place in one of the files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PpDiagnostic {
    pub file: u32,
    pub range: TextRange,
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
}

/// The result of preprocessing a translation unit.
#[derive(Debug, Clone, Default)]
pub struct Preprocessed {
    pub pieces: Vec<Piece>,
    pub files: Vec<PpFile>,
    pub arena: String,
    pub calls: Vec<MacroCall>,
    pub macros: Vec<MacroInfo>,
    pub includes: Vec<Include>,
    pub diagnostics: Vec<PpDiagnostic>,
    /// The macro tables at the end of the unit, kept so that a function body can be
    /// preprocessed again after an edit (see [`crate::Parse::reparse`]).
    pub(crate) state: Option<Arc<PpState>>,
    /// The parser's view of the pieces, built as they are emitted; taken by the parse.
    pub(crate) layout: Option<crate::parser::TokenLayout>,
}

impl Preprocessed {
    /// The text of a piece.
    #[inline(always)]
    pub fn text(&self, p: &Piece) -> &str {
        let (s, e) = (p.start as usize, (p.start + p.len) as usize);
        if p.file == ARENA { &self.arena[s..e] } else { &self.files[p.file as usize].text[s..e] }
    }

    /// The bytes of a piece's text: [`Preprocessed::text`] without the character-boundary
    /// checks, for callers that only compare or hash it.
    #[inline]
    pub(crate) fn bytes(&self, p: &Piece) -> &[u8] {
        let (s, e) = (p.start as usize, (p.start + p.len) as usize);
        if p.file == ARENA { &self.arena.as_bytes()[s..e] } else { &self.files[p.file as usize].text.as_bytes()[s..e] }
    }
}

// ---------------------------------------------------------------------------------------

const LEADING_SPACE: u8 = 1;
const NO_EXPAND: u8 = 2;
/// A `##` operator in a replacement list (not a `##` token passed as an argument).
const PASTE_OP: u8 = 4;
/// Stands for an empty argument next to `##` (a placemarker).
const PLACEMARKER: u8 = 8;
/// Came from `__VA_ARGS__` (for the GNU `, ## __VA_ARGS__` extension).
const FROM_VA_ARGS: u8 = 16;

/// Whether tokens `a` and `b` (their texts by `text`), written with nothing between them,
/// would be read as other tokens: two words or numbers (`unsigned int`), a word or number
/// and a literal (`u8"x"`), a literal and what would be its suffix or take in a prefixed
/// literal (`"a"x`, `"a"u8"b"`), a literal the lexer found no end for and anything, a
/// number and a punctuator that a number may take in (`1 .5`, `1e +5`), a punctuator
/// ending in `.` and a number (`. 5`), and two punctuators that start a longer one or a
/// comment (`+ +`, `> >=`, `/ *`). Anything else (an unknown character, an empty token)
/// counts as joining. The texts are only read for literals: a punctuator's is its kind's.
fn run_together<'t>(a: &PpTok, b: &PpTok, text: impl Fn(&PpTok) -> &'t str) -> bool {
    let number = |k: SyntaxKind| matches!(k, INT_NUMBER | FLOAT_NUMBER);
    let word = |k: SyntaxKind| k.is_ident_like() || number(k);
    let literal = |k: SyntaxKind| matches!(k, CHAR_LIT | STRING_LIT);
    let known = |k: SyntaxKind| word(k) || literal(k) || k.is_punct();
    let fixed = |k: SyntaxKind| k.text().unwrap_or_default().as_bytes();
    let (x, y) = (a.kind, b.kind);
    if a.len == 0 || b.len == 0 || !known(x) || !known(y) {
        return true;
    }
    if literal(x) {
        // only a punctuator or a literal without a prefix stays apart
        return !closed_literal(text(a))
            || !(y.is_punct() || (literal(y) && matches!(text(b).as_bytes().first(), Some(b'"' | b'\''))));
    }
    if word(x) {
        return !y.is_punct() || (number(x) && matches!(fixed(y).first(), Some(b'.' | b'+' | b'-')));
    }
    // `a` is a punctuator
    if y.is_punct() {
        return fixed(y).first().is_some_and(|&c| x.punct_goes_on(c));
    }
    number(y) && fixed(x).last() == Some(&b'.')
}

/// Whether a string or character literal's text ends with the quote that closes it (not
/// the one that opens it, and not one escaped by a backslash).
fn closed_literal(text: &str) -> bool {
    let b = text.as_bytes();
    let Some(open) = b.iter().position(|&c| c == b'"' || c == b'\'') else { return false };
    let last = b.len() - 1;
    let escapes = b[..last].iter().rev().take_while(|&&c| c == b'\\').count();
    last > open && b[last] == b[open] && escapes % 2 == 0
}

/// A token inside the preprocessor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PpTok {
    kind: SyntaxKind,
    flags: u8,
    file: u32,
    start: u32,
    len: u32,
}

impl PpTok {
    fn end(&self) -> u32 {
        self.start + self.len
    }
    fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Builtin {
    Line,
    File,
    Counter,
    IncludeLevel,
    BaseFile,
    Date,
    Time,
    Pragma,
    /// `__has_include` and friends outside `#if`: only valid in conditions.
    CondOnly,
}

#[derive(Debug, Clone)]
struct Macro {
    name: Arc<str>,
    function_like: bool,
    /// Named parameters (without `__VA_ARGS__`).
    params: Arc<[Arc<str>]>,
    variadic: bool,
    /// The replacement list: a range of `Pp::bodies` (and of `Pp::param_of`, which gives
    /// for each body token the index of the parameter it names, the variadic one being
    /// `params.len()`, or -1).
    body_start: u32,
    body_len: u32,
    /// Active expansions of this macro (it may not expand while non-zero).
    disabled: u32,
    builtin: Option<Builtin>,
    info: u32,
}

impl Macro {
    fn body_range(&self) -> std::ops::Range<usize> {
        self.body_start as usize..(self.body_start + self.body_len) as usize
    }
}

/// The macros defined by a virtual file (the builtin macros, the predefines, a modelled
/// system header), computed once per configuration and shared, read-only, by every unit
/// as a layer under its own macro table.
#[derive(Debug, Default)]
struct Batch {
    path: PathBuf,
    text: Arc<str>,
    arena: String,
    macros: Vec<Macro>,
    /// Replacement lists; tokens with `file == 0` are spelled in `text`.
    bodies: Vec<PpTok>,
    param_of: Vec<i32>,
    infos: Vec<MacroInfo>,
    /// Name to macro index after all directives ran; [`UNDEFINED`] for names undefined.
    names: FxHashMap<Arc<str>, u32>,
    filter: NameFilter,
    diagnostics: Vec<PpDiagnostic>,
}

/// A cheap pre-check for macro names: a 4096-bit set indexed by a hash of the name's
/// length and a few of its bytes. Most identifiers are not macros; this answers "no"
/// for nearly all of them without touching the name tables.
#[derive(Debug, Clone)]
struct NameFilter(Box<[u64; 64]>);

impl Default for NameFilter {
    fn default() -> Self {
        NameFilter(Box::new([0; 64]))
    }
}

impl NameFilter {
    fn bit(b: &[u8]) -> usize {
        let n = b.len();
        if n == 0 {
            return 0;
        }
        (n.wrapping_mul(31)
            ^ (b[0] as usize).wrapping_mul(7)
            ^ (b[n - 1] as usize).wrapping_mul(131)
            ^ (b[n / 2] as usize).wrapping_mul(17))
            & 4095
    }
    fn insert(&mut self, name: &str) {
        let i = Self::bit(name.as_bytes());
        self.0[i / 64] |= 1 << (i % 64);
    }
    fn may_contain(&self, name: &[u8]) -> bool {
        let i = Self::bit(name);
        self.0[i / 64] & (1 << (i % 64)) != 0
    }
    fn union(&mut self, other: &NameFilter) {
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            *a |= *b;
        }
    }
}

/// A batch in use by a unit.
#[derive(Debug, Clone)]
struct Layer {
    batch: Arc<Batch>,
    /// The unit's index for the batch's virtual file ([`ARENA`] when it has no text).
    file: u32,
    arena_base: u32,
    /// Number of pieces emitted before the batch was installed.
    installed_at: u32,
}

/// What the preprocessor knew at the end of a unit: enough to preprocess a function body
/// again, alone, after an edit inside it.
#[derive(Debug, Clone)]
pub(crate) struct PpState {
    pub(crate) config: PpConfig,
    macro_names: FxHashMap<Arc<str>, u32>,
    macros: Vec<Macro>,
    bodies: Vec<PpTok>,
    param_of: Vec<i32>,
    layers: Vec<Layer>,
    filter: NameFilter,
    layer_info: FxHashMap<u32, u32>,
    line_directives: FxHashMap<u32, Vec<(u32, u32, Option<String>)>>,
    /// For each name defined or undefined by a directive: the number of pieces emitted
    /// before its last such directive.
    changed_at: FxHashMap<Arc<str>, u32>,
    /// Every `#define` and `#undef`, in order: the number of pieces emitted before it,
    /// the name, and the macro it installed ([`UNDEFINED`] for `#undef`). With it, the
    /// table as it stood at any piece can be rebuilt for the names that changed later.
    history: Vec<(u32, Arc<str>, u32)>,
    /// Main-file offsets at which `__LINE__` was expanded.
    line_uses: Vec<u32>,
    counter: u64,
    pub(crate) expanded_tokens: usize,
    /// Whether an expansion limit was hit anywhere.
    pub(crate) overflowed: bool,
    /// Macro invocations recorded by the last full preprocessing (re-preprocessed bodies
    /// leave their old invocations behind; past a bound, the unit is parsed again).
    pub(crate) full_calls: usize,
}

/// Macro ids with this bit set name a macro of a layer: bits 16..31 hold the layer,
/// bits 0..16 the macro's index in its batch.
const LAYER_BIT: u32 = 1 << 31;
/// In a name table: the name was `#undef`ined (hiding any layer's definition).
const UNDEFINED: u32 = u32::MAX;

/// A token waiting to be rescanned, or the end of a macro's expansion, which re-enables
/// the macro (a token of kind [`Pending::END`] whose `start` is the macro). Either is one
/// 16-byte value: an enum with a tag of its own put the token four bytes in, so that
/// taking a token off the stack and into the output moved it field by field and read it
/// back whole, which stalled on every token.
#[derive(Clone, Copy)]
struct Pending(PpTok);

impl Pending {
    /// The kind of the marker for the end of an expansion: no token has it.
    const END: SyntaxKind = SyntaxKind::__LAST;

    fn end(m: u32) -> Pending {
        Pending(PpTok { kind: Self::END, flags: 0, file: ARENA, start: m, len: 0 })
    }
}

/// Emptied lists of tokens, parameter indexes and pending tokens, kept for reuse. A macro
/// invocation makes several lists (its body, its arguments, their expansions, the result),
/// and expansions nest; a list taken from here costs no allocation, and after the first
/// few invocations it has room enough that it seldom grows.
#[derive(Default)]
struct Lists {
    tokens: Vec<Vec<PpTok>>,
    params: Vec<Vec<i32>>,
    pending: Vec<Vec<Pending>>,
}

impl Lists {
    /// Lists kept of each sort, enough for the nesting of real code.
    const KEPT: usize = 32;

    fn tokens(&mut self) -> Vec<PpTok> {
        self.tokens.pop().unwrap_or_default()
    }

    fn give_tokens(&mut self, list: Vec<PpTok>) {
        Self::keep(&mut self.tokens, list);
    }

    fn params(&mut self) -> Vec<i32> {
        self.params.pop().unwrap_or_default()
    }

    fn give_params(&mut self, list: Vec<i32>) {
        Self::keep(&mut self.params, list);
    }

    fn pending(&mut self) -> Vec<Pending> {
        self.pending.pop().unwrap_or_default()
    }

    fn give_pending(&mut self, list: Vec<Pending>) {
        Self::keep(&mut self.pending, list);
    }

    fn keep<T>(kept: &mut Vec<Vec<T>>, mut list: Vec<T>) {
        if kept.len() < Self::KEPT {
            list.clear();
            kept.push(list);
        }
    }
}

struct Cond {
    /// Range of the opening directive, for "unterminated" errors.
    range: TextRange,
    taken: bool,
    else_seen: bool,
}

struct Frame {
    file: u32,
    tokens: Arc<Vec<Token>>,
    idx: usize,
    conds: Vec<Cond>,
    emit: bool,
    at_bol: bool,
    /// Index of the lexer errors not yet checked.
    lex_errors: Arc<Vec<LexError>>,
}

struct CallTrack {
    file: u32,
    start: u32,
    end: u32,
}

struct Pp<'r> {
    resolver: &'r dyn FileResolver,
    config: &'r PpConfig,
    out: Preprocessed,
    file_by_id: FxHashMap<FileId, u32>,
    lexed: Vec<Option<Lexed>>,
    /// Told of each real file lexed (see [`LexedMain::tell`]).
    tell_lexed: Option<std::sync::mpsc::Sender<LexedFile>>,
    macro_names: FxHashMap<Arc<str>, u32>,
    macros: Vec<Macro>,
    bodies: Vec<PpTok>,
    param_of: Vec<i32>,
    layers: Vec<Layer>,
    /// Every name that is or was a macro in this unit (layers included) may pass.
    filter: NameFilter,
    /// Active expansions of layer macros (local macros count in `Macro::disabled`).
    layer_disabled: FxHashMap<u32, u32>,
    /// Where a layer macro's info was copied into `out.macros`.
    layer_info: FxHashMap<u32, u32>,
    frames: Vec<Frame>,
    pending: Vec<Pending>,
    /// Lists an expansion is done with, kept for the next (see [`Lists`]).
    lists: Lists,
    /// Whether reading past `pending` into the file is allowed (not during isolated
    /// expansion of arguments or `#if` lines).
    file_reads: bool,
    /// Collecting arguments: reaching the end of the current file ends the invocation.
    stay_in_file: bool,
    /// Set while a top-level macro invocation is being expanded.
    call: Option<CallTrack>,
    saw_space: bool,
    once: FxHashSet<u32>,
    guards: FxHashMap<u32, Option<Arc<str>>>,
    builtin_headers: FxHashMap<String, u32>,
    counter: u64,
    expanded_tokens: usize,
    invocation_tokens: usize,
    overflow_reported: bool,
    expansion_depth: u32,
    overflowed: bool,
    /// Where `__LINE__` is evaluated: (file, offset).
    line_anchor: (u32, u32),
    line_offsets: FxHashMap<u32, Vec<u32>>,
    /// `#line` adjustments: file -> (offset of the directive's next line, line number there).
    line_directives: FxHashMap<u32, Vec<(u32, u32, Option<String>)>>,
    changed_at: FxHashMap<Arc<str>, u32>,
    history: Vec<(u32, Arc<str>, u32)>,
    line_uses: Vec<u32>,
    /// When preprocessing a body again: the entries of `out.macros` that the old body's
    /// `#define`s made, in order, for the same definitions to take again (no duplicates).
    reuse_infos: Vec<u32>,
    /// Whether a limit was hit at any point of the unit.
    ever_overflowed: bool,
    /// When preprocessing a body again: names looked up must not have changed at or
    /// after this piece of the old unit (else `stale` is set).
    watch_before: u32,
    stale: std::cell::Cell<bool>,
}

/// Preprocesses `main` and everything it includes.
pub fn preprocess(main: FileId, resolver: &dyn FileResolver, config: &PpConfig) -> Preprocessed {
    preprocess_unit(main, resolver, config, false, None)
}

/// A main file lexed before preprocessing starts (its text and what the lexer made of
/// it), and who wants to hear of it and of the other files the preprocessor lexes.
pub(crate) struct LexedMain {
    pub(crate) text: Arc<str>,
    pub(crate) tokens: Arc<Vec<Token>>,
    pub(crate) errors: Vec<LexError>,
    pub(crate) tell: Option<std::sync::mpsc::Sender<LexedFile>>,
}

/// A file the preprocessor lexed: its index in [`Preprocessed::files`], text and tokens.
pub(crate) struct LexedFile {
    pub(crate) file: u32,
    pub(crate) text: Arc<str>,
    pub(crate) tokens: Arc<Vec<Token>>,
}

/// [`preprocess`], also building the parser's view of the pieces when `for_parse`.
pub(crate) fn preprocess_unit(
    main: FileId,
    resolver: &dyn FileResolver,
    config: &PpConfig,
    for_parse: bool,
    lexed_main: Option<LexedMain>,
) -> Preprocessed {
    let mut pp = Pp::new(resolver, config);
    let main_len = lexed_main.as_ref().map_or_else(|| resolver.text(main).len(), |l| l.text.len());
    // a piece per three bytes of the main file is typical; headers add to that
    pp.out.pieces.reserve(main_len / 2);
    if for_parse {
        pp.out.layout = Some(crate::parser::TokenLayout::new(main_len / 4));
    }
    let main_idx = pp.add_real_file(main);
    if let Some(l) = lexed_main {
        // the tokens are the text's: both replace what the resolver gave
        pp.out.files[main_idx as usize].text = l.text;
        pp.tell_lexed = l.tell;
        // the listener hears where the main file is among the files, then of each header
        pp.tell(main_idx, &l.tokens);
        pp.lexed[main_idx as usize] = Some(Lexed { tokens: l.tokens, errors: Arc::new(l.errors) });
    }
    pp.report_load_issues(main_idx);
    pp.push_frame(main_idx, true);
    let batch = batch_for(None, config, || builtin::predefines(config));
    pp.install(&batch);
    // Apple's compiler makes the library available to every unit, as if `<metal_stdlib>`
    // were included first: its macros (`METAL_FUNC`, `M_PI_F`, ...) too
    let _ = pp.include_system(IMPLICIT_HEADER);
    pp.run();
    let state = pp.take_state();
    let mut out = pp.out;
    out.state = Some(Arc::new(state));
    out
}

/// The header every unit starts with, as if included before its first line.
const IMPLICIT_HEADER: &str = "metal_stdlib";

/// A function body preprocessed again, alone, after an edit of the main file.
pub(crate) struct Fragment {
    /// The body's pieces and diagnostics; `files` hold the new main text, and `arena`,
    /// `calls` and `macros` extend the old unit's (so indices into them stay valid).
    pub(crate) out: Preprocessed,
    pub(crate) expanded_tokens: usize,
    /// Main-file offsets (in the new text) at which `__LINE__` was expanded.
    pub(crate) line_uses: Vec<u32>,
    /// The body's `#define`s and `#undef`s: pieces of the fragment before each, the name,
    /// and whether it defined.
    pub(crate) history: Vec<(u32, Arc<str>, bool)>,
}

/// Preprocesses `tokens`, lexed from `new_main` (offsets in it), with the macro tables
/// as they stood at piece `before` of the old unit (rebuilt from the final ones and the
/// history of `#define`s and `#undef`s). `reuse` lists the macro records the old body's
/// `#define`s made: the body's definitions must be those, in order. `None` when the
/// result could differ from preprocessing the whole new text: a macro of a modelled
/// header installed at or after the body is looked up, a definition differs from the old
/// body's, `__COUNTER__` is involved, or a limit is hit.
pub(crate) fn preprocess_fragment(
    old: &Preprocessed,
    state: &PpState,
    new_main: Arc<str>,
    tokens: Vec<Token>,
    lex_errors: Vec<LexError>,
    before: u32,
    reuse: Vec<u32>,
) -> Option<Fragment> {
    if state.counter > 0 || state.overflowed {
        return None;
    }
    let resolver = crate::Vfs::new();
    let mut pp = Pp::new(&resolver, &state.config);
    let mut files = old.files.clone();
    files.first_mut()?.text = new_main;
    pp.out = Preprocessed {
        pieces: Vec::with_capacity(tokens.len()),
        files,
        arena: old.arena.clone(),
        calls: old.calls.clone(),
        macros: old.macros.clone(),
        includes: Vec::new(),
        diagnostics: Vec::new(),
        state: None,
        layout: None,
    };
    pp.lexed = vec![None; pp.out.files.len()];
    pp.macro_names = state.macro_names.clone();
    pp.macros = state.macros.clone();
    pp.bodies = state.bodies.clone();
    pp.param_of = state.param_of.clone();
    pp.layers = state.layers.clone();
    pp.filter = state.filter.clone();
    pp.layer_info = state.layer_info.clone();
    pp.line_directives = state.line_directives.clone();
    pp.changed_at = state.changed_at.clone();
    // names (re)defined at or after the body: back to what they were at its `{` (a
    // directive at piece k counts k + 1 pieces before it, so `at <= before` is before)
    let split = state.history.partition_point(|(at, _, _)| *at <= before);
    if split < state.history.len() {
        let later: FxHashSet<&Arc<str>> = state.history[split..].iter().map(|(_, n, _)| n).collect();
        let mut then: FxHashMap<&Arc<str>, (u32, u32)> = FxHashMap::default();
        for (at, n, m) in &state.history[..split] {
            if later.contains(n) {
                then.insert(n, (*at, *m));
            }
        }
        for n in later {
            match then.get(n) {
                Some(&(at, m)) => {
                    pp.macro_names.insert(n.clone(), m);
                    pp.changed_at.insert(n.clone(), at);
                }
                None => {
                    pp.macro_names.remove(n);
                    pp.changed_at.remove(n);
                }
            }
        }
    }
    pp.reuse_infos = reuse;
    pp.expanded_tokens = state.expanded_tokens;
    pp.watch_before = before;
    pp.frames.push(Frame {
        file: 0,
        tokens: Arc::new(tokens),
        idx: 0,
        conds: Vec::new(),
        emit: true,
        at_bol: false,
        lex_errors: Arc::new(lex_errors),
    });
    pp.run();
    if pp.stale.get() || pp.counter > 0 || pp.ever_overflowed || pp.overflowed || !pp.reuse_infos.is_empty() {
        return None;
    }
    let history = pp.history.iter().map(|(at, n, m)| (*at, n.clone(), *m != UNDEFINED)).collect();
    Some(Fragment {
        expanded_tokens: pp.expanded_tokens,
        line_uses: std::mem::take(&mut pp.line_uses),
        history,
        out: pp.out,
    })
}

/// Where a body was replaced: the main file's bytes `old_start..old_end` and the pieces
/// before `old_piece_end`; what follows moved by `delta` bytes and `piece_delta` pieces.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Splice {
    /// The piece of the body's `{`.
    pub(crate) open_piece: u32,
    pub(crate) old_start: u32,
    pub(crate) old_end: u32,
    pub(crate) delta: i64,
    pub(crate) old_piece_end: u32,
    pub(crate) piece_delta: i64,
}

impl PpState {
    /// The `#define`s and `#undef`s of the old unit inside the body that starts at piece
    /// `open` and ends before piece `end`: (name, whether it defined).
    pub(crate) fn body_history(&self, open: u32, end: u32) -> Vec<(Arc<str>, bool)> {
        self.history
            .iter()
            .filter(|(at, _, _)| *at > open && *at <= end)
            .map(|(_, n, m)| (n.clone(), *m != UNDEFINED))
            .collect()
    }

    /// The state after a body was preprocessed again (see [`Splice`]); `expanded_tokens`,
    /// `line_uses` and `history` (the same directives as the old body's, see
    /// [`PpState::body_history`]) come from the body's preprocessing.
    pub(crate) fn shifted(
        &self,
        splice: &Splice,
        expanded_tokens: usize,
        line_uses: &[u32],
        history: &[(u32, Arc<str>, bool)],
    ) -> PpState {
        let Splice { open_piece, old_start, old_end, delta, old_piece_end, piece_delta } = *splice;
        let shift = |v: u32| if v >= old_end { (v as i64 + delta) as u32 } else { v };
        let shift_piece = |v: u32| if v >= old_piece_end { (v as i64 + piece_delta) as u32 } else { v };
        let in_body = |v: u32| v > open_piece && v < old_piece_end;
        let mut st = self.clone();
        // the body's directives: same names and macros, at their new places
        let mut new_at = history.iter().map(|(at, _, _)| open_piece + at);
        for entry in &mut st.history {
            if in_body(entry.0) {
                entry.0 = new_at.next().unwrap_or(entry.0);
            } else {
                entry.0 = shift_piece(entry.0);
            }
        }
        for (name, v) in st.changed_at.iter_mut() {
            if in_body(*v) {
                if let Some((at, _, _)) = history.iter().rev().find(|(_, n, _)| n == name) {
                    *v = open_piece + at;
                }
                continue;
            }
            *v = shift_piece(*v);
        }
        for t in &mut st.bodies {
            if t.file == 0 {
                t.start = shift(t.start);
            }
        }
        for l in &mut st.layers {
            l.installed_at = shift_piece(l.installed_at);
        }
        if let Some(dirs) = st.line_directives.get_mut(&0) {
            for d in dirs {
                d.0 = shift(d.0);
            }
        }
        st.line_uses.retain(|&o| o < old_start || o >= old_end);
        for o in &mut st.line_uses {
            *o = shift(*o);
        }
        st.line_uses.extend(line_uses);
        st.line_uses.sort_unstable();
        st.expanded_tokens = expanded_tokens;
        st
    }

    /// The parts that must match a full preprocessing of the same text (for tests).
    pub(crate) fn describe(&self) -> String {
        let mut changed: Vec<_> = self.changed_at.iter().collect();
        changed.sort();
        let layers: Vec<u32> = self.layers.iter().map(|l| l.installed_at).collect();
        let bodies: Vec<(u32, u32, u32)> = self.bodies.iter().map(|t| (t.file, t.start, t.len)).collect();
        format!(
            "changed {changed:?}\nlayers {layers:?}\nline uses {:?}\nbodies {bodies:?}\nline directives {:?}\n",
            self.line_uses,
            {
                let mut d: Vec<_> = self.line_directives.iter().collect();
                d.sort_by_key(|e| *e.0);
                d
            }
        )
    }

    /// Whether `__LINE__` was expanded in the main file at or after `offset`.
    pub(crate) fn uses_line_after(&self, offset: u32) -> bool {
        self.line_uses.iter().any(|&o| o >= offset)
    }
}

/// Batches by configuration: the predefines and each modelled header.
fn batch_for(header: Option<&str>, config: &PpConfig, text: impl FnOnce() -> String) -> Arc<Batch> {
    /// Batches by the hash of their key (keys with the same hash side by side).
    type Cache = FxHashMap<u64, Vec<(BatchKey, Arc<Batch>)>>;
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    // only the predefined macros depend on the command line's macros
    let (defines, undefines): (&[(String, Option<String>)], &[String]) = match header {
        None => (&config.defines, &config.undefines),
        Some(_) => (&[], &[]),
    };
    // looked up for every unit: hashed and compared in place, with nothing allocated
    let view: BatchKeyView<'_> = (header, config.version, config.platform, config.fast_math, defines, undefines);
    let hash = {
        use std::hash::{Hash, Hasher};
        let mut h = rustc_hash::FxHasher::default();
        view.hash(&mut h);
        h.finish()
    };
    let same = |k: &BatchKey| k.view() == view;
    let cache = CACHE.get_or_init(Default::default);
    let cached = cache.lock().ok().and_then(|c| c.get(&hash)?.iter().find(|(k, _)| same(k)).map(|(_, b)| b.clone()));
    if let Some(b) = cached {
        return b;
    }
    let name = header.map_or_else(|| "<built-in>".to_string(), |h| format!("<{h}>"));
    let batch = Arc::new(record_batch(&name, text(), config));
    if let Ok(mut c) = cache.lock() {
        if c.len() > 512 {
            c.clear();
        }
        let key = BatchKey {
            header: header.map(str::to_string),
            version: config.version,
            platform: config.platform,
            fast_math: config.fast_math,
            defines: defines.to_vec(),
            undefines: undefines.to_vec(),
        };
        // another thread may have recorded the same batch meanwhile: keep the first
        let same_hash = c.entry(hash).or_default();
        match same_hash.iter().find(|(k, _)| same(k)) {
            Some((_, first)) => return first.clone(),
            None => same_hash.push((key, batch.clone())),
        }
    }
    batch
}

/// What a [`Batch`] depends on: the system header it stands for (`None`: the predefined
/// macros) and the configuration its directives see.
struct BatchKey {
    header: Option<String>,
    version: MetalVersion,
    platform: Platform,
    fast_math: bool,
    defines: Vec<(String, Option<String>)>,
    undefines: Vec<String>,
}

/// A [`BatchKey`] borrowed, as a lookup builds it from a configuration.
type BatchKeyView<'k> = (Option<&'k str>, MetalVersion, Platform, bool, &'k [(String, Option<String>)], &'k [String]);

impl BatchKey {
    fn view(&self) -> BatchKeyView<'_> {
        (self.header.as_deref(), self.version, self.platform, self.fast_math, &self.defines, &self.undefines)
    }
}

/// Runs the directives of a virtual file and records their effect.
fn record_batch(name: &str, text: String, config: &PpConfig) -> Batch {
    let resolver = crate::Vfs::new();
    let mut pp = Pp::new(&resolver, config);
    let file = pp.add_virtual_file(name, text);
    debug_assert_eq!(file, 0);
    pp.push_frame(file, false);
    pp.run();
    Batch {
        path: PathBuf::from(name),
        text: pp.out.files[file as usize].text.clone(),
        arena: std::mem::take(&mut pp.out.arena),
        macros: std::mem::take(&mut pp.macros),
        bodies: std::mem::take(&mut pp.bodies),
        param_of: std::mem::take(&mut pp.param_of),
        infos: std::mem::take(&mut pp.out.macros),
        filter: std::mem::take(&mut pp.filter),
        names: std::mem::take(&mut pp.macro_names),
        diagnostics: std::mem::take(&mut pp.out.diagnostics),
    }
}

/// The builtin macros (`__LINE__`, `__FILE__`, `_Pragma`, `__has_include`, ...).
fn builtins_batch() -> Arc<Batch> {
    static BATCH: OnceLock<Arc<Batch>> = OnceLock::new();
    BATCH
        .get_or_init(|| {
            let mut b = Batch { path: PathBuf::from("<builtins>"), text: "".into(), ..Batch::default() };
            for (name, builtin, function_like) in [
                ("__LINE__", Builtin::Line, false),
                ("__FILE__", Builtin::File, false),
                ("__FILE_NAME__", Builtin::File, false),
                ("__COUNTER__", Builtin::Counter, false),
                ("__INCLUDE_LEVEL__", Builtin::IncludeLevel, false),
                ("__BASE_FILE__", Builtin::BaseFile, false),
                ("__DATE__", Builtin::Date, false),
                ("__TIME__", Builtin::Time, false),
                ("_Pragma", Builtin::Pragma, true),
                ("__has_include", Builtin::CondOnly, true),
                ("__has_include_next", Builtin::CondOnly, true),
                ("__has_attribute", Builtin::CondOnly, true),
                ("__has_cpp_attribute", Builtin::CondOnly, true),
                ("__has_feature", Builtin::CondOnly, true),
                ("__has_extension", Builtin::CondOnly, true),
                ("__has_builtin", Builtin::CondOnly, true),
                ("__is_identifier", Builtin::CondOnly, true),
            ] {
                let name: Arc<str> = name.into();
                let info = b.infos.len() as u32;
                b.infos.push(MacroInfo {
                    name: name.clone(),
                    file: ARENA,
                    name_range: TextRange::empty(0.into()),
                    params: function_like.then(Vec::new),
                    variadic: false,
                    body: "".into(),
                });
                b.names.insert(name.clone(), b.macros.len() as u32);
                b.filter.insert(&name);
                b.macros.push(Macro {
                    name,
                    function_like,
                    params: Arc::new([]),
                    variadic: false,
                    body_start: 0,
                    body_len: 0,
                    disabled: 0,
                    builtin: Some(builtin),
                    info,
                });
            }
            Arc::new(b)
        })
        .clone()
}

impl<'r> Pp<'r> {
    fn new(resolver: &'r dyn FileResolver, config: &'r PpConfig) -> Pp<'r> {
        let mut pp = Pp {
            resolver,
            config,
            out: Preprocessed::default(),
            file_by_id: FxHashMap::default(),
            lexed: Vec::new(),
            tell_lexed: None,
            macro_names: FxHashMap::default(),
            macros: Vec::new(),
            bodies: Vec::new(),
            param_of: Vec::new(),
            layers: Vec::new(),
            filter: NameFilter::default(),
            layer_disabled: FxHashMap::default(),
            layer_info: FxHashMap::default(),
            frames: Vec::new(),
            pending: Vec::new(),
            lists: Lists::default(),
            file_reads: true,
            stay_in_file: false,
            call: None,
            saw_space: false,
            once: FxHashSet::default(),
            guards: FxHashMap::default(),
            builtin_headers: FxHashMap::default(),
            counter: 0,
            expanded_tokens: 0,
            invocation_tokens: 0,
            overflow_reported: false,
            expansion_depth: 0,
            overflowed: false,
            line_anchor: (0, 0),
            line_offsets: FxHashMap::default(),
            line_directives: FxHashMap::default(),
            changed_at: FxHashMap::default(),
            history: Vec::new(),
            line_uses: Vec::new(),
            reuse_infos: Vec::new(),
            ever_overflowed: false,
            watch_before: u32::MAX,
            stale: std::cell::Cell::new(false),
        };
        pp.out.arena.push(' ');
        pp.install(&builtins_batch());
        pp
    }

    /// The macro tables, for preprocessing bodies again later.
    fn take_state(&mut self) -> PpState {
        PpState {
            config: self.config.clone(),
            macro_names: std::mem::take(&mut self.macro_names),
            macros: std::mem::take(&mut self.macros),
            bodies: std::mem::take(&mut self.bodies),
            param_of: std::mem::take(&mut self.param_of),
            layers: std::mem::take(&mut self.layers),
            filter: std::mem::take(&mut self.filter),
            layer_info: std::mem::take(&mut self.layer_info),
            line_directives: std::mem::take(&mut self.line_directives),
            changed_at: std::mem::take(&mut self.changed_at),
            history: std::mem::take(&mut self.history),
            line_uses: std::mem::take(&mut self.line_uses),
            counter: self.counter,
            expanded_tokens: self.expanded_tokens,
            overflowed: self.ever_overflowed || self.overflowed,
            full_calls: self.out.calls.len(),
        }
    }

    /// Adds a batch as a layer under the unit's macro table. Returns the index of its
    /// virtual file.
    fn install(&mut self, batch: &Arc<Batch>) -> u32 {
        let file = if batch.text.is_empty() {
            ARENA
        } else {
            let f = self.out.files.len() as u32;
            self.out.files.push(PpFile {
                id: None,
                path: batch.path.clone(),
                text: batch.text.clone(),
                is_virtual: true,
            });
            self.lexed.push(None);
            f
        };
        let arena_base = self.out.arena.len() as u32;
        self.out.arena.push_str(&batch.arena);
        // definitions made before this point are replaced by the batch's
        if !self.macro_names.is_empty() {
            self.macro_names.retain(|name, _| !batch.names.contains_key(name));
        }
        let diag_file = if file == ARENA { 0 } else { file };
        self.out.diagnostics.extend(batch.diagnostics.iter().map(|d| PpDiagnostic { file: diag_file, ..d.clone() }));
        self.filter.union(&batch.filter);
        let installed_at = self.out.pieces.len() as u32;
        self.layers.push(Layer { batch: batch.clone(), file, arena_base, installed_at });
        file
    }

    /// The macro currently defined under `name`.
    fn lookup_macro(&self, name: &str) -> Option<u32> {
        if !self.filter.may_contain(name.as_bytes()) {
            return None;
        }
        if let Some(&m) = self.macro_names.get(name) {
            if self.watch_before != u32::MAX && self.changed_at.get(name).is_some_and(|&at| at >= self.watch_before) {
                self.stale.set(true);
            }
            return (m != UNDEFINED).then_some(m);
        }
        for (li, layer) in self.layers.iter().enumerate().rev() {
            if let Some(&i) = layer.batch.names.get(name) {
                if layer.installed_at >= self.watch_before {
                    self.stale.set(true);
                }
                return (i != UNDEFINED).then_some(LAYER_BIT | ((li as u32) << 16) | i);
            }
        }
        None
    }

    fn mac(&self, m: u32) -> &Macro {
        if m & LAYER_BIT == 0 {
            &self.macros[m as usize]
        } else {
            &self.layers[((m >> 16) & 0x7fff) as usize].batch.macros[(m & 0xffff) as usize]
        }
    }

    fn disabled(&self, m: u32) -> u32 {
        if m & LAYER_BIT == 0 {
            self.macros[m as usize].disabled
        } else {
            self.layer_disabled.get(&m).copied().unwrap_or(0)
        }
    }

    fn adjust_disabled(&mut self, m: u32, enable: bool) {
        let counter = if m & LAYER_BIT == 0 {
            &mut self.macros[m as usize].disabled
        } else {
            self.layer_disabled.entry(m).or_insert(0)
        };
        if enable {
            *counter = counter.saturating_sub(1);
        } else {
            *counter += 1;
        }
    }

    /// The replacement list of macro `m`, its tokens pointing at this unit's files, and
    /// the parameter each token names (or -1): in lists from [`Pp::lists`].
    fn body_of(&mut self, m: u32) -> (Vec<PpTok>, Vec<i32>) {
        let mut toks = self.lists.tokens();
        let mut params = self.lists.params();
        let mac = self.mac(m);
        let range = mac.body_range();
        if m & LAYER_BIT == 0 {
            toks.extend_from_slice(&self.bodies[range.clone()]);
            params.extend_from_slice(&self.param_of[range]);
            return (toks, params);
        }
        let layer = &self.layers[((m >> 16) & 0x7fff) as usize];
        toks.extend(layer.batch.bodies[range.clone()].iter().map(|t| {
            if t.file == ARENA {
                PpTok { start: t.start + layer.arena_base, ..*t }
            } else {
                PpTok { file: layer.file, ..*t }
            }
        }));
        params.extend_from_slice(&layer.batch.param_of[range]);
        (toks, params)
    }

    /// The macro's entry in `out.macros` (copied there on first use for layer macros).
    fn info_index(&mut self, m: u32) -> u32 {
        if m & LAYER_BIT == 0 {
            return self.mac(m).info;
        }
        if let Some(&i) = self.layer_info.get(&m) {
            return i;
        }
        let layer = &self.layers[((m >> 16) & 0x7fff) as usize];
        let info = MacroInfo { file: layer.file, ..layer.batch.infos[self.mac(m).info as usize].clone() };
        let i = self.out.macros.len() as u32;
        self.out.macros.push(info);
        self.layer_info.insert(m, i);
        i
    }

    fn info_of(&self, m: u32) -> &MacroInfo {
        if m & LAYER_BIT == 0 {
            &self.out.macros[self.mac(m).info as usize]
        } else {
            &self.layers[((m >> 16) & 0x7fff) as usize].batch.infos[self.mac(m).info as usize]
        }
    }

    // ---- files --------------------------------------------------------------------------

    fn add_real_file(&mut self, id: FileId) -> u32 {
        if let Some(&i) = self.file_by_id.get(&id) {
            return i;
        }
        let i = self.out.files.len() as u32;
        self.out.files.push(PpFile {
            id: Some(id),
            path: self.resolver.path(id),
            text: self.resolver.text(id),
            is_virtual: false,
        });
        self.lexed.push(None);
        self.file_by_id.insert(id, i);
        i
    }

    fn report_load_issues(&mut self, file: u32) {
        if let Some(id) = self.out.files[file as usize].id {
            for issue in self.resolver.load_issues(id) {
                self.diag(file, issue.range, Severity::Error, "E0003", issue.message);
            }
        }
    }

    fn add_virtual_file(&mut self, name: &str, text: String) -> u32 {
        let i = self.out.files.len() as u32;
        self.out.files.push(PpFile { id: None, path: PathBuf::from(name), text: text.into(), is_virtual: true });
        self.lexed.push(None);
        i
    }

    fn lex_file(&mut self, file: u32) -> Lexed {
        if let Some(l) = &self.lexed[file as usize] {
            return l.clone();
        }
        let f = &self.out.files[file as usize];
        // A header reads the same in every unit that includes it: the resolver may keep
        // its tokens from an earlier parse. Not the main file, which is the one edited
        // (and a batch tool reads each main file once).
        let shared = if file == 0 { None } else { f.id };
        let l = match shared.and_then(|id| self.resolver.lexed(id, &f.text)) {
            Some(l) => l,
            None => {
                let l = Lexed::new(&f.text);
                if let Some(id) = shared {
                    self.resolver.keep_lexed(id, &f.text, &l);
                }
                l
            }
        };
        if !f.is_virtual {
            self.tell(file, &l.tokens);
        }
        self.lexed[file as usize] = Some(l.clone());
        l
    }

    /// Tells the listener, if any (see [`LexedMain::tell`]), that `file` was lexed into
    /// `tokens`.
    fn tell(&self, file: u32, tokens: &Arc<Vec<Token>>) {
        if let Some(tell) = &self.tell_lexed {
            let text = self.out.files[file as usize].text.clone();
            // the listener may be gone; the preprocessing goes on regardless
            let _ = tell.send(LexedFile { file, text, tokens: tokens.clone() });
        }
    }

    fn push_frame(&mut self, file: u32, emit: bool) {
        let Lexed { tokens, errors: lex_errors } = self.lex_file(file);
        self.frames.push(Frame { file, tokens, idx: 0, conds: Vec::new(), emit, at_bol: true, lex_errors });
    }

    fn pop_frame(&mut self) {
        if let Some(f) = self.frames.pop() {
            for c in f.conds.iter().rev() {
                self.diag(
                    f.file,
                    c.range,
                    Severity::Error,
                    "E0010",
                    "unterminated conditional directive: no matching `#endif`",
                );
            }
        }
    }

    fn text_of(&self, t: &PpTok) -> &str {
        let (s, e) = (t.start as usize, (t.start + t.len) as usize);
        if t.file == ARENA { &self.out.arena[s..e] } else { &self.out.files[t.file as usize].text[s..e] }
    }

    fn diag(
        &mut self,
        file: u32,
        range: TextRange,
        severity: Severity,
        code: &'static str,
        message: impl Into<String>,
    ) {
        if self.out.diagnostics.len() >= 10_000 {
            return;
        }
        self.out.diagnostics.push(PpDiagnostic { file, range, severity, code, message: message.into() });
    }

    fn diag_tok(&mut self, t: &PpTok, severity: Severity, code: &'static str, message: impl Into<String>) {
        let (file, range) = self.locate(t);
        self.diag(file, range, severity, code, message);
    }

    /// Where to report a problem with a token: its spelling, or the current invocation.
    fn locate(&self, t: &PpTok) -> (u32, TextRange) {
        if let Some(c) = &self.call {
            return (c.file, TextRange::new(c.start.into(), c.end.into()));
        }
        if t.file != ARENA && !self.out.files[t.file as usize].is_virtual {
            return (t.file, TextRange::at(t.start.into(), t.len.into()));
        }
        let f = self.frames.last().map(|f| f.file).unwrap_or(0);
        (f, TextRange::empty(self.line_anchor.1.into()))
    }

    fn arena_tok(&mut self, kind: SyntaxKind, text: &str, flags: u8) -> PpTok {
        let start = self.out.arena.len() as u32;
        self.out.arena.push_str(text);
        PpTok { kind, flags, file: ARENA, start, len: text.len() as u32 }
    }

    // ---- output -------------------------------------------------------------------------

    fn emitting(&self) -> bool {
        self.frames.last().is_some_and(|f| f.emit)
    }

    fn emit_raw(&mut self, kind: SyntaxKind, file: u32, start: u32, len: u32, call: u32) {
        let index = self.out.pieces.len() as u32;
        if let Some(layout) = &mut self.out.layout {
            layout.push(index, kind);
        }
        self.out.pieces.push(Piece { kind, file, start, len, call });
    }

    // ---- the main loop ------------------------------------------------------------------

    fn run(&mut self) {
        loop {
            self.run_plain();
            let Some(t) = self.next_file_token() else { break };
            if let Some(m) = self.expandable(&t) {
                self.expand_top_level(t, m);
            } else if self.emitting() {
                self.emit_raw(t.kind, t.file, t.start, t.len, NO_CALL);
            }
        }
    }

    /// Copies the current file's tokens to the output while nothing about them needs the
    /// general path: trivia, and tokens that cannot start a directive or name a macro.
    /// Stops (without consuming it) at a token that might or that holds a lexer error, at
    /// the end of the file, and at once in a skipped region; [`Pp::next_file_token`]
    /// takes over.
    fn run_plain(&mut self) {
        if self.call.is_some() || self.stay_in_file {
            return;
        }
        #[cfg(test)]
        if tests::GENERAL_PATH_ONLY.with(|c| c.get()) {
            return;
        }
        let Some(frame) = self.frames.last_mut() else { return };
        if !frame.emit {
            return;
        }
        let file = frame.file;
        let text: &str = &self.out.files[file as usize].text;
        let tokens: &[Token] = &frame.tokens;
        let mut idx = frame.idx;
        // stop before the token that holds the next lexer error: the general path
        // reports it (see `check_lex_errors`)
        let from = tokens.get(idx).map_or(u32::MAX, |t| t.start);
        let errors = &frame.lex_errors;
        let limit = errors
            .get(errors.partition_point(|e| u32::from(e.range.start()) < from))
            .map_or(u32::MAX, |e| e.range.start().into());
        // the tokens before it (ends only grow, and an empty token counts as one byte)
        let stop = match limit {
            u32::MAX => tokens.len(),
            _ => idx + tokens.get(idx..).map_or(0, |t| t.partition_point(|t| t.end().max(t.start + 1) <= limit)),
        };
        let mut at_bol = frame.at_bol;
        let mut saw_space = self.saw_space;
        for &tok in tokens.get(idx..stop).unwrap_or(&[]) {
            match tok.kind {
                NEWLINE => {
                    at_bol = true;
                    saw_space = true;
                }
                WHITESPACE | COMMENT => saw_space = true,
                HASH if at_bol => break,
                ERROR_TOKEN => break,
                k if k.is_ident_like()
                    && self
                        .filter
                        .may_contain(text.as_bytes().get(tok.start as usize..tok.end() as usize).unwrap_or(&[])) =>
                {
                    break;
                }
                _ => {
                    at_bol = false;
                    saw_space = false;
                }
            }
            if let Some(layout) = &mut self.out.layout {
                layout.push(self.out.pieces.len() as u32, tok.kind);
            }
            self.out.pieces.push(Piece { kind: tok.kind, file, start: tok.start, len: tok.len, call: NO_CALL });
            idx += 1;
        }
        frame.idx = idx;
        frame.at_bol = at_bol;
        self.saw_space = saw_space;
    }

    /// The macro `t` invokes, if it names an enabled macro.
    fn expandable(&self, t: &PpTok) -> Option<u32> {
        if !t.kind.is_ident_like() || t.has(NO_EXPAND) {
            return None;
        }
        let m = self.lookup_macro(self.text_of(t))?;
        (self.disabled(m) == 0).then_some(m)
    }

    /// The next non-trivia token from the files, processing directives, emitting trivia,
    /// and popping finished files. `None` at the end of the main file.
    fn next_file_token(&mut self) -> Option<PpTok> {
        loop {
            let frame = self.frames.last_mut()?;
            if frame.idx >= frame.tokens.len() {
                if self.stay_in_file {
                    return None;
                }
                self.pop_frame();
                continue;
            }
            let tok = frame.tokens[frame.idx];
            frame.idx += 1;
            let file = frame.file;
            let at_bol = frame.at_bol;
            let idx = frame.idx;
            if tok.kind == NEWLINE {
                frame.at_bol = true;
            }
            let deferred = tok.kind == ERROR_TOKEN
                && at_bol
                && is_deferred_directive(&frame.tokens[idx - 1..], &self.out.files[file as usize].text);
            self.note_consumed(file, tok.end());
            match tok.kind {
                NEWLINE | WHITESPACE | COMMENT => {
                    self.saw_space = true;
                    if tok.kind == COMMENT {
                        self.check_lex_errors(tok);
                    }
                    if self.call.is_none() && self.emitting() {
                        self.emit_raw(tok.kind, file, tok.start, tok.len, NO_CALL);
                    }
                }
                HASH if at_bol => {
                    self.directive(idx - 1, tok.start);
                }
                ERROR_TOKEN if deferred => {
                    // ANGLE's `@@#include ...`: a directive its build un-defers
                    self.directive(idx + 1, tok.start);
                }
                _ => {
                    if let Some(f) = self.frames.last_mut() {
                        f.at_bol = false;
                    }
                    self.check_lex_errors(tok);
                    let flags = if std::mem::take(&mut self.saw_space) { LEADING_SPACE } else { 0 };
                    return Some(PpTok { kind: tok.kind, flags, file, start: tok.start, len: tok.len });
                }
            }
        }
    }

    /// Everything read from a file during a top-level invocation belongs to its text.
    fn note_consumed(&mut self, file: u32, end: u32) {
        if let Some(c) = &mut self.call
            && c.file == file
        {
            c.end = c.end.max(end);
        }
    }

    fn check_lex_errors(&mut self, tok: Token) {
        let Some(frame) = self.frames.last() else {
            return;
        };
        if frame.lex_errors.is_empty() || !frame.emit {
            return;
        }
        let errs = frame.lex_errors.clone();
        let file = frame.file;
        let i = errs.partition_point(|e| u32::from(e.range.start()) < tok.start);
        for e in errs[i..].iter().take_while(|e| u32::from(e.range.start()) < tok.end().max(tok.start + 1)) {
            self.diag(file, e.range, Severity::Error, "E0001", e.message.clone());
        }
    }

    // ---- macro expansion ----------------------------------------------------------------

    fn expand_top_level(&mut self, name: PpTok, m: u32) {
        let call_id = self.out.calls.len() as u32;
        let emit = self.emitting();
        self.line_anchor = (name.file, name.start);
        self.call = Some(CallTrack { file: name.file, start: name.start, end: name.end() });
        self.file_reads = true;
        self.expansion_depth = 0;
        self.invocation_tokens = 0;
        if self.expanded_tokens <= MAX_EXPANDED_TOKENS {
            self.overflowed = false;
            self.overflow_reported = false;
        }
        if !self.try_expand(name, m) {
            // a function-like macro name without arguments: just an identifier
            self.call = None;
            if emit {
                self.emit_raw(name.kind, name.file, name.start, name.len, NO_CALL);
            }
            return;
        }
        let mut out = self.lists.tokens();
        self.drain_pending(&mut out);
        let track = self.call.take().expect("call tracking is set during a top-level expansion");
        if !emit {
            self.lists.give_tokens(out);
            return;
        }
        let info = self.info_index(m);
        self.out.calls.push(MacroCall {
            file: track.file,
            range: TextRange::new(track.start.into(), track.end.into()),
            def: info,
        });
        self.emit_raw(MACRO_CALL, track.file, track.start, track.end - track.start, call_id);
        for (i, t) in out.iter().enumerate() {
            // a space only where the tokens would otherwise run together: most of an
            // expansion's spaces separate nothing, and each is a piece and a tree token
            if i > 0 && t.has(LEADING_SPACE) && run_together(&out[i - 1], t, |t| self.text_of(t)) {
                self.emit_raw(WHITESPACE, ARENA, 0, 1, call_id);
            }
            self.emit_raw(t.kind, t.file, t.start, t.len, call_id);
        }
        self.lists.give_tokens(out);
    }

    /// Rescans the pending tokens until none remain, expanding macros as they appear.
    fn drain_pending(&mut self, out: &mut Vec<PpTok>) {
        while let Some(Pending(mut t)) = self.pending.pop() {
            if t.kind == Pending::END {
                self.adjust_disabled(t.start, true);
                continue;
            }
            if t.kind.is_ident_like() && !t.has(NO_EXPAND) {
                if let Some(m) = self.lookup_macro(self.text_of(&t)) {
                    if self.disabled(m) > 0 {
                        // painted blue: never expands again
                        t.flags |= NO_EXPAND;
                    } else if self.try_expand(t, m) {
                        continue;
                    }
                }
            }
            out.push(t);
        }
    }

    /// Skips trivia and markers in `pending` (and, when allowed, the file) to see whether
    /// the next token is `(`.
    fn next_is_lparen(&self) -> bool {
        if let Some(Pending(t)) = self.pending.iter().rev().find(|p| p.0.kind != Pending::END) {
            return t.kind == L_PAREN;
        }
        if !self.file_reads {
            return false;
        }
        let Some(frame) = self.frames.last() else {
            return false;
        };
        let mut at_bol = frame.at_bol;
        for t in &frame.tokens[frame.idx..] {
            match t.kind {
                NEWLINE => at_bol = true,
                WHITESPACE | COMMENT => {}
                HASH if at_bol => return false,
                k => return k == L_PAREN,
            }
        }
        false
    }

    /// The next token while collecting arguments: from `pending` (re-enabling macros whose
    /// expansion ends) and then, if allowed, the current file.
    fn next_arg_token(&mut self) -> Option<PpTok> {
        while let Some(Pending(t)) = self.pending.pop() {
            if t.kind != Pending::END {
                return Some(t);
            }
            self.adjust_disabled(t.start, true);
        }
        if !self.file_reads {
            return None;
        }
        // stay within the current file: an invocation cannot span the end of a header
        let frame = self.frames.last()?;
        if frame.tokens[frame.idx..].iter().all(|t| t.kind.is_trivia()) {
            return None;
        }
        self.stay_in_file = true;
        let t = self.next_file_token();
        self.stay_in_file = false;
        t
    }

    /// Expands the macro `m` invoked by `name`, pushing the result onto `pending`.
    /// Returns false if `m` is function-like and no `(` follows.
    fn try_expand(&mut self, name: PpTok, m: u32) -> bool {
        let mac = self.mac(m);
        if mac.function_like && !self.next_is_lparen() {
            return false;
        }
        if let Some(b) = mac.builtin {
            return self.expand_builtin(name, b);
        }
        if self.overflowed {
            // stop expanding, keep the tokens flowing
            return false;
        }
        let function_like = mac.function_like;
        let args = if function_like {
            // consume `(`
            let lp = self.next_arg_token();
            debug_assert!(lp.is_some_and(|t| t.kind == L_PAREN));
            match self.collect_args(m, &name) {
                Some(a) => a,
                None => return true,
            }
        } else {
            Vec::new()
        };
        let result = self.substitute(m, &name, &args);
        for arg in args {
            self.lists.give_tokens(arg);
        }
        self.expanded_tokens += result.len();
        self.invocation_tokens += result.len();
        if self.overflowed
            || self.invocation_tokens > MAX_INVOCATION_TOKENS
            || self.expanded_tokens > MAX_EXPANDED_TOKENS
        {
            self.overflowed = true;
            self.ever_overflowed = true;
            // drop what is queued, but re-enable the macros whose expansions it held
            while let Some(Pending(t)) = self.pending.pop() {
                if t.kind == Pending::END {
                    self.adjust_disabled(t.start, true);
                }
            }
            let limit = if self.invocation_tokens > MAX_INVOCATION_TOKENS {
                format!("this invocation produced more than {MAX_INVOCATION_TOKENS} tokens")
            } else {
                format!("macros in this unit produced more than {MAX_EXPANDED_TOKENS} tokens")
            };
            if !self.overflow_reported {
                self.overflow_reported = true;
                self.diag_tok(
                    &name,
                    Severity::Error,
                    "E0020",
                    format!("{limit}; expansion stopped (is a macro expanding exponentially?)"),
                );
            }
            self.lists.give_tokens(result);
            return true;
        }
        self.adjust_disabled(m, false);
        self.pending.push(Pending::end(m));
        let first_flags = name.flags & LEADING_SPACE;
        self.pending.reserve(result.len());
        for (i, &t) in result.iter().enumerate().rev() {
            let t = if i == 0 { PpTok { flags: (t.flags & !LEADING_SPACE) | first_flags, ..t } } else { t };
            self.pending.push(Pending(t));
        }
        self.lists.give_tokens(result);
        true
    }

    fn expand_builtin(&mut self, name: PpTok, b: Builtin) -> bool {
        let (file, off) = self.line_anchor;
        let tok = match b {
            Builtin::Line => {
                if file == 0 {
                    self.line_uses.push(off);
                }
                let line = self.line_number(file, off);
                self.arena_tok(INT_NUMBER, &line.to_string(), name.flags)
            }
            Builtin::File => {
                let path = self.presumed_file(file).replace('\\', "\\\\").replace('"', "\\\"");
                self.arena_tok(STRING_LIT, &format!("\"{path}\""), name.flags)
            }
            Builtin::BaseFile => {
                let main = self.out.files.first().map(|f| f.path.display().to_string()).unwrap_or_default();
                self.arena_tok(
                    STRING_LIT,
                    &format!("\"{}\"", main.replace('\\', "\\\\").replace('"', "\\\"")),
                    name.flags,
                )
            }
            Builtin::Counter => {
                let c = self.counter;
                self.counter += 1;
                self.arena_tok(INT_NUMBER, &c.to_string(), name.flags)
            }
            Builtin::IncludeLevel => {
                let level = self.frames.iter().filter(|f| f.emit).count().saturating_sub(1);
                self.arena_tok(INT_NUMBER, &level.to_string(), name.flags)
            }
            Builtin::Date => self.arena_tok(STRING_LIT, "\"Jan  1 2000\"", name.flags),
            Builtin::Time => self.arena_tok(STRING_LIT, "\"00:00:00\"", name.flags),
            Builtin::Pragma => {
                // _Pragma("...") : consume the operand, produce nothing
                let _lp = self.next_arg_token();
                let mut depth = 0;
                while let Some(t) = self.next_arg_token() {
                    match t.kind {
                        L_PAREN => depth += 1,
                        R_PAREN if depth == 0 => break,
                        R_PAREN => depth -= 1,
                        _ => {}
                    }
                }
                return true;
            }
            Builtin::CondOnly => {
                let n = self.text_of(&name).to_string();
                self.diag_tok(
                    &name,
                    Severity::Error,
                    "E0011",
                    format!("`{n}` can only be used in `#if` and `#elif` conditions"),
                );
                return false;
            }
        };
        self.pending.push(Pending(tok));
        true
    }

    /// Collects the arguments of an invocation of `m` after its `(`.
    fn collect_args(&mut self, m: u32, name: &PpTok) -> Option<Vec<Vec<PpTok>>> {
        let mac = self.mac(m);
        let nparams = mac.params.len() + mac.variadic as usize;
        let variadic = mac.variadic;
        let mut args: Vec<Vec<PpTok>> = Vec::with_capacity(nparams.max(1));
        args.push(self.lists.tokens());
        let mut depth = 0u32;
        loop {
            let Some(t) = self.next_arg_token() else {
                let n = self.mac(m).name.to_string();
                self.diag_tok(
                    name,
                    Severity::Error,
                    "E0021",
                    format!("unterminated invocation of macro `{n}`: missing `)`"),
                );
                return None;
            };
            match t.kind {
                L_PAREN => depth += 1,
                R_PAREN if depth == 0 => break,
                R_PAREN => depth -= 1,
                COMMA if depth == 0 && !(variadic && args.len() >= nparams) => {
                    args.push(self.lists.tokens());
                    continue;
                }
                _ => {}
            }
            if let Some(last) = args.last_mut() {
                last.push(t);
            }
        }
        // `f()` passes one empty argument, which is fine for zero or one parameter
        if nparams == 0 && args.len() == 1 && args[0].is_empty() {
            args.clear();
        }
        if variadic && args.len() == nparams - 1 {
            args.push(Vec::new());
        }
        if args.len() != nparams {
            let mac = self.mac(m);
            let n = mac.name.to_string();
            let expected = if variadic { format!("at least {}", nparams - 1) } else { nparams.to_string() };
            let got = args.len();
            self.diag_tok(
                name,
                Severity::Error,
                "E0022",
                format!(
                    "macro `{n}` expects {expected} argument{}, but {got} {} given",
                    if nparams == 1 { "" } else { "s" },
                    if got == 1 { "was" } else { "were" }
                ),
            );
            return None;
        }
        Some(args)
    }

    /// Fully expands a token list on its own (an argument, or an `#if` line).
    fn expand_isolated(&mut self, tokens: &[PpTok]) -> Vec<PpTok> {
        if self.expansion_depth >= MAX_EXPANSION_DEPTH {
            if let Some(t) = tokens.first() {
                let t = *t;
                self.diag_tok(&t, Severity::Error, "E0020", "macro arguments nested too deeply; expansion stopped");
            }
            self.overflowed = true;
            self.ever_overflowed = true;
            return tokens.to_vec();
        }
        self.expansion_depth += 1;
        let fresh = self.lists.pending();
        let saved = std::mem::replace(&mut self.pending, fresh);
        let saved_reads = std::mem::replace(&mut self.file_reads, false);
        self.pending.extend(tokens.iter().rev().map(|t| Pending(*t)));
        let mut out = self.lists.tokens();
        out.reserve(tokens.len());
        self.drain_pending(&mut out);
        let drained = std::mem::replace(&mut self.pending, saved);
        self.lists.give_pending(drained);
        self.file_reads = saved_reads;
        self.expansion_depth -= 1;
        out
    }

    /// Builds the replacement of an invocation: parameters substituted, `#` and `##`
    /// applied. The result is rescanned by the caller.
    fn substitute(&mut self, m: u32, name: &PpTok, args: &[Vec<PpTok>]) -> Vec<PpTok> {
        let (body, param_of) = self.body_of(m);
        let mac = self.mac(m);
        let (function_like, variadic, va_index) = (mac.function_like, mac.variadic, mac.params.len());
        let mut expanded: Vec<Option<Vec<PpTok>>> = vec![None; args.len()];
        let mut out = self.lists.tokens();
        out.reserve(body.len());
        self.subst_range(
            &body,
            &param_of,
            0,
            body.len(),
            args,
            &mut expanded,
            function_like,
            variadic,
            va_index,
            &mut out,
        );
        for list in expanded.into_iter().flatten() {
            self.lists.give_tokens(list);
        }
        self.lists.give_tokens(body);
        self.lists.give_params(param_of);
        let has_paste = out.iter().any(|t| t.has(PASTE_OP));
        let mut out = if has_paste { self.apply_pastes(out, name) } else { out };
        out.retain(|t| !t.has(PLACEMARKER));
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn subst_range(
        &mut self,
        body: &[PpTok],
        param_of: &[i32],
        from: usize,
        to: usize,
        args: &[Vec<PpTok>],
        expanded: &mut Vec<Option<Vec<PpTok>>>,
        function_like: bool,
        variadic: bool,
        va_index: usize,
        out: &mut Vec<PpTok>,
    ) {
        let mut i = from;
        while i < to {
            let t = body[i];
            // `#param`
            if function_like && t.kind == HASH && i + 1 < to && param_of[i + 1] >= 0 {
                let p = param_of[i + 1] as usize;
                let s = self.stringize(args.get(p).map(|a| a.as_slice()).unwrap_or(&[]));
                let tok = self.arena_tok(STRING_LIT, &s, t.flags & LEADING_SPACE);
                out.push(tok);
                i += 2;
                continue;
            }
            // `__VA_OPT__( ... )`
            if variadic
                && t.kind == IDENT
                && self.text_of(&t) == "__VA_OPT__"
                && i + 1 < to
                && body[i + 1].kind == L_PAREN
            {
                let mut depth = 0;
                let mut j = i + 1;
                while j < to {
                    match body[j].kind {
                        L_PAREN => depth += 1,
                        R_PAREN => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                let va_present = args.get(va_index).is_some_and(|a| !a.is_empty());
                if va_present {
                    self.subst_range(
                        body,
                        param_of,
                        i + 2,
                        j.min(to),
                        args,
                        expanded,
                        function_like,
                        variadic,
                        va_index,
                        out,
                    );
                } else {
                    out.push(PpTok { kind: EOF, flags: PLACEMARKER, file: ARENA, start: 0, len: 0 });
                }
                i = j + 1;
                continue;
            }
            if param_of[i] >= 0 {
                let p = param_of[i] as usize;
                let next_paste = i + 1 < to && body[i + 1].has(PASTE_OP);
                let prev_paste = i > from && body[i - 1].has(PASTE_OP);
                let va_flag = if variadic && p == va_index { FROM_VA_ARGS } else { 0 };
                let raw = args.get(p).map(|a| a.as_slice()).unwrap_or(&[]);
                let use_raw = next_paste || prev_paste;
                if !use_raw && expanded[p].is_none() {
                    let e = self.expand_isolated(raw);
                    expanded[p] = Some(e);
                }
                let toks: &[PpTok] = if use_raw { raw } else { expanded[p].as_deref().unwrap_or(&[]) };
                // a substitution can multiply a large argument: stop at the budget
                if self.invocation_tokens + out.len() + toks.len() > MAX_INVOCATION_TOKENS {
                    self.invocation_tokens += out.len() + toks.len();
                    self.overflowed = true;
                    self.ever_overflowed = true;
                    return;
                }
                if toks.is_empty() {
                    out.push(PpTok { kind: EOF, flags: PLACEMARKER | va_flag, file: ARENA, start: 0, len: 0 });
                } else {
                    let first = out.len();
                    out.extend_from_slice(toks);
                    for a in &mut out[first..] {
                        a.flags |= va_flag;
                    }
                    out[first].flags = (out[first].flags & !LEADING_SPACE) | (t.flags & LEADING_SPACE);
                }
                i += 1;
                continue;
            }
            out.push(t);
            i += 1;
        }
    }

    fn apply_pastes(&mut self, toks: Vec<PpTok>, name: &PpTok) -> Vec<PpTok> {
        let mut out: Vec<PpTok> = Vec::with_capacity(toks.len());
        let mut it = toks.into_iter().peekable();
        while let Some(t) = it.next() {
            if !t.has(PASTE_OP) {
                out.push(t);
                continue;
            }
            let Some(rhs) = it.next() else { break };
            let Some(lhs) = out.pop() else {
                out.push(rhs);
                continue;
            };
            // GNU: `, ## __VA_ARGS__` drops the comma when the variadic arguments are empty
            if lhs.kind == COMMA && rhs.has(PLACEMARKER) && rhs.has(FROM_VA_ARGS) {
                continue;
            }
            if lhs.kind == COMMA && rhs.has(FROM_VA_ARGS) && !rhs.has(PLACEMARKER) {
                out.push(lhs);
                out.push(rhs);
                continue;
            }
            if lhs.has(PLACEMARKER) {
                out.push(rhs);
                continue;
            }
            if rhs.has(PLACEMARKER) {
                out.push(lhs);
                continue;
            }
            let joined = format!("{}{}", self.text_of(&lhs), self.text_of(&rhs));
            match lexer::lex_single(&joined) {
                Some(kind) => {
                    let tok = self.arena_tok(kind, &joined, lhs.flags & LEADING_SPACE);
                    out.push(tok);
                }
                None => {
                    let (l, r) = (self.text_of(&lhs).to_string(), self.text_of(&rhs).to_string());
                    self.diag_tok(
                        name,
                        Severity::Error,
                        "E0023",
                        format!("pasting `{l}` and `{r}` does not give a valid preprocessing token"),
                    );
                    out.push(lhs);
                    out.push(rhs);
                }
            }
        }
        out
    }

    fn stringize(&self, toks: &[PpTok]) -> String {
        let mut s = String::from("\"");
        for (i, t) in toks.iter().enumerate() {
            if i > 0 && t.has(LEADING_SPACE) {
                s.push(' ');
            }
            let text = self.text_of(t);
            if matches!(t.kind, STRING_LIT | CHAR_LIT) {
                for c in text.chars() {
                    if c == '"' || c == '\\' {
                        s.push('\\');
                    }
                    s.push(c);
                }
            } else {
                s.push_str(text);
            }
        }
        s.push('"');
        s
    }

    // ---- directives ---------------------------------------------------------------------

    /// The tokens of the directive line starting at `hash_idx` in the current frame:
    /// returns the non-trivia tokens after `#` and the index of the terminating newline.
    fn directive_line(&self, hash_idx: usize) -> (Vec<PpTok>, usize) {
        let frame = self.frames.last().expect("directive inside a file");
        let mut toks = Vec::new();
        let mut space = false;
        let mut i = hash_idx + 1;
        while i < frame.tokens.len() {
            let t = frame.tokens[i];
            match t.kind {
                NEWLINE => break,
                WHITESPACE | COMMENT => space = true,
                _ => {
                    toks.push(PpTok {
                        kind: t.kind,
                        flags: if space { LEADING_SPACE } else { 0 },
                        file: frame.file,
                        start: t.start,
                        len: t.len,
                    });
                    space = false;
                }
            }
            i += 1;
        }
        (toks, i)
    }

    /// Processes the directive whose `#` is at `hash_idx`; its text starts at `start`.
    fn directive(&mut self, hash_idx: usize, start: u32) {
        let (line, end_idx) = self.directive_line(hash_idx);
        let frame = self.frames.last_mut().expect("directive inside a file");
        let file = frame.file;
        let hash = frame.tokens[hash_idx];
        let last_end = frame.tokens[hash_idx..end_idx].last().map(|t| t.end()).unwrap_or(hash.end());
        frame.idx = end_idx;
        frame.at_bol = false;
        self.note_consumed(file, last_end);
        let range = TextRange::new(start.into(), last_end.into());
        if self.call.is_none() && self.emitting() {
            self.emit_raw(PP_DIRECTIVE, file, start, last_end - start, NO_CALL);
        }
        self.line_anchor = (file, hash.start);
        let Some(name_tok) = line.first().copied() else {
            return;
        }; // null directive
        let name = self.text_of(&name_tok).to_string();
        let rest = &line[1..];
        if self.call.is_some() && matches!(name.as_str(), "include" | "import" | "include_next") {
            self.diag(
                file,
                range,
                Severity::Error,
                "E0012",
                "`#include` inside the arguments of a macro invocation is not supported",
            );
            return;
        }
        match name.as_str() {
            "define" => self.define(rest, file),
            "undef" => {
                if let Some(t) = rest.first() {
                    let n = self.text_of(t).to_string();
                    if let Some(m) = self.lookup_macro(&n) {
                        if self.mac(m).builtin.is_some() {
                            self.diag(
                                file,
                                t_range(t),
                                Severity::Warning,
                                "W0004",
                                format!("undefining builtin macro `{n}`"),
                            );
                        }
                    }
                    let n: Arc<str> = n.into();
                    let at = self.out.pieces.len() as u32;
                    self.changed_at.insert(n.clone(), at);
                    self.history.push((at, n.clone(), UNDEFINED));
                    self.macro_names.insert(n, UNDEFINED);
                } else {
                    self.diag(file, range, Severity::Error, "E0013", "`#undef` needs a macro name");
                }
            }
            "include" | "import" | "include_next" => self.include(rest, file, range, name == "import"),
            "if" | "ifdef" | "ifndef" => {
                let v = self.eval_condition(&name, rest, file, range);
                self.frames.last_mut().expect("in a file").conds.push(Cond { range, taken: v, else_seen: false });
                if !v {
                    self.skip_inactive();
                }
            }
            "elif" | "else" | "elifdef" | "elifndef" => {
                let frame = self.frames.last_mut().expect("in a file");
                let state = frame.conds.last_mut().map(|c| {
                    let was = c.else_seen;
                    if name == "else" {
                        c.else_seen = true;
                    }
                    was
                });
                match state {
                    None => {
                        self.diag(file, range, Severity::Error, "E0014", format!("`#{name}` without a matching `#if`"))
                    }
                    Some(else_seen) => {
                        if else_seen {
                            self.diag(file, range, Severity::Error, "E0015", format!("`#{name}` after `#else`"));
                        }
                        // we were in the taken branch: skip the rest of the chain
                        self.skip_inactive();
                    }
                }
            }
            "endif" => {
                if self.frames.last_mut().expect("in a file").conds.pop().is_none() {
                    self.diag(file, range, Severity::Error, "E0014", "`#endif` without a matching `#if`");
                }
            }
            "pragma" => {
                if let Some(t) = rest.first()
                    && self.text_of(t) == "once"
                {
                    self.once.insert(file);
                }
            }
            "error" => {
                let msg = self.directive_message(rest);
                self.diag(file, range, Severity::Error, "E0016", format!("#error {msg}"));
            }
            "warning" => {
                let msg = self.directive_message(rest);
                self.diag(file, range, Severity::Warning, "W0016", format!("#warning {msg}"));
            }
            "line" => self.line_directive(rest, file, range, end_idx),
            "ident" | "sccs" | "assert" | "unassert" => {}
            _ => {
                if name_tok.kind == INT_NUMBER {
                    // GNU line marker `# 12 "file"`
                    self.line_directive(&line, file, range, end_idx);
                } else {
                    self.diag(
                        file,
                        t_range(&name_tok),
                        Severity::Error,
                        "E0017",
                        format!("invalid preprocessing directive `#{name}`"),
                    );
                }
            }
        }
    }

    fn directive_message(&self, rest: &[PpTok]) -> String {
        match (rest.first(), rest.last()) {
            (Some(a), Some(b)) => {
                let text = &self.out.files[a.file as usize].text;
                text[a.start as usize..b.end() as usize].to_string()
            }
            _ => String::new(),
        }
    }

    fn line_directive(&mut self, rest: &[PpTok], file: u32, range: TextRange, end_idx: usize) {
        let expanded = self.expand_isolated(rest);
        let num = expanded.first().filter(|t| t.kind == INT_NUMBER).and_then(|t| self.text_of(t).parse::<u32>().ok());
        let Some(num) = num else {
            self.diag(file, range, Severity::Error, "E0018", "`#line` needs a line number");
            return;
        };
        let name =
            expanded.get(1).filter(|t| t.kind == STRING_LIT).map(|t| self.text_of(t).trim_matches('"').to_string());
        let frame = self.frames.last().expect("in a file");
        let next_line_start = frame.tokens.get(end_idx).map(|t| t.end()).unwrap_or(u32::from(range.end()));
        self.line_directives.entry(file).or_default().push((next_line_start, num, name));
    }

    fn line_number(&mut self, file: u32, offset: u32) -> u32 {
        if file == ARENA {
            return 0;
        }
        let text = self.out.files[file as usize].text.clone();
        let starts = self.line_offsets.entry(file).or_insert_with(|| {
            let mut v = vec![0u32];
            v.extend(text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i as u32 + 1));
            v
        });
        let line = starts.partition_point(|&s| s <= offset) as u32;
        if let Some(dirs) = self.line_directives.get(&file)
            && let Some((at, num, _)) = dirs.iter().rev().find(|(at, _, _)| *at <= offset)
        {
            let at_line = starts.partition_point(|&s| s <= *at) as u32;
            return num + (line - at_line);
        }
        line
    }

    fn presumed_file(&self, file: u32) -> String {
        if let Some(dirs) = self.line_directives.get(&file)
            && let Some((_, _, Some(name))) = dirs.iter().rev().find(|d| d.2.is_some())
        {
            return name.clone();
        }
        self.out.files.get(file as usize).map(|f| f.path.display().to_string()).unwrap_or_default()
    }

    fn define(&mut self, rest: &[PpTok], file: u32) {
        let Some(&name_tok) = rest.first() else {
            self.diag(file, self.directive_range_hint(), Severity::Error, "E0013", "`#define` needs a macro name");
            return;
        };
        if !name_tok.kind.is_ident_like() {
            self.diag(file, t_range(&name_tok), Severity::Error, "E0013", "macro names must be identifiers");
            return;
        }
        let name: Arc<str> = self.text_of(&name_tok).into();
        if &*name == "defined" {
            self.diag(file, t_range(&name_tok), Severity::Error, "E0013", "`defined` cannot be used as a macro name");
            return;
        }
        let mut i = 1;
        let function_like = rest.get(1).is_some_and(|t| t.kind == L_PAREN && t.start == name_tok.end());
        let mut params: Vec<Arc<str>> = Vec::new();
        let mut variadic = false;
        let mut va_name: Option<Arc<str>> = None;
        if function_like {
            i = 2;
            let mut expect_param = true;
            loop {
                let Some(t) = rest.get(i).copied() else {
                    self.diag(
                        file,
                        t_range(&name_tok),
                        Severity::Error,
                        "E0013",
                        "missing `)` in macro parameter list",
                    );
                    return;
                };
                i += 1;
                match t.kind {
                    R_PAREN if !expect_param || params.is_empty() && !variadic => break,
                    DOT3 if expect_param => {
                        variadic = true;
                        expect_param = false;
                    }
                    COMMA if !expect_param && !variadic => expect_param = true,
                    k if k.is_ident_like() && expect_param => {
                        let p: Arc<str> = self.text_of(&t).into();
                        if rest.get(i).is_some_and(|n| n.kind == DOT3) {
                            // GNU named variadic parameter `args...`
                            i += 1;
                            variadic = true;
                            va_name = Some(p);
                        } else {
                            if params.contains(&p) {
                                self.diag(
                                    file,
                                    t_range(&t),
                                    Severity::Error,
                                    "E0013",
                                    format!("duplicate macro parameter `{p}`"),
                                );
                            }
                            params.push(p);
                        }
                        expect_param = false;
                    }
                    R_PAREN if variadic => break,
                    _ => {
                        let s = self.text_of(&t).to_string();
                        self.diag(
                            file,
                            t_range(&t),
                            Severity::Error,
                            "E0013",
                            format!("unexpected `{s}` in macro parameter list"),
                        );
                        return;
                    }
                }
            }
        }
        let mut body: Vec<PpTok> = rest[i..].to_vec();
        if let Some(first) = body.first_mut() {
            first.flags &= !LEADING_SPACE;
        }
        let mut param_of = vec![-1i32; body.len()];
        for (k, t) in body.iter_mut().enumerate() {
            if t.kind == HASH2 {
                t.flags |= PASTE_OP;
            }
            if function_like && t.kind.is_ident_like() {
                let text = self.text_of(t);
                if let Some(p) = params.iter().position(|p| &**p == text) {
                    param_of[k] = p as i32;
                } else if variadic && (text == "__VA_ARGS__" || va_name.as_deref() == Some(text)) {
                    param_of[k] = params.len() as i32;
                }
            }
        }
        if body.first().is_some_and(|t| t.kind == HASH2)
            || (body.len() > 1 && body.last().is_some_and(|t| t.kind == HASH2))
        {
            self.diag(
                file,
                t_range(&name_tok),
                Severity::Error,
                "E0013",
                "`##` cannot appear at either end of a macro replacement list",
            );
            return;
        }
        if body.len() == 1 && body[0].kind == HASH2 {
            body[0].flags &= !PASTE_OP;
        }
        if function_like {
            for k in 0..body.len() {
                if body[k].kind == HASH && !(k + 1 < body.len() && param_of[k + 1] >= 0) {
                    let is_va_opt = k + 1 < body.len() && self.text_of(&body[k + 1]) == "__VA_OPT__";
                    if !is_va_opt {
                        self.diag(
                            file,
                            t_range(&body[k]),
                            Severity::Error,
                            "E0013",
                            "`#` must be followed by a macro parameter",
                        );
                        return;
                    }
                }
            }
        }
        let body_text = {
            let mut s = String::new();
            for (k, t) in body.iter().enumerate() {
                if k > 0 && t.has(LEADING_SPACE) {
                    s.push(' ');
                }
                s.push_str(self.text_of(t));
            }
            s
        };
        // redefinition check
        if let Some(old) = self.lookup_macro(&name) {
            let o = self.mac(old);
            let old_info = self.info_of(old);
            let same = o.builtin.is_none()
                && o.function_like == function_like
                && *o.params == *params
                && o.variadic == variadic
                && *old_info.body == *body_text;
            if !same && !self.out.files[file as usize].is_virtual {
                let msg = if o.builtin.is_some() {
                    format!("redefining builtin macro `{name}`")
                } else {
                    format!("macro `{name}` redefined with a different definition")
                };
                self.diag(file, t_range(&name_tok), Severity::Warning, "W0005", msg);
            }
        }
        let new_info = MacroInfo {
            name: name.clone(),
            file,
            name_range: t_range(&name_tok),
            params: function_like.then(|| params.iter().map(|p| p.to_string()).collect()),
            variadic,
            body: body_text.into(),
        };
        let reused = if self.watch_before != u32::MAX {
            // a body preprocessed again: its definitions are the old body's, unmoved
            let slot = self.reuse_infos.first().copied();
            match slot.filter(|&i| self.out.macros.get(i as usize) == Some(&new_info)) {
                Some(i) => {
                    self.reuse_infos.remove(0);
                    Some(i)
                }
                None => {
                    self.stale.set(true);
                    None
                }
            }
        } else {
            None
        };
        let info = match reused {
            Some(i) => i,
            None => {
                self.out.macros.push(new_info);
                self.out.macros.len() as u32 - 1
            }
        };
        let idx = self.macros.len() as u32;
        let body_start = self.bodies.len() as u32;
        let body_len = body.len() as u32;
        self.bodies.extend(body);
        self.param_of.extend(param_of);
        self.macros.push(Macro {
            name: name.clone(),
            function_like,
            params: params.into(),
            variadic,
            body_start,
            body_len,
            disabled: 0,
            builtin: None,
            info,
        });
        self.filter.insert(&name);
        let at = self.out.pieces.len() as u32;
        self.changed_at.insert(name.clone(), at);
        self.history.push((at, name.clone(), idx));
        self.macro_names.insert(name, idx);
    }

    fn directive_range_hint(&self) -> TextRange {
        TextRange::empty(self.line_anchor.1.into())
    }

    // ---- includes -----------------------------------------------------------------------

    fn include(&mut self, rest: &[PpTok], file: u32, range: TextRange, is_import: bool) {
        let Some((name, angled)) = self.header_name(rest) else {
            self.diag(file, range, Severity::Error, "E0030", "expected a header name: `\"file.h\"` or `<file.h>`");
            return;
        };
        let record = self.out.includes.len();
        self.out.includes.push(Include { file, range, name: name.clone(), angled, target: None });
        if self.frames.len() > MAX_INCLUDE_DEPTH {
            self.diag(
                file,
                range,
                Severity::Error,
                "E0031",
                format!("#include nested more than {MAX_INCLUDE_DEPTH} levels deep"),
            );
            return;
        }
        // Apple's headers always come from the model, never from the disk
        if builtin::classify(&name) == SystemHeader::Modelled {
            let idx = self.include_system(&name);
            self.out.includes[record].target = Some(idx);
            return;
        }
        let mut found = self.search(&name, angled, file);
        let mut elsewhere = Vec::new();
        if found.is_none() && !angled && self.config.infer_includes {
            let candidates = self.search_above(&name, file);
            match candidates.as_slice() {
                [(id, dir)] => {
                    found = Some(*id);
                    self.diag(
                        file,
                        range,
                        Severity::Note,
                        "N0034",
                        format!(
                            "\"{name}\" was found in `{}`, a folder above this file; add it to the include \
                             directories (`include` in msl.toml, or `-I`) to say so",
                            dir.display()
                        ),
                    );
                }
                _ => elsewhere = candidates.into_iter().map(|(_, dir)| dir).collect(),
            }
        }
        match found {
            Some(id) => {
                let idx = self.add_real_file(id);
                self.out.includes[record].target = Some(idx);
                if is_import {
                    self.once.insert(idx);
                }
                if self.once.contains(&idx) && self.lexed[idx as usize].is_some() {
                    return;
                }
                if let Some(guard) = self.guard_of(idx)
                    && self.lookup_macro(&guard).is_some()
                {
                    return;
                }
                if self.frames.iter().any(|f| f.file == idx) {
                    let path = self.out.files[idx as usize].path.display().to_string();
                    self.diag(
                        file,
                        range,
                        Severity::Error,
                        "E0032",
                        format!(
                            "#include cycle: `{path}` is already being included; add an include guard or `#pragma once`"
                        ),
                    );
                    return;
                }
                if self.lexed[idx as usize].is_none() {
                    self.report_load_issues(idx);
                }
                self.push_frame(idx, true);
            }
            None if angled => {
                self.diag(
                    file,
                    range,
                    Severity::Warning,
                    "W0030",
                    format!("`<{name}>` is not part of the modelled Metal standard library and was not found in the include paths; declarations from it are unknown to analysis"),
                );
            }
            None if !elsewhere.is_empty() => {
                let dirs: Vec<String> = elsewhere.iter().map(|d| format!("`{}`", d.display())).collect();
                self.diag(
                    file,
                    range,
                    Severity::Error,
                    "E0033",
                    format!(
                        "file not found: \"{name}\" is in several folders above this file ({}); add the one \
                         meant to the include directories (`-I DIR`)",
                        dirs.join(", ")
                    ),
                );
            }
            None => {
                self.diag(file, range, Severity::Error, "E0033", format!("file not found: \"{name}\" (searched next to the including file and in the include paths; add `-I DIR`)"));
            }
        }
    }

    /// Makes a modelled header's declarations known (once); its file's index.
    fn include_system(&mut self, name: &str) -> u32 {
        if let Some(&idx) = self.builtin_headers.get(name) {
            return idx;
        }
        // the implicit `<metal_stdlib>` holds every other library header
        if name.starts_with("metal_")
            && let Some(&idx) = self.builtin_headers.get(IMPLICIT_HEADER)
        {
            return idx;
        }
        let config = self.config;
        let batch = batch_for(Some(name), config, || builtin::header_text(name, config));
        let idx = self.install(&batch);
        self.builtin_headers.insert(name.to_string(), idx);
        idx
    }

    fn header_name(&mut self, rest: &[PpTok]) -> Option<(String, bool)> {
        let first = rest.first()?;
        match first.kind {
            STRING_LIT => {
                let s = self.text_of(first);
                let s = s.strip_prefix('"')?.strip_suffix('"')?;
                Some((s.to_string(), false))
            }
            L_ANGLE => {
                let close = rest.iter().position(|t| t.kind == R_ANGLE || t.kind == SHR || t.kind == GTEQ)?;
                if first.file == ARENA || rest[close].file != first.file {
                    let mut s = String::new();
                    for (k, t) in rest[1..close].iter().enumerate() {
                        if k > 0 && t.has(LEADING_SPACE) {
                            s.push(' ');
                        }
                        s.push_str(self.text_of(t));
                    }
                    return Some((s, true));
                }
                let text = &self.out.files[first.file as usize].text;
                Some((text[first.end() as usize..rest[close].start as usize].to_string(), true))
            }
            _ => {
                // computed include: expand and try again
                let expanded = self.expand_isolated(rest);
                if expanded.first().is_some_and(|t| matches!(t.kind, STRING_LIT | L_ANGLE)) {
                    if expanded.first().is_some_and(|t| t.kind == L_ANGLE) {
                        let close = expanded.iter().position(|t| t.kind == R_ANGLE)?;
                        let mut s = String::new();
                        for (k, t) in expanded[1..close].iter().enumerate() {
                            if k > 0 && t.has(LEADING_SPACE) {
                                s.push(' ');
                            }
                            s.push_str(self.text_of(t));
                        }
                        return Some((s, true));
                    }
                    return self.header_name(&expanded[..1]);
                }
                None
            }
        }
    }

    fn search(&self, name: &str, angled: bool, from: u32) -> Option<FileId> {
        let path = Path::new(name);
        if path.is_absolute() {
            return self.resolver.resolve(path);
        }
        if !angled {
            let here = &self.out.files[from as usize].path;
            if let Some(dir) = here.parent() {
                if let Some(id) = self.resolver.resolve(&dir.join(path)) {
                    return Some(id);
                }
            }
        }
        for dir in &self.config.include_dirs {
            if let Some(id) = self.resolver.resolve(&dir.join(path)) {
                return Some(id);
            }
        }
        None
    }

    /// The files named `name` (a relative path) in the folders above the file numbered
    /// `from`, from its parent's parent up to the project's root, and in the search roots,
    /// each with the folder it is in; one entry per file.
    fn search_above(&self, name: &str, from: u32) -> Vec<(FileId, PathBuf)> {
        let mut out: Vec<(FileId, PathBuf)> = Vec::new();
        let path = Path::new(name);
        if path.is_absolute() {
            return out;
        }
        let mut add = |resolver: &dyn FileResolver, dir: &Path| {
            if let Some(id) = resolver.resolve(&dir.join(path))
                && !out.iter().any(|(known, _)| *known == id)
            {
                out.push((id, dir.to_path_buf()));
            }
        };
        let includer = &self.out.files[from as usize];
        if !includer.is_virtual
            && let Some(dir) = includer.path.parent()
        {
            // the includer's own folder was searched already; when it is the project's
            // root, nothing above it is looked at
            if !self.resolver.is_project_root(dir) {
                for above in dir.ancestors().skip(1) {
                    if above.as_os_str().is_empty() {
                        break;
                    }
                    add(self.resolver, above);
                    if self.resolver.is_project_root(above) {
                        break;
                    }
                }
            }
        }
        for root in &self.config.search_roots {
            add(self.resolver, root);
        }
        out
    }

    /// The include-guard macro of a file wholly wrapped in `#ifndef G` / `#define G` ...
    /// `#endif`, if it has one.
    fn guard_of(&mut self, file: u32) -> Option<Arc<str>> {
        if let Some(g) = self.guards.get(&file) {
            return g.clone();
        }
        let tokens = self.lex_file(file).tokens;
        let g = detect_guard(&tokens, &self.out.files[file as usize].text);
        self.guards.insert(file, g.clone());
        g
    }

    // ---- conditionals -------------------------------------------------------------------

    fn eval_condition(&mut self, kind: &str, rest: &[PpTok], file: u32, range: TextRange) -> bool {
        match kind {
            "ifdef" | "ifndef" | "elifdef" | "elifndef" => {
                let Some(t) = rest.first() else {
                    self.diag(file, range, Severity::Error, "E0019", format!("`#{kind}` needs a macro name"));
                    return false;
                };
                let defined = self.lookup_macro(self.text_of(t)).is_some();
                if kind.ends_with("ndef") { !defined } else { defined }
            }
            _ => {
                if rest.is_empty() {
                    self.diag(file, range, Severity::Error, "E0019", format!("`#{kind}` needs an expression"));
                    return false;
                }
                let toks = self.resolve_defined(rest);
                let expanded = self.expand_isolated(&toks);
                let expanded = self.resolve_defined(&expanded);
                let texts: Vec<expr::ExprTok> =
                    expanded.iter().map(|t| expr::ExprTok { kind: t.kind, text: self.text_of(t) }).collect();
                match expr::evaluate(&texts) {
                    Ok(v) => v.is_true(),
                    Err(msg) => {
                        self.diag(file, range, Severity::Error, "E0019", format!("in `#{kind}`: {msg}"));
                        false
                    }
                }
            }
        }
    }

    /// Replaces `defined X`, `defined(X)`, `__has_include(...)`, `__has_attribute(...)`
    /// and similar by `1` or `0`, before macro expansion.
    fn resolve_defined(&mut self, toks: &[PpTok]) -> Vec<PpTok> {
        let mut out = Vec::with_capacity(toks.len());
        let mut i = 0;
        while i < toks.len() {
            let t = toks[i];
            let text = if t.kind.is_ident_like() { self.text_of(&t).to_string() } else { String::new() };
            let value = match text.as_str() {
                "defined" => {
                    let (name, next) = if toks.get(i + 1).is_some_and(|n| n.kind == L_PAREN) {
                        (toks.get(i + 2).copied(), i + 4)
                    } else {
                        (toks.get(i + 1).copied(), i + 2)
                    };
                    let v = name.is_some_and(|n| self.lookup_macro(self.text_of(&n)).is_some());
                    i = next;
                    Some(v)
                }
                "__has_include"
                | "__has_include_next"
                | "__has_attribute"
                | "__has_cpp_attribute"
                | "__has_feature"
                | "__has_extension"
                | "__has_builtin"
                | "__is_identifier"
                    if toks.get(i + 1).is_some_and(|n| n.kind == L_PAREN) =>
                {
                    let close = toks[i + 1..].iter().position(|n| n.kind == R_PAREN).map(|p| p + i + 1);
                    let inner = &toks[i + 2..close.unwrap_or(toks.len())];
                    let v = self.has_query(&text, inner, t.file);
                    i = close.map(|c| c + 1).unwrap_or(toks.len());
                    Some(v)
                }
                _ => None,
            };
            match value {
                Some(v) => {
                    let tok = self.arena_tok(INT_NUMBER, if v { "1" } else { "0" }, t.flags);
                    out.push(tok);
                }
                None => {
                    out.push(t);
                    i += 1;
                }
            }
        }
        out
    }

    fn has_query(&mut self, what: &str, inner: &[PpTok], file: u32) -> bool {
        let joined = || inner.iter().map(|t| self.text_of(t)).collect::<String>();
        match what {
            "__has_include" | "__has_include_next" => match self.header_name(inner) {
                Some((name, angled)) => {
                    builtin::classify(&name) == SystemHeader::Modelled
                        || self.search(&name, angled, self.frames.last().map(|f| f.file).unwrap_or(file)).is_some()
                }
                None => false,
            },
            "__has_attribute" | "__has_cpp_attribute" => {
                let s = joined();
                builtin::has_attribute(s.rsplit("::").next().unwrap_or(&s))
            }
            "__has_feature" | "__has_extension" => builtin::has_feature(&joined()),
            "__has_builtin" => builtin::has_builtin(&joined()),
            "__is_identifier" => inner.first().is_some_and(|t| t.kind == IDENT),
            _ => false,
        }
    }

    /// Skips lines of an inactive branch, emitting them as one `PP_INACTIVE` piece per
    /// region, until the branch ends: returns after processing the `#elif`/`#else` that
    /// starts an active branch, or the `#endif` that closes the conditional.
    fn skip_inactive(&mut self) {
        loop {
            let Some(frame) = self.frames.last() else {
                return;
            };
            let file = frame.file;
            let tokens = frame.tokens.clone();
            let region_start = frame.idx;
            let mut i = region_start;
            let mut at_bol = frame.at_bol;
            let mut depth = 0u32;
            let mut stop: Option<(usize, String)> = None;
            while i < tokens.len() {
                let t = tokens[i];
                match t.kind {
                    NEWLINE => at_bol = true,
                    WHITESPACE | COMMENT => {}
                    HASH if at_bol => {
                        at_bol = false;
                        let name_tok = tokens[i + 1..].iter().find(|t| !matches!(t.kind, WHITESPACE | COMMENT));
                        if let Some(n) = name_tok.filter(|n| n.kind != NEWLINE) {
                            let name = &self.out.files[file as usize].text[n.start as usize..n.end() as usize];
                            match name {
                                "if" | "ifdef" | "ifndef" => depth += 1,
                                "endif" if depth > 0 => depth -= 1,
                                "elif" | "else" | "endif" | "elifdef" | "elifndef" if depth == 0 => {
                                    stop = Some((i, name.to_string()));
                                    break;
                                }
                                _ => {}
                            }
                        }
                    }
                    _ => at_bol = false,
                }
                i += 1;
            }
            let end_offset = match stop {
                Some((h, _)) => tokens[h].start,
                None => tokens.last().map(|t| t.end()).unwrap_or(0),
            };
            let start_offset = tokens.get(region_start).map(|t| t.start).unwrap_or(end_offset);
            self.note_consumed(file, end_offset);
            if end_offset > start_offset && self.call.is_none() && self.emitting() {
                self.emit_raw(PP_INACTIVE, file, start_offset, end_offset - start_offset, NO_CALL);
            }
            let Some((hash_idx, name)) = stop else {
                // end of file inside an inactive branch; pop_frame reports it
                let frame = self.frames.last_mut().expect("in a file");
                frame.idx = tokens.len();
                return;
            };
            // process the directive that ends the region
            let (line, end_idx) = self.directive_line(hash_idx);
            let frame = self.frames.last_mut().expect("in a file");
            let last_end = tokens[hash_idx..end_idx].last().map(|t| t.end()).unwrap_or(tokens[hash_idx].end());
            frame.idx = end_idx;
            frame.at_bol = false;
            self.note_consumed(file, last_end);
            let range = TextRange::new(tokens[hash_idx].start.into(), last_end.into());
            if self.call.is_none() && self.emitting() {
                self.emit_raw(PP_DIRECTIVE, file, tokens[hash_idx].start, last_end - tokens[hash_idx].start, NO_CALL);
            }
            self.line_anchor = (file, tokens[hash_idx].start);
            let rest = &line[1..];
            let frame = self.frames.last_mut().expect("in a file");
            let Some(cond) = frame.conds.last_mut() else {
                return;
            };
            let (else_seen, taken) = (cond.else_seen, cond.taken);
            match name.as_str() {
                "endif" => {
                    frame.conds.pop();
                    return;
                }
                "else" => {
                    cond.else_seen = true;
                    cond.taken = true;
                    if else_seen {
                        self.diag(file, range, Severity::Error, "E0015", "`#else` after `#else`");
                    }
                    if !taken {
                        return;
                    }
                }
                _ => {
                    if else_seen {
                        self.diag(file, range, Severity::Error, "E0015", format!("`#{name}` after `#else`"));
                    }
                    if !taken && self.eval_condition(&name, rest, file, range) {
                        if let Some(c) = self.frames.last_mut().expect("in a file").conds.last_mut() {
                            c.taken = true;
                        }
                        return;
                    }
                }
            }
        }
    }
}

/// `@@#` at the start of a line (ANGLE marks directives this way so that a first
/// preprocessing pass leaves them alone; its build then removes the `@@`).
fn is_deferred_directive(tokens: &[Token], text: &str) -> bool {
    matches!(tokens, [a, b, h, ..] if a.kind == ERROR_TOKEN && b.kind == ERROR_TOKEN && h.kind == HASH
        && &text[a.start as usize..h.end() as usize] == "@@#")
}

fn t_range(t: &PpTok) -> TextRange {
    TextRange::at(t.start.into(), TextSize::from(t.len))
}

/// Finds the include-guard macro of a file: first directive `#ifndef G` (or
/// `#if !defined(G)`), whose `#endif` is the last directive and is followed only by trivia.
fn detect_guard(tokens: &[Token], text: &str) -> Option<Arc<str>> {
    let tx = |t: &Token| &text[t.start as usize..t.end() as usize];
    // the tokens that matter, from the first that is not a line break (one pass over the
    // header, nothing copied: a header's tokens are many, and most headers are guarded)
    let mut sig = tokens.iter().filter(|t| !matches!(t.kind, WHITESPACE | COMMENT)).skip_while(|t| t.kind == NEWLINE);
    // first line: `# ifndef G` or `# if !defined(G)` / `# if !defined G`
    if sig.next()?.kind != HASH {
        return None;
    }
    let guard = match (sig.next().map(tx), sig.next()) {
        (Some("ifndef"), Some(g)) if g.kind.is_ident_like() => match sig.next() {
            Some(t) if t.kind == NEWLINE => tx(g),
            // a guard that nothing closes
            _ => return None,
        },
        (Some("if"), Some(b)) if b.kind == BANG => {
            let mut rest = [""; 5];
            let mut n = 0;
            for t in sig.by_ref() {
                if t.kind == NEWLINE {
                    break;
                }
                if n == rest.len() {
                    return None;
                }
                rest[n] = tx(t);
                n += 1;
            }
            match rest[..n] {
                ["defined", "(", g, ")"] | ["defined", g] => g,
                _ => return None,
            }
        }
        _ => return None,
    };
    // the opening conditional must close at the last directive, and only line breaks may
    // follow the line that closes it
    let mut depth = 1i32;
    let mut at_bol = true;
    let mut closed = false;
    while let Some(t) = sig.next() {
        match t.kind {
            NEWLINE => at_bol = true,
            _ if closed && at_bol => return None,
            HASH if at_bol => {
                at_bol = false;
                match sig.next() {
                    Some(d) => match tx(d) {
                        "if" | "ifdef" | "ifndef" => depth += 1,
                        "endif" => {
                            depth -= 1;
                            closed = depth == 0;
                        }
                        "else" | "elif" | "elifdef" | "elifndef" if depth == 1 => return None,
                        _ if d.kind == NEWLINE => at_bol = true,
                        _ => {}
                    },
                    None => break,
                }
            }
            _ => at_bol = false,
        }
    }
    closed.then(|| guard.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Vfs;
    use std::path::Path;

    thread_local! {
        /// Turns [`Pp::run_plain`] off, to compare its output with the general path's.
        pub(super) static GENERAL_PATH_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    /// Two tokens that [`run_together`] writes with nothing between them lex back as the
    /// same two tokens, for every pair of a sample of each kind (every punctuator).
    #[test]
    fn tokens_written_without_a_space_lex_back_as_themselves() {
        let mut samples: Vec<String> =
            (SEMI as u16..=HASH2 as u16).filter_map(|k| SyntaxKind::from(k).text()).map(str::to_string).collect();
        samples.extend(
            ["x", "_a1", "u8", "R", "L", "int", "unsigned", "true", "1", "0x1F", "1.5", "1e5", "1.f", ".5", "1'000"]
                .iter()
                .chain(&["0x1p3", "5u", "\"s\"", "u8\"s\"", "'c'", "L'c'", "\"\"", "@", "$", r"'\''", r#""\\""#])
                // literals the lexer found no end for (each runs to the end of the line)
                .chain(&["\"open", "u8\"", r#""e\""#, r#"R"d(\)d""#])
                .map(|s| s.to_string()),
        );
        // the first token's text is `file` 0's, the second's `file` 1's
        let token = |text: &str, file: u32| {
            let (tokens, _) = lexer::lex(text);
            assert_eq!(tokens.len(), 1, "{text:?} is one token");
            PpTok { kind: tokens[0].kind, flags: 0, file, start: 0, len: tokens[0].len }
        };
        let run_together = |a: &str, b: &str| {
            let texts = [a, b];
            run_together(&token(a, 0), &token(b, 1), |t| texts[t.file as usize])
        };
        for a in &samples {
            for b in &samples {
                let (ta, tb) = (token(a, 0), token(b, 1));
                if run_together(a, b) {
                    continue;
                }
                let both = format!("{a}{b}");
                let (tokens, _) = lexer::lex(&both);
                let got: Vec<_> = tokens.iter().map(|t| (t.kind, t.len)).collect();
                assert_eq!(got, [(ta.kind, ta.len), (tb.kind, tb.len)], "{a:?} then {b:?} written as {both:?}");
            }
        }
        // words, numbers and most punctuators next to each other need a space
        let joins = run_together;
        assert!(joins("unsigned", "int") && joins(">", ">") && joins("1", ".") && joins("u8", "\"s\""));
        assert!(
            !joins("f", "(") && !joins(")", "+") && !joins("]", "[") && !joins("x", "<") && !joins("\"s\"", "\"t\"")
        );
        assert!(joins("\"open", "+") && joins(r#""e\""#, "\"t\"") && joins("\"s\"", "x") && joins("/", "*"));
    }

    #[test]
    fn batches_are_kept_per_configuration() {
        let batch = |header: Option<&str>, config: &PpConfig| match header {
            None => batch_for(None, config, || builtin::predefines(config)),
            Some(h) => batch_for(Some(h), config, || builtin::header_text(h, config)),
        };
        let mut one = PpConfig::default();
        one.define("BATCH_TEST_ONE=1");
        let first = batch(None, &one);
        assert!(first.names.contains_key("BATCH_TEST_ONE"));
        // an equal configuration finds the same batch
        assert!(Arc::ptr_eq(&first, &batch(None, &one.clone())));
        // another macro, version, platform or fast-math setting makes another
        let mut two = one.clone();
        two.define("BATCH_TEST_TWO");
        let second = batch(None, &two);
        assert!(!Arc::ptr_eq(&first, &second));
        assert!(second.names.contains_key("BATCH_TEST_TWO") && !first.names.contains_key("BATCH_TEST_TWO"));
        let mut older = one.clone();
        older.version = crate::MetalVersion::V2_0;
        let mut ios = one.clone();
        ios.platform = crate::Platform::IOS;
        let mut precise = one.clone();
        precise.fast_math = false;
        let mut undefined = one.clone();
        undefined.undefines.push("__METAL_MACOS__".into());
        let defines_macos = |b: &Batch| b.names.get("__METAL_MACOS__").is_some_and(|&m| m != UNDEFINED);
        assert!(defines_macos(&first) && !defines_macos(&batch(None, &undefined)));
        for other in [&older, &ios, &precise, &undefined] {
            assert!(!Arc::ptr_eq(&first, &batch(None, other)), "{other:?}");
        }
        assert!(precise.fast_math != one.fast_math && !batch(None, &precise).names.contains_key("__FAST_MATH__"));
        // a header's batch does not depend on the command line's macros, and is its own
        let header = batch(Some("metal_stdlib"), &one);
        assert!(Arc::ptr_eq(&header, &batch(Some("metal_stdlib"), &two)));
        assert!(!Arc::ptr_eq(&header, &batch(Some("metal_math"), &one)));
        assert!(!Arc::ptr_eq(&header, &first));
        assert_eq!(header.path, Path::new("<metal_stdlib>"));
        assert_eq!(first.path, Path::new("<built-in>"));
    }

    /// The unit of `main` (with `files` beside it), preprocessed with and without the
    /// plain path: the outputs must be equal.
    fn both_paths(main: &str, files: &[(&str, &str)]) -> Preprocessed {
        let vfs = Vfs::new();
        let id = vfs.add_file(Path::new("/t/input.metal"), main);
        for (path, text) in files {
            vfs.add_file(Path::new("/t").join(path), *text);
        }
        compare(&vfs, id, main)
    }

    fn compare(vfs: &Vfs, id: crate::FileId, main: &str) -> Preprocessed {
        let config = PpConfig::default();
        let fast = preprocess_unit(id, vfs, &config, true, None);
        GENERAL_PATH_ONLY.with(|c| c.set(true));
        let general = preprocess_unit(id, vfs, &config, true, None);
        GENERAL_PATH_ONLY.with(|c| c.set(false));
        assert_eq!(fast.pieces, general.pieces, "{main}");
        assert_eq!(fast.diagnostics, general.diagnostics, "{main}");
        assert_eq!(fast.calls, general.calls, "{main}");
        assert_eq!(fast.arena, general.arena, "{main}");
        assert_eq!(fast.includes, general.includes, "{main}");
        assert_eq!(fast.macros, general.macros, "{main}");
        // the parser's view built while emitting is the one built from the pieces after
        let after = crate::parser::TokenLayout::of_pieces(&fast);
        assert_eq!(fast.layout.as_ref(), Some(&after), "{main}");
        assert_eq!(general.layout.as_ref(), Some(&after), "{main}");
        fast
    }

    #[test]
    fn the_plain_path_gives_what_the_general_path_gives() {
        // macros among plain tokens, `#` after tokens and after a comment, keyword and
        // predefined macros, a header (its tokens, and the main file's after it)
        both_paths("#define N 4\nint a[N]; # define M 1\nfloat b = M + N;\n#if 0\nx\n#endif\nint c;\n", &[]);
        both_paths("/*c*/ #define X 1\nint y = X;\n  # define Y (X+1)\nint z=Y;", &[]);
        both_paths("#define float half\nfloat f; int l = __LINE__; _Pragma(\"once\") int k = __COUNTER__;\n", &[]);
        let with_header = both_paths(
            "int before;\n#include \"h.h\"\nint after = H(2);\n",
            &[("h.h", "#pragma once\n#define H(x) (x * 2)\nint in_header = H(1);\n")],
        );
        assert!(with_header.diagnostics.is_empty(), "{:?}", with_header.diagnostics);
        assert_eq!(with_header.calls.len(), 2);
        // lexer errors: the general path takes the tokens that hold them
        both_paths("int a = 1; ` int b;\nfloat c = 1.0q; int d;\n\"open\nint e; /* open", &[]);
        // the fixtures, read from the disk so that their includes resolve
        let vfs = Vfs::with_disk();
        let mut count = 0;
        for path in crate::fixture_files(&["syntax/ok", "syntax/err", "check", "reparse"]) {
            if let Ok(id) = vfs.load(&path) {
                compare(&vfs, id, &path.display().to_string());
                count += 1;
            }
        }
        assert!(count > 20);
    }

    #[test]
    fn include_guards_are_found_only_where_they_guard_the_whole_file() {
        let guard = |text: &str| detect_guard(&lexer::lex(text).0, text).map(|g| g.to_string());
        let found = [
            ("#ifndef G\n#define G\nint a;\n#endif\n", "G"),
            ("// header\n\n  /* c */ #ifndef G_H // why\n#define G_H\n#endif // G_H\n\n", "G_H"),
            ("#if !defined(G)\n#define G\n#endif", "G"),
            ("#if !defined G\n#define G\n#endif\n", "G"),
            ("#ifndef G\n#if A\n#elif B\n#else\n#endif\n#ifdef C\n#endif\n#\n#endif\n", "G"),
            ("#ifndef G\n#endif trailing words\n\n", "G"),
        ];
        for (text, g) in found {
            assert_eq!(guard(text).as_deref(), Some(g), "{text:?}");
        }
        let not_found = [
            "",
            "int a;\n#ifndef G\n#define G\n#endif\n",
            "#ifdef G\n#endif\n",
            "#ifndef G\n#define G\n",
            "#ifndef G",
            "#ifndef G X\n#endif\n",
            "#ifndef G\n#else\n#endif\n",
            "#ifndef G\n#elif A\n#endif\n",
            "#ifndef G\n#endif\nint after;\n",
            "#ifndef G\n#endif\n#define AFTER\n",
            "#ifndef G\n#endif\n#\n",
            "#ifndef G\n#if A\n#endif\n",
            "#if !defined(G) && 1\n#endif\n",
            "#if !G\n#endif\n",
            "#if defined(G)\n#endif\n",
        ];
        for text in not_found {
            assert_eq!(guard(text), None, "{text:?}");
        }
    }
}
