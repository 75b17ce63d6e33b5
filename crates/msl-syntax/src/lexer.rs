//! The lexer: text to tokens, trivia included, every token with its range.
//!
//! Lexing never fails. Malformed input (an unterminated comment or string, a stray
//! character, a bad number suffix) still produces tokens covering every byte, plus
//! errors pointing at the problem.

use std::sync::Arc;

use crate::SyntaxKind::{self, *};
use crate::TextRange;

/// One token: its kind and its byte range in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub kind: SyntaxKind,
    pub start: u32,
    pub len: u32,
}

impl Token {
    pub fn range(&self) -> TextRange {
        TextRange::at(self.start.into(), self.len.into())
    }
    pub fn end(&self) -> u32 {
        self.start + self.len
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexError {
    pub range: TextRange,
    pub message: String,
}

/// What the lexer made of a file, shared by every parse that reads the file (see
/// [`crate::FileResolver::lexed`]). The tokens stay a `Vec` as the lexer made it: turning
/// it into a slice would copy it.
#[derive(Debug, Clone, Default)]
pub struct Lexed {
    pub tokens: Arc<Vec<Token>>,
    pub errors: Arc<Vec<LexError>>,
}

impl Lexed {
    /// Lexes `text` (see [`lex`]).
    pub fn new(text: &str) -> Lexed {
        let (tokens, errors) = lex(text);
        Lexed { tokens: Arc::new(tokens), errors: Arc::new(errors) }
    }
}

/// Lexes `text` completely. The tokens cover every byte of the text, in order.
pub fn lex(text: &str) -> (Vec<Token>, Vec<LexError>) {
    crate::threads::second_thread().then(|| lex_long(text)).flatten().unwrap_or_else(|| lex_one_pass(text))
}

/// Lexes a long text in two halves on two threads (see [`lex_in_halves`]); `None` if the
/// text is short, has no place to split it (a line that starts with something other than
/// white space, near the middle), or no thread could be started.
pub(crate) fn lex_long(text: &str) -> Option<(Vec<Token>, Vec<LexError>)> {
    if text.len() < PARALLEL_LEX_BYTES {
        return None;
    }
    lex_in_halves(text, split_point(text)?)
}

fn lex_one_pass(text: &str) -> (Vec<Token>, Vec<LexError>) {
    let mut lx = Lexer::at(text, 0);
    lx.run(usize::MAX);
    (lx.tokens, lx.errors)
}

/// Texts at least this long are lexed in two halves on two threads.
pub(crate) const PARALLEL_LEX_BYTES: usize = 192 * 1024;

/// Where to split a long text: the start of a line a little before the middle that begins
/// with something other than white space (so that no line-break token runs across it).
/// The first half is the shorter (15/32 of the text) because its thread also copies the
/// second half's tokens in after its own (for ggml's 500 KB file this takes the lexing
/// from 1.3 to 1.2 ms on two threads).
fn split_point(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let from = text.len() * 15 / 32;
    let window = &bytes[from..(from + 64 * 1024).min(bytes.len())];
    window
        .windows(2)
        .position(|w| w[0] == b'\n' && !matches!(w[1], b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c))
        .map(|i| from + i + 1)
}

/// Lexes `text[mid..]` on a second thread while this one lexes up to `mid`. A token
/// starts at every token boundary as it would in one pass (the lexer keeps no state
/// between tokens), so when the first half ends exactly at `mid` the second half's tokens
/// follow on as they are; otherwise (a comment or string runs across `mid`) the first
/// half goes on alone. `None` if no thread could be started.
pub(crate) fn lex_in_halves(text: &str, mid: usize) -> Option<(Vec<Token>, Vec<LexError>)> {
    std::thread::scope(|s| {
        let second = std::thread::Builder::new()
            .name("msl-lex".into())
            .spawn_scoped(s, || {
                let mut lx = Lexer::at(text, mid);
                lx.run(usize::MAX);
                (lx.tokens, lx.errors)
            })
            .ok()?;
        let mut first = Lexer::at(text, 0);
        first.run(mid);
        let (tokens, errors) = second.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
        if first.pos == mid {
            first.tokens.extend(tokens);
            first.errors.extend(errors);
        } else {
            first.run(usize::MAX);
        }
        Some((first.tokens, first.errors))
    })
}

/// The tokens of `text`, lexed a stretch at a time as they are read: the same tokens as
/// [`lex`], for a caller that reads them once, in order, and need not hold them all (a
/// large text's tokens take twelve bytes each). Errors are not reported.
pub fn tokens(text: &str) -> impl Iterator<Item = Token> + '_ {
    /// How many bytes are lexed at a time.
    const STRETCH: usize = 16 * 1024;
    let mut lx = Lexer { text, bytes: text.as_bytes(), pos: 0, tokens: Vec::new(), errors: Vec::new() };
    let mut next = 0;
    std::iter::from_fn(move || {
        if next == lx.tokens.len() {
            lx.tokens.clear();
            lx.errors.clear();
            next = 0;
            // tokens start where they would in one pass: the lexer keeps no state between
            // tokens, and a stretch ends with the token that reaches its end
            let stop = lx.pos.saturating_add(STRETCH);
            lx.run(stop);
        }
        let t = lx.tokens.get(next).copied();
        next += 1;
        t
    })
}

/// Lexes a single token from the start of `text`; used for `##` pasting. Returns `None`
/// unless the whole text is exactly one non-trivia token.
pub fn lex_single(text: &str) -> Option<SyntaxKind> {
    let (tokens, errors) = lex(text);
    match tokens.as_slice() {
        [t] if errors.is_empty() && !t.kind.is_trivia() => Some(t.kind),
        _ => None,
    }
}

struct Lexer<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    tokens: Vec<Token>,
    errors: Vec<LexError>,
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$'
}

/// Byte classes, as bits in [`CLASS`].
mod class {
    /// White space within a line.
    pub const SPACE: u8 = 1;
    /// Line breaks.
    pub const BREAK: u8 = 2;
    /// The bytes that continue an identifier.
    pub const WORD: u8 = 4;
    /// `.`
    pub const DOT: u8 = 8;
    /// Hexadecimal digits.
    pub const HEX: u8 = 16;
}

/// The classes of each byte, as a table (the lexer's innermost loops).
static CLASS: [u8; 256] = {
    let mut t = [0; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if matches!(c, b' ' | b'\t' | 0x0b | 0x0c) {
            t[b] |= class::SPACE;
        }
        if matches!(c, b'\n' | b'\r') {
            t[b] |= class::BREAK;
        }
        if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' {
            t[b] |= class::WORD;
        }
        if c == b'.' {
            t[b] |= class::DOT;
        }
        if c.is_ascii_hexdigit() {
            t[b] |= class::HEX;
        }
        b += 1;
    }
    t
};

fn is_ident_continue(b: u8) -> bool {
    CLASS[b as usize] & class::WORD != 0
}

/// The first position from `pos` on whose byte is in none of `classes`.
#[inline(always)]
fn skip(bytes: &[u8], mut pos: usize, classes: u8) -> usize {
    while let Some(&b) = bytes.get(pos)
        && CLASS[b as usize] & classes != 0
    {
        pos += 1;
    }
    pos
}

impl<'a> Lexer<'a> {
    fn at(text: &'a str, pos: usize) -> Lexer<'a> {
        let expected = (text.len() - pos.min(text.len())) / 3;
        Lexer { text, bytes: text.as_bytes(), pos, tokens: Vec::with_capacity(expected), errors: Vec::new() }
    }

    fn peek(&self, n: usize) -> u8 {
        *self.bytes.get(self.pos + n).unwrap_or(&0)
    }

    fn push(&mut self, kind: SyntaxKind, start: usize) {
        self.tokens.push(Token { kind, start: start as u32, len: (self.pos - start) as u32 });
    }

    fn error(&mut self, start: usize, end: usize, message: impl Into<String>) {
        self.errors.push(LexError {
            range: TextRange::new((start as u32).into(), (end as u32).into()),
            message: message.into(),
        });
    }

    /// Length of a backslash-newline at `pos` (allowing spaces or tabs between the
    /// backslash and the newline), or 0.
    fn continuation_len(&self, pos: usize) -> usize {
        if self.bytes.get(pos) != Some(&b'\\') {
            return 0;
        }
        let mut p = pos + 1;
        while matches!(self.bytes.get(p), Some(b' ' | b'\t')) {
            p += 1;
        }
        match self.bytes.get(p) {
            Some(b'\n') => p + 1 - pos,
            Some(b'\r') if self.bytes.get(p + 1) == Some(&b'\n') => p + 2 - pos,
            Some(b'\r') => p + 1 - pos,
            _ => 0,
        }
    }

    /// Lexes tokens until one ends at or after `stop` (or the text ends).
    ///
    /// Line breaks, white space, identifiers and punctuation (nine tokens in ten) are
    /// lexed here, with the position and the tokens in locals; the rest by the methods
    /// below, from `self.pos` into `self.tokens`.
    fn run(&mut self, stop: usize) {
        let bytes = self.bytes;
        let mut pos = self.pos;
        let mut tokens = std::mem::take(&mut self.tokens);
        // lexes one token with a method of `self`
        macro_rules! by_method {
            ($($call:tt)*) => {{
                self.pos = pos;
                self.tokens = tokens;
                self.$($call)*;
                tokens = std::mem::take(&mut self.tokens);
                pos = self.pos;
                continue;
            }};
        }
        while pos < stop
            && let Some(&b) = bytes.get(pos)
        {
            let start = pos;
            let kind = match b {
                // a line break together with the blank lines and indentation after it
                b'\n' | b'\r' => {
                    pos = skip(bytes, pos + 1, class::SPACE | class::BREAK);
                    NEWLINE
                }
                b' ' | b'\t' | 0x0b | 0x0c => {
                    pos = skip(bytes, pos + 1, class::SPACE);
                    if bytes.get(pos) == Some(&b'\\') {
                        pos = self.spaces_and_continuations(pos);
                    }
                    WHITESPACE
                }
                b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'$' => {
                    pos = skip(bytes, pos + 1, class::WORD);
                    if bytes.get(pos).is_some_and(|&b| b >= 0x80 || b == b'"' || b == b'\'') {
                        // a non-ASCII letter, or a literal's prefix
                        by_method!(ident_or_prefixed_literal(start))
                    }
                    SyntaxKind::from_keyword_bytes(&bytes[start..pos]).unwrap_or(IDENT)
                }
                b'/' if bytes.get(pos + 1) == Some(&b'/') => by_method!(line_comment(start)),
                b'/' if bytes.get(pos + 1) == Some(&b'*') => by_method!(block_comment(start)),
                b'.' if bytes.get(pos + 1).is_some_and(u8::is_ascii_digit) => by_method!(number(start)),
                b'0'..=b'9' | b'"' | b'\'' | b'\\' | 0x80.. => by_method!(other(start, b)),
                _ => {
                    let at = |i: usize| bytes.get(pos + i).copied().unwrap_or(0);
                    let (kind, len) = punct(b, at(1), at(2));
                    pos += len;
                    if kind == ERROR_TOKEN {
                        let shown =
                            if b.is_ascii_graphic() { format!("`{}`", b as char) } else { format!("byte 0x{b:02x}") };
                        self.error(start, pos, format!("unexpected character {shown}"));
                    }
                    kind
                }
            };
            tokens.push(Token { kind, start: start as u32, len: (pos - start) as u32 });
        }
        self.pos = pos;
        self.tokens = tokens;
    }

    /// The end of white space that goes on past line continuations, from a backslash at
    /// `pos`.
    fn spaces_and_continuations(&self, mut pos: usize) -> usize {
        loop {
            let n = self.continuation_len(pos);
            if n == 0 {
                return pos;
            }
            pos = skip(self.bytes, pos + n, class::SPACE);
        }
    }

    /// The tokens that start with a digit, a quote, a backslash or a non-ASCII byte `b`,
    /// at `start` (`self.pos`).
    fn other(&mut self, start: usize, b: u8) {
        match b {
            b'\\' => {
                let n = self.continuation_len(self.pos);
                if n > 0 {
                    self.pos += n;
                    self.push(WHITESPACE, start);
                } else {
                    self.pos += 1;
                    self.error(start, self.pos, "stray `\\` in program");
                    self.push(ERROR_TOKEN, start);
                }
            }
            b'"' => self.string(start, 0),
            b'\'' => self.char_lit(start, 0),
            b'0'..=b'9' => self.number(start),
            _ => self.non_ascii(start),
        }
    }

    fn line_comment(&mut self, start: usize) {
        self.pos += 2;
        while self.pos < self.bytes.len() {
            match self.bytes[self.pos] {
                b'\n' | b'\r' => break,
                b'\\' => {
                    let n = self.continuation_len(self.pos);
                    self.pos += n.max(1);
                }
                _ => self.pos += 1,
            }
        }
        self.push(COMMENT, start);
    }

    fn block_comment(&mut self, start: usize) {
        self.pos += 2;
        match memchr_pair(&self.bytes[self.pos..], b'*', b'/') {
            Some(i) => self.pos += i + 2,
            None => {
                self.pos = self.bytes.len();
                self.error(start, start + 2, "unterminated `/*` comment");
            }
        }
        self.push(COMMENT, start);
    }

    fn non_ascii(&mut self, start: usize) {
        let ch = self.text[start..].chars().next().unwrap_or('\u{fffd}');
        if ch.is_alphabetic() {
            self.ident_or_prefixed_literal(start);
            return;
        }
        self.pos += ch.len_utf8();
        if ch.is_whitespace() {
            self.push(WHITESPACE, start);
        } else {
            self.error(start, self.pos, format!("unexpected character `{ch}`"));
            self.push(ERROR_TOKEN, start);
        }
    }

    fn ident_or_prefixed_literal(&mut self, start: usize) {
        // ASCII first, by table (nearly every identifier); the loop below takes the rest
        while self.pos < self.bytes.len() && is_ident_continue(self.bytes[self.pos]) {
            self.pos += 1;
        }
        loop {
            match self.bytes.get(self.pos) {
                Some(&b) if is_ident_continue(b) => self.pos += 1,
                Some(&b) if b >= 0x80 => {
                    let ch = self.text[self.pos..].chars().next().unwrap_or(' ');
                    if ch.is_alphanumeric() {
                        self.pos += ch.len_utf8();
                    } else {
                        break;
                    }
                }
                _ => break,
            }
        }
        let word = &self.text[start..self.pos];
        if matches!(self.peek(0), b'"' | b'\'') {
            match (word, self.peek(0)) {
                ("u8" | "u" | "U" | "L", b'"') => return self.string(start, 0),
                ("u8" | "u" | "U" | "L", b'\'') => return self.char_lit(start, 0),
                ("R" | "u8R" | "uR" | "UR" | "LR", b'"') => return self.raw_string(start),
                _ => {}
            }
        }
        let kind = SyntaxKind::from_keyword(word).unwrap_or(IDENT);
        self.push(kind, start);
    }

    fn eat_ud_suffix(&mut self) {
        if self.pos < self.bytes.len() && is_ident_start(self.bytes[self.pos]) {
            while self.pos < self.bytes.len() && is_ident_continue(self.bytes[self.pos]) {
                self.pos += 1;
            }
        }
    }

    fn string(&mut self, start: usize, _prefix: usize) {
        // positioned at the opening quote (after any prefix)
        while self.bytes[self.pos] != b'"' {
            self.pos += 1;
        }
        self.pos += 1;
        loop {
            match self.bytes.get(self.pos) {
                None | Some(b'\n') | Some(b'\r') => {
                    self.error(start, self.pos, "missing terminating `\"` character");
                    break;
                }
                Some(b'"') => {
                    self.pos += 1;
                    self.eat_ud_suffix();
                    break;
                }
                Some(b'\\') => {
                    let n = self.continuation_len(self.pos);
                    self.pos += if n > 0 { n } else { 2.min(self.bytes.len() - self.pos) };
                }
                Some(_) => self.pos += 1,
            }
        }
        self.push(STRING_LIT, start);
    }

    fn raw_string(&mut self, start: usize) {
        // at the opening quote; R"delim( ... )delim"
        self.pos += 1;
        let delim_start = self.pos;
        while self.pos < self.bytes.len() && self.bytes[self.pos] != b'(' && self.pos - delim_start <= 16 {
            // a delimiter is made of basic (ASCII) characters: stopping at any other byte
            // also keeps the error's end on a character boundary
            if matches!(self.bytes[self.pos], b' ' | b')' | b'\\' | b'\t' | b'\n' | b'"' | 0x80..) {
                break;
            }
            self.pos += 1;
        }
        if self.bytes.get(self.pos) != Some(&b'(') {
            self.error(start, self.pos, "invalid raw string delimiter");
            self.push(STRING_LIT, start);
            return;
        }
        let delim = &self.text[delim_start..self.pos];
        let closing = format!("){delim}\"");
        self.pos += 1;
        match self.text[self.pos..].find(&closing) {
            Some(i) => {
                self.pos += i + closing.len();
                self.eat_ud_suffix();
            }
            None => {
                self.pos = self.bytes.len();
                self.error(start, start + 2, "unterminated raw string");
            }
        }
        self.push(STRING_LIT, start);
    }

    fn char_lit(&mut self, start: usize, _prefix: usize) {
        while self.bytes[self.pos] != b'\'' {
            self.pos += 1;
        }
        self.pos += 1;
        let body_start = self.pos;
        loop {
            match self.bytes.get(self.pos) {
                None | Some(b'\n') | Some(b'\r') => {
                    self.error(start, self.pos, "missing terminating `'` character");
                    break;
                }
                Some(b'\'') => {
                    if self.pos == body_start {
                        self.error(start, self.pos + 1, "empty character constant");
                    }
                    self.pos += 1;
                    self.eat_ud_suffix();
                    break;
                }
                Some(b'\\') => self.pos += 2.min(self.bytes.len() - self.pos),
                Some(_) => self.pos += 1,
            }
        }
        self.push(CHAR_LIT, start);
    }

    /// A preprocessing number, classified as integer or floating and checked.
    fn number(&mut self, start: usize) {
        let bytes = self.bytes;
        let mut pos = self.pos + 1;
        loop {
            // digits, letters (suffixes, hex digits, exponents) and dots
            pos = skip(bytes, pos, class::WORD | class::DOT);
            match bytes.get(pos) {
                Some(b'+' | b'-') if matches!(bytes[pos - 1], b'e' | b'E' | b'p' | b'P') => {
                    // an exponent's sign, unless the `e` is a hex digit (0x1e+2 is 0x1e + 2)
                    if matches!(bytes[pos - 1], b'e' | b'E')
                        && matches!(bytes.get(start..start + 2), Some(b"0x" | b"0X"))
                    {
                        break;
                    }
                    pos += 1;
                }
                // a digit separator
                Some(b'\'') if bytes.get(pos + 1).is_some_and(u8::is_ascii_alphanumeric) => pos += 1,
                _ => break,
            }
        }
        self.pos = pos;
        let text = &self.text[start..pos];
        match classify_number(text) {
            Ok(kind) => self.push(kind, start),
            Err((kind, msg)) => {
                self.error(start, self.pos, msg);
                self.push(kind, start);
            }
        }
    }
}

/// The punctuator that starts with the bytes `b0`, `b1` and `b2` (0 past the end), by
/// maximal munch, and its length; `ERROR_TOKEN` for a byte that starts none.
fn punct(b0: u8, b1: u8, b2: u8) -> (SyntaxKind, usize) {
    match (b0, b1, b2) {
        (b'<', b'<', b'=') => (SHLEQ, 3),
        (b'>', b'>', b'=') => (SHREQ, 3),
        (b'<', b'=', b'>') => (SPACESHIP, 3),
        (b'.', b'.', b'.') => (DOT3, 3),
        (b'-', b'>', b'*') => (ARROW_STAR, 3),
        (b'<', b'<', _) => (SHL, 2),
        (b'>', b'>', _) => (SHR, 2),
        (b'<', b'=', _) => (LTEQ, 2),
        (b'>', b'=', _) => (GTEQ, 2),
        (b'=', b'=', _) => (EQ2, 2),
        (b'!', b'=', _) => (NEQ, 2),
        (b':', b':', _) => (COLON2, 2),
        (b'.', b'*', _) => (DOT_STAR, 2),
        (b'-', b'>', _) => (ARROW, 2),
        (b'&', b'&', _) => (AMP2, 2),
        (b'|', b'|', _) => (PIPE2, 2),
        (b'+', b'+', _) => (PLUS2, 2),
        (b'-', b'-', _) => (MINUS2, 2),
        (b'+', b'=', _) => (PLUSEQ, 2),
        (b'-', b'=', _) => (MINUSEQ, 2),
        (b'*', b'=', _) => (STAREQ, 2),
        (b'/', b'=', _) => (SLASHEQ, 2),
        (b'%', b'=', _) => (PERCENTEQ, 2),
        (b'&', b'=', _) => (AMPEQ, 2),
        (b'|', b'=', _) => (PIPEEQ, 2),
        (b'^', b'=', _) => (CARETEQ, 2),
        (b'#', b'#', _) => (HASH2, 2),
        (b';', _, _) => (SEMI, 1),
        (b',', _, _) => (COMMA, 1),
        (b'(', _, _) => (L_PAREN, 1),
        (b')', _, _) => (R_PAREN, 1),
        (b'{', _, _) => (L_CURLY, 1),
        (b'}', _, _) => (R_CURLY, 1),
        (b'[', _, _) => (L_BRACK, 1),
        (b']', _, _) => (R_BRACK, 1),
        (b'<', _, _) => (L_ANGLE, 1),
        (b'>', _, _) => (R_ANGLE, 1),
        (b'=', _, _) => (EQ, 1),
        (b'!', _, _) => (BANG, 1),
        (b'~', _, _) => (TILDE, 1),
        (b'?', _, _) => (QUESTION, 1),
        (b':', _, _) => (COLON, 1),
        (b'.', _, _) => (DOT, 1),
        (b'+', _, _) => (PLUS, 1),
        (b'-', _, _) => (MINUS, 1),
        (b'*', _, _) => (STAR, 1),
        (b'/', _, _) => (SLASH, 1),
        (b'%', _, _) => (PERCENT, 1),
        (b'&', _, _) => (AMP, 1),
        (b'|', _, _) => (PIPE, 1),
        (b'^', _, _) => (CARET, 1),
        (b'#', _, _) => (HASH, 1),
        _ => (ERROR_TOKEN, 1),
    }
}

fn memchr_pair(hay: &[u8], a: u8, b: u8) -> Option<usize> {
    let mut i = 0;
    while i + 1 < hay.len() {
        if hay[i] == a && hay[i + 1] == b {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Decides whether a preprocessing number is an integer or a floating literal, and checks
/// its digits and suffix. MSL adds `h`/`H` (half) and `bf`/`BF` (bfloat) float suffixes.
pub fn classify_number(text: &str) -> Result<SyntaxKind, (SyntaxKind, String)> {
    // the common case: a decimal integer without suffix (not octal)
    let octal = text.len() > 1 && text.starts_with('0');
    if !text.is_empty() && !octal && text.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(INT_NUMBER);
    }
    // and a hexadecimal integer without suffix (the tables of lookup-heavy kernels)
    if let Some(digits) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X"))
        && !digits.is_empty()
        && digits.bytes().all(|b| CLASS[b as usize] & class::HEX != 0)
    {
        return Ok(INT_NUMBER);
    }
    // the digits without separators, lowercased (numbers are ASCII: see `Lexer::number`)
    let mut buf = [0u8; 64];
    let heap: Vec<u8>;
    let lower: &[u8] = if text.len() <= buf.len() {
        let mut n = 0;
        for &b in text.as_bytes() {
            if b != b'\'' {
                buf[n] = b.to_ascii_lowercase();
                n += 1;
            }
        }
        &buf[..n]
    } else {
        heap = text.bytes().filter(|&b| b != b'\'').map(|b| b.to_ascii_lowercase()).collect();
        &heap
    };
    let (radix, body) = match lower {
        [b'0', b'x', rest @ ..] => (16, rest),
        [b'0', b'b', rest @ ..] => (2, rest),
        _ => (10, lower),
    };
    let digit_ok = |c: u8| match radix {
        16 => c.is_ascii_hexdigit(),
        _ => c.is_ascii_digit(),
    };
    let mut i = 0;
    let mut has_dot = false;
    let mut has_exp = false;
    let mut digits = 0;
    while i < body.len() {
        let c = body[i];
        if digit_ok(c) {
            digits += 1;
            i += 1;
        } else if c == b'.' && !has_dot && radix != 2 {
            has_dot = true;
            i += 1;
        } else {
            break;
        }
    }
    if (radix == 10 && body.get(i) == Some(&b'e')) || (radix == 16 && body.get(i) == Some(&b'p')) {
        has_exp = true;
        i += 1;
        if matches!(body.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp_start = i;
        while i < body.len() && body[i].is_ascii_digit() {
            i += 1;
        }
        if i == exp_start {
            return Err((FLOAT_NUMBER, format!("exponent has no digits in `{text}`")));
        }
    }
    let suffix = &body[i..];
    // the suffix as written: as many bytes from the end as it has, separators aside
    let written_suffix = || {
        let mut left = suffix.len();
        let mut at = text.len();
        for (i, b) in text.bytes().enumerate().rev() {
            if left == 0 {
                break;
            }
            if b != b'\'' {
                left -= 1;
            }
            at = i;
        }
        text.get(at..).unwrap_or(text)
    };
    let is_float = has_dot || has_exp;
    // a user-defined literal's suffix: `12_km`, `1.5_deg` (C++11)
    let user_defined = suffix.first() == Some(&b'_') && suffix.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_');
    if radix == 16 && has_dot && !has_exp {
        return Err((FLOAT_NUMBER, format!("hexadecimal floating literal `{text}` needs a `p` exponent")));
    }
    if digits == 0 && !(radix == 10 && has_dot) {
        return Err((INT_NUMBER, format!("invalid number `{text}`")));
    }
    if digits == 0 {
        return Err((FLOAT_NUMBER, format!("invalid number `{text}`")));
    }
    if is_float {
        return match suffix {
            b"" | b"f" | b"h" | b"l" | b"bf" => Ok(FLOAT_NUMBER),
            _ if user_defined => Ok(FLOAT_NUMBER),
            _ => Err((FLOAT_NUMBER, format!("invalid suffix `{}` on floating literal", written_suffix()))),
        };
    }
    if radix == 10
        && lower.len() > 1
        && lower[0] == b'0'
        && let Some(&bad) = lower[..lower.len() - suffix.len()].iter().find(|&&c| c == b'8' || c == b'9')
    {
        return Err((INT_NUMBER, format!("invalid digit `{}` in octal constant", bad as char)));
    }
    match suffix {
        b"" | b"u" | b"l" | b"ul" | b"lu" | b"ll" | b"ull" | b"llu" | b"z" | b"uz" | b"zu" => Ok(INT_NUMBER),
        // `1f`, `2h` are accepted by the Metal compiler as floating literals
        b"f" | b"h" | b"bf" if radix == 10 => Ok(FLOAT_NUMBER),
        _ if user_defined => Ok(INT_NUMBER),
        _ => Err((INT_NUMBER, format!("invalid suffix `{}` on integer literal", written_suffix()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_halves_lex_like_one_pass() {
        let tricky = "kernel void k(device float *a [[buffer(0)]]) {\n    /* a comment\n    that spans */ a[0] = 1.5e-3f;\n\
                      #define M(x) \\\n  (x + 1)\n    const char *s = \"text \\\" more\";\n    auto r = R\"d(raw\n)\" )d\";\n\
                      float \u{e9}t\u{e9} = 0x1p-2f; // \u{2014} note\n}\n/* unterminated";
        let mut texts = vec![tricky.to_string()];
        for path in crate::fixture_files(&["check"]).iter().take(6) {
            texts.push(std::fs::read_to_string(path).unwrap_or_default());
        }
        for text in &texts {
            let expected = lex_one_pass(text);
            for mid in (1..text.len()).filter(|&m| text.is_char_boundary(m)) {
                let halves = lex_in_halves(text, mid).expect("a thread");
                assert_eq!(halves, expected, "split at {mid}");
            }
        }
        // the split `lex` picks for long texts
        let long = tricky.repeat(PARALLEL_LEX_BYTES / tricky.len() + 2);
        assert!(split_point(&long).is_some());
        assert_eq!(lex(&long), lex_one_pass(&long));
    }

    #[test]
    fn tokens_a_stretch_at_a_time_are_those_of_one_pass() {
        // stretches end inside comments, strings, raw strings and continuations
        let tricky = "kernel void k(device float *a [[buffer(0)]]) {\n    /* a comment\n    that spans */ a[0] = 1.5e-3f;\n\
                      #define M(x) \\\n  (x + 1)\n    const char *s = \"text \\\" more\";\n    auto r = R\"d(raw\n)\" )d\";\n\
                      float \u{e9}t\u{e9} = 0x1p-2f; // \u{2014} note\n}\n";
        for pad in [0, 1, 7, 100] {
            let text = format!("{}{}/* unterminated", " ".repeat(pad), tricky.repeat(40_000 / tricky.len() + 3));
            assert!(text.len() > 32 * 1024);
            assert_eq!(tokens(&text).collect::<Vec<_>>(), lex_one_pass(&text).0, "padded by {pad}");
        }
        assert_eq!(tokens("").count(), 0);
    }

    fn kinds(text: &str) -> Vec<(SyntaxKind, &str)> {
        let (tokens, errors) = lex(text);
        assert!(errors.is_empty(), "{errors:?}");
        tokens
            .iter()
            .map(|t| (t.kind, &text[t.start as usize..t.end() as usize]))
            .filter(|(k, _)| *k != WHITESPACE)
            .collect()
    }

    #[test]
    fn numbers() {
        for (t, k) in [
            ("0", INT_NUMBER),
            ("42u", INT_NUMBER),
            ("42U", INT_NUMBER),
            ("0x1Fu", INT_NUMBER),
            ("0x0808080808080808", INT_NUMBER),
            ("0Xff", INT_NUMBER),
            ("1'000'000", INT_NUMBER),
            ("0b1010", INT_NUMBER),
            ("10ul", INT_NUMBER),
            ("077", INT_NUMBER),
            ("1.0", FLOAT_NUMBER),
            ("1.f", FLOAT_NUMBER),
            (".5f", FLOAT_NUMBER),
            ("1e10", FLOAT_NUMBER),
            ("1.5e-3f", FLOAT_NUMBER),
            ("2.0h", FLOAT_NUMBER),
            ("2.0H", FLOAT_NUMBER),
            ("1.0bf", FLOAT_NUMBER),
            ("0x1.8p3", FLOAT_NUMBER),
            ("0x1p-2f", FLOAT_NUMBER),
            ("1f", FLOAT_NUMBER),
        ] {
            assert_eq!(classify_number(t), Ok(k), "{t}");
        }
        assert_eq!(classify_number("1x'y"), Err((INT_NUMBER, "invalid suffix `x'y` on integer literal".to_string())));
        // user-defined literals
        assert_eq!(classify_number("12_km"), Ok(INT_NUMBER));
        assert_eq!(classify_number("1'000_n"), Ok(INT_NUMBER));
        assert_eq!(classify_number("0x1F_ab"), Ok(INT_NUMBER));
        assert_eq!(classify_number("1.5_deg"), Ok(FLOAT_NUMBER));
        assert_eq!(classify_number("2e3_x9"), Ok(FLOAT_NUMBER));
        assert!(
            classify_number("12_").is_ok() && classify_number("12_k-m").is_err() && classify_number("12k").is_err()
        );
        for t in ["08", "1.0q", "0x1.8", "1e", "12abc", "0x"] {
            assert!(classify_number(t).is_err(), "{t}");
        }
    }

    #[test]
    fn raw_string_delimiters_stop_at_other_characters() {
        // a delimiter runs into non-ASCII text (found by fuzzing: the error's end fell
        // inside a character, and lexing went on from there)
        for text in [
            "R\"deli\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}(x)\" y",
            "R\"é(x)é\"",
            "R\"abcdefghijklmnopq\u{fffd}",
        ] {
            let (tokens, errors) = lex(text);
            assert_eq!(tokens.iter().map(|t| t.len as usize).sum::<usize>(), text.len(), "{text:?}");
            assert!(errors.iter().any(|e| e.message.contains("raw string")), "{text:?}: {errors:?}");
            for e in &errors {
                assert!(text.is_char_boundary(e.range.start().into()) && text.is_char_boundary(e.range.end().into()));
            }
        }
    }

    #[test]
    fn hex_e_plus_is_not_an_exponent() {
        assert_eq!(kinds("0x1e+2"), vec![(INT_NUMBER, "0x1e"), (PLUS, "+"), (INT_NUMBER, "2")]);
        assert_eq!(kinds("1e+2"), vec![(FLOAT_NUMBER, "1e+2")]);
    }

    #[test]
    fn punctuation_is_maximal_munch() {
        assert_eq!(
            kinds("a>>=b->*c<=>d...[[x]]"),
            vec![
                (IDENT, "a"),
                (SHREQ, ">>="),
                (IDENT, "b"),
                (ARROW_STAR, "->*"),
                (IDENT, "c"),
                (SPACESHIP, "<=>"),
                (IDENT, "d"),
                (DOT3, "..."),
                (L_BRACK, "["),
                (L_BRACK, "["),
                (IDENT, "x"),
                (R_BRACK, "]"),
                (R_BRACK, "]"),
            ]
        );
    }

    #[test]
    fn literals_and_comments() {
        assert_eq!(
            kinds("u8\"a\\\"b\" L'x' R\"xy(a)\"b)xy\" // c\\\n d\n/* e */"),
            vec![
                (STRING_LIT, "u8\"a\\\"b\""),
                (CHAR_LIT, "L'x'"),
                (STRING_LIT, "R\"xy(a)\"b)xy\""),
                (COMMENT, "// c\\\n d"),
                (NEWLINE, "\n"),
                (COMMENT, "/* e */"),
            ]
        );
    }

    #[test]
    fn line_breaks_take_the_indentation() {
        let (tokens, _) = lex("a\n\n    b\r\n\tc");
        let k: Vec<_> = tokens.iter().map(|t| (t.kind, t.len)).collect();
        assert_eq!(k, vec![(IDENT, 1), (NEWLINE, 6), (IDENT, 1), (NEWLINE, 3), (IDENT, 1)]);
    }

    #[test]
    fn line_continuation_is_whitespace() {
        let (tokens, _) = lex("a \\\n b");
        let k: Vec<_> = tokens.iter().map(|t| t.kind).collect();
        assert_eq!(k, vec![IDENT, WHITESPACE, IDENT]);
    }

    #[test]
    fn keywords_including_msl_address_spaces() {
        assert_eq!(
            kinds("device constant thread threadgroup kernel half"),
            vec![
                (DEVICE_KW, "device"),
                (CONSTANT_KW, "constant"),
                (THREAD_KW, "thread"),
                (THREADGROUP_KW, "threadgroup"),
                (KERNEL_KW, "kernel"),
                (IDENT, "half")
            ]
        );
    }

    /// The lexer keeps no state between tokens, so each token lexed alone is the same one
    /// token: a check of where every token ends, over texts made of pieces that end or
    /// run on tokens (prefixes and quotes, continuations, non-ASCII letters, a `.` or
    /// `/` before a digit or a star, the text's end).
    #[test]
    fn every_token_lexes_alone_as_itself() {
        let pieces = [
            "u8",
            "u",
            "R",
            "L",
            "x",
            "_a$",
            "\u{e9}",
            "\u{2014}",
            "\"",
            "'",
            "\\",
            "\\\n",
            "\\ \t\r\n",
            " ",
            "\t",
            "\u{b}",
            "\n",
            "\r\n",
            "  \n ",
            "/",
            "*",
            "/*",
            "*/",
            "//",
            ".",
            "..",
            "5",
            "0x",
            "e+",
            "1'0",
            "-",
            ">",
            ">>=",
            "<",
            "=",
            "#",
            "##",
            "(",
            "@",
            "\u{1}",
            "bf",
            "half",
            "device",
            "constexpr",
            "threadgroup_imageblock",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..3000 {
            let text: String = (0..next(12) + 1).map(|_| pieces[next(pieces.len())]).collect();
            let (tokens, _) = lex(&text);
            let mut at = 0;
            for t in &tokens {
                assert_eq!(t.start, at, "{text:?}: the tokens cover the text in order");
                at = t.end();
                let alone = &text[t.start as usize..t.end() as usize];
                let (again, _) = lex(alone);
                assert_eq!(again, [Token { kind: t.kind, start: 0, len: t.len }], "{alone:?} in {text:?}");
            }
            assert_eq!(at as usize, text.len(), "{text:?}");
        }
    }

    #[test]
    fn errors_do_not_lose_text() {
        let text = "a @ \"open\n'x /* never closed";
        let (tokens, errors) = lex(text);
        let total: u32 = tokens.iter().map(|t| t.len).sum();
        assert_eq!(total as usize, text.len());
        // the char literal runs to the end of its line, swallowing the `/*`
        let messages: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
        assert_eq!(
            messages,
            ["unexpected character `@`", "missing terminating `\"` character", "missing terminating `'` character"]
        );
    }
}
