//! Building the rowan tree from the parser's events and the preprocessed pieces, and the
//! result type that ties the tree to its origins and diagnostics.

use std::path::Path;
use std::sync::Arc;

use rowan::{GreenNode, GreenToken, NodeOrToken};
use rustc_hash::FxHashMap;

use crate::parser::{
    BodyStart, Chunk, ErrorAt, Event, HAND_OFF_EVENTS, Parser, ScopeLog, TokenLayout, parse_events,
    parse_events_streaming,
};
use crate::pp::{self, ARENA, NO_CALL, Preprocessed};
use crate::short::{self, ShortText};
use crate::{FileId, FileResolver, PpConfig, Severity, SyntaxKind, SyntaxNode, SyntaxToken, TextRange, TextSize, Vfs};

/// A message about the source: a preprocessor or syntax error, or a warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Index into [`Parse::files`].
    pub file: u32,
    pub range: TextRange,
    pub severity: Severity,
    /// Stable code: `E0xxx` for errors, `W0xxx` for warnings.
    pub code: &'static str,
    pub message: String,
}

/// A piece of a file as the preprocessor read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FilePiece<'a> {
    /// Its number in the unit (see [`Parse::piece`]).
    pub index: usize,
    /// A token's kind, or `PP_DIRECTIVE`, `PP_INACTIVE`, `MACRO_CALL`, trivia.
    pub kind: SyntaxKind,
    pub file: u32,
    /// Its range in its file.
    pub range: TextRange,
    pub text: &'a str,
    /// The macro invocation it belongs to: the one it names (`MACRO_CALL`), or the one
    /// whose argument it is.
    pub macro_call: Option<u32>,
}

/// Where a token of the tree came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Written in a file at a range.
    Spelled { file: u32, range: TextRange },
    /// Produced by expanding the macro invocation written at `call_range` in `call_file`.
    /// `spelling` is where the token's text was written (in the macro's definition or in
    /// the invocation's arguments), when it was written anywhere.
    Macro { call: u32, call_file: u32, call_range: TextRange, spelling: Option<(u32, TextRange)> },
}

impl Origin {
    /// The place in a file to show for this token: its spelling, or the invocation.
    pub fn file_range(&self) -> (u32, TextRange) {
        match *self {
            Origin::Spelled { file, range } => (file, range),
            Origin::Macro { call_file, call_range, .. } => (call_file, call_range),
        }
    }
}

/// The result of parsing a translation unit: a lossless-where-possible rowan tree, the
/// preprocessing record, and every problem found. Never fails.
#[derive(Clone)]
pub struct Parse {
    green: GreenNode,
    pub(crate) pp: Arc<Preprocessed>,
    /// Tree offset of the start of each piece: made on first use by
    /// [`Parse::piece_starts`] (a two-thread parse makes it on its second thread).
    piece_starts: std::sync::OnceLock<Vec<u32>>,
    pub(crate) diagnostics: Vec<Diagnostic>,
    pub(crate) state: Option<Arc<ParseState>>,
    /// Per file, the pieces spelled in it (tokens, trivia, directives and macro
    /// invocations) in file order: built on first use by [`Parse::piece_at`].
    file_pieces: std::sync::OnceLock<Arc<Vec<Vec<u32>>>>,
    /// Tokens held by the tree builders of a two-thread parse when they finished (their
    /// tokens by text, and tokens made ahead and not used), when there is no background
    /// thread to free them at once (see [`keep_spare`]).
    spare: Option<Arc<Spare>>,
}

impl Drop for Parse {
    /// The tree and the preprocessing record are freed on a background thread (see
    /// [`crate::free_later`]); empty stand-ins take their place meanwhile.
    fn drop(&mut self) {
        static EMPTY: std::sync::OnceLock<(GreenNode, Arc<Preprocessed>)> = std::sync::OnceLock::new();
        let (green, pp) = EMPTY.get_or_init(|| {
            (GreenNode::new(SyntaxKind::SOURCE_FILE.into(), std::iter::empty()), Arc::new(Preprocessed::default()))
        });
        let green = std::mem::replace(&mut self.green, green.clone());
        let pp = std::mem::replace(&mut self.pp, pp.clone());
        let rest = (
            self.piece_starts.take(),
            std::mem::take(&mut self.diagnostics),
            self.state.take(),
            self.file_pieces.take(),
            self.spare.take(),
        );
        crate::free_later((green, pp, rest));
    }
}

impl std::fmt::Debug for Parse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Parse").field("diagnostics", &self.diagnostics).finish_non_exhaustive()
    }
}

/// Parses the translation unit whose main file is `main`.
pub fn parse_file(main: FileId, resolver: &dyn FileResolver, config: &PpConfig) -> Parse {
    if crate::threads::second_thread()
        && let Some(parse) = parse_long_file(main, resolver, config)
    {
        return parse;
    }
    build(pp::preprocess_unit(main, resolver, config, true, None))
}

/// Parses a single in-memory file (its includes can only reach modelled system headers).
pub fn parse_text(text: &str, config: &PpConfig) -> Parse {
    let vfs = Vfs::new();
    let id = vfs.add_file(Path::new("input.metal"), text);
    parse_file(id, &vfs, config)
}

/// Units with at least this many pieces build their tree on a second thread while the
/// parser runs (below it, starting the thread costs more than it saves).
const PIPELINE_PIECES: usize = 20_000;

fn build(pp: Preprocessed) -> Parse {
    let pipelined = (pp.pieces.len() >= PIPELINE_PIECES && crate::threads::second_thread()).then_some(HAND_OFF_EVENTS);
    build_with(pp, pipelined)
}

/// `pipelined`: build the tree on two threads, from runs of this many events (at least).
fn build_with(mut pp: Preprocessed, pipelined: Option<usize>) -> Parse {
    let layout = pp.layout.take();
    let built = match pipelined {
        Some(chunk_events) => build_pipelined(&pp, layout, chunk_events),
        None => on_one_thread(&pp, layout),
    };
    built.finish(&pp).into_parse(pp)
}

/// A parse with its tree built.
struct Built<'p> {
    parser: Parser<'p>,
    green: GreenNode,
    /// The tree offset of each piece, if made (see [`Parse::piece_starts`]).
    piece_starts: Option<Vec<u32>>,
    /// The parser errors the events refer to, in event order.
    error_events: Vec<u32>,
    /// Tokens made and not used (see [`Parse::spare`]).
    spare: Spare,
}

/// Tokens held by finished tree builders (see [`Parse::spare`]), in lists as they were.
type Spare = Vec<Vec<Option<GreenToken>>>;

/// A parse with its tree built, done with the parser (which borrows the preprocessed
/// unit, so that the unit can move into the [`Parse`]).
struct Done {
    green: GreenNode,
    piece_starts: Option<Vec<u32>>,
    state: ParseState,
    diagnostics: Vec<Diagnostic>,
    spare: Spare,
}

impl Built<'_> {
    /// Takes what is needed from the parser and locates the errors.
    fn finish(self, pp: &Preprocessed) -> Done {
        let Built { mut parser, green, piece_starts, error_events, spare } = self;
        let state = ParseState {
            scope_log: parser.scopes.owned_log(),
            bodies: std::mem::take(&mut parser.bodies),
            stuck: parser.was_stuck,
            generation: 0,
        };
        let token_pieces = parser.take_token_pieces();
        let errors = std::mem::take(&mut parser.errors);
        drop(parser);
        let parse_diagnostics = locate_errors(pp, error_events, &token_pieces, errors);
        let mut diagnostics: Vec<Diagnostic> = pp.diagnostics.iter().map(Diagnostic::from_pp).collect();
        diagnostics.extend(parse_diagnostics);
        Done { green, piece_starts, state, diagnostics, spare }
    }
}

impl Done {
    fn into_parse(self, pp: Preprocessed) -> Parse {
        Parse {
            green: self.green,
            pp: Arc::new(pp),
            piece_starts: self.piece_starts.map(std::sync::OnceLock::from).unwrap_or_default(),
            diagnostics: self.diagnostics,
            state: Some(Arc::new(self.state)),
            file_pieces: Default::default(),
            spare: keep_spare(self.spare),
        }
    }
}

/// Where the spare tokens of a parse's tree builders go: to the background thread that
/// frees values, now, when there is one (the language server's); else into the `Parse`,
/// to be freed with it (a batch tool drops parses soon). Either way they are not freed
/// while the parse waits, nor kept for long (a made-ahead list costs 8 bytes per token).
fn keep_spare(spare: Spare) -> Option<Arc<Spare>> {
    if spare.is_empty() {
        return None;
    }
    if crate::free::in_background() {
        crate::free_later(spare);
        return None;
    }
    Some(Arc::new(spare))
}

/// A unit whose main file is long, on two threads from the start (see [`parse_ahead`]),
/// the main file lexed in two halves. `None` (before any work) when the file is short,
/// has no place to split it, or no thread could be started for the lexing.
fn parse_long_file(main: FileId, resolver: &dyn FileResolver, config: &PpConfig) -> Option<Parse> {
    let text = resolver.text(main);
    let lexed = crate::lexer::lex_long(&text)?;
    parse_ahead(main, resolver, config, text, lexed, Share::BothThreads)
}

/// The unit whose main file is `main`, parsed as a long main file is (see
/// [`parse_ahead`]) whatever its length, and with every run of events built by the second
/// thread, so that every piece of a short file has a chance to take a token made ahead:
/// for tests and fuzzing, which compare it with [`parse_file`]. Uses two threads even when
/// [`crate::parse_on_two_threads`] is off.
#[doc(hidden)]
pub fn parse_file_ahead(main: FileId, resolver: &dyn FileResolver, config: &PpConfig) -> Parse {
    let text = resolver.text(main);
    let lexed = crate::lexer::lex(&text);
    parse_ahead(main, resolver, config, text, lexed, Share::SecondThreadOnly)
        .unwrap_or_else(|| parse_file(main, resolver, config))
}

/// Which threads build the runs of events in [`parse_alongside`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Share {
    /// The parser's thread helps once the parse is done.
    BothThreads,
    /// The second thread builds them all.
    SecondThreadOnly,
}

/// A unit on two threads from the start, its main file's `text` lexed already: while
/// this thread preprocesses the unit, the second one makes the tree's tokens for every
/// token of the main file, and of each header as the preprocessor lexes it (see
/// [`Prebuilt`]). After that the parse goes on as in [`build_pipelined`], and the runs
/// take their tokens from what it made. `None` only if the preprocessed unit went missing,
/// which cannot happen.
fn parse_ahead(
    main: FileId,
    resolver: &dyn FileResolver,
    config: &PpConfig,
    text: Arc<str>,
    (tokens, errors): (Vec<crate::lexer::Token>, Vec<crate::lexer::LexError>),
    share: Share,
) -> Option<Parse> {
    let tokens = Arc::new(tokens);
    let cell: std::sync::OnceLock<Preprocessed> = std::sync::OnceLock::new();
    let made = MadeAhead::new();
    let queue = Arc::new(ChunkQueue::default());
    let mut done = std::thread::scope(|s| {
        let (text, tokens, queue, cell, made) = (&text, &tokens, &queue, &cell, &made);
        // both senders belong to this closure: if the preprocessor panics, unwinding drops
        // them, and the second thread stops waiting instead of holding the scope open
        let (ready, wait_ready) = std::sync::mpsc::channel::<()>();
        let (tell, told) = std::sync::mpsc::channel::<pp::LexedFile>();
        let worker = std::thread::Builder::new()
            .name("msl-tree".into())
            .spawn_scoped(s, move || {
                let mut builder = Builder::new(cache_slots(text.len() / 3));
                let mut main_tokens = Some(Prebuilt::make(&mut builder, text, tokens));
                // the preprocessor tells of the main file (where it is in its list of
                // files) and of each header as it lexes it, until it is done; a header is
                // made with a builder of its own, which its text outlives
                let mut prebuilt: Vec<Option<Prebuilt>> = Vec::new();
                while let Ok(f) = told.recv() {
                    let i = f.file as usize;
                    if prebuilt.len() <= i {
                        prebuilt.resize_with(i + 1, || None);
                    }
                    prebuilt[i] = if Arc::ptr_eq(&f.tokens, tokens) {
                        main_tokens.take()
                    } else {
                        let mut own = Builder::new(cache_slots(f.tokens.len()));
                        Some(Prebuilt::make(&mut own, &f.text, &f.tokens))
                    };
                }
                let prebuilt = made.get_or_init(|| prebuilt);
                // an error: the preprocessing thread gave up (it is unwinding a panic)
                wait_ready.recv().ok()?;
                let pp = cell.get()?;
                Some(build_runs(queue, TreeBuilder::with_builder(pp, builder).with_prebuilt(prebuilt)))
            })
            .ok();
        let lexed = pp::LexedMain { text: text.clone(), tokens: tokens.clone(), errors, tell: Some(tell) };
        let mut pp = pp::preprocess_unit(main, resolver, config, true, Some(lexed));
        let layout = pp.layout.take();
        let pp = cell.get_or_init(|| pp);
        // the second thread may be gone (could not start): nobody to tell
        let _ = ready.send(());
        let built = match worker {
            Some(worker) => parse_alongside(pp, layout, HAND_OFF_EVENTS, queue, worker, share, made),
            None => on_one_thread(pp, layout),
        };
        built.finish(pp)
    });
    // the tokens made ahead and not used, a list per segment
    done.spare.extend(made.into_inner().into_iter().flatten().flatten().flat_map(Prebuilt::into_segments));
    let pp = cell.into_inner()?;
    Some(done.into_parse(pp))
}

/// Cache slots for a tree builder of about `pieces` pieces: about one per 64 pieces,
/// enough for the names in use nearby, little for a small unit.
fn cache_slots(pieces: usize) -> usize {
    (pieces / 64).clamp(64, 2048)
}

/// What a tree builder on a second thread does: works out the piece offsets, then builds
/// runs from `queue` until it is closed and empty.
fn build_runs(queue: &ChunkQueue, mut b: TreeBuilder<'_>) -> (Vec<u32>, Vec<BuiltChunk>, Spare) {
    let offsets = piece_offsets(&b.pp.pieces);
    let built = queue.work(&mut b);
    (offsets, built, b.into_spare())
}

/// The tree built by two threads: the parser hands runs of finished top-level
/// declarations to a queue, and a second thread builds their subtrees while the parse goes
/// on; once the parse is done, this thread builds from the queue too. The runs' subtrees
/// become the root's children in order. Falls back to one thread if no thread could be
/// started.
fn build_pipelined<'p>(pp: &'p Preprocessed, layout: Option<TokenLayout>, chunk_events: usize) -> Built<'p> {
    let queue = Arc::new(ChunkQueue::default());
    std::thread::scope(|s| {
        // the piece offsets first: the builder thread has nothing else to do until the
        // first run is handed over
        let worker = std::thread::Builder::new()
            .name("msl-tree".into())
            .spawn_scoped(s, || Some(build_runs(&queue, TreeBuilder::new(pp))));
        match worker {
            Ok(worker) => {
                parse_alongside(pp, layout, chunk_events, &queue, worker, Share::BothThreads, &MadeAhead::new())
            }
            Err(_) => on_one_thread(pp, layout),
        }
    })
}

/// The parse and its tree on this thread alone.
fn on_one_thread<'p>(pp: &'p Preprocessed, layout: Option<TokenLayout>) -> Built<'p> {
    let (events, parser) = parse_events(pp, layout);
    let (green, error_events) = tree_of_events(pp, events);
    // the piece offsets are made when first asked for
    Built { parser, green, piece_starts: None, error_events, spare: Vec::new() }
}

/// The tree of all of a parse's events, built on this thread, and the parser errors the
/// events refer to (in event order).
fn tree_of_events(pp: &Preprocessed, mut events: Vec<Event>) -> (GreenNode, Vec<u32>) {
    let mut b = TreeBuilder::new(pp);
    let mut error_events = Vec::new();
    b.feed(&mut events, &mut error_events);
    (b.into_tree(), error_events)
}

/// What a tree builder on a second thread hands back: the piece offsets, the runs it
/// built and its spare tokens (`None` if it gave up before taking any run).
type WorkerResult = Option<(Vec<u32>, Vec<BuiltChunk>, Spare)>;

/// Tokens made ahead for the tokens of files, by file index (see [`Prebuilt`]): set by the
/// second thread once it has made them all.
type MadeAhead = std::sync::OnceLock<Vec<Option<Prebuilt>>>;

/// Parses on this thread, handing runs of events to `queue`, from which `worker` builds
/// trees meanwhile; then builds the runs left too (with the tokens `made` ahead, if they
/// are ready) and puts the tree together.
fn parse_alongside<'p>(
    pp: &'p Preprocessed,
    layout: Option<TokenLayout>,
    chunk_events: usize,
    queue: &Arc<ChunkQueue>,
    worker: std::thread::ScopedJoinHandle<'_, WorkerResult>,
    share: Share,
    made: &MadeAhead,
) -> Built<'p> {
    let sink = queue.clone();
    // closes the queue however the parse ends, so that the builder thread never waits
    // for runs that will not come
    let closer = CloseOnDrop(queue);
    let (parser, rest) = parse_events_streaming(pp, layout, chunk_events, Box::new(move |chunk| sink.push(chunk)));
    drop(closer);
    let mut b = TreeBuilder::new(pp).with_prebuilt(made.get().map_or(&[], Vec::as_slice));
    let mut built = if share == Share::BothThreads { queue.work(&mut b) } else { Vec::new() };
    let (piece_starts, theirs, mut spare) = match worker.join().unwrap_or_else(|e| std::panic::resume_unwind(e)) {
        Some(done) => done,
        // the other thread gave up before taking any run: they are all still queued
        None => (piece_offsets(&pp.pieces), queue.work(&mut b), Vec::new()),
    };
    built.extend(theirs);
    built.sort_unstable_by_key(|b| b.index);
    // the root's trailing trivia (and whatever the parser left)
    b.resume_at(rest);
    b.emit_rest();
    let tail_children = b.take_chunk();
    spare.extend(b.into_spare());

    let mut children = Vec::with_capacity(built.iter().map(|b| b.children.len()).sum::<usize>() + tail_children.len());
    let mut error_events = Vec::new();
    for b in built {
        children.extend(b.children);
        error_events.extend(b.errors);
    }
    children.extend(tail_children);
    let green = GreenNode::new(SyntaxKind::SOURCE_FILE.into(), children);
    Built { parser, green, piece_starts: Some(piece_starts), error_events, spare }
}

/// The runs of events waiting for a tree builder (see [`build_pipelined`]).
#[derive(Default)]
struct ChunkQueue {
    state: std::sync::Mutex<Waiting>,
    ready: std::sync::Condvar,
}

#[derive(Default)]
struct Waiting {
    /// Runs not yet taken, with their place in the unit.
    runs: std::collections::VecDeque<(usize, Chunk)>,
    /// Runs pushed so far.
    pushed: usize,
    /// The parse is over: no more runs will come.
    closed: bool,
}

struct CloseOnDrop<'q>(&'q ChunkQueue);

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// The subtrees built from one run of events.
struct BuiltChunk {
    index: usize,
    children: Vec<NodeOrToken<GreenNode, GreenToken>>,
    errors: Vec<u32>,
}

impl ChunkQueue {
    fn lock(&self) -> std::sync::MutexGuard<'_, Waiting> {
        // a panic while holding the lock leaves the queue itself consistent
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn push(&self, chunk: Chunk) {
        let mut st = self.lock();
        let index = st.pushed;
        st.pushed += 1;
        st.runs.push_back((index, chunk));
        self.ready.notify_one();
    }

    fn close(&self) {
        self.lock().closed = true;
        self.ready.notify_all();
    }

    /// Builds runs from the queue with `b` until it is closed and empty.
    fn work(&self, b: &mut TreeBuilder<'_>) -> Vec<BuiltChunk> {
        let mut out = Vec::new();
        loop {
            let next = {
                let mut st = self.lock();
                loop {
                    if let Some(next) = st.runs.pop_front() {
                        break Some(next);
                    }
                    if st.closed {
                        break None;
                    }
                    st = self.ready.wait(st).unwrap_or_else(|e| e.into_inner());
                }
            };
            let Some((index, mut chunk)) = next else { return out };
            b.resume_at((chunk.piece, chunk.split_off));
            let mut errors = Vec::new();
            b.feed(&mut chunk.events, &mut errors);
            b.let_go();
            let children = b.take_chunk();
            out.push(BuiltChunk { index, children, errors });
        }
    }
}

/// What reparsing a function body needs from the parse of the whole unit.
#[derive(Debug)]
pub(crate) struct ParseState {
    /// The parser's scope changes (see `Scopes::log`).
    pub(crate) scope_log: ScopeLog,
    /// Every function body, in piece order.
    pub(crate) bodies: Vec<BodyStart>,
    /// The parser hit its step limit.
    pub(crate) stuck: bool,
    /// Bodies reparsed since the whole unit was.
    pub(crate) generation: u32,
}

impl Diagnostic {
    pub(crate) fn from_pp(d: &pp::PpDiagnostic) -> Diagnostic {
        Diagnostic { file: d.file, range: d.range, severity: d.severity, code: d.code, message: d.message.clone() }
    }
}

/// Turns the events of a parse over `pp`'s pieces into a green tree; returns it with the
/// syntax errors located in files.
pub(crate) fn build_tree(
    pp: &Preprocessed,
    events: Vec<Event>,
    token_pieces: &[u32],
    parse_errors: Vec<(String, ErrorAt)>,
) -> (GreenNode, Vec<Diagnostic>) {
    let (green, error_events) = tree_of_events(pp, events);
    (green, locate_errors(pp, error_events, token_pieces, parse_errors))
}

/// The tree offset of each piece. The tree holds every piece's text once, in order (a
/// split piece as consecutive tokens), so these are the sums of the lengths before it.
fn piece_offsets(pieces: &[pp::Piece]) -> Vec<u32> {
    let mut offset = 0u32;
    pieces
        .iter()
        .map(|p| {
            let start = offset;
            offset += p.len;
            start
        })
        .collect()
}

/// The syntax errors the events refer to (in event order), located in files.
fn locate_errors(
    pp: &Preprocessed,
    error_events: Vec<u32>,
    token_pieces: &[u32],
    parse_errors: Vec<(String, ErrorAt)>,
) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    let mut parse_errors: Vec<Option<(String, ErrorAt)>> = parse_errors.into_iter().map(Some).collect();
    // the macro invocations an error was reported in
    let mut reported_calls = rustc_hash::FxHashSet::default();
    for i in error_events {
        let Some((msg, at)) = parse_errors.get_mut(i as usize).and_then(Option::take) else { continue };
        let t = match at {
            ErrorAt::Token(t) | ErrorAt::After(t) => t,
        };
        let piece = token_pieces.get(t as usize).copied();
        // An error in a macro's expansion is reported at the invocation, and the first
        // one there explains it best: one mistake in a macro's body can otherwise give
        // one error per token of a long expansion, all on the same text.
        if let Some(call) = piece.and_then(|p| pp.pieces.get(p as usize)).map(|p| p.call)
            && call != NO_CALL
            && !reported_calls.insert(call)
        {
            continue;
        }
        let (file, range) = match at {
            ErrorAt::Token(_) => piece_location(pp, piece),
            ErrorAt::After(_) => {
                let (f, r) = piece_location(pp, piece);
                (f, TextRange::empty(r.end()))
            }
        };
        diagnostics.push(Diagnostic { file, range, severity: Severity::Error, code: "E0100", message: msg });
    }
    diagnostics
}

/// The file location to report for a piece.
fn piece_location(pp: &Preprocessed, piece: Option<u32>) -> (u32, TextRange) {
    let Some(p) = piece.and_then(|i| pp.pieces.get(i as usize)) else {
        // past the end: the end of the main file
        let len = pp.files.first().map(|f| f.text.len() as u32).unwrap_or(0);
        return (0, TextRange::empty(len.into()));
    };
    if p.call != NO_CALL {
        let c = &pp.calls[p.call as usize];
        return (c.file, c.range);
    }
    if p.file == ARENA {
        return (0, TextRange::empty(0.into()));
    }
    (p.file, p.range())
}

/// Builds green nodes directly: short tokens are shared through a small interner, nodes
/// are not deduplicated (hashing every node costs more than it saves here).
struct Builder<'t> {
    stack: Vec<(SyntaxKind, usize)>,
    /// The children of the open nodes.
    children: Vec<NodeOrToken<GreenNode, GreenToken>>,
    tokens: FxHashMap<(SyntaxKind, &'t [u8]), GreenToken>,
    /// The tokens found without their text, taken from `pool` and given back.
    tables: Tables,
    pool: &'static TablePool,
}

/// The tokens a builder finds by kind and at most two words of text: kept from one parse
/// to the next (see [`TABLES`]).
#[derive(Default)]
struct Tables {
    /// A direct-mapped cache in front of `Builder::tokens` for texts of up to 16 bytes,
    /// its size a power of two.
    recent: Vec<Option<(TokenKey, GreenToken)>>,
    /// Tokens whose text is fixed by their kind (punctuation, keywords), by kind.
    fixed: Vec<Option<GreenToken>>,
    /// Whitespace tokens of only spaces by length, then line breaks of one `\n` and
    /// spaces by length less one.
    spaces: Vec<Option<GreenToken>>,
    /// The room of a builder's stack and children (empty): a small unit's builder would
    /// otherwise grow both through every size on its way.
    stack: Vec<(SyntaxKind, usize)>,
    children: Vec<NodeOrToken<GreenNode, GreenToken>>,
}

/// Tables given back by finished builders, a few at most.
#[derive(Default)]
struct TablePool(std::sync::Mutex<Vec<Tables>>);

/// The tables of the builders of all parses. A parse starts with the punctuation,
/// keywords, indentation and short names the parses before it made, and makes no tables
/// of its own: for a small unit, making, filling and freeing them cost as much as its
/// tree. Each holds a few thousand tokens at most.
static TABLES: TablePool = TablePool(std::sync::Mutex::new(Vec::new()));

impl TablePool {
    const KEPT: usize = 4;

    /// Tables whose recent-token cache has at least `slots` slots (a power of two).
    fn take(&self, slots: usize) -> Tables {
        let mut t = self.0.lock().ok().and_then(|mut kept| kept.pop()).unwrap_or_default();
        if t.recent.len() < slots {
            // freeing a table's tokens costs an atomic count each: not while parsing
            crate::free_later(std::mem::replace(&mut t.recent, vec![None; slots]));
        }
        t
    }

    /// Children kept for the next builder at most: room for a large unit's top level is
    /// not held on to.
    const KEPT_CHILDREN: usize = 1 << 12;

    fn give_back(&self, mut tables: Tables) {
        if tables.children.capacity() > Self::KEPT_CHILDREN {
            tables.children = Vec::new();
        }
        let Ok(mut kept) = self.0.lock() else { return crate::free_later(tables) };
        if kept.len() < Self::KEPT {
            kept.push(tables);
        } else {
            drop(kept);
            crate::free_later(tables);
        }
    }
}

impl Drop for Builder<'_> {
    fn drop(&mut self) {
        let mut tables = std::mem::take(&mut self.tables);
        // (both are empty once the tree is built; a builder dropped before frees what
        // they hold here)
        self.stack.clear();
        self.children.clear();
        tables.stack = std::mem::take(&mut self.stack);
        tables.children = std::mem::take(&mut self.children);
        self.pool.give_back(tables);
    }
}

impl<'t> Builder<'t> {
    /// A builder whose recent-token cache has about `slots` slots.
    fn new(slots: usize) -> Builder<'t> {
        Builder::with_pool(slots, &TABLES)
    }

    fn with_pool(slots: usize, pool: &'static TablePool) -> Builder<'t> {
        let mut tables = pool.take(slots.max(1).next_power_of_two());
        Builder {
            stack: std::mem::take(&mut tables.stack),
            children: std::mem::take(&mut tables.children),
            // a large unit's texts, about as many as the recent-token cache has slots,
            // without growing the table through every size on the way
            tokens: if slots > 64 {
                FxHashMap::with_capacity_and_hasher(slots, Default::default())
            } else {
                FxHashMap::default()
            },
            tables,
            pool,
        }
    }

    fn start_node(&mut self, kind: SyntaxKind) {
        self.stack.push((kind, self.children.len()));
    }

    /// The shared token whose text is the fixed spelling of `kind` (punctuation, keywords).
    #[inline]
    fn fixed(&mut self, kind: SyntaxKind) -> GreenToken {
        let k = kind as usize;
        match self.tables.fixed.get(k) {
            Some(Some(t)) => t.clone(),
            _ => self.make_fixed(kind),
        }
    }

    /// The first token of a fixed spelling (see [`Builder::fixed`]).
    #[cold]
    #[inline(never)]
    fn make_fixed(&mut self, kind: SyntaxKind) -> GreenToken {
        let k = kind as usize;
        let fixed = &mut self.tables.fixed;
        if fixed.len() <= k {
            fixed.resize(k + 1, None);
        }
        fixed[k].get_or_insert_with(|| GreenToken::new(kind.into(), kind.text().unwrap_or_default())).clone()
    }

    /// The shared token of `kind` if its text of `len` bytes is the kind's fixed spelling,
    /// known without looking at the text. Punctuation and keywords are lexed from their
    /// exact spelling, and the parser only changes a token's kind to IDENT or splits `>`s
    /// off a token: a punctuation or keyword kind of the right length has its fixed text.
    #[inline]
    fn fixed_of(&mut self, kind: SyntaxKind, len: usize) -> Option<GreenToken> {
        (len != 0 && kind.fixed_len() as usize == len).then(|| self.fixed(kind))
    }

    /// A token of `kind` whose text has the bytes `bytes` (see [`Builder::make_token`]), for
    /// a kind and length that [`Builder::fixed_of`] found no fixed token for.
    fn token(&mut self, kind: SyntaxKind, bytes: &'t [u8]) {
        let tok = self.text_token(kind, bytes);
        self.children.push(NodeOrToken::Token(tok));
    }

    /// The shared token of `kind` whose text has the bytes `bytes` (a token's text, cut from
    /// a file or the arena at token boundaries: UTF-8).
    fn make_token(&mut self, kind: SyntaxKind, bytes: &'t [u8]) -> GreenToken {
        match self.fixed_of(kind, bytes.len()) {
            Some(tok) => {
                debug_assert_eq!(kind.text().map(str::as_bytes), Some(bytes));
                tok
            }
            None => self.text_token(kind, bytes),
        }
    }

    /// [`Builder::make_token`] for a token whose kind does not fix its text.
    fn text_token(&mut self, kind: SyntaxKind, bytes: &'t [u8]) -> GreenToken {
        // runs of spaces are a quarter of all tokens, and most line breaks are one `\n`
        // and the next line's indentation: by kind and length, no hashing
        let spaces = match kind {
            SyntaxKind::WHITESPACE => Some((0, bytes)),
            SyntaxKind::NEWLINE if bytes.first() == Some(&b'\n') => Some((65, &bytes[1..])),
            _ => None,
        };
        if let Some((base, run)) = spaces
            && run.len() <= 64
            && run.iter().all(|&b| b == b' ')
        {
            let spaces = &mut self.tables.spaces;
            if spaces.is_empty() {
                spaces.resize(130, None);
            }
            return spaces[base + run.len()].get_or_insert_with(|| new_token(kind, bytes)).clone();
        }
        if bytes.len() <= short::MAX {
            let key = TokenKey::new(kind, bytes);
            let mask = self.tables.recent.len() - 1;
            let slot = &mut self.tables.recent[key.hash() as usize & mask];
            match slot {
                // (a token found here from an earlier parse is not entered in `tokens`: if
                // its slot is taken over, the text may get a second token in this tree,
                // which only costs memory)
                Some((k, t)) if *k == key => t.clone(),
                _ => {
                    let t = interned(&mut self.tokens, kind, bytes);
                    *slot = Some((key, t.clone()));
                    t
                }
            }
        } else if bytes.len() <= 24 {
            interned(&mut self.tokens, kind, bytes)
        } else {
            new_token(kind, bytes)
        }
    }

    fn finish_node(&mut self) {
        let Some((kind, first)) = self.stack.pop() else { return };
        let node = self.node(kind, first);
        self.children.push(NodeOrToken::Node(node));
    }

    /// A node of `kind` whose children are those from `first` on, which it takes.
    fn node(&mut self, kind: SyntaxKind, first: usize) -> GreenNode {
        // The children go in through a reference to the drain, one word, which is passed
        // in a register: a `Drain` itself would be passed through memory, and reading it
        // back (wider than it was written) stalls on every node.
        let mut children = self.children.drain(first..);
        GreenNode::new(kind.into(), &mut children)
    }

    fn finish(mut self) -> GreenNode {
        match self.children.as_slice() {
            [NodeOrToken::Node(_)] => match self.children.pop() {
                Some(NodeOrToken::Node(n)) => n,
                _ => unreachable!("matched as a node"),
            },
            _ => self.node(SyntaxKind::SOURCE_FILE, 0),
        }
    }
}

/// The shared token of `kind` and `text` in `tokens`, made on first use.
fn interned<'t>(
    tokens: &mut FxHashMap<(SyntaxKind, &'t [u8]), GreenToken>,
    kind: SyntaxKind,
    text: &'t [u8],
) -> GreenToken {
    tokens.entry((kind, text)).or_insert_with(|| new_token(kind, text)).clone()
}

/// A new token of `kind` whose text has the bytes `text`. A token's bytes are UTF-8 (see
/// [`Builder::make_token`]), checked here, where a token is made, rather than each time
/// a token's text is cut: the check costs little next to the allocation.
#[cold]
#[inline(never)]
fn new_token(kind: SyntaxKind, text: &[u8]) -> GreenToken {
    match std::str::from_utf8(text) {
        Ok(text) => GreenToken::new(kind.into(), text),
        Err(_) => GreenToken::new(kind.into(), &String::from_utf8_lossy(text)),
    }
}

/// A token's kind and text of up to [`short::MAX`] bytes (see [`ShortText`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct TokenKey {
    kind: SyntaxKind,
    text: ShortText,
}

impl TokenKey {
    fn new(kind: SyntaxKind, b: &[u8]) -> TokenKey {
        TokenKey { kind, text: ShortText::new(b) }
    }

    /// The key's hash, in the low bits.
    fn hash(&self) -> u64 {
        self.text.hash(self.kind as u64)
    }
}

/// Tree tokens made ahead of the tree, one for each token the lexer found in a file. A
/// second thread has nothing to do while the unit is preprocessed; making the tokens then
/// (looking up the shared token, counting the reference) takes that work off the tree
/// building that follows.
///
/// The tree builders of both threads take tokens from them, each for the runs it builds.
/// The tokens are kept in segments of [`SEGMENT`] tokens, each behind a lock that a
/// builder holds while it takes tokens from the segment and lets go of at the end of a
/// run. A builder that finds a segment held (at the seam of two runs built at once) makes
/// the tokens it needs from it itself.
struct Prebuilt {
    tokens: Arc<Vec<crate::lexer::Token>>,
    segments: Vec<std::sync::Mutex<Segment>>,
}

/// A segment of [`Prebuilt`] tokens, each `Some` until a builder takes it.
type Segment = Vec<Option<GreenToken>>;

/// Tokens in a segment of [`Prebuilt`] tokens (a power of two): a lock taken for every
/// thousand tokens costs nothing next to them.
const SEGMENT: usize = 1 << 10;

/// A tree builder taking tokens made ahead for one file.
struct Taking<'a> {
    from: &'a Prebuilt,
    /// The first token not yet passed: a file's pieces come in text order, so the search
    /// for a piece's token only goes forward (the pieces of a header included a second
    /// time are behind it, and are made anew).
    next: usize,
    /// The segment whose lock this builder holds, and the index of its first token.
    held: Option<(usize, std::sync::MutexGuard<'a, Segment>)>,
}

impl<'a> Taking<'a> {
    /// The token made for the file's token at `start`, if that token has this length
    /// and kind (the parser may have changed the kind), was not taken yet, and its segment
    /// is not held by another builder.
    fn take(&mut self, start: u32, len: u32, kind: SyntaxKind) -> Option<GreenToken> {
        let tokens = &self.from.tokens[..];
        let mut next = self.next;
        if tokens.get(next).is_some_and(|t| t.start < start) {
            next = first_at_or_after(tokens, next + 1, start);
            self.next = next;
        }
        let t = tokens.get(next)?;
        if t.start != start || t.len != len || t.kind != kind {
            return None;
        }
        if let Some((first, guard)) = &mut self.held
            && let Some(slot) = guard.get_mut(next.wrapping_sub(*first))
        {
            return slot.take();
        }
        self.take_from_segment(next)
    }

    /// Token `i`, from its segment, which this builder does not hold yet.
    #[cold]
    #[inline(never)]
    fn take_from_segment(&mut self, i: usize) -> Option<GreenToken> {
        // let go of the segment before, then try this one
        self.held = None;
        let guard = self.from.segments.get(i / SEGMENT)?.try_lock().ok()?;
        let (first, guard) = self.held.insert((i - i % SEGMENT, guard));
        guard.get_mut(i - *first)?.take()
    }
}

/// The first of `tokens` from `from` on that starts at or after `start` (`tokens.len()` if
/// none does), found by doubling steps from `from`, then halving: the next piece's token is
/// most often the next token, or a few tokens on (past a directive's or a macro
/// invocation's), and only at the start of a run far ahead, so a search over the rest of
/// the file would read scattered memory for a token close by.
fn first_at_or_after(tokens: &[crate::lexer::Token], from: usize, start: u32) -> usize {
    let mut lo = from;
    let mut step = 1;
    loop {
        let probe = lo + step - 1;
        match tokens.get(probe) {
            Some(t) if t.start < start => {
                lo = probe + 1;
                step *= 2;
            }
            _ => {
                let hi = probe.min(tokens.len()).max(lo);
                return lo + tokens[lo..hi].partition_point(|t| t.start < start);
            }
        }
    }
}

impl Prebuilt {
    fn make<'t>(builder: &mut Builder<'t>, text: &'t str, tokens: &Arc<Vec<crate::lexer::Token>>) -> Prebuilt {
        let segments = tokens
            .chunks(SEGMENT)
            .map(|segment| {
                let made = segment.iter().map(|t| {
                    let range = t.start as usize..(t.start + t.len) as usize;
                    Some(builder.make_token(t.kind, &text.as_bytes()[range]))
                });
                std::sync::Mutex::new(made.collect())
            })
            .collect();
        Prebuilt { tokens: tokens.clone(), segments }
    }

    fn taking(&self) -> Taking<'_> {
        Taking { from: self, next: 0, held: None }
    }

    /// The tokens not taken, in their segments.
    fn into_segments(self) -> impl Iterator<Item = Segment> {
        self.segments.into_iter().map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()))
    }
}

struct TreeBuilder<'a> {
    pp: &'a Preprocessed,
    builder: Builder<'a>,
    /// Next piece to emit.
    piece: usize,
    /// Bytes of the current piece already emitted (after a split).
    split_off: u32,
    depth: u32,
    /// Scratch space for a start event and the ones it forwards to.
    forward: Vec<SyntaxKind>,
    /// Tokens made ahead for the tokens of files, by file index.
    prebuilt: Vec<Option<Taking<'a>>>,
}

impl<'a> TreeBuilder<'a> {
    fn new(pp: &'a Preprocessed) -> TreeBuilder<'a> {
        TreeBuilder::with_builder(pp, Builder::new(cache_slots(pp.pieces.len())))
    }

    fn with_builder(pp: &'a Preprocessed, builder: Builder<'a>) -> TreeBuilder<'a> {
        TreeBuilder { pp, builder, piece: 0, split_off: 0, depth: 0, forward: Vec::new(), prebuilt: Vec::new() }
    }

    /// Lets this builder take tokens from `prebuilt` (by file index).
    fn with_prebuilt(mut self, prebuilt: &'a [Option<Prebuilt>]) -> TreeBuilder<'a> {
        self.prebuilt = prebuilt.iter().map(|p| p.as_ref().map(Prebuilt::taking)).collect();
        self
    }

    /// Lets go of the segments of tokens made ahead that this builder holds, for the
    /// builder of the other thread.
    fn let_go(&mut self) {
        for t in self.prebuilt.iter_mut().flatten() {
            t.held = None;
        }
    }

    /// Starts a run of top-level declarations at `(piece, split_off)`, inside the root.
    fn resume_at(&mut self, (piece, split_off): (u32, u32)) {
        self.piece = piece as usize;
        self.split_off = split_off;
        self.depth = 1;
    }

    /// Emits every piece left, as children of the root.
    fn emit_rest(&mut self) {
        while self.piece < self.pp.pieces.len() {
            let kind = self.pp.pieces[self.piece].kind;
            self.emit(kind, None);
        }
    }

    /// The root's children built since [`TreeBuilder::resume_at`].
    fn take_chunk(&mut self) -> Vec<NodeOrToken<GreenNode, GreenToken>> {
        self.builder.stack.clear();
        self.builder.children.drain(..).collect()
    }

    /// Builds the nodes and tokens of `events` (consuming their forward parents), and
    /// notes the parser errors they refer to.
    fn feed(&mut self, events: &mut [Event], errors: &mut Vec<u32>) {
        for i in 0..events.len() {
            match events[i] {
                Event::Start { kind, forward_parent: None } => self.start(kind),
                Event::Start { kind, forward_parent } => {
                    self.forward.push(kind);
                    let mut idx = i;
                    let mut fp = forward_parent;
                    while let Some(delta) = fp {
                        idx += delta.get() as usize;
                        fp = match events.get_mut(idx).map(|e| std::mem::replace(e, Event::Tombstone)) {
                            Some(Event::Start { kind, forward_parent }) => {
                                self.forward.push(kind);
                                forward_parent
                            }
                            _ => None,
                        };
                    }
                    while let Some(kind) = self.forward.pop() {
                        self.start(kind);
                    }
                }
                Event::Finish => self.finish(),
                Event::Token { kind } => self.token(kind, None),
                Event::SplitToken { kind, len } => self.token(kind, Some(len)),
                Event::Error(i) => errors.push(i),
                Event::Tombstone => {}
            }
        }
    }

    /// The tokens this builder holds on to: its table of tokens by text. Freeing them
    /// costs an atomic count per token, which the caller can leave for later (see
    /// [`Parse::spare`]). The tables found without text go back to [`TABLES`].
    fn into_spare(mut self) -> Spare {
        let tokens = std::mem::take(&mut self.builder.tokens);
        vec![tokens.into_values().map(Some).collect()]
    }

    /// The tree.
    fn into_tree(mut self) -> GreenNode {
        // pieces no event reached (there are none unless the events are cut short): the
        // tree holds every piece (see `piece_offsets`)
        self.emit_rest();
        self.builder.finish()
    }

    fn start(&mut self, kind: SyntaxKind) {
        if self.depth > 0 {
            self.flush_trivia();
        }
        self.depth += 1;
        self.builder.start_node(kind);
    }

    fn finish(&mut self) {
        debug_assert!(self.depth > 0, "a finish event without a start");
        self.depth = self.depth.saturating_sub(1);
        if self.depth == 0 {
            // everything left belongs to the root
            self.emit_rest();
        }
        self.builder.finish_node();
    }

    fn flush_trivia(&mut self) {
        while self.piece < self.pp.pieces.len() && self.pp.pieces[self.piece].kind.is_trivia() {
            let kind = self.pp.pieces[self.piece].kind;
            self.emit(kind, None);
        }
    }

    fn token(&mut self, kind: SyntaxKind, len: Option<u32>) {
        self.flush_trivia();
        if self.piece < self.pp.pieces.len() {
            self.emit(kind, len);
        }
    }

    fn emit(&mut self, kind: SyntaxKind, len: Option<u32>) {
        let piece = &self.pp.pieces[self.piece];
        let start = self.split_off;
        let rest = piece.len - start;
        let n = match len {
            Some(n) if n < rest => {
                self.split_off += n;
                n
            }
            _ => {
                self.piece += 1;
                self.split_off = 0;
                rest
            }
        };
        // (most parses have no tokens made ahead: that is looked at first)
        if !self.prebuilt.is_empty()
            && start == 0
            && n == piece.len
            && piece.call == NO_CALL
            && let Some(Some(prebuilt)) = self.prebuilt.get_mut(piece.file as usize)
            && let Some(tok) = prebuilt.take(piece.start, n, kind)
        {
            self.builder.children.push(NodeOrToken::Token(tok));
            return;
        }
        // punctuation and keywords by kind and length, without finding their text
        if let Some(tok) = self.builder.fixed_of(kind, n as usize) {
            self.builder.children.push(NodeOrToken::Token(tok));
            return;
        }
        let (pp, range) = (self.pp, start as usize..(start + n) as usize);
        self.builder.token(kind, &pp.bytes(piece)[range]);
    }
}

impl Parse {
    pub(crate) fn from_parts(
        green: GreenNode,
        pp: Arc<Preprocessed>,
        diagnostics: Vec<Diagnostic>,
        state: Arc<ParseState>,
    ) -> Parse {
        Parse {
            green,
            pp,
            piece_starts: Default::default(),
            diagnostics,
            state: Some(state),
            file_pieces: Default::default(),
            spare: None,
        }
    }

    /// The tree offset of the start of each piece. The tree holds every piece's text once,
    /// in order, so these are the sums of the pieces' lengths before each; made on first
    /// use, as most parses are never asked.
    pub(crate) fn piece_starts(&self) -> &[u32] {
        self.piece_starts.get_or_init(|| piece_offsets(&self.pp.pieces))
    }

    /// The root of the tree (a `SOURCE_FILE`).
    pub fn syntax(&self) -> SyntaxNode {
        SyntaxNode::new_root(self.green.clone())
    }

    pub fn green(&self) -> &GreenNode {
        &self.green
    }

    /// All diagnostics: preprocessor and syntax, errors and warnings, in every file.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Diagnostics with error severity.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Error)
    }

    /// The preprocessing record: files, macro definitions and invocations, includes.
    pub fn preprocessed(&self) -> &Preprocessed {
        &self.pp
    }

    /// The files of the unit; index 0 is the main file.
    pub fn files(&self) -> &[pp::PpFile] {
        &self.pp.files
    }

    /// The macro definitions of the unit, in the order met (`#undef` keeps them).
    pub fn macros(&self) -> &[pp::MacroInfo] {
        &self.pp.macros
    }

    /// The macro invocations of the unit.
    pub fn macro_calls(&self) -> &[pp::MacroCall] {
        &self.pp.calls
    }

    /// The `#include` and `#import` directives of every file of the unit.
    pub fn includes(&self) -> &[pp::Include] {
        &self.pp.includes
    }

    /// Piece `index` of the preprocessed unit, when it is written in a file.
    pub fn piece(&self, index: usize) -> Option<FilePiece<'_>> {
        let p = self.pp.pieces.get(index)?;
        (p.file != ARENA).then(|| self.file_piece(index, p))
    }

    fn file_piece<'a>(&'a self, index: usize, p: &pp::Piece) -> FilePiece<'a> {
        FilePiece {
            index,
            kind: p.kind,
            file: p.file,
            range: p.range(),
            text: self.pp.text(p),
            macro_call: (p.call != NO_CALL).then_some(p.call),
        }
    }

    /// What the preprocessor made of file `file`, in order: tokens, trivia, directives,
    /// inactive branches and macro invocations (with the arguments written in them).
    pub fn pieces_of_file(&self, file: u32) -> impl Iterator<Item = FilePiece<'_>> {
        self.pp.pieces.iter().enumerate().filter(move |(_, p)| p.file == file).map(|(i, p)| self.file_piece(i, p))
    }

    /// The tokens invocation `call` expands to (trivia left out), at most `limit`.
    pub fn macro_expansion(&self, call: u32, limit: usize) -> Vec<&str> {
        let pieces = &self.pp.pieces;
        let Some(name) = pieces.iter().position(|p| p.kind == SyntaxKind::MACRO_CALL && p.call == call) else {
            return Vec::new();
        };
        pieces[name + 1..]
            .iter()
            .take_while(|p| p.call == call && p.kind != SyntaxKind::MACRO_CALL)
            .filter(|p| !p.kind.is_trivia())
            .map(|p| self.pp.text(p))
            .take(limit)
            .collect()
    }

    /// Whether the start of a tree range is written in a file (not produced by a macro,
    /// not a token the analysis made up).
    pub fn is_spelled(&self, range: TextRange) -> bool {
        self.piece_index_at(range.start())
            .and_then(|i| self.pp.pieces.get(i))
            .is_some_and(|p| p.call == NO_CALL && p.file != ARENA)
    }

    /// Where the token at `offset` (a tree offset) came from.
    pub fn origin_at(&self, offset: TextSize) -> Option<Origin> {
        let off: u32 = offset.into();
        let i = self.piece_starts().partition_point(|&s| s <= off).checked_sub(1)?;
        // skip empty pieces that share the offset
        let piece = &self.pp.pieces[i];
        Some(self.origin_of_piece(piece, off - self.piece_starts()[i]))
    }

    fn origin_of_piece(&self, piece: &pp::Piece, within: u32) -> Origin {
        let spelled = (piece.file != ARENA).then(|| {
            let start = piece.start + within.min(piece.len);
            (piece.file, TextRange::new(start.into(), (piece.start + piece.len).into()))
        });
        if piece.call == NO_CALL {
            let (file, range) = spelled.unwrap_or((0, TextRange::empty(0.into())));
            return Origin::Spelled { file, range: if within == 0 { piece.range() } else { range } };
        }
        let c = &self.pp.calls[piece.call as usize];
        Origin::Macro {
            call: piece.call,
            call_file: c.file,
            call_range: c.range,
            spelling: (piece.file != ARENA).then(|| (piece.file, piece.range())),
        }
    }

    /// The place in a file for a range of the tree: exact when both ends are spelled in
    /// the same file; otherwise the macro invocation (or spelling) where it starts.
    pub fn map_range(&self, range: TextRange) -> (u32, TextRange) {
        let piece_at = |off: u32| self.piece_starts().partition_point(|&s| s <= off).checked_sub(1);
        let start: u32 = range.start().into();
        let Some(i) = piece_at(start) else { return (0, TextRange::empty(0.into())) };
        let p = &self.pp.pieces[i];
        if p.call != NO_CALL || p.file == ARENA {
            return match self.origin_of_piece(p, 0) {
                Origin::Macro { call_file, call_range, .. } => (call_file, call_range),
                Origin::Spelled { file, range } => (file, range),
            };
        }
        let file_start = p.start + (start - self.piece_starts()[i]).min(p.len);
        let end: u32 = range.end().into();
        if end <= start {
            return (p.file, TextRange::empty(file_start.into()));
        }
        if let Some(j) = piece_at(end - 1) {
            let q = &self.pp.pieces[j];
            if q.call == NO_CALL && q.file == p.file && j >= i {
                let file_end = q.start + (end - self.piece_starts()[j]).min(q.len);
                if file_end >= file_start {
                    return (p.file, TextRange::new(file_start.into(), file_end.into()));
                }
            }
        }
        (p.file, TextRange::new(file_start.into(), (p.start + p.len).into()))
    }

    /// The tree offset where piece `i` starts.
    pub fn piece_start(&self, i: usize) -> Option<TextSize> {
        self.piece_starts().get(i).map(|&s| s.into())
    }

    /// The piece that holds the tree offset `offset` (the first of several empty ones).
    pub fn piece_index_at(&self, offset: TextSize) -> Option<usize> {
        let off: u32 = offset.into();
        self.piece_starts().partition_point(|&s| s <= off).checked_sub(1)
    }

    /// The piece spelled in `file` that covers byte `offset` of the file (its start
    /// included, its end excluded), with the tree offset that corresponds to `offset`.
    /// Macro invocations are one piece; the tokens they expand to follow them.
    pub fn piece_at(&self, file: u32, offset: TextSize) -> Option<(usize, TextSize)> {
        let index = self.file_pieces.get_or_init(|| Arc::new(self.index_file_pieces()));
        let list = index.get(file as usize)?;
        let off: u32 = offset.into();
        let pieces = &self.pp.pieces;
        let k = list.partition_point(|&i| pieces[i as usize].start <= off).checked_sub(1)?;
        let i = list[k] as usize;
        let p = &pieces[i];
        if off >= p.start + p.len.max(1) {
            return None;
        }
        let within = if p.kind == SyntaxKind::MACRO_CALL || p.call != NO_CALL { 0 } else { off - p.start };
        Some((i, TextSize::from(self.piece_starts()[i] + within)))
    }

    /// The tree offset of byte `offset` of `file`, when that byte is spelled there and
    /// not inside a macro invocation.
    pub fn tree_offset(&self, file: u32, offset: TextSize) -> Option<TextSize> {
        let (i, at) = self.piece_at(file, offset)?;
        (self.pp.pieces[i].call == NO_CALL).then_some(at)
    }

    fn index_file_pieces(&self) -> Vec<Vec<u32>> {
        let mut out: Vec<Vec<u32>> = vec![Vec::new(); self.pp.files.len()];
        let mut ends: Vec<u32> = vec![0; self.pp.files.len()];
        for (i, p) in self.pp.pieces.iter().enumerate() {
            let spelled = p.call == NO_CALL || p.kind == SyntaxKind::MACRO_CALL;
            if p.file == ARENA || !spelled || p.len == 0 {
                continue;
            }
            let f = p.file as usize;
            if f >= out.len() || p.start < ends[f] {
                // a second inclusion of the same file: keep the first
                continue;
            }
            ends[f] = p.start + p.len;
            out[f].push(i as u32);
        }
        out
    }

    /// Where a token of this tree came from.
    pub fn token_origin(&self, token: &SyntaxToken) -> Option<Origin> {
        self.origin_at(token.text_range().start())
    }

    /// The text of the main file as reconstructed from the tree: every token spelled in
    /// the main file, in order. Equal to the file's text (the tree is lossless for it).
    pub fn main_file_text_from_tree(&self) -> String {
        self.file_text_from_tree(0)
    }

    /// The text of file `file` as reconstructed from the tokens spelled in it.
    pub fn file_text_from_tree(&self, file: u32) -> String {
        let mut s = String::new();
        for p in &self.pp.pieces {
            let spelled_here = p.file == file && (p.call == NO_CALL);
            let call_here = p.kind == SyntaxKind::MACRO_CALL && p.file == file;
            if spelled_here || call_here {
                s.push_str(self.pp.text(p));
            }
        }
        s
    }

    /// A debug dump of the tree: one line per node and token with its range.
    pub fn debug_tree(&self) -> String {
        debug_dump(&self.syntax())
    }
}

/// Renders a tree as indented `KIND@range "text"` lines.
pub fn debug_dump(node: &SyntaxNode) -> String {
    use rowan::WalkEvent;
    let mut out = String::new();
    let mut indent = 0usize;
    for ev in node.preorder_with_tokens() {
        match ev {
            WalkEvent::Enter(el) => {
                for _ in 0..indent {
                    out.push_str("  ");
                }
                match &el {
                    rowan::NodeOrToken::Node(n) => {
                        out.push_str(&format!("{:?}@{:?}\n", n.kind(), n.text_range()));
                    }
                    rowan::NodeOrToken::Token(t) => {
                        out.push_str(&format!("{:?}@{:?} {:?}\n", t.kind(), t.text_range(), t.text()));
                    }
                }
                if el.as_node().is_some() {
                    indent += 1;
                }
            }
            WalkEvent::Leave(el) => {
                if el.as_node().is_some() {
                    indent -= 1;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_for_a_piece_token_finds_the_first_at_or_after_its_start() {
        // tokens at every third offset, some with gaps between them
        let starts: Vec<u32> = (0..300u32).map(|i| i * 3 + (i / 7) * 5).collect();
        let tokens: Vec<crate::lexer::Token> =
            starts.iter().map(|&start| crate::lexer::Token { kind: SyntaxKind::IDENT, start, len: 1 }).collect();
        let last = starts[starts.len() - 1];
        for from in [0, 1, 2, 5, 64, 150, 299, 300] {
            for start in 0..last + 4 {
                let expected = from + tokens[from..].iter().take_while(|t| t.start < start).count();
                assert_eq!(first_at_or_after(&tokens, from, start), expected, "from {from}, start {start}");
            }
        }
        assert_eq!(first_at_or_after(&[], 0, 7), 0);
    }

    #[test]
    fn builders_keep_their_token_tables_for_the_next_parse() {
        use SyntaxKind::{IDENT, SEMI, WHITESPACE};
        let pool: &'static TablePool = Box::leak(Box::default());
        let same = |a: &GreenToken, b: &GreenToken| std::ptr::eq::<rowan::GreenTokenData>(&**a, &**b);
        let mut first = Builder::with_pool(64, pool);
        let made = [first.make_token(SEMI, b";"), first.make_token(IDENT, b"x"), first.make_token(WHITESPACE, b"  ")];
        drop(first);
        // the next builder finds the same tokens, and keeps the larger cache
        let mut next = Builder::with_pool(16, pool);
        assert_eq!(next.tables.recent.len(), 64);
        let again = [next.make_token(SEMI, b";"), next.make_token(IDENT, b"x"), next.make_token(WHITESPACE, b"  ")];
        for (a, b) in made.iter().zip(&again) {
            assert!(same(a, b), "{a} kept");
        }
        // a text of the same kind and length is a token of its own
        let y = next.make_token(IDENT, b"y");
        assert!(y.text() == "y" && !same(&y, &made[1]));
        drop(next);
        // a builder that wants a larger cache gets one, and the other tables still
        let larger = Builder::with_pool(256, pool);
        assert_eq!(larger.tables.recent.len(), 256);
        assert!(larger.tables.fixed.get(SEMI as usize).is_some_and(|t| t.as_ref().is_some_and(|t| same(t, &made[0]))));
        drop(larger);
        // only a few tables are kept
        drop((0..TablePool::KEPT + 2).map(|_| Builder::with_pool(1, pool)).collect::<Vec<_>>());
        assert_eq!(pool.0.lock().map(|kept| kept.len()).ok(), Some(TablePool::KEPT));
    }

    #[test]
    fn tokens_kept_from_earlier_parses_have_this_parse_text() {
        // the same kinds, lengths and layout, other texts
        let a = "kernel void ab(device int *cd) {\n    cd[0] = 12; // x\n}\n";
        let b = "kernel void xy(device int *zw) {\n  \tzw[1] = 34; // y\n}\n";
        for text in [a, b, a, b] {
            let parse = parse_text(text, &PpConfig::default());
            assert_eq!(parse.syntax().to_string(), text);
            assert!(parse.errors().next().is_none(), "{:?}", parse.diagnostics());
        }
    }

    #[test]
    fn token_keys_tell_every_short_text_apart() {
        // all texts of up to 16 bytes over a small alphabet would be too many: take every
        // text of up to 4 bytes, and longer ones that differ in one byte at each position
        let alphabet = [b'a', b'b', b'0', b'_'];
        let mut texts: Vec<String> = vec![String::new()];
        for len in 1..=4 {
            let mut idx = vec![0usize; len];
            loop {
                texts.push(idx.iter().map(|&i| alphabet[i] as char).collect());
                let Some(pos) = idx.iter().rposition(|&i| i + 1 < alphabet.len()) else { break };
                idx[pos] += 1;
                idx[pos + 1..].iter_mut().for_each(|i| *i = 0);
            }
        }
        for len in 5..=16 {
            let base = "abcdefghijklmnop"[..len].to_string();
            for pos in 0..len {
                let mut t = base.clone().into_bytes();
                t[pos] = b'_';
                texts.push(String::from_utf8(t).unwrap());
            }
            texts.push(base);
        }
        let mut seen = rustc_hash::FxHashMap::default();
        for t in &texts {
            for kind in [SyntaxKind::IDENT, SyntaxKind::INT_NUMBER] {
                let key = TokenKey::new(kind, t.as_bytes());
                if let Some(other) = seen.insert(key, (kind, t)) {
                    panic!("{kind:?} {t:?} and {other:?} have the same key");
                }
            }
        }
        assert_eq!(seen.len(), texts.len() * 2);
    }

    /// The tree, piece offsets, diagnostics and reparse records of `other` are those of
    /// `one`.
    fn assert_same(one: &Parse, other: &Parse, what: &str) {
        assert_eq!(one.green, other.green, "{what}: the trees differ");
        assert_eq!(one.piece_starts(), other.piece_starts(), "{what}: the piece offsets differ");
        assert_eq!(one.diagnostics, other.diagnostics, "{what}: the diagnostics differ");
        let records = |p: &Parse| p.state.as_ref().map(|s| (s.bodies.clone(), s.scope_log.clone()));
        assert_eq!(records(one), records(other), "{what}: the reparse records differ");
    }

    fn both_ways(text: &str) {
        let vfs = Vfs::new();
        let id = vfs.add_file(Path::new("input.metal"), text);
        let config = PpConfig::default();
        let one = build_with(pp::preprocess_unit(id, &vfs, &config, true, None), None);
        // every piece's text is in the tree at the piece's offset
        let tree = one.syntax().text().to_string();
        for (i, piece) in one.pp.pieces.iter().enumerate() {
            let at = one.piece_starts()[i] as usize;
            assert_eq!(tree.get(at..at + piece.len as usize), Some(one.pp.text(piece)), "piece {i}");
        }
        assert_eq!(tree.len(), one.pp.pieces.iter().map(|p| p.len as usize).sum::<usize>());
        // runs as large as a real parse hands off, and one run per declaration
        for chunk_events in [HAND_OFF_EVENTS, 1] {
            let two = build_with(pp::preprocess_unit(id, &vfs, &config, true, None), Some(chunk_events));
            // equal trees hold the pieces at equal offsets (checked above for `one`)
            assert_same(&one, &two, "two threads");
        }
        // a main file long enough to be parsed on two threads from the start
        if text.len() >= crate::lexer::PARALLEL_LEX_BYTES {
            let long = parse_long_file(id, &vfs, &config).expect("a long main file is parsed on two threads");
            assert_same(&one, &long, "a long file");
        }
    }

    /// A long text made of the fixtures and of snippets that split `>>`, expand macros
    /// and change no token kinds, past the length that is lexed in halves.
    fn long_text() -> String {
        let mut text: String = crate::fixture_files(&["syntax/ok", "syntax/err", "check"])
            .iter()
            .map(|p| std::fs::read_to_string(p).unwrap_or_default() + "\n")
            .collect();
        let snippet = "template <typename T> struct A { T v; };\n\
                       A<A<int>> a;\n\
                       #define M(x) A<A<x>>\n\
                       M(float) c; // trailing\n\
                       int operator_like(int x) { return x >> 1; }\n";
        while text.len() < crate::lexer::PARALLEL_LEX_BYTES + 10_000 {
            text.push_str(snippet);
        }
        text
    }

    #[test]
    fn every_fixture_parses_the_same_with_tokens_made_ahead() {
        // the path of long main files, taken by short ones too: every piece of the
        // fixtures (includes, macros, directives, errors) goes through it
        let files = crate::fixture_files(&["syntax/ok", "syntax/err", "check", "reparse"]);
        assert!(files.len() > 20, "fixtures not found");
        let config = PpConfig::default();
        for f in files {
            let vfs = Vfs::with_disk();
            let id = vfs.load(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            let one = parse_file(id, &vfs, &config);
            let ahead = parse_file_ahead(id, &vfs, &config);
            assert_same(&one, &ahead, &f.display().to_string());
        }
    }

    /// A resolver whose `resolve` panics for one file name.
    struct Boom(Vfs);

    impl FileResolver for Boom {
        fn resolve(&self, path: &Path) -> Option<crate::FileId> {
            assert!(!path.ends_with("boom.h"), "the resolver fails");
            self.0.resolve(path)
        }
        fn text(&self, file: crate::FileId) -> Arc<str> {
            self.0.text(file)
        }
        fn path(&self, file: crate::FileId) -> std::path::PathBuf {
            self.0.path(file)
        }
    }

    #[test]
    fn a_panic_while_preprocessing_on_two_threads_comes_through() {
        // the second thread waits for the preprocessor; when that panics, the panic must
        // reach the caller rather than leave both threads waiting
        let (done, wait) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let panicked = std::panic::catch_unwind(|| {
                let vfs = Vfs::new();
                let id = vfs.add_file(Path::new("dir/input.metal"), format!("#include \"boom.h\"\n{}", long_text()));
                parse_file_ahead(id, &Boom(vfs), &PpConfig::default())
            })
            .is_err();
            let _ = done.send(panicked);
        });
        let panicked = wait
            .recv_timeout(std::time::Duration::from_secs(120))
            .expect("the parse neither returned nor panicked within two minutes");
        assert!(panicked, "the resolver's panic was lost");
    }

    #[test]
    fn long_files_parse_the_same_on_two_threads() {
        both_ways(&long_text());
    }

    #[test]
    fn long_files_with_headers_parse_the_same_on_two_threads() {
        // a header with a guard, and one without that is included twice (its pieces come
        // twice, in file order each time)
        let vfs = Vfs::new();
        vfs.add_file(Path::new("dir/common.h"), format!("#pragma once\n#define HM(x) H<H<x>>\n{}", header_text()));
        vfs.add_file(Path::new("dir/plain.h"), "struct P { int a; };\nint f(int x) { return x >> 1; }\n");
        let main = format!(
            "#include \"common.h\"\n#include \"plain.h\"\n{}\n#include \"plain.h\"\nHM(float) z;\n",
            long_text()
        );
        let id = vfs.add_file(Path::new("dir/input.metal"), main);
        let config = PpConfig::default();
        let one = build_with(pp::preprocess_unit(id, &vfs, &config, true, None), None);
        assert_eq!(one.files().iter().filter(|f| !f.is_virtual).count(), 3, "the headers are found");
        let long = parse_long_file(id, &vfs, &config).expect("a long main file is parsed on two threads");
        assert_same(&one, &long, "a long file with headers");
    }

    /// A header of declarations, for the main files of the tests of long files.
    fn header_text() -> String {
        "template <typename T> struct H { T v; H<T> *next; };\n\
         static constant int table[] = {1, 2, 3};\n\
         inline float twice(float x) { return x * 2.0f; }\n"
            .repeat(50)
    }

    /// A long main file that includes a header, parsed on one thread, and preprocessed
    /// with the main file lexed ahead: that unit, the main file's tokens, and the files
    /// the preprocessor told of as it lexed them.
    fn lexed_ahead() -> (Parse, Preprocessed, Arc<Vec<crate::lexer::Token>>, Vec<pp::LexedFile>) {
        let vfs = Vfs::new();
        vfs.add_file(Path::new("dir/common.h"), format!("#pragma once\n{}", header_text()));
        let text: Arc<str> = format!("#include \"common.h\"\n{}", long_text()).into();
        let id = vfs.add_file(Path::new("dir/input.metal"), text.clone());
        let config = PpConfig::default();
        let plain = build_with(pp::preprocess_unit(id, &vfs, &config, true, None), None);
        let (tokens, errors) = crate::lexer::lex(&text);
        let tokens = Arc::new(tokens);
        let (tell, told) = std::sync::mpsc::channel();
        let lexed = pp::LexedMain { text: text.clone(), tokens: tokens.clone(), errors, tell: Some(tell) };
        let pp = pp::preprocess_unit(id, &vfs, &config, true, Some(lexed));
        let told = told.try_iter().collect();
        (plain, pp, tokens, told)
    }

    /// Tokens made ahead for the files `told` of, by file index.
    fn made_ahead<'t>(builder: &mut Builder<'t>, told: &'t [pp::LexedFile]) -> Vec<Option<Prebuilt>> {
        let mut prebuilt = Vec::new();
        for f in told {
            let i = f.file as usize;
            prebuilt.resize_with(prebuilt.len().max(i + 1), || None);
            prebuilt[i] = Some(Prebuilt::make(builder, &f.text, &f.tokens));
        }
        prebuilt
    }

    #[test]
    fn tokens_made_ahead_are_the_tree_tokens() {
        let (plain, mut pp, tokens, told) = lexed_ahead();
        // the main file (where it is among the files), then the header
        assert_eq!(told.len(), 2, "the preprocessor tells of the main file and the header");
        assert!(Arc::ptr_eq(&told[0].tokens, &tokens));
        for f in &told {
            assert_eq!(*pp.files[f.file as usize].text, *f.text);
        }
        let layout = pp.layout.take();
        let (mut events, _parser) = parse_events(&pp, layout);
        let mut builder = Builder::new(64);
        let prebuilt = made_ahead(&mut builder, &told);
        let mut b = TreeBuilder::with_builder(&pp, builder).with_prebuilt(&prebuilt);
        b.feed(&mut events, &mut Vec::new());
        let tree = b.into_tree();
        // directive lines are one piece each, and expanded or split tokens are made anew:
        // the rest of each file's tokens is taken
        for p in prebuilt.into_iter().flatten() {
            let made = p.tokens.len();
            let left = p.into_segments().flatten().filter(|t| t.is_some()).count();
            assert!(left * 4 < made, "{left} of {made} tokens made ahead were not used");
        }
        assert_eq!(tree, plain.green, "the trees differ");
    }

    #[test]
    fn two_builders_share_the_tokens_made_ahead() {
        let (plain, mut pp, _, told) = lexed_ahead();
        // runs of a few declarations each, as a parse hands them off
        let runs = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = runs.clone();
        let layout = pp.layout.take();
        let (_parser, rest) = parse_events_streaming(
            &pp,
            layout,
            200,
            Box::new(move |chunk| sink.lock().expect("not poisoned").push(chunk)),
        );
        let runs: Vec<Chunk> = std::mem::take(&mut *runs.lock().expect("not poisoned"));
        assert!(runs.len() > 20, "{} runs", runs.len());

        // The runs dealt out to two builders in turns of three, as two threads take them
        // from a queue. Both let go of their segments after every run, or one keeps the
        // last segment it used over the other's turn, which finds it held and makes those
        // tokens itself (a run here is a small part of a segment, so most of that turn).
        for keep_one in [false, true] {
            let mut builder = Builder::new(64);
            let prebuilt = made_ahead(&mut builder, &told);
            let mut ours = TreeBuilder::new(&pp).with_prebuilt(&prebuilt);
            let mut theirs = TreeBuilder::with_builder(&pp, builder).with_prebuilt(&prebuilt);
            let mut children = Vec::new();
            let mut errors = Vec::new();
            for (i, run) in runs.iter().enumerate() {
                let b = if i % 6 < 3 { &mut ours } else { &mut theirs };
                b.resume_at((run.piece, run.split_off));
                b.feed(&mut run.events.clone(), &mut errors);
                if !(keep_one && i % 6 == 5) {
                    b.let_go();
                }
                children.extend(b.take_chunk());
            }
            theirs.let_go();
            ours.resume_at(rest);
            ours.emit_rest();
            children.extend(ours.take_chunk());
            let tree = GreenNode::new(SyntaxKind::SOURCE_FILE.into(), children);
            assert_eq!(tree, plain.green, "the trees differ (keeping a segment: {keep_one})");
            drop((ours, theirs));
            let (made, left) = prebuilt.into_iter().flatten().fold((0, 0), |(made, left), p| {
                (made + p.tokens.len(), left + p.into_segments().flatten().filter(|t| t.is_some()).count())
            });
            if keep_one {
                assert!(left * 4 > made, "{left} of {made} tokens made ahead were not used: no segment was held");
            } else {
                assert!(left * 4 < made, "{left} of {made} tokens made ahead were not used");
            }
        }
    }

    /// The text repeated until it is long enough to be handed off in several runs.
    fn repeated(text: &str) -> String {
        let mut out = String::new();
        while out.len() < 120_000 {
            out.push_str(text);
            out.push('\n');
        }
        out
    }

    #[test]
    fn two_threads_build_the_same_tree_as_one() {
        let files = crate::fixture_files(&["syntax/ok", "syntax/err", "check", "reparse"]);
        assert!(files.len() > 20, "fixtures not found");
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap_or_default();
            both_ways(&repeated(&text));
        }
    }

    #[test]
    fn two_threads_build_the_same_tree_after_random_edits() {
        let all: String = crate::fixture_files(&["syntax/ok", "check"])
            .iter()
            .map(|p| std::fs::read_to_string(p).unwrap_or_default())
            .collect();
        let junk = ["}", "{", ">>", "/*", "\"", "#if 0\n", "#endif\n", "template <", "(", ";", "[[", "x <y", "\\\n"];
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n.max(1) as u64) as usize
        };
        for _ in 0..6 {
            let mut text = all.clone();
            for _ in 0..40 {
                let mut at = next(text.len());
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                if next(2) == 0 {
                    text.insert_str(at, junk[next(junk.len())]);
                } else {
                    let mut end = (at + next(300)).min(text.len());
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    text.replace_range(at..end, "");
                }
            }
            both_ways(&text);
        }
    }

    #[test]
    fn runs_may_start_inside_a_split_token() {
        // declarations that end after the first `>` of a `>>`, stray closers between
        // declarations, an unclosed brace at the end, and trailing trivia
        let text = "template <typename T> struct A { T v; };\n\
                    A<A<int>> a;\n\
                    A<int>> b;\n\
                    >> ;\n\
                    template <typename T> using B = A<A<T>>;\n\
                    ]] }\n\
                    #define M(x) A<A<x>>\n\
                    M(float) c; // trailing\n";
        both_ways(&repeated(text));
        both_ways(&format!("{}void f() {{ A<A<int>> x;\n  // open\n", repeated(text)));
        // declarations that end in an empty node after their last token: the builder
        // puts the white space before it into the declaration
        both_ways(&repeated("int a;\nj <NSG;\nk /* c */ ;\nfloat b = ;\nstruct S { int x; } s \n"));
    }
}
