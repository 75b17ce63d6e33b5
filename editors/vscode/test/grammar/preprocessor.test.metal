// SYNTAX TEST "source.metal" "preprocessor directives"

#include "shared/types.h"
//       ^ string.quoted.double.include.metal punctuation.definition.string.begin.metal
//        ^^^^^^^^^^^^^^ string.quoted.double.include.metal
#define BLOCK 64
// <- meta.preprocessor.macro.metal keyword.control.directive.define.metal punctuation.definition.directive.metal
//      ^^^^^ entity.name.constant.preprocessor.metal
//            ^^ constant.numeric.integer.decimal.metal
#define MAD(a, b, c) ((a) * (b) + (c))
//      ^^^ entity.name.function.preprocessor.metal
//          ^ variable.parameter.preprocessor.metal
#define BIND(i) \
    [[buffer(i)]]
//  ^^ meta.preprocessor.macro.metal meta.attribute.metal punctuation.definition.attribute.begin.metal
int not_macro;
// <--- storage.type.primitive.metal - meta.preprocessor.macro.metal
#if defined(__METAL_MACOS__) && __METAL_VERSION__ >= 300
// <- keyword.control.directive.conditional.metal
//  ^^^^^^^ keyword.control.directive.conditional.defined.metal
//          ^^^^^^^^^^^^^^^ entity.name.constant.preprocessor.metal
//                              ^^^^^^^^^^^^^^^^^ support.constant.macro.metal
//                                                ^^ keyword.operator.comparison.metal
#elif !defined IOS_ONLY
//    ^ keyword.operator.logical.metal
//     ^^^^^^^ keyword.control.directive.conditional.defined.metal
//             ^^^^^^^^ entity.name.constant.preprocessor.metal
#endif // closing comment
//     ^^ comment.line.double-slash.metal punctuation.definition.comment.metal
#pragma region Utilities
//      ^^^^^^ keyword.control.directive.pragma.region.metal
//             ^^^^^^^^^ entity.name.section.region.metal
#pragma endregion
//      ^^^^^^^^^ keyword.control.directive.pragma.endregion.metal
#pragma METAL internals : enable
// <- keyword.control.directive.pragma.metal
#if 0
int disabled_code(;
// <------------------- comment.block.preprocessor.disabled.metal
#endif
int after;
// <--- storage.type.primitive.metal
#error "unsupported configuration"
//     ^^^^^^^^^^^^^^^^^^^^^^^^^^^ string.unquoted.single.metal
