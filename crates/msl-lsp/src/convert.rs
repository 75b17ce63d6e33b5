//! Positions: byte offsets of the analysis to LSP line/character pairs and back, in UTF-16
//! code units (the protocol's default) or UTF-8 bytes (when the client prefers them).

use msl_ide::{TextRange, TextSize};
use tower_lsp_server::ls_types::{Position, Range};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

/// Line starts of a text, with which lines are all ASCII (where both encodings agree with
/// byte offsets).
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<u32>,
    ascii: Vec<bool>,
    len: u32,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        // newlines found with `memchr`, lines checked a word at a time: this runs on
        // every edit, over the whole text
        let mut starts = vec![0u32];
        let mut ascii = Vec::new();
        let mut start = 0usize;
        for (i, _) in text.match_indices('\n') {
            ascii.push(text.as_bytes()[start..i].is_ascii());
            start = i + 1;
            starts.push(start as u32);
        }
        ascii.push(text.as_bytes()[start..].is_ascii());
        LineIndex { starts, ascii, len: text.len() as u32 }
    }

    /// The byte offset of a position; positions past the end of a line or of the text are
    /// clamped to it (clients do send them).
    pub fn offset(&self, text: &str, pos: Position, enc: Encoding) -> TextSize {
        let line = pos.line as usize;
        if line >= self.starts.len() {
            return TextSize::from(self.len);
        }
        let start = self.starts[line] as usize;
        let end = self.starts.get(line + 1).map(|&e| e as usize - 1).unwrap_or(self.len as usize);
        let line_text = text.get(start..end).unwrap_or("");
        let line_text = line_text.strip_suffix('\r').unwrap_or(line_text);
        let col = pos.character as usize;
        let byte = if self.ascii[line] || enc == Encoding::Utf8 {
            let mut c = col.min(line_text.len());
            while c > 0 && !line_text.is_char_boundary(c) {
                c -= 1;
            }
            c
        } else {
            let mut units = 0usize;
            let mut byte = line_text.len();
            for (i, ch) in line_text.char_indices() {
                if units >= col {
                    byte = i;
                    break;
                }
                units += ch.len_utf16();
            }
            byte
        };
        TextSize::from((start + byte) as u32)
    }

    pub fn position(&self, text: &str, offset: TextSize, enc: Encoding) -> Position {
        let off = u32::from(offset).min(self.len);
        let line = self.starts.partition_point(|&s| s <= off).saturating_sub(1);
        let start = self.starts[line];
        let col_bytes = off - start;
        let character = if self.ascii.get(line).copied().unwrap_or(true) || enc == Encoding::Utf8 {
            col_bytes
        } else {
            let mut end = off as usize;
            while end > start as usize && !text.is_char_boundary(end) {
                end -= 1;
            }
            text.get(start as usize..end).map(|s| s.encode_utf16().count() as u32).unwrap_or(col_bytes)
        };
        Position { line: line as u32, character }
    }

    pub fn range(&self, text: &str, range: TextRange, enc: Encoding) -> Range {
        Range { start: self.position(text, range.start(), enc), end: self.position(text, range.end(), enc) }
    }

    pub fn text_range(&self, text: &str, range: Range, enc: Encoding) -> TextRange {
        let s = self.offset(text, range.start, enc);
        let e = self.offset(text, range.end, enc);
        if e < s { TextRange::empty(s) } else { TextRange::new(s, e) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_and_utf8_positions() {
        let text = "ab\n// é𝄞x\nlast";
        let idx = LineIndex::new(text);
        // `x` on line 1: bytes 3 + "// " 3 + é 2 + 𝄞 4 = offset 12
        let x = TextSize::from(text.find('x').unwrap() as u32);
        assert_eq!(idx.position(text, x, Encoding::Utf16), Position { line: 1, character: 6 });
        assert_eq!(idx.position(text, x, Encoding::Utf8), Position { line: 1, character: 9 });
        assert_eq!(idx.offset(text, Position { line: 1, character: 6 }, Encoding::Utf16), x);
        assert_eq!(idx.offset(text, Position { line: 1, character: 9 }, Encoding::Utf8), x);
        // past the end of a line, past the end of the text
        assert_eq!(idx.offset(text, Position { line: 0, character: 99 }, Encoding::Utf16), TextSize::from(2));
        assert_eq!(idx.offset(text, Position { line: 99, character: 0 }, Encoding::Utf16), TextSize::of(text));
        // inside a surrogate pair or a multi-byte character: never a broken offset
        let o = idx.offset(text, Position { line: 1, character: 8 }, Encoding::Utf8);
        assert!(text.is_char_boundary(o.into()));
    }
}
