// SYNTAX TEST "source.metal" "comments and strings"

/* block comment
// <-- comment.block.metal punctuation.definition.comment.begin.metal
   still inside: float4 x; */
// <-------------------------- comment.block.metal
float4 after_block;
// <------ storage.type.primitive.metal
int x = 1; // trailing comment with "quotes"
//         ^^ comment.line.double-slash.metal punctuation.definition.comment.metal
//            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ comment.line.double-slash.metal
constant char msg[] = "tab\t and quote \" // not a comment";
//                    ^ string.quoted.double.metal punctuation.definition.string.begin.metal
//                        ^^ constant.character.escape.metal
//                                     ^^ constant.character.escape.metal
//                                        ^^^^^^^^^^^^^^^^ string.quoted.double.metal - comment
