//! The kinds of tokens and nodes in the syntax tree.

/// Every token and node kind. Tokens come first, then nodes.
#[allow(non_camel_case_types, clippy::upper_case_acronyms)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u16)]
pub enum SyntaxKind {
    // ---- trivia ----
    WHITESPACE = 0,
    NEWLINE,
    COMMENT,
    /// A whole preprocessor directive line, from `#` to the end of the line.
    PP_DIRECTIVE,
    /// Lines skipped by an inactive `#if` branch.
    PP_INACTIVE,
    /// The text of a macro invocation as written; its expansion follows as tokens.
    MACRO_CALL,

    // ---- literals and names ----
    IDENT,
    INT_NUMBER,
    FLOAT_NUMBER,
    CHAR_LIT,
    STRING_LIT,
    /// A character the lexer does not understand.
    ERROR_TOKEN,

    // ---- punctuation ----
    SEMI,
    COMMA,
    L_PAREN,
    R_PAREN,
    L_CURLY,
    R_CURLY,
    L_BRACK,
    R_BRACK,
    L_ANGLE,
    R_ANGLE,
    LTEQ,
    GTEQ,
    SHL,
    SHR,
    SHLEQ,
    SHREQ,
    SPACESHIP,
    EQ,
    EQ2,
    NEQ,
    BANG,
    TILDE,
    QUESTION,
    COLON,
    COLON2,
    DOT,
    DOT3,
    DOT_STAR,
    ARROW,
    ARROW_STAR,
    PLUS,
    MINUS,
    STAR,
    SLASH,
    PERCENT,
    AMP,
    PIPE,
    CARET,
    AMP2,
    PIPE2,
    PLUS2,
    MINUS2,
    PLUSEQ,
    MINUSEQ,
    STAREQ,
    SLASHEQ,
    PERCENTEQ,
    AMPEQ,
    PIPEEQ,
    CARETEQ,
    HASH,
    HASH2,

    // ---- C++ keywords ----
    ALIGNAS_KW,
    ALIGNOF_KW,
    ASM_KW,
    AUTO_KW,
    BOOL_KW,
    BREAK_KW,
    CASE_KW,
    CATCH_KW,
    CHAR_KW,
    CLASS_KW,
    CONST_KW,
    CONSTEVAL_KW,
    CONSTEXPR_KW,
    CONSTINIT_KW,
    CONST_CAST_KW,
    CONTINUE_KW,
    DECLTYPE_KW,
    DEFAULT_KW,
    DELETE_KW,
    DO_KW,
    DOUBLE_KW,
    DYNAMIC_CAST_KW,
    ELSE_KW,
    ENUM_KW,
    EXPLICIT_KW,
    EXPORT_KW,
    EXTERN_KW,
    FALSE_KW,
    FLOAT_KW,
    FOR_KW,
    FRIEND_KW,
    GOTO_KW,
    IF_KW,
    INLINE_KW,
    INT_KW,
    LONG_KW,
    MUTABLE_KW,
    NAMESPACE_KW,
    NEW_KW,
    NOEXCEPT_KW,
    NULLPTR_KW,
    OPERATOR_KW,
    PRIVATE_KW,
    PROTECTED_KW,
    PUBLIC_KW,
    REGISTER_KW,
    REINTERPRET_CAST_KW,
    RETURN_KW,
    SHORT_KW,
    SIGNED_KW,
    SIZEOF_KW,
    STATIC_KW,
    STATIC_ASSERT_KW,
    STATIC_CAST_KW,
    STRUCT_KW,
    SWITCH_KW,
    TEMPLATE_KW,
    THIS_KW,
    THREAD_LOCAL_KW,
    THROW_KW,
    TRUE_KW,
    TRY_KW,
    TYPEDEF_KW,
    TYPEID_KW,
    TYPENAME_KW,
    UNION_KW,
    UNSIGNED_KW,
    USING_KW,
    VIRTUAL_KW,
    VOID_KW,
    VOLATILE_KW,
    WHILE_KW,

    // ---- MSL keywords: address spaces and function qualifiers ----
    DEVICE_KW,
    CONSTANT_KW,
    THREAD_KW,
    THREADGROUP_KW,
    THREADGROUP_IMAGEBLOCK_KW,
    RAY_DATA_KW,
    OBJECT_DATA_KW,
    KERNEL_KW,
    VERTEX_KW,
    FRAGMENT_KW,

    /// End of input (never stored in the tree).
    EOF,

    // ---- nodes ----
    SOURCE_FILE,
    ERROR,

    // declarations
    FUNCTION,
    VAR_DECL,
    INIT_DECLARATOR,
    TYPEDEF_DECL,
    ALIAS_DECL,
    USING_DIRECTIVE,
    USING_DECL,
    NAMESPACE,
    NAMESPACE_ALIAS,
    DECL_LIST,
    STATIC_ASSERT,
    TEMPLATE_DECL,
    /// `Pair(T, T) -> Pair<T>;`: how a class template's arguments follow from a
    /// constructor call.
    DEDUCTION_GUIDE,
    /// A name that is neither declared nor a macro, used as a macro would be: alone or
    /// called, in place of a declaration, a statement or a specifier (a macro from a header
    /// the unit could not find).
    UNKNOWN_MACRO_CALL,
    EXPLICIT_INSTANTIATION,
    LINKAGE_SPEC,
    EMPTY_DECL,
    STRUCT,
    MEMBER_LIST,
    BASE_CLAUSE,
    BASE_SPECIFIER,
    ACCESS_SPECIFIER,
    ENUM,
    ENUMERATOR_LIST,
    ENUMERATOR,
    FRIEND_DECL,

    // declarators and types
    DECL_SPECIFIERS,
    DECLARATOR,
    PAREN_DECLARATOR,
    /// `[a, b]` in `auto [a, b] = f();`: the names a structured binding declares.
    BINDING_LIST,
    PTR_OPERATOR,
    ARRAY_SUFFIX,
    PARAM_LIST,
    PARAM,
    TRAILING_RETURN,
    INITIALIZER,
    CTOR_INITIALIZER,
    MEM_INITIALIZER,
    BIT_FIELD,
    FUNCTION_BODY,
    DEFAULTED_BODY,
    PURE_SPECIFIER,
    NOEXCEPT_SPEC,
    TYPE,
    PATH_TYPE,
    DECLTYPE_TYPE,
    ELABORATED_TYPE,
    BUILTIN_TYPE,
    PATH,
    NAME,
    OPERATOR_NAME,
    DESTRUCTOR_NAME,
    TEMPLATE_PARAM_LIST,
    TYPE_PARAM,
    NON_TYPE_PARAM,
    TEMPLATE_TEMPLATE_PARAM,
    TEMPLATE_ARG_LIST,
    TEMPLATE_ARG,

    // attributes
    ATTRIBUTE_LIST,
    ATTRIBUTE,
    ATTR_ARGS,
    GNU_ATTRIBUTE,
    ALIGNAS_SPEC,
    /// `coherent(device)` / `coherent(system)` memory-coherence qualifier.
    COHERENT_SPEC,

    // statements
    COMPOUND_STMT,
    EXPR_STMT,
    DECL_STMT,
    IF_STMT,
    ELSE_BRANCH,
    CONDITION,
    SWITCH_STMT,
    CASE_LABEL,
    DEFAULT_LABEL,
    WHILE_STMT,
    DO_STMT,
    FOR_STMT,
    FOR_INIT,
    FOR_INCREMENT,
    RANGE_FOR_STMT,
    BREAK_STMT,
    CONTINUE_STMT,
    RETURN_STMT,
    GOTO_STMT,
    LABELED_STMT,
    EMPTY_STMT,
    TRY_STMT,
    CATCH_CLAUSE,
    ASM_STMT,

    // expressions
    LITERAL,
    PATH_EXPR,
    PAREN_EXPR,
    BIN_EXPR,
    PREFIX_EXPR,
    POSTFIX_EXPR,
    CALL_EXPR,
    CONSTRUCT_EXPR,
    ARG_LIST,
    INDEX_EXPR,
    MEMBER_EXPR,
    CAST_EXPR,
    CXX_CAST_EXPR,
    CONDITIONAL_EXPR,
    SIZEOF_EXPR,
    ALIGNOF_EXPR,
    LAMBDA_EXPR,
    CAPTURE_LIST,
    CAPTURE,
    INIT_LIST,
    DESIGNATED_INIT,
    THIS_EXPR,
    NEW_EXPR,
    DELETE_EXPR,
    THROW_EXPR,
    TYPEID_EXPR,
    NOEXCEPT_EXPR,
    DECLTYPE_EXPR,
    PACK_EXPANSION,
    FOLD_EXPR,
    /// GNU statement expression `({ ... })`.
    STMT_EXPR,

    #[doc(hidden)]
    __LAST,
}

use SyntaxKind::*;

impl SyntaxKind {
    /// A node of an expression (from literals to statement expressions): nothing inside
    /// one declares an item.
    pub fn is_expr_node(self) -> bool {
        (LITERAL as u16..=STMT_EXPR as u16).contains(&(self as u16))
    }

    /// Whitespace, newlines, comments, directive lines, inactive regions and macro-call text:
    /// everything the parser skips.
    pub fn is_trivia(self) -> bool {
        matches!(self, WHITESPACE | NEWLINE | COMMENT | PP_DIRECTIVE | PP_INACTIVE | MACRO_CALL)
    }

    pub const fn is_keyword(self) -> bool {
        let k = self as u16;
        ALIGNAS_KW as u16 <= k && k <= FRAGMENT_KW as u16
    }

    pub const fn is_punct(self) -> bool {
        let k = self as u16;
        SEMI as u16 <= k && k <= HASH2 as u16
    }

    pub fn is_literal(self) -> bool {
        matches!(self, INT_NUMBER | FLOAT_NUMBER | CHAR_LIT | STRING_LIT)
    }

    /// Identifiers and keywords: anything the preprocessor may treat as a macro name.
    pub fn is_ident_like(self) -> bool {
        self == IDENT || self.is_keyword() || self == TRUE_KW || self == FALSE_KW
    }

    pub fn is_node(self) -> bool {
        self as u16 > EOF as u16 && self != __LAST
    }

    pub fn is_address_space(self) -> bool {
        matches!(
            self,
            DEVICE_KW
                | CONSTANT_KW
                | THREAD_KW
                | THREADGROUP_KW
                | THREADGROUP_IMAGEBLOCK_KW
                | RAY_DATA_KW
                | OBJECT_DATA_KW
        )
    }

    /// Keywords naming a builtin C++ type (or a part of one, like `unsigned`).
    pub fn is_builtin_type_keyword(self) -> bool {
        matches!(
            self,
            VOID_KW
                | BOOL_KW
                | CHAR_KW
                | SHORT_KW
                | INT_KW
                | LONG_KW
                | FLOAT_KW
                | DOUBLE_KW
                | SIGNED_KW
                | UNSIGNED_KW
                | AUTO_KW
        )
    }

    pub fn from_keyword(ident: &str) -> Option<SyntaxKind> {
        Self::from_keyword_bytes(ident.as_bytes())
    }

    /// The keyword spelled `ident`, if it is one.
    pub fn from_keyword_bytes(ident: &[u8]) -> Option<SyntaxKind> {
        // most identifiers are rejected by their length and first letter alone
        match (ident.first(), KEYWORD_LETTERS.get(ident.len())) {
            (Some(&c @ b'a'..=b'z'), Some(&m)) if m & (1 << (c - b'a')) != 0 => Self::keyword_match(ident),
            _ => None,
        }
    }

    fn keyword_match(ident: &[u8]) -> Option<SyntaxKind> {
        let kw = match ident {
            b"alignas" => ALIGNAS_KW,
            b"alignof" => ALIGNOF_KW,
            b"asm" => ASM_KW,
            b"auto" => AUTO_KW,
            b"bool" => BOOL_KW,
            b"break" => BREAK_KW,
            b"case" => CASE_KW,
            b"catch" => CATCH_KW,
            b"char" => CHAR_KW,
            b"class" => CLASS_KW,
            b"const" => CONST_KW,
            b"consteval" => CONSTEVAL_KW,
            b"constexpr" => CONSTEXPR_KW,
            b"constinit" => CONSTINIT_KW,
            b"const_cast" => CONST_CAST_KW,
            b"continue" => CONTINUE_KW,
            b"decltype" => DECLTYPE_KW,
            b"default" => DEFAULT_KW,
            b"delete" => DELETE_KW,
            b"do" => DO_KW,
            b"double" => DOUBLE_KW,
            b"dynamic_cast" => DYNAMIC_CAST_KW,
            b"else" => ELSE_KW,
            b"enum" => ENUM_KW,
            b"explicit" => EXPLICIT_KW,
            b"export" => EXPORT_KW,
            b"extern" => EXTERN_KW,
            b"false" => FALSE_KW,
            b"float" => FLOAT_KW,
            b"for" => FOR_KW,
            b"friend" => FRIEND_KW,
            b"goto" => GOTO_KW,
            b"if" => IF_KW,
            b"inline" => INLINE_KW,
            b"int" => INT_KW,
            b"long" => LONG_KW,
            b"mutable" => MUTABLE_KW,
            b"namespace" => NAMESPACE_KW,
            b"new" => NEW_KW,
            b"noexcept" => NOEXCEPT_KW,
            b"nullptr" => NULLPTR_KW,
            b"operator" => OPERATOR_KW,
            b"private" => PRIVATE_KW,
            b"protected" => PROTECTED_KW,
            b"public" => PUBLIC_KW,
            b"register" => REGISTER_KW,
            b"reinterpret_cast" => REINTERPRET_CAST_KW,
            b"return" => RETURN_KW,
            b"short" => SHORT_KW,
            b"signed" => SIGNED_KW,
            b"sizeof" => SIZEOF_KW,
            b"static" => STATIC_KW,
            b"static_assert" => STATIC_ASSERT_KW,
            b"static_cast" => STATIC_CAST_KW,
            b"struct" => STRUCT_KW,
            b"switch" => SWITCH_KW,
            b"template" => TEMPLATE_KW,
            b"this" => THIS_KW,
            b"thread_local" => THREAD_LOCAL_KW,
            b"throw" => THROW_KW,
            b"true" => TRUE_KW,
            b"try" => TRY_KW,
            b"typedef" => TYPEDEF_KW,
            b"typeid" => TYPEID_KW,
            b"typename" => TYPENAME_KW,
            b"union" => UNION_KW,
            b"unsigned" => UNSIGNED_KW,
            b"using" => USING_KW,
            b"virtual" => VIRTUAL_KW,
            b"void" => VOID_KW,
            b"volatile" => VOLATILE_KW,
            b"while" => WHILE_KW,
            b"device" => DEVICE_KW,
            b"constant" => CONSTANT_KW,
            b"thread" => THREAD_KW,
            b"threadgroup" => THREADGROUP_KW,
            b"threadgroup_imageblock" => THREADGROUP_IMAGEBLOCK_KW,
            b"ray_data" => RAY_DATA_KW,
            b"object_data" => OBJECT_DATA_KW,
            b"kernel" => KERNEL_KW,
            b"vertex" => VERTEX_KW,
            b"fragment" => FRAGMENT_KW,
            _ => return None,
        };
        Some(kw)
    }

    /// The fixed text of a punctuation token or keyword.
    pub const fn text(self) -> Option<&'static str> {
        let t = match self {
            SEMI => ";",
            COMMA => ",",
            L_PAREN => "(",
            R_PAREN => ")",
            L_CURLY => "{",
            R_CURLY => "}",
            L_BRACK => "[",
            R_BRACK => "]",
            L_ANGLE => "<",
            R_ANGLE => ">",
            LTEQ => "<=",
            GTEQ => ">=",
            SHL => "<<",
            SHR => ">>",
            SHLEQ => "<<=",
            SHREQ => ">>=",
            SPACESHIP => "<=>",
            EQ => "=",
            EQ2 => "==",
            NEQ => "!=",
            BANG => "!",
            TILDE => "~",
            QUESTION => "?",
            COLON => ":",
            COLON2 => "::",
            DOT => ".",
            DOT3 => "...",
            DOT_STAR => ".*",
            ARROW => "->",
            ARROW_STAR => "->*",
            PLUS => "+",
            MINUS => "-",
            STAR => "*",
            SLASH => "/",
            PERCENT => "%",
            AMP => "&",
            PIPE => "|",
            CARET => "^",
            AMP2 => "&&",
            PIPE2 => "||",
            PLUS2 => "++",
            MINUS2 => "--",
            PLUSEQ => "+=",
            MINUSEQ => "-=",
            STAREQ => "*=",
            SLASHEQ => "/=",
            PERCENTEQ => "%=",
            AMPEQ => "&=",
            PIPEEQ => "|=",
            CARETEQ => "^=",
            HASH => "#",
            HASH2 => "##",
            ALIGNAS_KW => "alignas",
            ALIGNOF_KW => "alignof",
            ASM_KW => "asm",
            AUTO_KW => "auto",
            BOOL_KW => "bool",
            BREAK_KW => "break",
            CASE_KW => "case",
            CATCH_KW => "catch",
            CHAR_KW => "char",
            CLASS_KW => "class",
            CONST_KW => "const",
            CONSTEVAL_KW => "consteval",
            CONSTEXPR_KW => "constexpr",
            CONSTINIT_KW => "constinit",
            CONST_CAST_KW => "const_cast",
            CONTINUE_KW => "continue",
            DECLTYPE_KW => "decltype",
            DEFAULT_KW => "default",
            DELETE_KW => "delete",
            DO_KW => "do",
            DOUBLE_KW => "double",
            DYNAMIC_CAST_KW => "dynamic_cast",
            ELSE_KW => "else",
            ENUM_KW => "enum",
            EXPLICIT_KW => "explicit",
            EXPORT_KW => "export",
            EXTERN_KW => "extern",
            FALSE_KW => "false",
            FLOAT_KW => "float",
            FOR_KW => "for",
            FRIEND_KW => "friend",
            GOTO_KW => "goto",
            IF_KW => "if",
            INLINE_KW => "inline",
            INT_KW => "int",
            LONG_KW => "long",
            MUTABLE_KW => "mutable",
            NAMESPACE_KW => "namespace",
            NEW_KW => "new",
            NOEXCEPT_KW => "noexcept",
            NULLPTR_KW => "nullptr",
            OPERATOR_KW => "operator",
            PRIVATE_KW => "private",
            PROTECTED_KW => "protected",
            PUBLIC_KW => "public",
            REGISTER_KW => "register",
            REINTERPRET_CAST_KW => "reinterpret_cast",
            RETURN_KW => "return",
            SHORT_KW => "short",
            SIGNED_KW => "signed",
            SIZEOF_KW => "sizeof",
            STATIC_KW => "static",
            STATIC_ASSERT_KW => "static_assert",
            STATIC_CAST_KW => "static_cast",
            STRUCT_KW => "struct",
            SWITCH_KW => "switch",
            TEMPLATE_KW => "template",
            THIS_KW => "this",
            THREAD_LOCAL_KW => "thread_local",
            THROW_KW => "throw",
            TRUE_KW => "true",
            TRY_KW => "try",
            TYPEDEF_KW => "typedef",
            TYPEID_KW => "typeid",
            TYPENAME_KW => "typename",
            UNION_KW => "union",
            UNSIGNED_KW => "unsigned",
            USING_KW => "using",
            VIRTUAL_KW => "virtual",
            VOID_KW => "void",
            VOLATILE_KW => "volatile",
            WHILE_KW => "while",
            DEVICE_KW => "device",
            CONSTANT_KW => "constant",
            THREAD_KW => "thread",
            THREADGROUP_KW => "threadgroup",
            THREADGROUP_IMAGEBLOCK_KW => "threadgroup_imageblock",
            RAY_DATA_KW => "ray_data",
            OBJECT_DATA_KW => "object_data",
            KERNEL_KW => "kernel",
            VERTEX_KW => "vertex",
            FRAGMENT_KW => "fragment",
            _ => return None,
        };
        Some(t)
    }

    /// The length of [`SyntaxKind::text`] for punctuation and keywords, else 0 (by table).
    pub fn fixed_len(self) -> u32 {
        FIXED_LEN[self as usize] as u32
    }

    /// Whether this punctuator, followed right away by the character `next`, would be read
    /// as a longer punctuator or the start of a comment (`+` then `+`, `-` then `>`, `/`
    /// then `*`). False for anything but punctuators.
    pub fn punct_goes_on(self, next: u8) -> bool {
        let k = self as usize;
        self.is_punct() && next < 128 && PUNCT_GOES_ON[k - SEMI as usize] & (1 << next) != 0
    }

    /// A short human description for error messages: `';'`, `identifier`, ...
    pub fn describe(self) -> String {
        match self {
            IDENT => "identifier".into(),
            INT_NUMBER | FLOAT_NUMBER => "number".into(),
            CHAR_LIT => "character literal".into(),
            STRING_LIT => "string literal".into(),
            EOF => "end of file".into(),
            _ => match self.text() {
                Some(t) => format!("`{t}`"),
                None => format!("{self:?}").to_lowercase(),
            },
        }
    }
}

/// The kind whose discriminant is `d`, for the tables built at compile time (`From<u16>`
/// outside them).
const fn kind_of(d: u16) -> SyntaxKind {
    assert!(d < (__LAST as u16));
    // SAFETY: `SyntaxKind` is `repr(u16)` and `d` is below the last discriminant; all
    // discriminants from 0 to `__LAST` are assigned without gaps.
    unsafe { std::mem::transmute::<u16, SyntaxKind>(d) }
}

/// The first letters of keywords, by length: bit `c - 'a'` of entry `n` is set when a
/// keyword of `n` bytes starts with `c`.
static KEYWORD_LETTERS: [u32; 32] = {
    let mut m = [0u32; 32];
    let mut k = ALIGNAS_KW as u16;
    while k <= FRAGMENT_KW as u16 {
        let kind = kind_of(k);
        if let Some(t) = kind.text()
            && let Some(&c @ b'a'..=b'z') = t.as_bytes().first()
            && t.len() < 32
        {
            m[t.len()] |= 1 << (c - b'a');
        }
        k += 1;
    }
    m
};

/// For each punctuator (from `SEMI`), the characters that continue it: bit `c` is set when
/// some longer punctuator starts with its text followed by `c`, or when the two start a
/// comment.
static PUNCT_GOES_ON: [u128; HASH2 as usize - SEMI as usize + 1] = {
    const fn text(k: u16) -> &'static [u8] {
        match kind_of(k).text() {
            Some(t) => t.as_bytes(),
            None => b"",
        }
    }
    let mut table = [0u128; HASH2 as usize - SEMI as usize + 1];
    let mut k = SEMI as u16;
    while k <= HASH2 as u16 {
        let t = text(k);
        let mut l = SEMI as u16;
        while l <= HASH2 as u16 {
            let longer = text(l);
            if longer.len() > t.len() {
                let mut i = 0;
                while i < t.len() && t[i] == longer[i] {
                    i += 1;
                }
                if i == t.len() && longer[i] < 128 {
                    table[(k - SEMI as u16) as usize] |= 1 << longer[i];
                }
            }
            l += 1;
        }
        k += 1;
    }
    table[SLASH as usize - SEMI as usize] |= 1 << b'/' | 1 << b'*';
    table
};

static FIXED_LEN: [u8; __LAST as usize + 1] = {
    let mut table = [0u8; __LAST as usize + 1];
    let mut k = 0;
    while k < __LAST as u16 {
        let kind = kind_of(k);
        if let (true, Some(text)) = (kind.is_punct() || kind.is_keyword(), kind.text()) {
            table[k as usize] = text.len() as u8;
        }
        k += 1;
    }
    table
};

impl From<u16> for SyntaxKind {
    fn from(d: u16) -> SyntaxKind {
        kind_of(d)
    }
}

impl From<SyntaxKind> for u16 {
    fn from(k: SyntaxKind) -> u16 {
        k as u16
    }
}

impl From<SyntaxKind> for rowan::SyntaxKind {
    fn from(kind: SyntaxKind) -> Self {
        Self(kind as u16)
    }
}

/// The rowan language tag for MSL trees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Msl {}

impl rowan::Language for Msl {
    type Kind = SyntaxKind;
    fn kind_from_raw(raw: rowan::SyntaxKind) -> SyntaxKind {
        SyntaxKind::from(raw.0)
    }
    fn kind_to_raw(kind: SyntaxKind) -> rowan::SyntaxKind {
        kind.into()
    }
}

pub type SyntaxNode = rowan::SyntaxNode<Msl>;
pub type SyntaxToken = rowan::SyntaxToken<Msl>;
pub type SyntaxElement = rowan::SyntaxElement<Msl>;

#[cfg(test)]
mod tests {
    use super::SyntaxKind;

    #[test]
    fn every_keyword_passes_the_quick_filter() {
        let mut keywords = 0;
        for k in 0..SyntaxKind::__LAST as u16 {
            let kind = SyntaxKind::from(k);
            let Some(text) = kind.text() else { continue };
            if let Some(kw) = SyntaxKind::keyword_match(text.as_bytes()) {
                assert_eq!(kw, kind, "{text}");
                assert_eq!(SyntaxKind::from_keyword(text), Some(kind), "{text} is filtered out");
                keywords += 1;
            }
        }
        assert!(keywords >= 80, "{keywords}");
        for not_kw in ["float4", "Kernel", "x", "threadgroup_imageblocks", "_", "uint"] {
            assert_eq!(SyntaxKind::from_keyword(not_kw), None, "{not_kw}");
        }
    }

    #[test]
    fn keywords_are_found_as_by_comparing_their_text() {
        // every keyword, and words a byte away from one: changed, dropped or added
        let mut words = Vec::new();
        for k in 0..SyntaxKind::__LAST as u16 {
            let Some(text) = SyntaxKind::from(k).text() else { continue };
            if !text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                continue;
            }
            words.push(text.to_string());
            for pos in 0..text.len() {
                for b in [b'a', b'z', b'_', b'0'] {
                    let mut changed = text.as_bytes().to_vec();
                    changed[pos] = b;
                    words.push(String::from_utf8(changed).expect("ASCII"));
                }
                words.push(format!("{}{}", &text[..pos], &text[pos + 1..]));
            }
            words.push(format!("{text}s"));
            words.push(format!("{text}_"));
        }
        assert!(words.len() > 2000, "{}", words.len());
        let mut found = 0;
        for w in &words {
            let expected = SyntaxKind::keyword_match(w.as_bytes());
            assert_eq!(SyntaxKind::from_keyword(w), expected, "{w}");
            found += usize::from(expected.is_some());
        }
        assert!(found >= 80, "{found}");
    }
}
