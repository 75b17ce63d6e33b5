//! Short texts as two machine words, for the direct-mapped caches that find a token or a
//! name without hashing its bytes or comparing them one by one.

/// Texts of at most this many bytes have a [`ShortText`].
pub(crate) const MAX: usize = 16;

/// A text of up to [`MAX`] bytes as its length and two words loaded from it: its first
/// and last eight bytes, or first and last four, or its first, middle and last byte (the
/// loads overlap in shorter texts). With the length, the words determine the text.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Debug)]
pub(crate) struct ShortText {
    len: u8,
    words: [u64; 2],
}

impl ShortText {
    /// The short form of `b`, which has at most [`MAX`] bytes.
    #[inline]
    pub(crate) fn new(b: &[u8]) -> ShortText {
        debug_assert!(b.len() <= MAX, "a short text has at most {MAX} bytes");
        let n = b.len();
        let w64 = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or_default());
        let w32 = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap_or_default()) as u64;
        let words = match n {
            8.. => [w64(0), w64(n - 8)],
            4..8 => [w32(0) | w32(n - 4) << 32, 0],
            1..4 => [b[0] as u64 | (b[n / 2] as u64) << 8 | (b[n - 1] as u64) << 16, 0],
            0 => [0, 0],
        };
        ShortText { len: n as u8, words }
    }

    /// A hash of the text and `salt` (a token's kind, say) in the low 24 bits.
    #[inline]
    pub(crate) fn hash(&self, salt: u64) -> u64 {
        const K: u64 = 0x9e37_79b9_7f4a_7c15;
        let h = (self.words[0] ^ self.words[1].rotate_left(17) ^ (salt << 8) ^ self.len as u64).wrapping_mul(K);
        // a multiplication mixes upwards: the top bits are the well-mixed ones
        h >> 40
    }
}
