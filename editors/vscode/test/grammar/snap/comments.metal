/*
 * A multi-line block comment with "quotes" and 'ticks' that must stay a comment.
 */
// A line comment with a continuation \
   that carries on here.
float f(float x); /* trailing block */ // and a line comment
constant char greeting[] = "hello, \"metal\"\n";
constant char path[] = u8"caf\u00e9";
constant char raw[] = R"shader(no \escapes "here")shader";
constant char unterminated_looking[] = "a // not a comment";
