// SYNTAX TEST "source.metal" "numeric literals with Metal's suffixes"

x = 42 + 42u + 42UL + 42ll + 7'000'000;
//  ^^ constant.numeric.integer.decimal.metal
//       ^^ constant.numeric.integer.decimal.metal
//         ^ constant.numeric.integer.decimal.metal keyword.other.unit.suffix.integer.metal
//               ^^ constant.numeric.integer.decimal.metal keyword.other.unit.suffix.integer.metal
//                      ^^ keyword.other.unit.suffix.integer.metal
//                           ^^^^^^^^^ constant.numeric.integer.decimal.metal
x = 0xFF'FFu + 0b1010 + 0777;
//  ^^ constant.numeric.integer.hexadecimal.metal keyword.other.unit.hexadecimal.metal
//    ^^^^^ constant.numeric.integer.hexadecimal.metal
//         ^ keyword.other.unit.suffix.integer.metal
//             ^^^^^^ constant.numeric.integer.binary.metal
//                      ^^^^ constant.numeric.integer.octal.metal
y = 1.0f + .5 + 2. + 1e-3 + 6.5E+2F;
//  ^^^ constant.numeric.float.metal
//     ^ constant.numeric.float.metal keyword.other.unit.suffix.floating-point.metal
//         ^^ constant.numeric.float.metal
//              ^^ constant.numeric.float.metal
//                   ^^^^ constant.numeric.float.metal
//                          ^^^^^^ constant.numeric.float.metal
//                                ^ keyword.other.unit.suffix.floating-point.metal
h = 0.5h + 1.0H + 2.5bf + 3.0BF;
//  ^^^ constant.numeric.float.metal - keyword.other.unit.suffix.floating-point.metal
//     ^ constant.numeric.float.metal keyword.other.unit.suffix.floating-point.metal
//            ^ keyword.other.unit.suffix.floating-point.metal
//                   ^^ constant.numeric.float.metal keyword.other.unit.suffix.floating-point.metal
//                           ^^ keyword.other.unit.suffix.floating-point.metal
z = 0x1.8p3f + 0x1p-2;
//  ^^ constant.numeric.float.hexadecimal.metal keyword.other.unit.hexadecimal.metal
//    ^^^^^ constant.numeric.float.hexadecimal.metal
//         ^ keyword.other.unit.suffix.floating-point.metal
//             ^^^^^^ constant.numeric.float.hexadecimal.metal
v = float4(1) + half2x2(0) + x4;
//  ^^^^^^ storage.type.primitive.metal - constant.numeric.integer.decimal.metal
//              ^^^^^^^ storage.type.matrix.metal
//                           ^^ - constant.numeric
c = 'a' + '\n' + L'\x7f';
//  ^ string.quoted.single.metal punctuation.definition.string.begin.metal
//   ^ string.quoted.single.metal
//         ^^ string.quoted.single.metal constant.character.escape.metal
//               ^ storage.type.string.prefix.metal
//                 ^^^^ constant.character.escape.metal
b = true || false || nullptr;
//  ^^^^ constant.language.boolean.metal
//          ^^^^^ constant.language.boolean.metal
//                   ^^^^^^^ constant.language.null.metal
